import { rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { createLiveFeed, type LiveFeed } from './live';
import {
    blankStatus,
    killStream,
    runStream,
    type PipeSource,
    type RelayContext,
    type Stream,
    type StreamStatus,
} from './stream';

export { LOOP_PREFIX } from './ffmpegArgs';
export type { PipeSession, PipeSource, StreamState, StreamStatus } from './stream';

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
 *
 * One camera's relay, from start to retry, is server/video/stream.ts; this file keeps the cameras' relays.
 */

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

/** The relays of one server: the cameras' streams and what they share. */
export interface RelayState {
    dir: string;
    ctx: RelayContext;
    streams: Map<number, Stream>;
    onlineListeners: Array<NonNullable<RelayEvents['onOnline']>>;
    bytesServedTotal: number;
}

const VIEWER_WINDOW_MS = 10_000;
const FILE_NAME = /^(index\.m3u8|seg_\d{5,9}\.ts)$/;

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

export function createRelayState(opts: RelayOptions): RelayState {
    const ffmpeg = opts.ffmpegPath ?? 'ffmpeg';
    const log = opts.log ?? (() => undefined);
    const state: RelayState = {
        dir: opts.dir,
        streams: new Map(),
        onlineListeners: opts.onOnline ? [opts.onOnline] : [],
        bytesServedTotal: 0,
        ctx: {
            ffmpeg,
            ffprobe: path.join(path.dirname(ffmpeg), path.basename(ffmpeg).replace(/ffmpeg/, 'ffprobe')),
            backoff: opts.backoff ?? { initialMs: 1000, maxMs: 30_000 },
            log,
            setOnline: (deviceId, online) => {
                for (const listener of state.onlineListeners) {
                    try {
                        listener(deviceId, online);
                    } catch (err) {
                        log(`video ${deviceId}: status update failed: ${String(err)}`);
                    }
                }
            },
        },
    };
    return state;
}

/**
 * Starts (or restarts with a new address) the relay of one camera: an RTSP URL, or a pipe source. A pipe source's
 * camera keeps the online status its own signalling gives it (gb28181: SIP registration).
 */
export function startRelay(r: RelayState, deviceId: number, source: string | PipeSource) {
    const url = typeof source === 'string' ? source : source.key;
    const old = r.streams.get(deviceId);
    if (old) {
        if (old.url === url && !old.stopped) return;
        old.stopped = true;
        killStream(old);
        old.live.end();
    }
    let s: Stream | undefined = undefined;
    const live = createLiveFeed((bytes) => {
        if (s) s.status.bytesServed += bytes;
        r.bytesServedTotal += bytes;
    });
    s = {
        deviceId,
        url,
        pipe: typeof source === 'string' ? null : source,
        session: null,
        dir: path.join(r.dir, String(deviceId)),
        child: null,
        probe: null,
        loop: null,
        status: { ...blankStatus(), state: 'starting' },
        stderr: [],
        timer: null,
        watcher: null,
        viewers: new Map(),
        live,
        fullAnalysis: false,
        stopped: false,
    };
    r.streams.set(deviceId, s);
    void runStream(r.ctx, s);
}

/** Stops one camera's relay and removes its segments. */
export function stopRelay(r: RelayState, deviceId: number) {
    const s = r.streams.get(deviceId);
    if (!s) return;
    s.stopped = true;
    killStream(s);
    s.live.end();
    if (s.status.state === 'playing' && !s.pipe) r.ctx.setOnline(deviceId, false);
    r.streams.delete(deviceId);
    removeDir(s.dir);
}

export function relayStatus(r: RelayState, deviceId: number, now = Date.now()): StreamStatus {
    const s = r.streams.get(deviceId);
    if (!s) return blankStatus();
    for (const [k, t] of s.viewers) if (now - t > VIEWER_WINDOW_MS) s.viewers.delete(k);
    return { ...s.status, viewers: s.viewers.size + s.live.viewers() };
}

/**
 * A file of a playing stream for a viewer (`viewer` identifies the browser session); undefined when the name is not
 * one of ours or the file is gone (a segment rolled out of the playlist). Counts the bytes and, for the playlist, the
 * viewer.
 */
export function relayFile(r: RelayState, deviceId: number, name: string, viewer: string) {
    const s = r.streams.get(deviceId);
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
    r.bytesServedTotal += size;
    return { path: file, size };
}

/** Figures for /videoData: streams pushing, playing, viewers, bytes answered. */
export function relayStats(r: RelayState, now = Date.now()) {
    let playing = 0;
    let retrying = 0;
    let viewers = 0;
    for (const s of r.streams.values()) {
        if (s.status.state === 'playing') playing++;
        if (s.status.state === 'retrying') retrying++;
        for (const t of s.viewers.values()) if (now - t <= VIEWER_WINDOW_MS) viewers++;
        viewers += s.live.viewers();
    }
    return { relays: r.streams.size, playing, retrying, viewers, bytesServed: r.bytesServedTotal };
}

/** Stops every relay, waits up to 3 s for ffmpeg to exit, then removes the segments. */
export async function closeRelays(r: RelayState) {
    const waits: Array<Promise<void>> = [];
    for (const s of r.streams.values()) {
        s.stopped = true;
        for (const child of [s.child, s.probe]) {
            if (child && child.exitCode === null)
                waits.push(new Promise((resolve) => child.once('exit', () => resolve())));
        }
        killStream(s);
        s.live.end();
    }
    const dirs = [...r.streams.values()].map((s) => s.dir);
    r.streams.clear();
    await Promise.race([Promise.all(waits), new Promise((resolve) => setTimeout(resolve, 3000))]);
    // After ffmpeg has exited: removing while it still writes a segment fails with ENOTEMPTY.
    for (const dir of dirs) removeDir(dir);
}

/** A stream's segment directory, removed even while ffmpeg's last write lands (retried); never throws. */
function removeDir(dir: string) {
    try {
        rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
    } catch {
        // What is left is replaced by the next push of this camera, or goes with the data directory.
    }
}

export function createVideoRelay(opts: RelayOptions) {
    const r = createRelayState(opts);
    return {
        /** Also tell `listener` when a stream starts playing or loses its source. */
        onOnline(listener: NonNullable<RelayEvents['onOnline']>) {
            r.onlineListeners.push(listener);
        },
        start: (deviceId: number, source: string | PipeSource) => startRelay(r, deviceId, source),
        stop: (deviceId: number) => stopRelay(r, deviceId),
        status: (deviceId: number): StreamStatus => relayStatus(r, deviceId),
        file: (deviceId: number, name: string, viewer: string): { path: string; size: number } | undefined =>
            relayFile(r, deviceId, name, viewer),
        stats: () => relayStats(r),
        /** The low-latency path of a camera being relayed (starting or playing), or undefined. */
        live: (deviceId: number): LiveFeed | undefined => r.streams.get(deviceId)?.live,
        /** The camera ids being relayed. */
        active: (): number[] => [...r.streams.keys()],
        close: () => closeRelays(r),
    };
}

export type VideoRelay = ReturnType<typeof createVideoRelay>;
