import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { loadClipLoop, playClipLoop, type LoopPlayer } from './clipLoop';
import { createFmp4Splitter } from './fmp4';
import { createLiveFeed, type LiveFeed } from './live';
import { psVideoCodec } from './rtp';

/**
 * Live video: while a camera is pushed, one ffmpeg per camera pulls its RTSP stream (over TCP) and writes HLS
 * (a rolling index.m3u8 and 1-second MPEG-TS segments) into videoDir/{deviceId}; the server hands those files to
 * signed-in browsers (hls.js). An H.264 source is copied as it is; anything else is transcoded to H.264, since that
 * is what browsers decode. A dropped or unreachable source is retried with back-off (1 s doubling to 30 s) until
 * stop push. Audio is left out (cameras' G.711 is not playable in HLS anyway).
 *
 * A source may also be a pipe (gb28181: MPEG-PS the platform receives over RTP, server/video/gbPlay.ts): ffmpeg then
 * reads the program stream on its stdin (`-f mpeg -i pipe:0`) and writes the same HLS; a pipe that ends is opened
 * again with the same back-off.
 *
 * The same ffmpeg (one read of the source, one encode when transcoding: the tee muxer) also writes fragmented MP4 to
 * its stdout, kept per camera in memory with the fragments since the last keyframe (server/video/live.ts): the
 * low-latency path a browser with Media Source Extensions opens at once, without waiting for a whole HLS segment.
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

export interface RelayEvents {
    /** The stream started playing (true) or lost its source (false): the camera's online status follows it. */
    onOnline?: (deviceId: number, online: boolean) => void;
}

export interface RelayOptions extends RelayEvents {
    dir: string;
    ffmpegPath?: string;
    /** First retry delay and its cap (ms). */
    backoff?: { initialMs: number; maxMs: number };
    log?: (message: string) => void;
}

