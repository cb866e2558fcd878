import type { TestServer } from '../../server/testing';
import { call, form, type Answer } from './support';
import { lampProduct } from './telemetrySupport';

/** One successful call per server-subscription operation of openapi.yaml (subscriptions, consumer groups, AccessKeys). */
export function subscriptionHappyCases(server: () => TestServer): Record<string, () => Promise<Answer<unknown>>> {
    const s = () => server();
    const data = <T>(a: Answer<unknown>) => (a.body as { data: T }).data;
    let n = 0;
    const project = async () => {
        const products = await call(s(), 'GET', '/api/subscription/products');
        const lamp = await lampProduct(s());
        const row = data<Array<{ productKey: string; projectCode: string }>>(products).find(
            (p) => p.productKey === lamp.productKey,
        )!;
        return { projectCode: row.projectCode, productKey: lamp.productKey };
    };
    const group = async () => {
        const { projectCode } = await project();
        const saved = await call(s(), 'POST', '/api/consumerGroup/save', form({ projectCode, name: `c${++n}x` }));
        return data<{ id: number }>(saved).id;
    };
    /** The lamp product's subscription (made once, reused). */
    let subscription: Promise<{ id: number; productKey: string }> | undefined;
    const subscribed = () =>
        (subscription ??= (async () => {
            const { projectCode, productKey } = await project();
            const id = await group();
            const saved = await call(
                s(),
                'POST',
                '/api/subscription/save',
                form({ projectCode, productKey, group: String(id), message: 'post' }),
            );
            return { id: data<{ id: number }>(saved).id, productKey };
        })());
    const key = async () => data<{ id: number }>(await call(s(), 'POST', '/api/accessKey/create')).id;
    return {
        'GET /api/subscription/list': async () => {
            await subscribed();
            return call(s(), 'GET', '/api/subscription/list?pageNumber=1&pageSize=10');
        },
        'GET /api/subscription/products': () => call(s(), 'GET', '/api/subscription/products'),
        'GET /api/subscription/device': async () => {
            const devices = await call(s(), 'GET', '/api/device/list?pageNumber=1&pageSize=1');
            const deviceId = (devices.body as { data: { records: Array<{ deviceId: number }> } }).data.records[0]
                .deviceId;
            return call(s(), 'GET', `/api/subscription/device?deviceId=${deviceId}`);
        },
        'GET /api/subscription/detail': async () =>
            call(s(), 'GET', `/api/subscription/detail?id=${(await subscribed()).id}`),
        'POST /api/subscription/save': async () => {
            await subscribed();
            // A second product of the project gets its own subscription.
            const { projectCode } = await project();
            const products = data<Array<{ productKey: string; projectCode: string; subscribed: boolean }>>(
                await call(s(), 'GET', `/api/subscription/products?projectCode=${projectCode}`),
            );
            const free = products.find((p) => !p.subscribed)!;
            return call(
                s(),
                'POST',
                '/api/subscription/save',
                form({ projectCode, productKey: free.productKey, group: String(await group()), message: 'post' }),
            );
        },
        'POST /api/subscription/edit': async () => {
            const sub = await subscribed();
            return call(
                s(),
                'POST',
                '/api/subscription/edit',
                form({ id: sub.id, productKey: sub.productKey, group: String(await group()), message: 'post' }),
            );
        },
        'POST /api/subscription/delete': async () => {
            const sub = await subscribed();
            subscription = undefined;
            return call(s(), 'POST', '/api/subscription/delete', form({ productKey: sub.productKey }));
        },
        'GET /api/consumerGroup/list': () => call(s(), 'GET', '/api/consumerGroup/list?pageNumber=1&pageSize=10'),
        'POST /api/consumerGroup/save': async () => {
            const { projectCode } = await project();
            return call(s(), 'POST', '/api/consumerGroup/save', form({ projectCode, name: `save${++n}` }));
        },
        'POST /api/consumerGroup/delete': async () =>
            call(s(), 'POST', '/api/consumerGroup/delete', form({ id: await group() })),
        'GET /api/consumerGroup/detail': async () => call(s(), 'GET', `/api/consumerGroup/detail?id=${await group()}`),
        'POST /api/consumerGroup/clear': async () =>
            call(s(), 'POST', '/api/consumerGroup/clear', form({ id: await group() })),
        'GET /api/accessKey/list': async () => {
            await key();
            return call(s(), 'GET', '/api/accessKey/list');
        },
        'POST /api/accessKey/create': () => call(s(), 'POST', '/api/accessKey/create'),
        'POST /api/accessKey/enable': async () =>
            call(s(), 'POST', '/api/accessKey/enable', form({ id: await key(), enabled: 'false' })),
        'POST /api/accessKey/delete': async () => call(s(), 'POST', '/api/accessKey/delete', form({ id: await key() })),
    };
}
