/**
 * The low-latency path of the live player: the server's fragmented MP4 (/api/video-device/live, one chunked body)
 * read with fetch and appended to Media Source Extensions as it comes. The first bytes are the init segment and the
 * fragments since the last keyframe, so the first frame shows as soon as they are appended; then playback is kept
 * near the live edge. No React here: the widget and the video bench use the same code.
 */

export interface LowLatencyOptions {
    headers?: Record<string, string>;
    /** The path cannot play here (no MSE, codec not supported, refused, broken stream): use HLS instead. */
    onUnsupported(reason: string): void;
    /** The stream is not there (yet or any more: 404), or its body ended (push stopped, relay restarted). */
    onEnded(reason: string): void;
}

export interface LowLatencyPlayback {
    stop(): void;
}

type MediaSourceClass = typeof MediaSource;

/** MediaSource, or Safari's ManagedMediaSource (iOS has only that one); undefined without MSE. */
export function mediaSourceClass(): MediaSourceClass | undefined {
    const w = window as unknown as { ManagedMediaSource?: MediaSourceClass; MediaSource?: MediaSourceClass };
    return w.ManagedMediaSource ?? w.MediaSource;
}

/** Behind the live edge by more than this (a stall, a background tab), playback jumps to near the edge. */
const MAX_LAG_S = 2.5;
const EDGE_GAP_S = 0.3;
/** What stays buffered behind the playhead. */
const KEEP_BEHIND_S = 10;

export function playLowLatency(video: HTMLVideoElement, url: string, opts: LowLatencyOptions): LowLatencyPlayback {
    const MS = mediaSourceClass();
    const abort = new AbortController();
    let objectUrl: string | undefined;
    let stopped = false;
    const finish = (report: (reason: string) => void, reason: string) => {
        if (stopped) return;
        stop();
        report(reason);
    };
    function stop() {
        if (stopped) return;
        stopped = true;
        abort.abort();
        if (objectUrl) {
            video.removeAttribute('src');
            video.load();
            URL.revokeObjectURL(objectUrl);
        }
    }
    if (!MS) {
        queueMicrotask(() => finish(opts.onUnsupported, '浏览器不支持 Media Source Extensions'));
        return { stop };
    }

    void (async () => {
        const res = await fetch(url, { headers: opts.headers, signal: abort.signal, credentials: 'same-origin' });
        if (res.status === 404) return finish(opts.onEnded, '视频流未就绪');
        const type = res.headers.get('content-type') ?? '';
        if (!res.ok || !res.body || !type.startsWith('video/mp4'))
            return finish(opts.onUnsupported, `低延迟流不可用（HTTP ${res.status}）`);
        if (!MS.isTypeSupported(type)) return finish(opts.onUnsupported, `浏览器不支持该编码（${type}）`);

        const source = new MS();
        // Safari's ManagedMediaSource plays only with remote playback (AirPlay) turned off.
        video.disableRemotePlayback = true;
        objectUrl = URL.createObjectURL(source);
        video.src = objectUrl;
        await new Promise((resolve) => source.addEventListener('sourceopen', resolve, { once: true }));
        if (stopped) return;
        const buffer = source.addSourceBuffer(type);
        const queue: Uint8Array[] = [];
        let started = false;

        const pump = () => {
            if (stopped || buffer.updating || source.readyState !== 'open') return;
            const b = video.buffered;
            if (b.length > 0) {
                const start = b.start(0);
                const end = b.end(b.length - 1);
                if (video.currentTime < start || end - video.currentTime > MAX_LAG_S)
                    video.currentTime = Math.max(start, end - EDGE_GAP_S);
                if (video.currentTime - start > KEEP_BEHIND_S * 2) {
                    buffer.remove(start, video.currentTime - KEEP_BEHIND_S);
                    return;
                }
                if (!started) {
                    started = true;
                    void video.play().catch(() => undefined);
                }
            }
            if (queue.length === 0) return;
            const chunk = queue.length === 1 ? queue[0] : concat(queue);
            queue.length = 0;
            try {
                buffer.appendBuffer(chunk as Uint8Array<ArrayBuffer>);
            } catch (err) {
                finish(opts.onUnsupported, `低延迟播放出错：${(err as Error).message}`);
            }
        };
        buffer.addEventListener('updateend', pump);
        buffer.addEventListener('error', () => finish(opts.onUnsupported, '低延迟流解码失败'));

        const reader = res.body.getReader();
        for (;;) {
            const { done, value } = await reader.read();
            if (done || stopped) break;
            queue.push(value);
            pump();
        }
        finish(opts.onEnded, '视频流已结束');
    })().catch((err: Error) => {
        if (!stopped) finish(opts.onEnded, `视频流中断：${err.message}`);
    });
    return { stop };
}

function concat(parts: Uint8Array[]): Uint8Array {
    const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const p of parts) {
        out.set(p, at);
        at += p.length;
    }
    return out;
}
