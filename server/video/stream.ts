import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { loadClipLoop, playClipLoop, type LoopPlayer } from './clipLoop';
import { LOOP_PREFIX, RTSP_INPUT, hidePassword, hlsArgs, probeArgs } from './ffmpegArgs';
import { createFmp4Splitter } from './fmp4';
import type { LiveFeed } from './live';
import { psVideoCodec } from './rtp';

/**
 * One camera's relay (server/video/relay.ts keeps them): started, playing, failed and retried with back-off, killed.
 * A source is an RTSP URL (ffmpeg pulls it), a `loop:` clip (played by the server, server/video/clipLoop.ts) or a
 * pipe (gb28181's MPEG-PS fed to ffmpeg's stdin).
 */

/** A live program stream the relay reads (a gb28181 call). */
export interface PipeSession {
    onData(listener: (chunk: Buffer) => void): void;
    /** The source ended on its own (the camera hung up, no more data), saying why. */
    onEnd(listener: (why: string) => void): void;
    /** Ends the source (BYE). */
    close(): void;
    stats?(): Record<string, number>;
}

export interface PipeSource {
    /** Says whether a restart of the same camera needs a new source. */
    key: string;
    open(): Promise<PipeSession>;
}

export type StreamState = 'starting' | 'playing' | 'retrying' | 'stopped';

export interface StreamStatus {
    state: StreamState;
    /** The last failure in ffmpeg's own words (its last stderr lines), or ours. */
    error: string | null;
    /** Restarts since the stream last played steadily. */
    attempts: number;
    /** When the next attempt starts (epoch ms), while retrying. */
    retryAt: number | null;
    /** copy (H.264 relayed as it is) or transcode. */
    mode: 'copy' | 'transcode' | null;
    /** The source's video codec as ffprobe saw it. */
    codec: string | null;
    /** Since when the stream has played (epoch ms). */
    playingSince: number | null;
    /** Browsers that fetched the playlist in the last 10 s, and those on the low-latency path. */
    viewers: number;
    /** Bytes of playlist and segments answered to browsers. */
    bytesServed: number;
}

/** What every stream of one relay shares. */
export interface RelayContext {
    ffmpeg: string;
    ffprobe: string;
    /** First retry delay and its cap (ms). */
    backoff: { initialMs: number; maxMs: number };
    log: (message: string) => void;
    /** The stream started playing (true) or lost its source (false). */
    setOnline: (deviceId: number, online: boolean) => void;
}

export interface Stream {
    deviceId: number;
    url: string;
    pipe: PipeSource | null;
    session: PipeSession | null;
    dir: string;
    child: ChildProcess | null;
    probe: ChildProcess | null;
    /** A local clip played by the server itself (no ffmpeg), for a `loop:` source. */
    loop: LoopPlayer | null;
    status: StreamStatus;
    stderr: string[];
    timer: NodeJS.Timeout | null;
    watcher: NodeJS.Timeout | null;
    viewers: Map<string, number>;
    live: LiveFeed;
    /** The next start analyses a second of the source before copying (after a start that failed). */
    fullAnalysis: boolean;
    stopped: boolean;
}

/** A stream that played this long counts as steady: its next failure starts the back-off over. */
export const STEADY_MS = 10_000;
/** ffmpeg's warnings about a copied stream's timestamps say nothing about why a source failed. */
const NOISE = /Timestamps are unset|Non-monotonous DTS|deprecated/;
/** A pipe's first bytes are held this long (or this many) for the program stream map to name the codec. */
const PIPE_HOLD_MS = 1000;
const PIPE_HOLD_BYTES = 256 * 1024;

export const blankStatus = (): StreamStatus => ({
    state: 'stopped',
    error: null,
    attempts: 0,
    retryAt: null,
    mode: null,
    codec: null,
    playingSince: null,
    viewers: 0,
    bytesServed: 0,
});

/**
 * The delay before the next attempt (1 s doubling to the cap), counting the attempt; a stream that had played
 * steadily starts the back-off over.
 */
export function backOff(status: StreamStatus, backoff: RelayContext['backoff'], now: number): number {
    const steady = status.playingSince !== null && now - status.playingSince >= STEADY_MS;
    if (steady) status.attempts = 0;
    const delay = Math.min(backoff.maxMs, backoff.initialMs * 2 ** Math.min(status.attempts, 16));
    status.attempts += 1;
    return delay;
}

/** The source failed: everything of this attempt stops, the next one is scheduled. */
export function failStream(ctx: RelayContext, s: Stream, error: string) {
    if (s.stopped) return;
    killStream(s);
    const wasPlaying = s.status.state === 'playing';
    if (s.status.state === 'starting') s.fullAnalysis = true;
    const delay = backOff(s.status, ctx.backoff, Date.now());
    s.status.state = 'retrying';
    s.status.error = hidePassword(error);
    s.status.playingSince = null;
    s.status.retryAt = Date.now() + delay;
    if (wasPlaying && !s.pipe) ctx.setOnline(s.deviceId, false);
    ctx.log(`video ${s.deviceId}: ${s.status.error}; retry in ${delay} ms`);
    s.timer = setTimeout(() => void runStream(ctx, s), delay);
}

