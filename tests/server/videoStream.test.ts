/* eslint-disable @typescript-eslint/no-explicit-any -- the answers are checked by value (toMatchObject), not by type */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestServer, type TestServer } from '../../server/testing';
import { startRtspSource, type RtspSource } from './rtspSource';

/**
 * Push is real: the platform's ffmpeg pulls a local RTSP camera (tests/server/rtspSource.ts, a generated test
 * picture) and serves HLS to signed-in clients; a dropped source is retried until it is back; stop push ends it.
 */

let server: TestServer;
let source: RtspSource;
let productId: number;

type Answer = { code: number; msg: string; data: any };
const post = async (path: string, values: Record<string, string | number>) => {
    const body = new URLSearchParams(Object.entries(values).map(([k, v]) => [k, String(v)]));
    const res = await server.fetch(`/api/video-device/${path}`, { method: 'POST', body });
    return (await res.json()) as Answer;
};
const get = async (path: string) => (await (await server.fetch(`/api/video-device/${path}`)).json()) as Answer;

/** Polls the stream's state until `ok` holds (the relay works in the background). */
async function until(id: number, ok: (s: any) => boolean, what: string) {
    let last: any;
    for (let i = 0; i < 300; i++) {
        last = (await get(`stream-status?id=${id}`)).data;
        if (ok(last)) return last;
        await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`${what}: last state ${JSON.stringify(last)}`);
}

beforeAll(async () => {
    [server, source] = await Promise.all([
        createTestServer(),
        startRtspSource({ username: 'admin', password: 'cam_pass1', path: '/h264/ch1/sub/av_stream' }),
    ]);
    const list = (await (await server.fetch('/api/product/list-product')).json()) as { data: { list: any[] } };
    productId = list.data.list[0].productId;
});
afterAll(async () => {
    await server.close();
    await source.close();
});

describe('an rtsp camera pushed', () => {
    let id: number;

    it('plays: the playlist and MPEG-TS segments arrive, the H.264 source copied, the camera online', async () => {
        const cam = await post('add-rtsp', {
            productId,
            deviceName: 'test_cam',
            host: '127.0.0.1',
            port: source.port,
            username: 'admin',
            password: 'cam_pass1',
        });
        id = cam.data.deviceId;
        const pushed = await post('push', { projectId: '', deviceId: id });
        expect(pushed.code).toBe(200);
        expect(pushed.data.pushing).toBe(1);

        const status = await until(id, (s) => s.state === 'playing', 'never played');
        expect(status).toMatchObject({ pushing: 1, mode: 'copy', codec: 'h264', error: null });

        const playlist = await server.fetch(`/api/video-device/stream?id=${id}&file=index.m3u8`);
        expect(playlist.headers.get('content-type')).toBe('application/vnd.apple.mpegurl');
        const text = await playlist.text();
        expect(text).toContain('#EXTM3U');
        const segment = text.split('\n').find((l) => l.endsWith('.ts'))!;
        expect(segment).toMatch(new RegExp(`^stream\\?id=${id}&file=seg_\\d+\\.ts$`));
        const bytes = new Uint8Array(await (await server.fetch(`/api/video-device/${segment}`)).arrayBuffer());
        expect(bytes.length).toBeGreaterThan(188);
        expect(bytes[0]).toBe(0x47); // MPEG-TS sync byte
        expect((await server.anonFetch(`/api/video-device/stream?id=${id}&file=index.m3u8`)).status).toBe(401);
        expect((await server.fetch(`/api/video-device/stream?id=${id}&file=..%2Fsecret`)).status).toBe(404);

        // The camera's status follows its stream: written once it plays (a write of its own, not awaited by playing).
        let after = (await get(`get?id=${id}`)).data;
        for (let tries = 0; after.status !== 'ONLINE' && tries < 50; tries++) {
            await new Promise((r) => setTimeout(r, 100));
            after = (await get(`get?id=${id}`)).data;
        }
        expect(after.status).toBe('ONLINE');
        expect(after.stream.viewers).toBe(1);
        const stats = (await get('statistics')).data;
        expect(stats).toMatchObject({ total: 1, rtsp: 1, pushing: 1, playing: 1, viewers: 1 });
        expect(stats.bytesServed).toBeGreaterThan(bytes.length);
    });

    it('retries a dropped source with back-off and plays again when it is back', async () => {
        source.drop();
        try {
            const lost = await until(id, (s) => s.state === 'retrying', 'never noticed the drop');
            expect(lost.error).toMatch(/视频源中断|连接视频源失败/);
            expect(lost.error).not.toContain('cam_pass1');
            // The status is written just after the stream's state changes (on PostgreSQL a moment later): wait for it.
            await vi.waitFor(async () => expect((await get(`get?id=${id}`)).data.status).toBe('OFFLINE'), {
                timeout: 5_000,
            });
        } finally {
            // The next tests use the same source, whatever happened here.
            source.resume();
        }
        await until(id, (s) => s.state === 'playing', 'never came back');
        await vi.waitFor(async () => expect((await get(`get?id=${id}`)).data.status).toBe('ONLINE'), {
            timeout: 5_000,
        });
    });

    it('stops on stop push: no more stream', async () => {
        const stopped = await post('stop-push', { projectId: '', deviceId: id });
        expect(stopped.data).toMatchObject({ pushing: 0, stream: { state: 'stopped' } });
        expect((await server.fetch(`/api/video-device/stream?id=${id}&file=index.m3u8`)).status).toBe(404);
        expect((await get('list?pushing=1')).data.total).toBe(0);
    });

    it('says why when the camera refuses its account', async () => {
        const cam = await post('add-rtsp', {
            productId,
            deviceName: 'wrong_pass',
            host: '127.0.0.1',
            port: source.port,
            username: 'admin',
            password: 'nope',
        });
        await post('push', { deviceId: cam.data.deviceId });
        const s = await until(cam.data.deviceId, (x) => x.state === 'retrying', 'never failed');
        expect(s.error).toMatch(/^连接视频源失败：/);
        expect(s.error).toMatch(/401|Unauthorized/i);
        await post('stop-push', { deviceId: cam.data.deviceId });
    });
});

describe('a source that is not H.264', () => {
    it('is transcoded to H.264 for the browser', async () => {
        const mpeg4 = await startRtspSource({ codec: 'mpeg4' });
        try {
            const cam = await post('add-rtsp', {
                productId,
                deviceName: 'mpeg4_cam',
                host: '127.0.0.1',
                port: mpeg4.port,
                uri: '/live',
            });
            await post('push', { deviceId: cam.data.deviceId });
            const s = await until(cam.data.deviceId, (x) => x.state === 'playing', 'never played');
            expect(s).toMatchObject({ mode: 'transcode', codec: 'mpeg4' });
            await post('stop-push', { deviceId: cam.data.deviceId });
        } finally {
            await mpeg4.close();
        }
    });
});
