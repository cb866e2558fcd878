import type { TestServer } from '../../server/testing';
import { startRtspSource, type RtspSource } from './rtspSource';
import { call, form, type Answer } from './support';

type Cases = Record<string, () => Promise<Answer<unknown>>>;

/**
 * One successful call per /api/video-device operation of openapi.yaml, for contract.test.ts. The stream case pushes a
 * camera pointed at a local RTSP test source and fetches its playlist once it plays; `stop` closes that source.
 */
export function videoHappyCases(server: () => TestServer): { cases: Cases; stop: () => Promise<void> } {
    const s = () => server();
    let source: RtspSource | undefined;
    let n = 0;
    const productId = async () => {
        const list = await call(s(), 'GET', '/api/product/list-product');
        return (list.body.data as { list: Array<{ productId: number }> }).list[0].productId;
    };
    const rtsp = async (port = 554) => {
        const answer = await call(
            s(),
            'POST',
            '/api/video-device/add-rtsp',
            form({ productId: await productId(), deviceName: `contract_cam${++n}`, host: '127.0.0.1', port }),
        );
        return (answer.body.data as { deviceId: number }).deviceId;
    };
    const gb = async () => {
        const answer = await call(
            s(),
            'POST',
            '/api/video-device/add-gb28181',
            form({ productId: await productId(), deviceName: `contract_gb${++n}`, password: 'gb_pass1' }),
        );
        return (answer.body.data as { deviceId: number }).deviceId;
    };
    /** A camera on the local RTSP test source, pushed, once its stream plays (up to 30 s). */
    const pushedAndPlaying = async () => {
        source ??= await startRtspSource({ path: '/h264/ch1/sub/av_stream' });
        const id = await rtsp(source.port);
        await call(s(), 'POST', '/api/video-device/push', form({ deviceId: id }));
        for (let i = 0; i < 300; i++) {
            const status = await call(s(), 'GET', `/api/video-device/stream-status?id=${id}`);
            if ((status.body.data as { state: string }).state === 'playing') break;
            await new Promise((r) => setTimeout(r, 100));
        }
        return id;
    };
    const cases: Cases = {
        'GET /api/video-device/list': () => call(s(), 'GET', '/api/video-device/list?pageNumber=1&pageSize=10'),
        'GET /api/video-device/get': async () => call(s(), 'GET', `/api/video-device/get?id=${await rtsp()}`),
        'GET /api/video-device/dict': () => call(s(), 'GET', '/api/video-device/dict?kind=1'),
        'POST /api/video-device/add-rtsp': async () =>
            call(
                s(),
                'POST',
                '/api/video-device/add-rtsp',
                form({ productId: await productId(), deviceName: 'contract_add', host: '10.0.0.1', port: 554 }),
            ),
        'POST /api/video-device/edit-rtsp': async () =>
            call(
                s(),
                'POST',
                '/api/video-device/edit-rtsp',
                form({ deviceId: await rtsp(), deviceName: 'contract_edit', host: '10.0.0.2', port: 8554 }),
            ),
        'POST /api/video-device/add-gb28181': async () =>
            call(
                s(),
                'POST',
                '/api/video-device/add-gb28181',
                form({
                    productId: await productId(),
                    deviceName: 'contract_gb_add',
                    password: 'abc_123',
                    confirmPassword: 'abc_123',
                }),
            ),
        'POST /api/video-device/edit-gb28181': async () =>
            call(
                s(),
                'POST',
                '/api/video-device/edit-gb28181',
                form({ id: await gb(), deviceName: 'contract_gb_edit', manufacturer: 'Hikvision', remark: '' }),
            ),
        'POST /api/video-device/push': async () =>
            call(s(), 'POST', '/api/video-device/push', form({ projectId: '', deviceId: await rtsp(9) })),
        'POST /api/video-device/stop-push': async () => {
            const id = await rtsp(9);
            await call(s(), 'POST', '/api/video-device/push', form({ deviceId: id }));
            return call(s(), 'POST', '/api/video-device/stop-push', form({ projectId: '', deviceId: id }));
        },
        'DELETE /api/video-device/delete': async () =>
            call(s(), 'DELETE', `/api/video-device/delete?id=${await rtsp()}`),
        'GET /api/video-device/stream-status': async () =>
            call(s(), 'GET', `/api/video-device/stream-status?id=${await rtsp()}`),
        'GET /api/video-device/statistics': () => call(s(), 'GET', '/api/video-device/statistics'),
        'GET /api/video-device/stream': async () => {
            const id = await pushedAndPlaying();
            return call(s(), 'GET', `/api/video-device/stream?id=${id}&file=index.m3u8`);
        },
        // The live body streams until the push stops: stopped half a second after the stream plays.
        'GET /api/video-device/live': async () => {
            const id = await pushedAndPlaying();
            const stop = setTimeout(() => {
                void call(s(), 'POST', '/api/video-device/stop-push', form({ deviceId: id }));
            }, 500);
            try {
                return await call(s(), 'GET', `/api/video-device/live?id=${id}`);
            } finally {
                clearTimeout(stop);
            }
        },
    };
    return { cases, stop: async () => source?.close() };
}
