import { randomBytes } from 'node:crypto';
import { foundDevices } from '../../server/db/schema';
import { registerSignature } from '../../server/domain/dynamicRegister';
import type { TestServer } from '../../server/testing';
import { createDevice, createProduct, listForm } from './devicesSupport';
import { call, form, type Answer } from './support';

/**
 * Happy cases of dynamic registration and the gateway's found sub-devices (contract.test.ts): a gateway, a product of
 * sub-devices with 动态注册 on, found reports written as a gateway's thing/list/found would leave them.
 */
export function topologyHappyCases(s: () => TestServer) {
    let ready: Promise<{ gwId: number; productId: number; productKey: string; productSecret: string }>;
    const setup = () =>
        (ready ??= (async () => {
            const gateway = await createProduct(s(), { nodeType: 1 });
            const gw = await createDevice(s(), gateway.productKey);
            const direct = await createProduct(s(), { nodeType: 0 });
            await call(s(), 'POST', '/api/product/dynamicRegister', {
                ...form({ productId: direct.productId, dynamicRegister: 'true' }),
            });
            const secret = await call(s(), 'GET', `/api/product/secret?productId=${direct.productId}`);
            return {
                gwId: Number(gw.deviceId),
                productId: direct.productId,
                productKey: direct.productKey,
                productSecret: (secret.body.data as { productSecret: string }).productSecret,
            };
        })());
    const found = async () => {
        const { gwId, productKey } = await setup();
        const [row] = await s()
            .db.insert(foundDevices)
            .values({ gwId, productKey, deviceName: `found_${randomBytes(4).toString('hex')}` })
            .returning({ id: foundDevices.id });
        return { gwId, id: row.id };
    };
    const cases: Record<string, () => Promise<Answer<unknown>>> = {
        'GET /api/product/secret': async () =>
            call(s(), 'GET', `/api/product/secret?productId=${(await setup()).productId}`),
        'POST /api/product/dynamicRegister': async () =>
            call(s(), 'POST', '/api/product/dynamicRegister', {
                ...form({ productId: (await setup()).productId, dynamicRegister: 'true' }),
            }),
        'GET /api/device/subDevice/found': async () => {
            const { gwId } = await found();
            return call(s(), 'GET', `/api/device/subDevice/found?gwId=${gwId}&pageNumber=1&pageSize=10`);
        },
        'POST /api/device/subDevice/found/add': async () =>
            call(s(), 'POST', '/api/device/subDevice/found/add', listForm(await found())),
        'POST /api/device/subDevice/found/remove': async () =>
            call(s(), 'POST', '/api/device/subDevice/found/remove', listForm(await found())),
        'POST /auth/register/device': async () => {
            const { productKey, productSecret } = await setup();
            const device = await createDevice(s(), productKey);
            const request = { productKey, deviceName: device.deviceName, random: '12345' };
            return call(s(), 'POST', '/auth/register/device', {
                anonymous: true,
                ...form({
                    ...request,
                    signMethod: 'hmacsha1',
                    sign: registerSignature('hmacsha1', productSecret, request),
                }),
            });
        },
    };
    return cases;
}
