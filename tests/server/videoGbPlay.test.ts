/* eslint-disable @typescript-eslint/no-explicit-any -- the answers are checked by value (toMatchObject), not by type */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestServer, type TestServer } from '../../server/testing';
import { startGbCamera, type GbCamera } from './gbCamera';

/**
 * Live video of a gb28181 camera: push makes the platform INVITE the registered camera with an SDP offering a local
 * RTP/UDP port for PS (96 PS/90000); this test plays the camera (tests/server/gbCamera.ts), answers 200 OK and sends
 * H.264 in MPEG-PS over RTP, partly out of order; the platform's HLS appears as for an rtsp camera. Stop push sends
 * BYE and ends the stream. A camera that is not registered, or refuses the call, is said so.
 */

let server: TestServer;
let camera: GbCamera;
let deviceId: number;

type Answer = { code: number; msg: string; data: any };
const post = async (path: string, values: Record<string, string | number>) => {
    const body = new URLSearchParams(Object.entries(values).map(([k, v]) => [k, String(v)]));
    return (await (await server.fetch(`/api/video-device/${path}`, { method: 'POST', body })).json()) as Answer;
};
const get = async (path: string) => (await (await server.fetch(`/api/video-device/${path}`)).json()) as Answer;

async function until(ok: (s: any) => boolean, what: string) {
    let last: any;
    for (let i = 0; i < 300; i++) {
        last = (await get(`stream-status?id=${deviceId}`)).data;
        if (ok(last)) return last;
        await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`${what}: last state ${JSON.stringify(last)}`);
}

beforeAll(async () => {
    server = await createTestServer({ sip: { play: { inviteTimeoutMs: 3000 } } });
    const products = ((await (await server.fetch('/api/product/list-product')).json()) as any).data.list;
    const cam = await post('add-gb28181', {
        productId: products[0].productId,
        deviceName: 'gb_live',
        password: 'gb_pass_1',
        confirmPassword: 'gb_pass_1',
    });
    deviceId = cam.data.deviceId;
    camera = await startGbCamera(cam.data.gbId, server.sip!.port());
});

afterAll(async () => {
    await post('stop-push', { deviceId }).catch(() => undefined);
    await camera?.close();
    await server?.close();
});

describe('a gb28181 camera pushed', () => {
    it('is refused while it has not registered', async () => {
        expect(await post('push', { projectId: '', deviceId })).toEqual({ code: 400, msg: '设备未注册上线，无法点播' });
        expect((await get(`get?id=${deviceId}`)).data.pushing).toBe(0);
    });

    it('plays: INVITE with a PS offer, RTP in, HLS segments out', async () => {
        expect(await camera.register('gb_pass_1')).toBe('SIP/2.0 200 OK');
        expect((await post('push', { deviceId, channelId: '34020000001329999999' })).msg).toBe('通道不存在');
        const pushed = await post('push', { projectId: '', deviceId });
        expect(pushed.code).toBe(200);
        expect(pushed.data.pushing).toBe(1);

        const status = await until((s) => s.state === 'playing', 'never played');
        expect(status).toMatchObject({ pushing: 1, mode: 'copy', error: null });
        expect(camera.calls).toEqual(['INVITE']);
        const offer = camera.offer()!;
        expect(offer).toMatch(/^m=video \d+ RTP\/AVP 96$/m);
        expect(offer).toContain('a=rtpmap:96 PS/90000');
        expect(offer).toContain('a=recvonly');
        expect(offer).toMatch(/^y=0\d{9}$/m);
        expect(camera.sent()).toBeGreaterThan(0);

        const playlist = await (await server.fetch(`/api/video-device/stream?id=${deviceId}&file=index.m3u8`)).text();
        expect(playlist).toContain('#EXTM3U');
        const segment = playlist.split('\n').find((l) => l.endsWith('.ts'))!;
        const bytes = new Uint8Array(await (await server.fetch(`/api/video-device/${segment}`)).arrayBuffer());
        expect(bytes.length).toBeGreaterThan(188);
        expect(bytes[0]).toBe(0x47); // MPEG-TS sync byte
        // The camera's status is its registration's, not the stream's.
        expect((await get(`get?id=${deviceId}`)).data.status).toBe('ONLINE');
    });

    it('stops on stop push: BYE to the camera, no more stream', async () => {
        const stopped = await post('stop-push', { projectId: '', deviceId });
        expect(stopped.data).toMatchObject({ pushing: 0, stream: { state: 'stopped' } });
        await expect.poll(() => camera.calls, { timeout: 10_000 }).toEqual(['INVITE', 'BYE']);
        expect((await server.fetch(`/api/video-device/stream?id=${deviceId}&file=index.m3u8`)).status).toBe(404);
    });

    it('says why when the camera refuses the call, and asks again', async () => {
        camera.refuse('488 Not Acceptable Here');
        await post('push', { deviceId });
        const s = await until((x) => x.state === 'retrying', 'never failed');
        expect(s.error).toBe('点播失败：摄像机拒绝点播（488 Not Acceptable Here）');
        camera.refuse(undefined);
        await until((x) => x.state === 'playing', 'never played after the refusal');
        expect(camera.calls.filter((c) => c === 'INVITE').length).toBeGreaterThanOrEqual(3);
        await post('stop-push', { deviceId });
    });
});
