import { afterEach, describe, expect, it, vi } from 'vitest';
import { analysis, hidePassword, hlsArgs } from '../../server/video/ffmpegArgs';
import { createLiveFeed } from '../../server/video/live';
import { createRelayState, relayFile, relayStats, relayStatus } from '../../server/video/relay';
import {
    backOff,
    blankStatus,
    createPipeHead,
    failStream,
    keepStderr,
    markPlaying,
    STEADY_MS,
    type RelayContext,
    type Stream,
} from '../../server/video/stream';

/** One camera's relay step by step (server/video/stream.ts, ffmpegArgs.ts), without ffmpeg. */

const backoff = { initialMs: 1000, maxMs: 30_000 };

function context(online: Array<[number, boolean]> = []): RelayContext {
    return {
        ffmpeg: 'ffmpeg',
        ffprobe: 'ffprobe',
        backoff,
        log: () => undefined,
        setOnline: (deviceId, on) => online.push([deviceId, on]),
    };
}

function stream(over: Partial<Stream> = {}): Stream {
    return {
        deviceId: 5,
        url: 'rtsp://admin:secret@10.0.0.9:554/live',
        pipe: null,
        session: null,
        dir: '/nonexistent/5',
        child: null,
        probe: null,
        loop: null,
        status: { ...blankStatus(), state: 'starting' },
        stderr: [],
        timer: null,
        watcher: null,
        viewers: new Map(),
        live: createLiveFeed(() => undefined),
        fullAnalysis: false,
        stopped: false,
        ...over,
    };
}

afterEach(() => {
    vi.useRealTimers();
});

describe('back-off', () => {
    it('doubles from the first delay to the cap; a stream that played steadily starts over', () => {
        const status = blankStatus();
        const delays = Array.from({ length: 7 }, () => backOff(status, backoff, 0));
        expect(delays).toEqual([1000, 2000, 4000, 8000, 16_000, 30_000, 30_000]);
        status.playingSince = 1_000;
        expect(backOff(status, backoff, 1_000 + STEADY_MS - 1)).toBe(30_000);
        expect(backOff(status, backoff, 1_000 + STEADY_MS)).toBe(1000);
        expect(status.attempts).toBe(1);
    });

    it('a failure while playing retries, hides the password, and takes the camera offline', () => {
        vi.useFakeTimers();
        const online: Array<[number, boolean]> = [];
        const ctx = context(online);
        const s = stream();
        markPlaying(ctx, s);
        expect(s.status).toMatchObject({ state: 'playing', error: null });
        failStream(ctx, s, '视频源中断：rtsp://admin:secret@10.0.0.9:554/live 401');
        expect(s.status).toMatchObject({
            state: 'retrying',
            attempts: 1,
            playingSince: null,
            error: '视频源中断：rtsp://admin:***@10.0.0.9:554/live 401',
        });
        expect(s.status.retryAt).toBe(Date.now() + 1000);
        expect(s.fullAnalysis).toBe(false);
        expect(online).toEqual([
            [5, true],
            [5, false],
        ]);
        s.stopped = true;
        vi.runOnlyPendingTimers();
    });

    it('a start that fails asks for a full analysis next time; a pipe camera keeps its own online status', () => {
        vi.useFakeTimers();
        const online: Array<[number, boolean]> = [];
        const ctx = context(online);
        const s = stream({ pipe: { key: 'gb', open: async () => Promise.reject(new Error('x')) } });
        failStream(ctx, s, '连接视频源失败');
        expect(s.fullAnalysis).toBe(true);
        s.status.state = 'starting';
        markPlaying(ctx, s);
        failStream(ctx, s, '视频源中断');
        expect(online).toEqual([]);
        s.stopped = true;
        vi.runOnlyPendingTimers();
    });
});

describe('a pipe source', () => {
    it('holds its first bytes until a second has passed or 256 kB came, without a stream map', () => {
        let t = 0;
        const head = createPipeHead(() => t);
        expect(head.push(Buffer.alloc(100))).toBeUndefined();
        t = 999;
        expect(head.push(Buffer.alloc(100))).toBeUndefined();
        t = 1000;
        const ready = head.push(Buffer.alloc(50));
        expect(ready?.codec).toBeUndefined();
        expect(ready?.chunks.map((c) => c.length)).toEqual([100, 100, 50]);

        const big = createPipeHead(() => 0);
        expect(big.push(Buffer.alloc(200 * 1024))).toBeUndefined();
        expect(big.push(Buffer.alloc(56 * 1024))?.chunks).toHaveLength(2);
    });
});

describe('ffmpeg arguments', () => {
    it('a camera starts quickly (no analysis) the first time, with a second of analysis after a failed start', () => {
        expect(analysis({ url: 'rtsp://x', pipe: null, fullAnalysis: false })).toEqual([
            '-analyzeduration',
            '0',
            '-probesize',
            '32',
        ]);
        expect(analysis({ url: 'rtsp://x', pipe: null, fullAnalysis: true })[1]).toBe('1000000');
        expect(analysis({ url: 'loop:/a.ts', pipe: null, fullAnalysis: false })[1]).toBe('1000000');
    });

    it('copies H.264, transcodes anything else, and escapes the tee outputs', () => {
        const s = { url: 'rtsp://x', pipe: null, fullAnalysis: false, dir: '/v/a:b' };
        const copy = hlsArgs(s, [], 'rtsp://x', false);
        expect(copy.slice(copy.indexOf('-c:v'), copy.indexOf('-c:v') + 2)).toEqual(['-c:v', 'copy']);
        expect(copy.at(-1)).toContain('hls_segment_filename=/v/a\\:b/seg_%05d.ts');
        expect(copy.at(-1)).toMatch(/\]\/v\/a\\:b\/index\.m3u8\|\[f=mp4:.*\]pipe\\:1$/);
        expect(hlsArgs(s, [], 'rtsp://x', true)).toContain('libx264');
    });

    it('keeps the last 20 meaningful stderr lines and never shows a password', () => {
        const s = { stderr: [] as string[] };
        keepStderr(s, Buffer.from('Non-monotonous DTS in output\nconnection refused\n'));
        expect(s.stderr).toEqual(['connection refused']);
        for (let i = 0; i < 30; i++) keepStderr(s, Buffer.from(`line ${i}\n`));
        expect(s.stderr).toHaveLength(20);
        expect(s.stderr.at(-1)).toBe('line 29');
        expect(hidePassword('rtsp://u:p@h/x')).toBe('rtsp://u:***@h/x');
    });
});

describe('the relays of a server', () => {
    it('answers only its own file names, counts playlist viewers for 10 s and the bytes served', () => {
        const r = createRelayState({ dir: '/nonexistent' });
        const s = stream({ dir: __dirname });
        r.streams.set(5, s);
        expect(relayFile(r, 5, '../secret', 'v')).toBeUndefined();
        expect(relayFile(r, 5, 'index.m3u8', 'v')).toBeUndefined(); // not written yet
        s.viewers.set('a', 1_000);
        s.viewers.set('b', 20_000);
        expect(relayStats(r, 20_000)).toMatchObject({ relays: 1, viewers: 1 });
        expect(relayStatus(r, 5, 20_000).viewers).toBe(1);
        expect([...s.viewers.keys()]).toEqual(['b']);
        expect(relayStatus(r, 6)).toEqual(blankStatus());
    });
});
