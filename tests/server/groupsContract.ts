import type { TestServer } from '../../server/testing';
import { call, form, type Answer } from './support';
import { createDevice, createProduct, listForm, type TestProduct } from './devicesSupport';

interface Made {
    groupId: number;
    level: number;
}

/** One successful call per group and group-device operation of openapi.yaml, for contract.test.ts. Each case makes what it needs. */
export function groupHappyCases(server: () => TestServer): Record<string, () => Promise<Answer<unknown>>> {
    let n = 0;
    const s = () => server();
    const make = async (pid = 0): Promise<Made> => {
        const answer = await call(
            s(),
            'POST',
            '/api/group/save',
            form({ projectCode: 'P2024001', pid, name: `契约分组_${n++}`, remark: '契约测试' }),
        );
        return answer.body.data as Made;
    };
    let product: TestProduct | undefined;
    const device = async () => {
        product ??= await createProduct(s(), { productName: '分组契约产品' });
        return createDevice(s(), product.productKey);
    };
    return {
        'GET /api/group/list': async () => {
            await make();
            return call(s(), 'GET', '/api/group/list?pageNumber=1&pageSize=5');
        },
        'GET /api/group/tree': async () => {
            await make();
            return call(s(), 'GET', '/api/group/tree?userId=1&projectCode=P2024001');
        },
        'GET /api/group/children': async () => {
            const root = await make();
            await make(root.groupId);
            return call(s(), 'GET', `/api/group/children?userId=1&parentId=${root.groupId}`);
        },
        'GET /api/group/menuTree': async () => {
            const root = await make();
            await make((await make(root.groupId)).groupId);
            return call(s(), 'GET', '/api/group/menuTree');
        },
        'POST /api/group/save': () =>
            call(s(), 'POST', '/api/group/save', form({ projectCode: 'P2024001', pid: 0, name: `契约分组_${n++}` })),
        'POST /api/group/update': async () => {
            const g = await make();
            return call(s(), 'POST', '/api/group/update', form({ groupId: g.groupId, remark: '新的描述' }));
        },
        'POST /api/group/delete': async () => {
            const g = await make();
            return call(s(), 'POST', '/api/group/delete', form({ id: g.groupId }));
        },
        'GET /api/group/detail': async () => {
            const g = await make((await make()).groupId);
            return call(s(), 'GET', `/api/group/detail?groupId=${g.groupId}`);
        },
        'GET /api/group/childList': async () => {
            const root = await make();
            await make(root.groupId);
            return call(s(), 'GET', `/api/group/childList?parentId=${root.groupId}&pageNumber=1&pageSize=5`);
        },
        'GET /api/groups/devices': async () => {
            const g = await make();
            const d = await device();
            await call(
                s(),
                'POST',
                '/api/groups/addDevices',
                listForm({ groupId: g.groupId, deviceList: [d.deviceId] }),
            );
            return call(s(), 'GET', `/api/groups/devices?groupId=${g.groupId}&pageNumber=1&pageSize=10`);
        },
        'POST /api/groups/addDevices': async () => {
            const g = await make();
            const d = await device();
            return call(
                s(),
                'POST',
                '/api/groups/addDevices',
                listForm({ groupId: g.groupId, deviceList: [d.deviceId] }),
            );
        },
        'POST /api/groups/removeDevices': async () => {
            const g = await make();
            const d = await device();
            await call(
                s(),
                'POST',
                '/api/groups/addDevices',
                listForm({ groupId: g.groupId, deviceList: [d.deviceId] }),
            );
            return call(
                s(),
                'POST',
                '/api/groups/removeDevices',
                listForm({ groupId: g.groupId, deviceList: [d.deviceId] }),
            );
        },
        'GET /api/device/candidates': async () => {
            const g = await make();
            const d = await device();
            return call(
                s(),
                'GET',
                `/api/device/candidates?productId=${d.productId}&groupId=${g.groupId}&userId=1&pageNumber=1&pageSize=10`,
            );
        },
    };
}
