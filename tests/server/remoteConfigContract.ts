import type { TestServer } from '../../server/testing';
import { createDevice, createProduct } from './devicesSupport';
import { call, json, type Answer } from './support';

type Cases = Record<string, () => Promise<Answer<unknown>>>;

/** One successful call per 远程配置 operation of openapi.yaml, for contract.test.ts (no broker: devices are offline). */
export function remoteConfigHappyCases(server: () => TestServer): Cases {
    const s = () => server();
    const dataOf = <T>(a: Answer<unknown>) => (a.body as { data: T }).data;
    /** A product with one device and a saved configuration (version 1). */
    const setup = async () => {
        const product = await createProduct(s());
        await createDevice(s(), product.productKey);
        const saved = await call(
            s(),
            'POST',
            '/api/product/config/save',
            json({ productId: product.productId, format: 'json', content: '{"interval":30}' }),
        );
        return { productId: product.productId, saved, version: dataOf<{ versionId: number; configId: string }>(saved) };
    };
    const pushed = async () => {
        const { productId } = await setup();
        const push = await call(s(), 'POST', '/api/product/config/push', json({ productId, scope: 'all' }));
        return { productId, push, pushId: dataOf<{ pushId: number }>(push).pushId };
    };
    return {
        'GET /api/product/config': async () =>
            call(s(), 'GET', `/api/product/config?productId=${(await setup()).productId}`),
        'POST /api/product/config/save': async () => (await setup()).saved,
        'GET /api/product/config/versions': async () =>
            call(s(), 'GET', `/api/product/config/versions?productId=${(await setup()).productId}`),
        'GET /api/product/config/version': async () => {
            const { productId, version } = await setup();
            return call(
                s(),
                'GET',
                `/api/product/config/version?productId=${productId}&versionId=${version.versionId}`,
            );
        },
        'POST /api/product/config/restore': async () => {
            const { productId, version } = await setup();
            return call(s(), 'POST', '/api/product/config/restore', json({ productId, versionId: version.versionId }));
        },
        'POST /api/product/config/push': async () => (await pushed()).push,
        'GET /api/product/config/push': async () => {
            const { productId, pushId } = await pushed();
            return call(s(), 'GET', `/api/product/config/push?productId=${productId}&pushId=${pushId}`);
        },
        'GET /api/product/config/pushes': async () =>
            call(s(), 'GET', `/api/product/config/pushes?productId=${(await pushed()).productId}`),
        'GET /api/product/config/push/devices': async () => {
            const { productId, pushId } = await pushed();
            return call(
                s(),
                'GET',
                `/api/product/config/push/devices?productId=${productId}&pushId=${pushId}&state=offline`,
            );
        },
        // A text file: a JSON one is the file itself, not the platform's envelope this test expects of JSON answers.
        'GET /api/config/download': async () => {
            const product = await createProduct(s());
            const saved = await call(
                s(),
                'POST',
                '/api/product/config/save',
                json({ productId: product.productId, format: 'text', content: 'interval=30' }),
            );
            const version = dataOf<{ configId: string }>(saved);
            const url = await s().remoteConfig.signer.sign(version.configId, Date.now() + 60_000);
            return call(s(), 'GET', url, { anonymous: true });
        },
    };
}
