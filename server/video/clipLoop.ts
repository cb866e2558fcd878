import { spawn } from 'node:child_process';
import {
    copyFileSync,
    existsSync,
    linkSync,
    mkdirSync,
    readFileSync,
    renameSync,
    rmSync,
    writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { children, createFmp4Splitter, type Fragment } from './fmp4';
import type { LiveFeed } from './live';

/**
 * A local H.264 clip played in a loop, in real time, without a process: the demo's test pattern
 * (server/video/testPattern.ts). ffmpeg cuts the clip once (copied, kept beside it) into what the relay's viewers read —
 * 1-second HLS segments and a fragmented MP4 of one fragment per frame — and the server plays those on a timer: each
 * frame's fragment into the camera's live feed as its time comes (its decode time moved on by one clip length per
 * loop, so a player sees one continuous stream), each segment into the camera's directory and rolling playlist as it
 * ends (a discontinuity where the clip starts again). The ffmpeg that copied the same clip in a loop held ~46 MB
 * (its shared libraries, mostly) for as long as the demo ran; this holds the clip (~0.1 MB) and one timer.
 */

/** Segments in the rolling playlist, as the relay's ffmpeg writes for a camera (hls_list_size). */
const PLAYLIST_SIZE = 6;

export interface ClipLoop {
    init: Buffer;
    codec: string;
    /** Frames, in order; each fragment's decode time (tfdt) sits at `tfdtAt`. */
    frames: Array<Fragment & { tfdtAt: number; time: number }>;
    /** Ticks (of the track's timescale) of one pass of the clip, and ms. */
    loopTicks: bigint;
    loopMs: number;
    /** The clip's HLS segments: file and duration (s), in order. */
    segments: Array<{ file: string; seconds: number }>;
}

const loaded = new Map<string, Promise<ClipLoop>>();

/** The clip cut for looping (once per clip file; later calls share the first's answer). */
export function loadClipLoop(ffmpegPath: string, clip: string): Promise<ClipLoop> {
    let answer = loaded.get(clip);
    if (!answer) {
        answer = prepare(ffmpegPath, clip).then((dir) => read(dir));
        answer.catch(() => loaded.delete(clip));
        loaded.set(clip, answer);
    }
    return answer;
}

/** Cuts the clip into dir `{clip}.loop` (written aside and renamed: a crash never leaves half of it). */
async function prepare(ffmpegPath: string, clip: string): Promise<string> {
    const dir = `${clip}.loop`;
    if (existsSync(path.join(dir, 'index.m3u8'))) return dir;
    const part = `${dir}.part`;
    rmSync(part, { recursive: true, force: true });
    mkdirSync(part, { recursive: true });
    const esc = (v: string) => v.replace(/[\\:|[\]]/g, '\\$&');
    const hls = `f=hls:hls_time=1:hls_list_size=0:hls_playlist_type=vod:hls_segment_filename=${esc(path.join(part, 'seg_%05d.ts'))}`;
    const mp4 = 'f=mp4:movflags=frag_every_frame+empty_moov+default_base_moof';
    const args = ['-hide_banner', '-nostdin', '-loglevel', 'error', '-y', '-i', clip, '-map', '0:v:0', '-an'];
    args.push(
        '-c:v',
        'copy',
        '-f',
        'tee',
        `[${hls}]${esc(path.join(part, 'index.m3u8'))}|[${mp4}]${esc(path.join(part, 'clip.mp4'))}`,
    );
    const stderr = await new Promise<string>((resolve, reject) => {
        const child = spawn(ffmpegPath, args, { stdio: ['ignore', 'ignore', 'pipe'] });
        let err = '';
        child.stderr.on('data', (d: Buffer) => (err = (err + d.toString()).slice(-2000)));
        child.on('error', reject);
        child.on('close', (code) =>
            code === 0 ? resolve(err) : reject(new Error(err.trim() || `ffmpeg 退出（${code}）`)),
        );
    });
    if (!existsSync(path.join(part, 'index.m3u8'))) throw new Error(`切分测试画面失败：${stderr.trim()}`);
    rmSync(dir, { recursive: true, force: true });
    renameSync(part, dir);
    return dir;
}

/** The box at `names` under `buf`'s top level (its body's start and end), or undefined. */
function find(buf: Buffer, names: string[], start = 0, end = buf.length): [number, number] | undefined {
    for (const [type, s, e] of children(buf, start, end)) {
        if (type !== names[0]) continue;
        return names.length === 1 ? [s, e] : find(buf, names.slice(1), s, e);
    }
    return undefined;
}

function read(dir: string): ClipLoop {
    let init: Buffer | undefined;
    let codec: string | undefined;
    const fragments: Fragment[] = [];
    const splitter = createFmp4Splitter({
        onInit: (bytes, c) => ((init = bytes), (codec = c)),
        onFragment: (f) => fragments.push(f),
        onError: (message) => {
            throw new Error(message);
        },
    });
    splitter.push(readFileSync(path.join(dir, 'clip.mp4')));
    if (!init || !codec || fragments.length < 2) throw new Error('测试画面不是带参数的 H.264');
    const mdhd = find(init, ['moov', 'trak', 'mdia', 'mdhd']);
    if (!mdhd) throw new Error('测试画面缺少 mdhd');
    const timescale = init.readUInt32BE(mdhd[0] + (init[mdhd[0]] === 1 ? 20 : 12));
    const frames = fragments.map((f) => {
        const tfdt = find(f.bytes, ['moof', 'traf', 'tfdt']);
        // ffmpeg writes a 64-bit decode time (version 1): a 32-bit one could not run on for days.
        if (!tfdt || f.bytes[tfdt[0]] !== 1) throw new Error('测试画面的 tfdt 不是 64 位');
        return { ...f, tfdtAt: tfdt[0] + 4, time: Number(f.bytes.readBigUInt64BE(tfdt[0] + 4)) };
    });
    if (!frames[0].key) throw new Error('测试画面不以关键帧开始');
    // One pass lasts its frames' span plus one frame (constant frame rate, as the clip is encoded).
    const frameTicks = (frames[frames.length - 1].time - frames[0].time) / (frames.length - 1);
    const loopTicks = BigInt(Math.round(frameTicks * frames.length));
    const segments: ClipLoop['segments'] = [];
    let seconds = 0;
    for (const line of readFileSync(path.join(dir, 'index.m3u8'), 'utf8').split('\n')) {
        const extinf = /^#EXTINF:([\d.]+)/.exec(line);
        if (extinf) seconds = Number(extinf[1]);
        else if (line && !line.startsWith('#')) segments.push({ file: path.join(dir, line.trim()), seconds });
    }
    if (segments.length === 0) throw new Error('测试画面没有切出 HLS 分片');
    return { init, codec, frames, loopTicks, loopMs: (Number(loopTicks) / timescale) * 1000, segments };
}

export interface LoopPlayer {
    stop(): void;
}

/**
 * Plays `clip` into `live` and HLS in `dir` from now on; `onPlaylist` once the playlist names a segment. Frames are
 * sent as their time comes (a timer to the next due frame, catching up after a stalled event loop); segments at their
 * end.
 */
export function playClipLoop(clip: ClipLoop, out: { dir: string; live: LiveFeed; onPlaylist(): void }): LoopPlayer {
    const started = Date.now();
    const frameMs = clip.loopMs / clip.frames.length;
    const segmentEnds: number[] = [];
    let total = 0;
    for (const s of clip.segments) segmentEnds.push((total += s.seconds * 1000));
    const segmentLoopMs = total;
    let frame = 0; // frames sent, over all loops
    let segment = 0; // segments published, over all loops
    const published: Array<{ name: string; seconds: number; discontinuity: boolean }> = [];
    let discontinuities = 0; // those that rolled out of the playlist
    let lingering: string | null = null;
    const targetDuration = Math.ceil(Math.max(...clip.segments.map((s) => s.seconds)));
    let timer: NodeJS.Timeout | null = null;
    let stopped = false;
    rmSync(out.dir, { recursive: true, force: true });
    mkdirSync(out.dir, { recursive: true });
    out.live.init(clip.init, clip.codec);

    function sendFrame() {
        const n = clip.frames.length;
        const f = clip.frames[frame % n];
        const loop = BigInt(Math.floor(frame / n));
        const bytes = Buffer.from(f.bytes);
        bytes.writeBigUInt64BE(BigInt(f.time) + loop * clip.loopTicks, f.tfdtAt);
        frame++;
        out.live.fragment({ bytes, key: f.key });
    }

    function publishSegment() {
        const n = clip.segments.length;
        const source = clip.segments[segment % n];
        const name = `seg_${String(segment).padStart(5, '0')}.ts`;
        const target = path.join(out.dir, name);
        try {
            linkSync(source.file, target);
        } catch {
            copyFileSync(source.file, target);
        }
        published.push({ name, seconds: source.seconds, discontinuity: segment > 0 && segment % n === 0 });
        segment++;
        while (published.length > PLAYLIST_SIZE) {
            const gone = published.shift()!;
            if (gone.discontinuity) discontinuities++;
            // The segment that left the playlist last stays a moment for a player still fetching it (as ffmpeg's
            // delete_segments keeps one).
            if (lingering) rmSync(path.join(out.dir, lingering), { force: true });
            lingering = gone.name;
        }
        const lines = ['#EXTM3U', '#EXT-X-VERSION:3', `#EXT-X-TARGETDURATION:${targetDuration}`];
        lines.push(
            `#EXT-X-MEDIA-SEQUENCE:${segment - published.length}`,
            `#EXT-X-DISCONTINUITY-SEQUENCE:${discontinuities}`,
        );
        for (const p of published) {
            if (p.discontinuity) lines.push('#EXT-X-DISCONTINUITY');
            lines.push(`#EXTINF:${p.seconds.toFixed(6)},`, p.name);
        }
        const playlist = path.join(out.dir, 'index.m3u8');
        writeFileSync(`${playlist}.tmp`, `${lines.join('\n')}\n`);
        renameSync(`${playlist}.tmp`, playlist);
        if (segment === 1) out.onPlaylist();
    }

    const frameDue = () => frame * frameMs;
    const segmentDue = () =>
        Math.floor(segment / clip.segments.length) * segmentLoopMs + segmentEnds[segment % clip.segments.length];

    function tick() {
        timer = null;
        if (stopped) return;
        const now = Date.now() - started;
        while (frameDue() <= now) sendFrame();
        while (segmentDue() <= now) publishSegment();
        timer = setTimeout(tick, Math.max(0, Math.min(frameDue(), segmentDue()) - (Date.now() - started)));
    }
    tick();

    return {
        stop() {
            stopped = true;
            if (timer) clearTimeout(timer);
            timer = null;
        },
    };
}
