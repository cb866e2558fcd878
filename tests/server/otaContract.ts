import type { TestServer } from '../../server/testing';
import { createDevice, createProduct } from './devicesSupport';
import { firmware, uploadFirmware } from './otaSupport';
import { call, json, type Answer } from './support';

type Cases = Record<string, () => Promise<Answer<unknown>>>;

/** One successful call per /api/ota operation of openapi.yaml, for contract.test.ts (no broker: tasks stay 待推送). */
export function otaHappyCases(server: () => TestServer): Cases {
    const s = () => server();
    let n = 0;
    const dataOf = <T>(a: Answer<unknown>) => (a.body as { data: T }).data;
    /** A package of a new product, with one device of that product. */
    const setup = async () => {
        const product = await createProduct(s());
        const device = await createDevice(s(), product.productKey);
        const uploaded = await uploadFirmware(
            s(),
            { name: `契约固件${++n}`, productId: product.productId, version: `1.0.${n}`, signMethod: 'MD5' },
            'fw.bin',
            firmware(2048, n),
        );
        return { pkg: dataOf<{ id: number }>(uploaded), upload: uploaded, deviceId: Number(device.deviceId) };
    };
    const batch = async () => {
        const { pkg, deviceId } = await setup();
        const created = await call(
            s(),
            'POST',
            '/api/ota/batch',
            json({ packageId: pkg.id, scope: 'devices', deviceIds: String(deviceId) }),
        );
        return { created, id: dataOf<{ id: number }>(created).id, deviceId };
    };
    return {
        'GET /api/ota/package': () => call(s(), 'GET', '/api/ota/package?pageNumber=1&pageSize=10'),
        'GET /api/ota/package/detail': async () =>
            call(s(), 'GET', `/api/ota/package/detail?id=${(await setup()).pkg.id}`),
        'POST /api/ota/package/upload': async () => (await setup()).upload,
        'POST /api/ota/package/delete': async () =>
            call(s(), 'POST', '/api/ota/package/delete', json({ id: (await setup()).pkg.id })),
        'GET /api/ota/download': async () => {
            const url = await s().ota.signer.sign((await setup()).pkg.id, Date.now() + 60_000);
            return call(s(), 'GET', url, { anonymous: true });
        },
        'GET /api/ota/batch': () => call(s(), 'GET', '/api/ota/batch?pageNumber=1&pageSize=10'),
        'POST /api/ota/batch': async () => (await batch()).created,
        'GET /api/ota/batch/detail': async () => call(s(), 'GET', `/api/ota/batch/detail?id=${(await batch()).id}`),
        'GET /api/ota/batch/devices': async () =>
            call(s(), 'GET', `/api/ota/batch/devices?batchId=${(await batch()).id}&state=pending`),
        'POST /api/ota/batch/cancel': async () =>
            call(s(), 'POST', '/api/ota/batch/cancel', json({ id: (await batch()).id })),
        'POST /api/ota/task/cancel': async () => {
            const { id } = await batch();
            const list = await call(s(), 'GET', `/api/ota/batch/devices?batchId=${id}`);
            const task = dataOf<{ records: Array<{ id: number }> }>(list).records[0];
            return call(s(), 'POST', '/api/ota/task/cancel', json({ id: task.id }));
        },
        'GET /api/ota/device': async () => call(s(), 'GET', `/api/ota/device?deviceId=${(await batch()).deviceId}`),
    };
}