export function markPlaying(ctx: RelayContext, s: Stream) {
    if (s.status.state !== 'starting') return;
    s.status.state = 'playing';
    s.status.error = null;
    s.status.playingSince = Date.now();
    if (!s.pipe) ctx.setOnline(s.deviceId, true);
    ctx.log(`video ${s.deviceId}: playing (${s.status.mode}, ${s.status.codec ?? 'PS'})`);
}

/** Stops this attempt: timers, ffmpeg and ffprobe (SIGTERM, SIGKILL after 2 s), the clip player, the pipe. */
export function killStream(s: Stream) {
    if (s.timer) clearTimeout(s.timer);
    if (s.watcher) clearInterval(s.watcher);
    s.timer = null;
    s.watcher = null;
    for (const child of [s.child, s.probe]) {
        if (!child || child.exitCode !== null) continue;
        child.kill('SIGTERM');
        const hard = setTimeout(() => child.kill('SIGKILL'), 2000);
        child.once('exit', () => clearTimeout(hard));
    }
    s.child = null;
    s.probe = null;
    s.loop?.stop();
    s.loop = null;
    s.live.reset();
    s.session?.close();
    s.session = null;
}

/** ffprobe the source first: it says whether the source answers, and whether its video is H.264. */
function probe(ctx: RelayContext, s: Stream): Promise<string> {
    return new Promise((resolve, reject) => {
        const child = spawn(ctx.ffprobe, probeArgs(s), { stdio: ['ignore', 'pipe', 'pipe'] });
        s.probe = child;
        let out = '';
        let err = '';
        child.stdout.on('data', (d: Buffer) => (out += d.toString()));
        child.stderr.on('data', (d: Buffer) => (err += d.toString()));
        const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
        child.on('error', (e) => {
            clearTimeout(timer);
            s.probe = null;
            reject(new Error(`无法启动 ffprobe（${e.message}）`));
        });
        child.on('close', (code) => {
            clearTimeout(timer);
            s.probe = null;
            const codec = out.trim().split(/\s+/)[0];
            if (code === 0 && codec) resolve(codec);
            else reject(new Error(err.trim().split('\n').slice(-2).join(' ') || '视频源无视频流或无法连接'));
        });
    });
}

/** One attempt to play the stream's source. */
export async function runStream(ctx: RelayContext, s: Stream) {
    if (s.stopped) return;
    s.timer = null;
    s.status.state = 'starting';
    s.status.retryAt = null;
    if (s.pipe) return runPipe(ctx, s, s.pipe);
    if (s.url.startsWith(LOOP_PREFIX)) return runLoop(ctx, s);
    // Quick start: no ffprobe (0.27 s and a process), H.264 assumed and copied; the MP4's init segment then says
    // whether it is (server/video/fmp4.ts), and a camera that is not starts again, probed, at once.
    if (!s.fullAnalysis) {
        s.status.codec = null;
        spawnHls(ctx, s, RTSP_INPUT, s.url, false);
        return;
    }
    let codec: string;
    try {
        codec = await probe(ctx, s);
    } catch (err) {
        return failStream(ctx, s, `连接视频源失败：${(err as Error).message}`);
    }
    if (s.stopped) return;
    s.status.codec = codec;
    spawnHls(ctx, s, RTSP_INPUT, s.url, codec !== 'h264');
}

/**
 * A local H.264 clip played in a loop at its own pace (the demo's test pattern, server/video/testPattern.ts): cut
 * once, then played by the server (server/video/clipLoop.ts); where that cannot be, one ffmpeg copies it.
 */
async function runLoop(ctx: RelayContext, s: Stream) {
    s.status.codec = 'h264';
    s.status.mode = 'copy';
    const file = s.url.slice(LOOP_PREFIX.length);
    try {
        const clip = await loadClipLoop(ctx.ffmpeg, file);
        if (s.stopped) return;
        s.loop = playClipLoop(clip, { dir: s.dir, live: s.live, onPlaylist: () => markPlaying(ctx, s) });
    } catch (err) {
        if (s.stopped) return;
        ctx.log(`video ${s.deviceId}: 测试画面无法由服务端循环播放（${(err as Error).message}），改用 ffmpeg`);
        spawnHls(ctx, s, ['-re', '-stream_loop', '-1'], file, false);
    }
}

/**
 * A pipe's first bytes, held until the program stream map names the video codec (ffmpeg's own PS muxer writes no
 * map: then, after a second or 256 kB, H.264 is assumed). `push` answers undefined while holding, then the codec
 * (undefined: not named) and the bytes held.
 */