interface Stream {
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

const VIEWER_WINDOW_MS = 10_000;
/** A stream that played this long counts as steady: its next failure starts the back-off over. */
const STEADY_MS = 10_000;
/** ffmpeg's warnings about a copied stream's timestamps say nothing about why a source failed. */
const NOISE = /Timestamps are unset|Non-monotonous DTS|deprecated/;
const FILE_NAME = /^(index\.m3u8|seg_\d{5,9}\.ts)$/;
/**
 * The fragmented MP4 beside the HLS: a fragment per frame, written as the frame arrives, so a viewer's first frame
 * waits for neither a whole GOP nor a whole segment (a fragment at least every 100 ms took 0.1-0.2 s more at 15 fps;
 * a frame's moof is about 100 bytes).
 */
const FMP4_OPTIONS = 'f=mp4:movflags=frag_every_frame+empty_moov+default_base_moof';

/** A value inside the tee muxer's output list: its separators escaped. */
const teeEscape = (value: string) => value.replace(/[\\:|[\]]/g, '\\$&');

/**
 * How much of the source ffmpeg reads before it starts writing. An RTSP camera's SDP names the codec and (in
 * sprop-parameter-sets) its size: ffmpeg then needs no media analysis, and its first bytes come 0.14 s after the start
 * instead of 1.3 s. A program stream (a pipe, a local clip) is found only by reading it, and a camera whose SDP lacks
 * the parameters fails the quick start: those get a second of analysis (the second attempt, after such a failure).
 */
function analysis(s: { url: string; pipe: unknown; fullAnalysis: boolean }): string[] {
    const quick = !s.pipe && !s.url.startsWith(LOOP_PREFIX) && !s.fullAnalysis;
    return quick
        ? ['-analyzeduration', '0', '-probesize', '32']
        : ['-analyzeduration', '1000000', '-probesize', '1000000'];
}

/** The camera's RTSP URL from its stored address and account (credentials percent-encoded). */
export function rtspUrl(cam: {
    host: string;
    port?: number | null;
    username?: string | null;
    password?: string | null;
    uri?: string | null;
}): string {
    const auth = cam.username
        ? `${encodeURIComponent(cam.username)}${cam.password ? `:${encodeURIComponent(cam.password)}` : ''}@`
        : '';
    const host = cam.host.includes(':') && !cam.host.startsWith('[') ? `[${cam.host}]` : cam.host;
    const uri = cam.uri ? (cam.uri.startsWith('/') ? cam.uri : `/${cam.uri}`) : '/';
    return `rtsp://${auth}${host}:${cam.port ?? 554}${uri}`;
}

/** A source `loop:{path}`: a local clip the relay plays in a loop, in real time. */
export const LOOP_PREFIX = 'loop:';

/** ffmpeg's stderr names the URL with its password: never show that. */
const hidePassword = (text: string) => text.replace(/(rtsp:\/\/[^:@/\s]+:)[^@\s]*@/g, '$1***@');

export function createVideoRelay(opts: RelayOptions) {
    const ffmpeg = opts.ffmpegPath ?? 'ffmpeg';
    const ffprobe = path.join(path.dirname(ffmpeg), path.basename(ffmpeg).replace(/ffmpeg/, 'ffprobe'));
    const backoff = opts.backoff ?? { initialMs: 1000, maxMs: 30_000 };
    const log = opts.log ?? (() => undefined);
    const streams = new Map<number, Stream>();
    const onlineListeners: Array<NonNullable<RelayEvents['onOnline']>> = opts.onOnline ? [opts.onOnline] : [];
    let bytesServedTotal = 0;

    const blank = (): StreamStatus => ({
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

    function setOnline(s: Stream, online: boolean) {
        for (const listener of onlineListeners) {
            try {
                listener(s.deviceId, online);
            } catch (err) {
                log(`video ${s.deviceId}: status update failed: ${String(err)}`);
            }
        }
    }

    function clearTimers(s: Stream) {
        if (s.timer) clearTimeout(s.timer);
        if (s.watcher) clearInterval(s.watcher);
        s.timer = null;
        s.watcher = null;
    }

    function fail(s: Stream, error: string) {
        if (s.stopped) return;
        kill(s);
        const wasPlaying = s.status.state === 'playing';
        if (s.status.state === 'starting') s.fullAnalysis = true;
        const steady = s.status.playingSince !== null && Date.now() - s.status.playingSince >= STEADY_MS;
        if (steady) s.status.attempts = 0;
        const delay = Math.min(backoff.maxMs, backoff.initialMs * 2 ** Math.min(s.status.attempts, 16));
        s.status.attempts += 1;
        s.status.state = 'retrying';
        s.status.error = hidePassword(error);
        s.status.playingSince = null;
        s.status.retryAt = Date.now() + delay;
        if (wasPlaying && !s.pipe) setOnline(s, false);
        log(`video ${s.deviceId}: ${s.status.error}; retry in ${delay} ms`);
        s.timer = setTimeout(() => run(s), delay);
    }

    /** ffprobe the source first: it says whether the source answers, and whether its video is H.264. */
    function probe(s: Stream): Promise<string> {
        return new Promise((resolve, reject) => {
            const child = spawn(
                ffprobe,
                [
                    '-v',
                    'error',
                    '-rtsp_transport',
                    'tcp',
                    '-timeout',
                    '5000000',
                    // The codec is in the SDP: no analysis of the media names it (0.27 s here, 1.5 s with a second
                    // of analysis). After a failed start, a second of analysis, as for ffmpeg below.
                    ...analysis(s),
                    '-select_streams',
                    'v:0',
                    '-show_entries',
                    'stream=codec_name',
                    '-of',
                    'csv=p=0',
                    s.url,
                ],
                { stdio: ['ignore', 'pipe', 'pipe'] },
            );
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

    async function run(s: Stream) {
        if (s.stopped) return;
        s.timer = null;
        s.status.state = 'starting';
        s.status.retryAt = null;
        if (s.pipe) return runPipe(s, s.pipe);
        // A local H.264 clip played in a loop at its own pace (the demo's test pattern, server/video/testPattern.ts):
        // cut once, then played by the server (server/video/clipLoop.ts); where that cannot be, one ffmpeg copies it.
        if (s.url.startsWith(LOOP_PREFIX)) {
            s.status.codec = 'h264';
            s.status.mode = 'copy';
            const file = s.url.slice(LOOP_PREFIX.length);
            try {
                const clip = await loadClipLoop(ffmpeg, file);
                if (s.stopped) return;
                s.loop = playClipLoop(clip, { dir: s.dir, live: s.live, onPlaylist: () => markPlaying(s) });
            } catch (err) {
                if (s.stopped) return;
                log(`video ${s.deviceId}: 测试画面无法由服务端循环播放（${(err as Error).message}），改用 ffmpeg`);
                spawnHls(s, ['-re', '-stream_loop', '-1'], file, false);
            }
            return;
        }
        const rtsp = ['-rtsp_transport', 'tcp', '-timeout', '5000000'];
        // Quick start: no ffprobe (0.27 s and a process), H.264 assumed and copied; the MP4's init segment then says
        // whether it is (server/video/fmp4.ts), and a camera that is not starts again, probed, at once.
        if (!s.fullAnalysis) {
            s.status.codec = null;
            spawnHls(s, rtsp, s.url, false);
            return;
        }
        let codec: string;
        try {
            codec = await probe(s);
        } catch (err) {
            return fail(s, `连接视频源失败：${(err as Error).message}`);
        }
        if (s.stopped) return;
        s.status.codec = codec;
        spawnHls(s, rtsp, s.url, codec !== 'h264');
    }

    /**
     * A pipe source: opened (the INVITE), its first bytes held until the program stream map names the video codec
     * (ffmpeg's own PS muxer writes no map: then, after a second or 256 kB, H.264 is assumed and copied), then fed
     * to ffmpeg.
     */
    async function runPipe(s: Stream, source: PipeSource) {
        let session: PipeSession;
        try {
            session = await source.open();
        } catch (err) {
            return fail(s, `点播失败：${(err as Error).message}`);
        }
        if (s.stopped) return session.close();
        s.session = session;
        const head: Buffer[] = [];
        let held = 0;
        let firstAt: number | undefined;
        session.onEnd((why) => {
            if (s.session === session) s.session = null;
            fail(s, `视频源中断：${why}`);
        });
        session.onData((chunk) => {
            const stdin = s.child?.stdin;
            if (stdin) {
                if (stdin.writable) stdin.write(chunk);
                return;
            }
            head.push(chunk);
            held += chunk.length;
            firstAt ??= Date.now();
            const codec = psVideoCodec(Buffer.concat(head));
            if (!codec && held < 256 * 1024 && Date.now() - firstAt < 1000) return;
            s.status.codec = codec ?? null;
            const child = spawnHls(s, ['-f', 'mpeg'], 'pipe:0', codec !== undefined && codec !== 'h264');
            child.stdin!.on('error', () => undefined); // ffmpeg gone: its exit says why
            for (const c of head.splice(0)) child.stdin!.write(c);
        });
    }

    /** ffmpeg from `input` to HLS in the stream's directory; `transcode` when the source is not H.264. */
    function spawnHls(s: Stream, inputArgs: string[], input: string, transcode: boolean): ChildProcess {
        s.status.mode = transcode ? 'transcode' : 'copy';
        rmSync(s.dir, { recursive: true, force: true });
        mkdirSync(s.dir, { recursive: true });
        // Through the tee muxer the encoder must put the H.264 parameters in the header (the MP4's avcC).
        const video =
            s.status.mode === 'copy'
                ? ['-c:v', 'copy']
                : [
                      ...['-c:v', 'libx264', '-preset', 'veryfast', '-tune', 'zerolatency', '-g', '25'],
                      ...['-pix_fmt', 'yuv420p', '-flags', '+global_header'],
                  ];
        const pipe = input === 'pipe:0';
        const hls = [
            'f=hls:hls_time=1:hls_list_size=6:hls_flags=delete_segments+omit_endlist+temp_file',
            `hls_segment_filename=${teeEscape(path.join(s.dir, 'seg_%05d.ts'))}`,
        ].join(':');
        const args = [
            '-hide_banner',
            '-nostdin',
            '-loglevel',
            'warning',
            ...inputArgs,
            ...analysis(s),
            '-i',
            input,
            '-map',
            '0:v:0',
            '-an',
            ...video,
            '-f',
            'tee',
            `[${hls}]${teeEscape(path.join(s.dir, 'index.m3u8'))}|[${FMP4_OPTIONS}]pipe\\:1`,
        ];
        const child = spawn(ffmpeg, args, { stdio: [pipe ? 'pipe' : 'ignore', 'pipe', 'pipe'] });
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
                    log(`video ${s.deviceId}: not H.264 with its parameters in the SDP; probing`);
                    s.fullAnalysis = true;
                    kill(s);
                    void run(s);
                } else log(`video ${s.deviceId}: 低延迟流不可用（非 H.264）`);
            },
            onFragment: (fragment) => s.child === child && s.live.fragment(fragment),
            onError: (message) => log(`video ${s.deviceId}: ${message}`),
        });
        child.stdout!.on('data', (d: Buffer) => splitter.push(d));
        child.stderr!.on('data', (d: Buffer) => {
            for (const line of d.toString().split('\n'))
                if (line.trim() && !NOISE.test(line)) s.stderr.push(line.trim());
            if (s.stderr.length > 20) s.stderr.splice(0, s.stderr.length - 20);
        });
        child.on('error', (e) => {
            if (s.child === child) s.child = null;
            fail(s, `无法启动 ffmpeg（${e.message}）`);
        });
        child.on('exit', (code, signal) => {
            if (s.child !== child) return;
            s.child = null;
            const why = s.stderr.slice(-2).join(' ') || `ffmpeg 退出（${code ?? signal}）`;
            // Before its first output ffmpeg was still connecting (the quick start has no ffprobe before it).
            fail(s, `${initSeen ? '视频源中断' : '连接视频源失败'}：${why}`);
        });
        // Playing once the playlist names a segment (the low-latency path opens before: server/video/live.ts).
        const playlist = path.join(s.dir, 'index.m3u8');
        s.watcher = setInterval(() => {
            if (!existsSync(playlist)) return;
            markPlaying(s);
            if (s.watcher) clearInterval(s.watcher);
            s.watcher = null;
        }, 200);
        return child;
    }

    function markPlaying(s: Stream) {
        if (s.status.state !== 'starting') return;
        s.status.state = 'playing';
        s.status.error = null;
        s.status.playingSince = Date.now();
        if (!s.pipe) setOnline(s, true);
        log(`video ${s.deviceId}: playing (${s.status.mode}, ${s.status.codec ?? 'PS'})`);
    }

    function kill(s: Stream) {
        clearTimers(s);
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

    return {
        /** Also tell `listener` when a stream starts playing or loses its source. */
        onOnline(listener: NonNullable<RelayEvents['onOnline']>) {
            onlineListeners.push(listener);
        },

        /**
         * Starts (or restarts with a new address) the relay of one camera: an RTSP URL, or a pipe source. A pipe
         * source's camera keeps the online status its own signalling gives it (gb28181: SIP registration).
         */
        start(deviceId: number, source: string | PipeSource) {
            const url = typeof source === 'string' ? source : source.key;
            const old = streams.get(deviceId);
            if (old) {
                if (old.url === url && !old.stopped) return;
                old.stopped = true;
                kill(old);
                old.live.end();
            }
            let s: Stream | undefined = undefined;
            const live = createLiveFeed((bytes) => {
                if (s) s.status.bytesServed += bytes;
                bytesServedTotal += bytes;
            });
            s = {
                deviceId,
                url,
                pipe: typeof source === 'string' ? null : source,
                session: null,
                dir: path.join(opts.dir, String(deviceId)),
                child: null,
                probe: null,
                loop: null,
                status: { ...blank(), state: 'starting' },
                stderr: [],
                timer: null,
                watcher: null,
                viewers: new Map(),
                live,
                fullAnalysis: false,
                stopped: false,
            };
            streams.set(deviceId, s);
            void run(s);
        },

        /** Stops one camera's relay and removes its segments. */
        stop(deviceId: number) {
            const s = streams.get(deviceId);
            if (!s) return;
            s.stopped = true;
            kill(s);
            s.live.end();
            if (s.status.state === 'playing' && !s.pipe) setOnline(s, false);
            streams.delete(deviceId);
            removeDir(s.dir);
        },

        status(deviceId: number): StreamStatus {
            const s = streams.get(deviceId);
            if (!s) return blank();
            const now = Date.now();
            for (const [k, t] of s.viewers) if (now - t > VIEWER_WINDOW_MS) s.viewers.delete(k);
            return { ...s.status, viewers: s.viewers.size + s.live.viewers() };
        },

        /**
         * A file of a playing stream for a viewer (`viewer` identifies the browser session); undefined when the
         * name is not one of ours or the file is gone (a segment rolled out of the playlist).
         */
        file(deviceId: number, name: string, viewer: string): { path: string; size: number } | undefined {
            const s = streams.get(deviceId);
            if (!s || !FILE_NAME.test(name)) return undefined;
            const file = path.join(s.dir, name);
            let size: number;
            try {
                size = statSync(file).size;
            } catch {
                return undefined;
            }
            if (name === 'index.m3u8') s.viewers.set(viewer, Date.now());
            s.status.bytesServed += size;
            bytesServedTotal += size;
            return { path: file, size };
        },

        /** Figures for /videoData: streams pushing, playing, viewers, bytes answered. */
        stats() {
            let playing = 0;
            let retrying = 0;
            let viewers = 0;
            const now = Date.now();
            for (const s of streams.values()) {
                if (s.status.state === 'playing') playing++;
                if (s.status.state === 'retrying') retrying++;
                for (const t of s.viewers.values()) if (now - t <= VIEWER_WINDOW_MS) viewers++;
                viewers += s.live.viewers();
            }
            return { relays: streams.size, playing, retrying, viewers, bytesServed: bytesServedTotal };
        },

        /** The low-latency path of a camera being relayed (starting or playing), or undefined. */
        live(deviceId: number): LiveFeed | undefined {
            return streams.get(deviceId)?.live;
        },

        /** The camera ids being relayed. */
        active(): number[] {
            return [...streams.keys()];
        },

        async close() {
            const waits: Array<Promise<void>> = [];
            for (const s of streams.values()) {
                s.stopped = true;
                for (const child of [s.child, s.probe]) {
                    if (child && child.exitCode === null)
                        waits.push(new Promise((resolve) => child.once('exit', () => resolve())));
                }
                kill(s);
                s.live.end();
            }
            const dirs = [...streams.values()].map((s) => s.dir);
            streams.clear();
            await Promise.race([Promise.all(waits), new Promise((r) => setTimeout(r, 3000))]);
            // After ffmpeg has exited: removing while it still writes a segment fails with ENOTEMPTY.
            for (const dir of dirs) removeDir(dir);
        },
    };
}

/** A stream's segment directory, removed even while ffmpeg's last write lands (retried); never throws. */
function removeDir(dir: string) {
    try {
        rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
    } catch {
        // What is left is replaced by the next push of this camera, or goes with the data directory.
    }
}

export type VideoRelay = ReturnType<typeof createVideoRelay>;
