import { eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { devices, projects } from '../../server/db/schema';
import { createTestServer, type TestServer } from '../../server/testing';
import { call } from './support';
import {
    createDevice,
    createProduct,
    expectRefused,
    listDevices,
    listForm,
    type DeviceRow,
    type TestProduct,
} from './devicesSupport';

let s: TestServer;
let product: TestProduct;
let projectA: number;
let projectB: number;

beforeAll(async () => {
    // Demo content brings projects (and demo devices, which these tests leave alone).
    s = await createTestServer();
    product = await createProduct(s, { productName: '项目绑定测试' });
    const rows = await s.db.select({ id: projects.id }).from(projects).orderBy(projects.id).limit(2);
    [projectA, projectB] = rows.map((r) => r.id);
});
afterAll(() => s?.close());

const fresh = async (n: number) => {
    const out: DeviceRow[] = [];
    for (let i = 0; i < n; i++) out.push(await createDevice(s, product.productKey));
    return out;
};
const projectOf = async (ids: number[]) =>
    (await s.db.select({ id: devices.id, p: devices.projectId }).from(devices).where(inArray(devices.id, ids)))
        .sort((a, b) => a.id - b.id)
        .map((r) => r.p);

describe('bind', () => {
    it('binds every selected device to the project (关联成功 on the console) and lists them by project', async () => {
        const ds = await fresh(3);
        const ids = ds.map((d) => d.deviceId);
        const answer = await call(s, 'POST', '/api/device/bind', listForm({ projectId: projectA, deviceId: ids }));
        expect(answer.body).toEqual({ code: 0, msg: 'success', data: { count: 3 } });
        expect(await projectOf(ids)).toEqual([projectA, projectA, projectA]);
        const page = (await call(s, 'GET', `/api/device/listByProject?projectId=${projectA}&pageSize=100`)).body
            .data as {
            records: DeviceRow[];
            total: number;
        };
        expect(page.records.map((r) => r.deviceId)).toEqual(expect.arrayContaining(ids));
        expect(page.records.every((r) => r.projectId === projectA && r.projectName)).toBe(true);
        const filtered = await listDevices(s, `projectId=${projectA}&productKey=${product.productKey}`);
        expect(filtered.total).toBe(3);
        // Comma-joined ids are read the same way.
        const [d4, d5] = await fresh(2);
        const joined = await call(
            s,
            'POST',
            '/api/device/bind',
            listForm({ projectId: projectB, deviceId: `${d4.deviceId},${d5.deviceId}` }),
        );
        expect(joined.body.data).toEqual({ count: 2 });
    });

    it('refuses with the SPEC messages, all or nothing', async () => {
        const [bound, free] = await fresh(2);
        await call(s, 'POST', '/api/device/bind', listForm({ projectId: projectA, deviceId: [bound.deviceId] }));
        await expectRefused(
            s,
            'POST',
            '/api/device/bind',
            listForm({ projectId: projectA }),
            '请选择需要关联项目的设备',
        );
        await expectRefused(
            s,
            'POST',
            '/api/device/bind',
            listForm({ projectId: projectB, deviceId: [free.deviceId, bound.deviceId] }),
            '请选择未关联项目的设备进行关联',
        );
        expect(await projectOf([bound.deviceId, free.deviceId])).toEqual([projectA, null]);
        await expectRefused(
            s,
            'POST',
            '/api/device/bind',
            listForm({ deviceId: [free.deviceId] }),
            '请选择要关联的场景',
        );
        await expectRefused(
            s,
            'POST',
            '/api/device/bind',
            listForm({ projectId: 999999, deviceId: [free.deviceId] }),
            '项目不存在',
            404,
        );
        await expectRefused(
            s,
            'POST',
            '/api/device/bind',
            listForm({ projectId: projectA, deviceId: [free.deviceId, 99999999] }),
            '设备不存在',
            404,
        );
        await expectRefused(
            s,
            'POST',
            '/api/device/bind',
            listForm({ projectId: projectA, deviceId: ['abc'] }),
            '设备ID必须是正整数',
        );
    });
});

describe('unbind', () => {
    it('unbinds every selected device of one project (解绑成功 on the console)', async () => {
        const ds = await fresh(2);
        const ids = ds.map((d) => d.deviceId);
        await call(s, 'POST', '/api/device/bind', listForm({ projectId: projectB, deviceId: ids }));
        const answer = await call(
            s,
            'POST',
            '/api/device/unbind',
            listForm({ projectId: [projectB, projectB], deviceId: ids }),
        );
        expect(answer.body.data).toEqual({ count: 2 });
        expect(await projectOf(ids)).toEqual([null, null]);
    });

    it('refuses with the SPEC messages, all or nothing', async () => {
        const [a, b, free] = await fresh(3);
        await call(s, 'POST', '/api/device/bind', listForm({ projectId: projectA, deviceId: [a.deviceId] }));
        await call(s, 'POST', '/api/device/bind', listForm({ projectId: projectB, deviceId: [b.deviceId] }));
        await expectRefused(
            s,
            'POST',
            '/api/device/unbind',
            listForm({ projectId: projectA }),
            '请选择需要批量解绑的设备',
        );
        await expectRefused(
            s,
            'POST',
            '/api/device/unbind',
            listForm({ projectId: projectA, deviceId: [a.deviceId, free.deviceId] }),
            '请选择已关联项目的设备进行解绑',
        );
        await expectRefused(
            s,
            'POST',
            '/api/device/unbind',
            listForm({ projectId: [projectA, projectB], deviceId: [a.deviceId, b.deviceId] }),
            '请选择关联同一项目的设备进行解绑',
        );
        // The check runs on the stored projects, whatever the console claims.
        await expectRefused(
            s,
            'POST',
            '/api/device/unbind',
            listForm({ projectId: projectA, deviceId: [b.deviceId] }),
            '设备所属项目已变更，请刷新后重试',
        );
        expect(await projectOf([a.deviceId, b.deviceId, free.deviceId])).toEqual([projectA, projectB, null]);
    });
});

describe('removeFromProject', () => {
    it('removes one device from its project; 未关联项目 when it has none; a clear message for another or unknown project', async () => {
        const [d] = await fresh(1);
        await call(s, 'POST', '/api/device/bind', listForm({ projectId: projectA, deviceId: [d.deviceId] }));
        await expectRefused(
            s,
            'GET',
            `/api/device/removeFromProject?projectId=${projectB}&deviceId=${d.deviceId}`,
            {},
            '该设备未关联此项目',
        );
        await expectRefused(
            s,
            'GET',
            `/api/device/removeFromProject?projectId=999999&deviceId=${d.deviceId}`,
            {},
            '项目不存在',
            404,
        );
        const removed = await call(
            s,
            'GET',
            `/api/device/removeFromProject?projectId=${projectA}&deviceId=${d.deviceId}`,
        );
        expect(removed.body).toEqual({ code: 0, msg: 'success', data: null });
        expect(await projectOf([d.deviceId])).toEqual([null]);
        await expectRefused(
            s,
            'GET',
            `/api/device/removeFromProject?projectId=${projectA}&deviceId=${d.deviceId}`,
            {},
            '未关联项目',
        );
        await expectRefused(s, 'GET', `/api/device/removeFromProject?projectId=${projectA}`, {}, '缺少设备ID');
        await expectRefused(s, 'GET', `/api/device/listByProject?projectId=999999`, {}, '项目不存在', 404);
    });

    it('a deleted project leaves its devices unbound', async () => {
        const [scene] = await s.db.select({ classId: projects.classId }).from(projects).limit(1);
        const [temp] = await s.db
            .insert(projects)
            .values({ code: 'TMP_DEL', name: '临时项目', classId: scene.classId })
            .returning();
        const [d] = await fresh(1);
        await call(s, 'POST', '/api/device/bind', listForm({ projectId: temp.id, deviceId: [d.deviceId] }));
        await s.db.delete(projects).where(eq(projects.id, temp.id));
        expect(await projectOf([d.deviceId])).toEqual([null]);
    });
});

describe('add into a project', () => {
    it('adds a device straight into the project named by projectId (save and SaveDevice), or into none', async () => {
        const byKey = await createDevice(s, product.productKey, { projectId: projectA });
        expect(byKey.projectId).toBe(projectA);
        const byId = await call(
            s,
            'POST',
            '/api/device/SaveDevice',
            listForm({ productId: product.productId, deviceName: `into_${Date.now() % 100000}`, projectId: projectB }),
        );
        expect(byId.body.code).toBe(0);
        const added = byId.body.data as DeviceRow;
        expect(await projectOf([byKey.deviceId, added.deviceId])).toEqual([projectA, projectB]);
        const listed = (await call(s, 'GET', `/api/device/listByProject?projectId=${projectB}&pageSize=100`)).body
            .data as { records: DeviceRow[] };
        expect(listed.records.map((r) => r.deviceId)).toContain(added.deviceId);
        // An empty projectId adds the device without a project, as before.
        const none = await createDevice(s, product.productKey, { projectId: '' });
        expect(await projectOf([none.deviceId])).toEqual([null]);
    });

    it('refuses a projectId that is not a project, and then adds nothing', async () => {
        const name = `nowhere_${Date.now() % 100000}`;
        await expectRefused(
            s,
            'POST',
            '/api/device/save',
            listForm({ productKey: product.productKey, deviceName: name, projectId: 999999 }),
            '项目不存在',
            404,
        );
        await expectRefused(
            s,
            'POST',
            '/api/device/save',
            listForm({ productKey: product.productKey, deviceName: name, projectId: 'abc' }),
            '项目ID必须是正整数',
        );
        expect((await listDevices(s, `productKey=${product.productKey}&deviceName=${name}`)).total).toBe(0);
    });
});
