/* eslint-disable @typescript-eslint/no-explicit-any -- the answers are checked by value (toMatchObject), not by type */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestServer, type TestServer } from '../../server/testing';
import { createFmp4Splitter, type Fragment } from '../../server/video/fmp4';
import { createLiveFeed, VIEWER_BUFFER_MAX, VIEWERS_MAX } from '../../server/video/live';
import { startRtspSource, type RtspSource } from './rtspSource';

/**
 * The low-latency path: the relay's ffmpeg writes fragmented MP4 beside the HLS, and /api/video-device/live streams
 * it (init segment, the GOP since the last keyframe, then live fragments) to the console's own signed-in page only;
 * the body ends when the push stops; a viewer that does not read is dropped.
 */

let server: TestServer;
let source: RtspSource;
let id: number;

type Answer = { code: number; msg: string; data: any };
const post = async (path: string, values: Record<string, string | number>) => {
    const body = new URLSearchParams(Object.entries(values).map(([k, v]) => [k, String(v)]));
    const res = await server.fetch(`/api/video-device/${path}`, { method: 'POST', body });
    return (await res.json()) as Answer;
};

/** Reads a live body until `enough` says so (or it ends), splitting it as a player would. */
async function readLive(
    body: ReadableStream<Uint8Array>,
    enough: (seen: { init?: string; frags: Fragment[] }) => boolean,
) {
    const seen: { init?: string; frags: Fragment[]; order: string[]; ended: boolean } = {
        frags: [],
        order: [],
        ended: false,
    };
    const splitter = createFmp4Splitter({
        onInit: (_init, codec) => {
            seen.init = codec;
            seen.order.push('init');
        },
        onFragment: (f) => {
            seen.frags.push(f);
            seen.order.push(f.key ? 'key' : 'frag');
        },
        onError: (m) => seen.order.push(`error ${m}`),
    });
    const reader = body.getReader();
    while (!enough(seen)) {
        const { done, value } = await reader.read();
        if (done) {
            seen.ended = true;
            break;
        }
        splitter.push(Buffer.from(value));
    }
    return { seen, reader };
}

beforeAll(async () => {
    [server, source] = await Promise.all([createTestServer(), startRtspSource()]);
    const list = (await (await server.fetch('/api/product/list-product')).json()) as { data: { list: any[] } };
    const cam = await post('add-rtsp', {
        productId: list.data.list[0].productId,
        deviceName: 'live_cam',
        host: '127.0.0.1',
        port: source.port,
    });
    id = cam.data.deviceId;
});
afterAll(async () => {
    await server.close();
    await source.close();
});

