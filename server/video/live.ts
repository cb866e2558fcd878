import type { Fragment } from './fmp4';

/**
 * The low-latency path of one pushed camera: the fragmented MP4 its ffmpeg writes beside the HLS, kept in memory as
 * the init segment plus the fragments since the last keyframe (a GOP cache, as ZLMediaKit keeps), so a viewer who
 * joins gets a decodable start at once and then every fragment as it is cut. Each viewer is a byte stream (the
 * route answers it as a chunked HTTP body into Media Source Extensions); a viewer that falls more than
 * VIEWER_BUFFER_MAX behind is dropped, and every viewer's stream ends when the camera's ffmpeg stops or restarts.
 */

/** Bytes queued for one viewer beyond which it is dropped (a slow or stalled reader). */
export const VIEWER_BUFFER_MAX = 4 * 1024 * 1024;
/** A GOP longer than this is not cached: new viewers then wait for the next keyframe. */
export const GOP_CACHE_MAX = 8 * 1024 * 1024;
/** Viewers of one camera at once on this path (the others are refused and fall back to HLS). */
export const VIEWERS_MAX = 64;
/** How long a viewer waits for a starting stream's first keyframe before its answer ends. */
export const START_WAIT_MS = 20_000;

interface Viewer {
    send(bytes: Buffer): void;
    end(): void;
}

export interface LiveFeed {
    /** The init segment and codec string, once ffmpeg has written them. */
    readonly codec: string | null;
    /** Viewers now attached. */
    viewers(): number;
    init(bytes: Buffer, codec: string): void;
    fragment(fragment: Fragment): void;
    /** ffmpeg restarts (a new init segment comes): every viewer's answer ends, the cache empties. */
    reset(): void;
    /** The stream stopped: every viewer's answer ends, waiting ones too. */
    end(): void;
    /** A viewer's byte stream: init, the cached GOP, then live fragments; undefined when VIEWERS_MAX are watching. */
    open(): ReadableStream<Uint8Array> | undefined;
    /** Resolves with the codec once the init segment and a keyframe are here (or null after `ms` or at the end). */
    ready(ms?: number): Promise<string | null>;
}

/** `onSent`: bytes handed to viewers (the relay's bytesServed). */
export function createLiveFeed(onSent: (bytes: number) => void = () => undefined): LiveFeed {
    let init: Buffer | null = null;
    let codec: string | null = null;
    let gop: Buffer[] = [];
    let gopBytes = 0;
    let ended = false;
    const viewers = new Set<Viewer>();
    const waiting = new Set<() => void>();

    const wake = () => {
        for (const w of waiting) w();
        waiting.clear();
    };

    return {
        get codec() {
            return codec;
        },
        viewers: () => viewers.size,
        init(bytes, c) {
            init = bytes;
            codec = c;
            gop = [];
            gopBytes = 0;
        },
        fragment({ bytes, key }) {
            if (!init || ended) return;
            if (key) {
                gop = [];
                gopBytes = 0;
            }
            // Cached only from a keyframe on, and only while the GOP stays bounded.
            if ((key || gop.length > 0) && gopBytes + bytes.length <= GOP_CACHE_MAX) {
                gop.push(bytes);
                gopBytes += bytes.length;
            } else if (!key) {
                gop = [];
                gopBytes = 0;
            }
            if (key && gop.length === 1) wake();
            for (const v of viewers) v.send(bytes);
        },
        reset() {
            init = null;
            gop = [];
            gopBytes = 0;
            for (const v of [...viewers]) v.end();
            viewers.clear();
        },
        end() {
            ended = true;
            this.reset();
            wake();
        },
        open() {
            if (ended || !init || gop.length === 0 || viewers.size >= VIEWERS_MAX) return undefined;
            const start = [init, ...gop];
            let viewer: Viewer | undefined;
            return new ReadableStream<Uint8Array>(
                {
                    start(controller) {
                        let closed = false;
                        const close = () => {
                            if (closed) return;
                            closed = true;
                            if (viewer) viewers.delete(viewer);
                        };
                        viewer = {
                            send(bytes) {
                                if (closed) return;
                                // desiredSize goes negative by what the reader has not taken yet.
                                if ((controller.desiredSize ?? 0) < -VIEWER_BUFFER_MAX) {
                                    close();
                                    controller.error(new Error('viewer too slow'));
                                    return;
                                }
                                controller.enqueue(bytes);
                                onSent(bytes.length);
                            },
                            end() {
                                if (closed) return;
                                close();
                                controller.close();
                            },
                        };
                        viewers.add(viewer);
                        for (const bytes of start) viewer.send(bytes);
                    },
                    cancel() {
                        if (viewer) viewers.delete(viewer);
                    },
                },
                { highWaterMark: 0, size: (chunk: Uint8Array) => chunk.byteLength },
            );
        },
        ready(ms = START_WAIT_MS) {
            if (ended) return Promise.resolve(null);
            if (init && gop.length > 0) return Promise.resolve(codec);
            return new Promise((resolve) => {
                const done = () => {
                    clearTimeout(timer);
                    waiting.delete(done);
                    resolve(!ended && init && gop.length > 0 ? codec : null);
                };
                const timer = setTimeout(done, ms);
                waiting.add(done);
            });
        },
    };
}
