import type { TestServer } from '../../server/testing';
import { call, form, type Answer } from './support';
import { csvFile, listForm, upload } from './devicesSupport';

interface Product {
    productId: number;
    productKey: string;
}

/**
 * One successful call per device operation of openapi.yaml, for contract.test.ts. Each case makes the devices it
 * needs, so the cases run in any order.
 */
export function deviceHappyCases(server: () => TestServer, product: () => Product) {
    let n = 0;
    const s = () => server();
    const make = async () => {
        const answer = await call(
            s(),
            'POST',
            '/api/device/save',
            form({ productKey: product().productKey, deviceName: `contract_${n++}` }),
        );
        return answer.body.data as { deviceId: number; deviceName: string };
    };
    const cases: Record<string, () => Promise<Answer<unknown>>> = {
        'GET /api/device/list': async () => {
            await make();
            return call(
                s(),
                'GET',
                `/api/device/list?pageNumber=1&pageSize=5&productKey=${product().productKey}&userId=1`,
            );
        },
        'GET /api/device/listByProject': async () => {
            const d = await make();
            await call(s(), 'POST', '/api/device/bind', listForm({ projectId: 1, deviceId: [d.deviceId] }));
            return call(s(), 'GET', '/api/device/listByProject?projectId=1&pageNumber=1&pageSize=5');
        },
        'GET /api/device/statistics': () =>
            call(s(), 'GET', `/api/device/statistics?productKey=${product().productKey}`),
        'GET /api/device/total': () => call(s(), 'GET', '/api/device/total'),
        'GET /api/device/detail': async () =>
            call(s(), 'GET', `/api/device/detail?deviceId=${(await make()).deviceId}`),
        'GET /api/device/getInfo': async () =>
            call(
                s(),
                'GET',
                `/api/device/getInfo?productKey=${product().productKey}&deviceName=${(await make()).deviceName}`,
            ),
        'POST /api/device/save': () =>
            call(
                s(),
                'POST',
                '/api/device/save',
                form({
                    productKey: product().productKey,
                    deviceName: `contract_${n++}`,
                    remark: '备注',
                    longitude: 121.5,
                    latitude: 31.2,
                    addr: '上海',
                }),
            ),
        'POST /api/device/SaveDevice': () =>
            call(
                s(),
                'POST',
                '/api/device/SaveDevice',
                form({ productId: product().productId, deviceName: `contract_${n++}` }),
            ),
        'POST /api/device/update': async () =>
            call(
                s(),
                'POST',
                '/api/device/update',
                form({ deviceId: (await make()).deviceId, newDeviceName: `contract_${n++}`, remark: '改名' }),
            ),
        'PUT /api/device/update': async () =>
            call(s(), 'PUT', '/api/device/update', form({ deviceId: (await make()).deviceId, action: 'disable' })),
        'POST /api/device/UpdateDeviceNickname': async () =>
            call(
                s(),
                'POST',
                '/api/device/UpdateDeviceNickname',
                form({ deviceId: (await make()).deviceId, remark: '昵称' }),
            ),
        'POST /ms4/device/update': async () =>
            call(s(), 'POST', '/ms4/device/update', form({ deviceId: (await make()).deviceId, remark: '旧接口' })),
        'POST /api/device/BatchRegisterDevice': () =>
            call(s(), 'POST', '/api/device/BatchRegisterDevice', form({ productId: product().productId, amount: 3 })),
        'POST /api/device/getStatus': async () =>
            call(
                s(),
                'POST',
                '/api/device/getStatus',
                form({ productKey: product().productKey, deviceName: (await make()).deviceName }),
            ),
        'POST /api/device/RemoveDevice': async () =>
            call(
                s(),
                'POST',
                '/api/device/RemoveDevice',
                form({ productKey: product().productKey, deviceName: (await make()).deviceName }),
            ),
        'DELETE /api/device': async () => call(s(), 'DELETE', `/api/device?deviceId=${(await make()).deviceId}`),
        'POST /api/device/bind': async () =>
            call(s(), 'POST', '/api/device/bind', listForm({ projectId: 1, deviceId: [(await make()).deviceId] })),
        'POST /api/device/unbind': async () => {
            const d = await make();
            await call(s(), 'POST', '/api/device/bind', listForm({ projectId: 2, deviceId: [d.deviceId] }));
            return call(s(), 'POST', '/api/device/unbind', listForm({ projectId: [2], deviceId: [d.deviceId] }));
        },
        'GET /api/device/removeFromProject': async () => {
            const d = await make();
            await call(s(), 'POST', '/api/device/bind', listForm({ projectId: 1, deviceId: [d.deviceId] }));
            return call(s(), 'GET', `/api/device/removeFromProject?projectId=1&deviceId=${d.deviceId}`);
        },
        'GET /api/device/import/template': () => call(s(), 'GET', '/api/device/import/template'),
        'POST /api/device/import': () =>
            call(
                s(),
                'POST',
                '/api/device/import',
                upload(product().productKey, csvFile(`deviceName,remark\ncontract_${n++},导入\n`)),
            ),
        'GET /api/device/export': () => call(s(), 'GET', `/api/device/export?productKey=${product().productKey}`),
    };
    return cases;
}