export function createPipeHead(now: () => number = Date.now) {
    const head: Buffer[] = [];
    let held = 0;
    let firstAt: number | undefined;
    return {
        push(chunk: Buffer): { codec: string | undefined; chunks: Buffer[] } | undefined {
            head.push(chunk);
            held += chunk.length;
            firstAt ??= now();
            const codec = psVideoCodec(Buffer.concat(head));
            if (!codec && held < PIPE_HOLD_BYTES && now() - firstAt < PIPE_HOLD_MS) return undefined;
            return { codec, chunks: head.splice(0) };
        },
    };
}

/** A pipe source: opened (the INVITE), its first bytes held for the codec (createPipeHead), then fed to ffmpeg. */
async function runPipe(ctx: RelayContext, s: Stream, source: PipeSource) {
    let session: PipeSession;
    try {
        session = await source.open();
    } catch (err) {
        return failStream(ctx, s, `点播失败：${(err as Error).message}`);
    }
    if (s.stopped) return session.close();
    s.session = session;
    const head = createPipeHead();
    session.onEnd((why) => {
        if (s.session === session) s.session = null;
        failStream(ctx, s, `视频源中断：${why}`);
    });
    session.onData((chunk) => {
        const stdin = s.child?.stdin;
        if (stdin) {
            if (stdin.writable) stdin.write(chunk);
            return;
        }
        const ready = head.push(chunk);
        if (!ready) return;
        s.status.codec = ready.codec ?? null;
        const child = spawnHls(ctx, s, ['-f', 'mpeg'], 'pipe:0', ready.codec !== undefined && ready.codec !== 'h264');
        child.stdin!.on('error', () => undefined); // ffmpeg gone: its exit says why
        for (const c of ready.chunks) child.stdin!.write(c);
    });
}

/** ffmpeg from `input` to HLS in the stream's directory and fMP4 to the live feed; `transcode` when not H.264. */
function spawnHls(ctx: RelayContext, s: Stream, inputArgs: string[], input: string, transcode: boolean): ChildProcess {
    s.status.mode = transcode ? 'transcode' : 'copy';
    rmSync(s.dir, { recursive: true, force: true });
    mkdirSync(s.dir, { recursive: true });
    const pipe = input === 'pipe:0';
    const child = spawn(ctx.ffmpeg, hlsArgs(s, inputArgs, input, transcode), {
        stdio: [pipe ? 'pipe' : 'ignore', 'pipe', 'pipe'],
    });
    s.child = child;
    s.stderr = [];
    s.live.reset();
    let initSeen = false;
    const splitter = createFmp4Splitter({
        onInit: (init, codec) => {
            if (s.child !== child) return;
            initSeen = true;
            if (codec) {
                s.status.codec ??= 'h264';
                s.live.init(init, codec);
            } else if (!s.fullAnalysis) {
                // Not H.264, or its parameters missing: again at once, probed and analysed (transcoded if need be).
                ctx.log(`video ${s.deviceId}: not H.264 with its parameters in the SDP; probing`);
                s.fullAnalysis = true;
                killStream(s);
                void runStream(ctx, s);
            } else ctx.log(`video ${s.deviceId}: 低延迟流不可用（非 H.264）`);
        },
        onFragment: (fragment) => s.child === child && s.live.fragment(fragment),
        onError: (message) => ctx.log(`video ${s.deviceId}: ${message}`),
    });
    child.stdout!.on('data', (d: Buffer) => splitter.push(d));
    child.stderr!.on('data', (d: Buffer) => keepStderr(s, d));
    child.on('error', (e) => {
        if (s.child === child) s.child = null;
        failStream(ctx, s, `无法启动 ffmpeg（${e.message}）`);
    });
    child.on('exit', (code, signal) => {
        if (s.child !== child) return;
        s.child = null;
        const why = s.stderr.slice(-2).join(' ') || `ffmpeg 退出（${code ?? signal}）`;
        // Before its first output ffmpeg was still connecting (the quick start has no ffprobe before it).
        failStream(ctx, s, `${initSeen ? '视频源中断' : '连接视频源失败'}：${why}`);
    });
    watchPlaylist(ctx, s);
    return child;
}

/** ffmpeg's last 20 meaningful stderr lines: a failure is told in its own words. */
export function keepStderr(s: Pick<Stream, 'stderr'>, d: Buffer) {
    for (const line of d.toString().split('\n')) if (line.trim() && !NOISE.test(line)) s.stderr.push(line.trim());
    if (s.stderr.length > 20) s.stderr.splice(0, s.stderr.length - 20);
}

/** Playing once the playlist names a segment (the low-latency path opens before: server/video/live.ts). */
function watchPlaylist(ctx: RelayContext, s: Stream) {
    const playlist = path.join(s.dir, 'index.m3u8');
    s.watcher = setInterval(() => {
        if (!existsSync(playlist)) return;
        markPlaying(ctx, s);
        if (s.watcher) clearInterval(s.watcher);
        s.watcher = null;
    }, 200);
}