describe('/api/video-device/live', () => {
    it('refuses bad ids in Chinese, and a camera not pushing', async () => {
        const bad = await server.fetch('/api/video-device/live?id=abc');
        expect(bad.status).toBe(400);
        expect((await bad.json()).msg).toMatch(/[\u4e00-\u9fa5]/);
        const idle = await server.fetch(`/api/video-device/live?id=${id}`);
        expect(idle.status).toBe(404);
        expect((await idle.json()).msg).toBe('视频流不存在或未在推流');
    });

    it('opened right after push: waits for the first keyframe, then init + keyframe fragment + live fragments', async () => {
        expect((await post('push', { deviceId: id })).code).toBe(200);
        const res = await server.fetch(`/api/video-device/live?id=${id}`);
        expect(res.status).toBe(200);
        expect(res.headers.get('content-type')).toMatch(/^video\/mp4; codecs="avc1\.[0-9a-f]{6}"$/);
        expect(res.headers.get('cache-control')).toBe('no-store');
        const { seen, reader } = await readLive(res.body!, (s) => s.frags.filter((f) => f.key).length >= 2);
        expect(seen.order[0]).toBe('init');
        expect(seen.order[1]).toBe('key');
        expect(seen.order.filter((o) => o.startsWith('error'))).toEqual([]);
        // 15 fps, a keyframe each second, a fragment per frame: 14 frames between the two keyframes (12 allowed: the
        // test camera's RTP crosses loopback UDP, where a busy machine may lose a packet).
        const between = seen.order.slice(2, -1);
        expect(new Set(between)).toEqual(new Set(['frag']));
        expect(between.length).toBeGreaterThanOrEqual(12);
        expect(between.length).toBeLessThanOrEqual(14);
        await reader.cancel();
    });

    it('a viewer joining later starts at the cached keyframe; viewers count while they read, not after', async () => {
        for (let i = 0; i < 100; i++) {
            const now = (await (await server.fetch(`/api/video-device/stream-status?id=${id}`)).json()).data;
            if (now.state === 'playing') break;
            await new Promise((r) => setTimeout(r, 100));
        }
        const res = await server.fetch(`/api/video-device/live?id=${id}`);
        const { seen, reader } = await readLive(res.body!, (s) => s.frags.length >= 1);
        expect(seen.order.slice(0, 2)).toEqual(['init', 'key']);
        const status = (await (await server.fetch(`/api/video-device/stream-status?id=${id}`)).json()).data;
        expect(status).toMatchObject({ state: 'playing', viewers: 1 });
        expect(status.bytesServed).toBeGreaterThan(0);
        await reader.cancel();
        const after = (await (await server.fetch(`/api/video-device/stream-status?id=${id}`)).json()).data;
        expect(after.viewers).toBe(0);
    });

    it('refuses unauthenticated calls and reads from another site', async () => {
        expect((await server.anonFetch(`/api/video-device/live?id=${id}`)).status).toBe(401);
        const crossSite = await server.fetch(`/api/video-device/live?id=${id}`, {
            headers: { 'Sec-Fetch-Site': 'cross-site' },
        });
        expect(crossSite.status).toBe(403);
        expect((await crossSite.json()).msg).toMatch(/拒绝跨站请求/);
        const sameSite = await server.fetch(`/api/video-device/live?id=${id}`, {
            headers: { 'Sec-Fetch-Site': 'same-site' },
        });
        expect(sameSite.status).toBe(403);
        const foreign = await server.fetch(`/api/video-device/live?id=${id}`, {
            headers: { Origin: 'http://evil.example' },
        });
        expect(foreign.status).toBe(403);
        const own = await server.fetch(`/api/video-device/live?id=${id}`, {
            headers: { 'Sec-Fetch-Site': 'same-origin' },
        });
        expect(own.status).toBe(200);
        await own.body!.cancel();
    });

    it('ends the body when the push stops', async () => {
        const res = await server.fetch(`/api/video-device/live?id=${id}`);
        const reading = readLive(res.body!, () => false);
        await new Promise((r) => setTimeout(r, 300));
        expect((await post('stop-push', { deviceId: id })).code).toBe(200);
        const { seen } = await reading;
        expect(seen.ended).toBe(true);
        expect(seen.order.slice(0, 2)).toEqual(['init', 'key']);
        expect((await server.fetch(`/api/video-device/live?id=${id}`)).status).toBe(404);
    });
});

describe('the live feed', () => {
    const init = Buffer.from('init');
    const frag = (key: boolean, size = 1000): Fragment => ({ bytes: Buffer.alloc(size), key });

    it('drops a viewer that does not read once it is VIEWER_BUFFER_MAX behind; readers keep going', async () => {
        const feed = createLiveFeed();
        feed.init(init, 'avc1.42c00c');
        feed.fragment(frag(true));
        const stalled = feed.open()!;
        const reading = feed.open()!.getReader();
        expect(feed.viewers()).toBe(2);
        const chunk = 256 * 1024;
        for (let sent = 0; sent <= VIEWER_BUFFER_MAX + 2 * chunk; sent += chunk) {
            feed.fragment(frag(false, chunk));
            await reading.read();
        }
        expect(feed.viewers()).toBe(1);
        await expect(stalled.getReader().read()).rejects.toThrow('viewer too slow');
        feed.end();
        expect(feed.viewers()).toBe(0);
    });

    it('holds at most VIEWERS_MAX viewers, caches only from a keyframe, and resets with a restarted ffmpeg', async () => {
        const feed = createLiveFeed();
        feed.init(init, 'avc1.42c00c');
        feed.fragment(frag(false));
        expect(feed.open()).toBeUndefined(); // no keyframe yet: nothing decodable to start with
        await expect(feed.ready(50)).resolves.toBeNull();
        feed.fragment(frag(true));
        await expect(feed.ready(50)).resolves.toBe('avc1.42c00c');
        const viewers = Array.from({ length: VIEWERS_MAX }, () => feed.open());
        expect(viewers.every(Boolean)).toBe(true);
        expect(feed.open()).toBeUndefined();
        feed.reset();
        expect(feed.viewers()).toBe(0);
        expect(feed.open()).toBeUndefined();
        // What was queued (the init segment, the keyframe) is still read; then the body ends.
        const reader = viewers[0]!.getReader();
        expect(Buffer.from((await reader.read()).value!).toString()).toBe(init.toString());
        expect((await reader.read()).value?.length).toBe(1000);
        expect((await reader.read()).done).toBe(true);
    });
});
