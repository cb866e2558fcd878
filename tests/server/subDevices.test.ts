import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { devices } from '../../server/db/schema';
import { createTestServer, type TestServer } from '../../server/testing';
import { call, form, rowCounts } from './support';
import { createDevice, createProduct, listForm, type DeviceRow, type TestProduct } from './devicesSupport';

let s: TestServer;
let gatewayProduct: TestProduct;
let deviceProduct: TestProduct;

beforeAll(async () => {
    s = await createTestServer();
    gatewayProduct = await createProduct(s, { nodeType: 1 });
    deviceProduct = await createProduct(s, { nodeType: 0 });
});
afterAll(() => s?.close());

interface SubDevice {
    deviceId: number;
    subDeviceId: number;
    deviceName: string;
    productId: number;
    productName: string;
    productKey: string;
    nodeType: number;
    status: string;
    createTime: string;
    remark: string | null;
}

interface Page {
    records: SubDevice[];
    total: number;
}

async function page(path: string): Promise<Page> {
    const answer = await call(s, 'GET', path);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    return answer.body.data as Page;
}

const gateway = () => createDevice(s, gatewayProduct.productKey);
const child = (values: Record<string, string> = {}) => createDevice(s, deviceProduct.productKey, values);

async function add(gwId: number, ids: number[], remark?: string) {
    const answer = await call(
        s,
        'POST',
        '/api/device/subDevice/add',
        listForm({ gwId, deviceId: ids, ...(remark === undefined ? {} : { remark }) }),
    );
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    return answer.body.data as { count: number };
}

/** Each device's gateway and remark, with the row counts: what a refusal must leave as it was. */
async function snapshot() {
    const rows = await s.db
        .select({ id: devices.id, gwId: devices.gwId, remark: devices.remark })
        .from(devices)
        .orderBy(devices.id);
    return { rows, counts: await rowCounts(s.db) };
}

async function expectRefused(target: string, init: RequestInit, msg: string, status = 400, method = 'POST') {
    const before = await snapshot();
    const answer = await call(s, method, target, init);
    expect(answer.body, target).toEqual({ code: 1, msg });
    expect(answer.status).toBe(status);
    expect(await snapshot()).toEqual(before);
}

async function gwIdOf(deviceId: number) {
    const [row] = await s.db.select({ gwId: devices.gwId }).from(devices).where(eq(devices.id, deviceId));
    return row.gwId === null ? null : Number(row.gwId);
}

describe('sub-devices: list', () => {
    it('lists the demo gateway sub-devices with the record fields', async () => {
        const [gw] = await s.db.select({ id: devices.id }).from(devices).where(eq(devices.deviceName, 'GW-FAC-01'));
        const data = await page(`/api/device/subDevice/list?gwId=${gw.id}&pageNumber=1&pageSize=10`);
        expect(data.total).toBe(2);
        expect(data.records.map((r) => r.deviceName)).toEqual(['EM-FAC-01-02', 'EM-FAC-01-01']);
        expect(data.records[1]).toEqual({
            deviceId: expect.any(Number),
            subDeviceId: data.records[1].deviceId,
            deviceName: 'EM-FAC-01-01',
            productId: expect.any(Number),
            productName: '三相电表_E1',
            productKey: expect.stringMatching(/^[A-Za-z0-9]{11}$/),
            nodeType: 0,
            // The demo seeds no device ONLINE (online means connected); nothing connects in this test.
            status: 'OFFLINE',
            createTime: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/),
            remark: '一号车间总表',
        });
    });

    it('pages newest first and filters by a deviceName substring', async () => {
        const gw = await gateway();
        const kids: DeviceRow[] = [];
        for (const name of ['meter-a1', 'meter-a2', 'valve-b1'])
            kids.push(await child({ deviceName: `${name}-${gw.deviceId}` }));
        await add(
            gw.deviceId,
            kids.map((k) => k.deviceId),
        );
        const first = await page(`/api/device/subDevice/list?gwId=${gw.deviceId}&pageNumber=1&pageSize=2`);
        expect(first.total).toBe(3);
        expect(first.records.map((r) => r.deviceId)).toEqual([kids[2].deviceId, kids[1].deviceId]);
        const second = await page(`/api/device/subDevice/list?gwId=${gw.deviceId}&pageNumber=2&pageSize=2`);
        expect(second.records.map((r) => r.deviceId)).toEqual([kids[0].deviceId]);
        const meters = await page(`/api/device/subDevice/list?gwId=${gw.deviceId}&deviceName=meter`);
        expect(meters.records.map((r) => r.deviceId)).toEqual([kids[1].deviceId, kids[0].deviceId]);
        expect(meters.total).toBe(2);
    });

    it('answers an empty page for a gateway without sub-devices', async () => {
        const gw = await gateway();
        expect(await page(`/api/device/subDevice/list?gwId=${gw.deviceId}`)).toEqual({ records: [], total: 0 });
    });

    it('refuses an unknown gateway (404), a device that is not a gateway, and a missing gwId', async () => {
        const plain = await child();
        for (const path of ['list', 'candidates']) {
            await expectRefused(`/api/device/subDevice/${path}?gwId=99999999`, {}, '网关设备不存在', 404, 'GET');
            await expectRefused(
                `/api/device/subDevice/${path}?gwId=${plain.deviceId}`,
                {},
                '该设备不是网关设备',
                400,
                'GET',
            );
            await expectRefused(`/api/device/subDevice/${path}`, {}, '缺少网关ID', 400, 'GET');
        }
    });
});

describe('sub-devices: candidates', () => {
    it('offers devices of non-gateway products that have no gateway, newest first', async () => {
        const gw = await gateway();
        const otherGw = await gateway();
        const free = await child();
        const taken = await child();
        await add(otherGw.deviceId, [taken.deviceId]);
        const data = await page(
            `/api/device/subDevice/candidates?gwId=${gw.deviceId}&productKey=${deviceProduct.productKey}&pageSize=1000`,
        );
        const ids = data.records.map((r) => r.deviceId);
        expect(ids).toContain(free.deviceId);
        expect(ids).not.toContain(taken.deviceId);
        expect(ids).toEqual([...ids].sort((a, b) => b - a));
        expect(data.records.every((r) => r.nodeType === 0 && r.productKey === deviceProduct.productKey)).toBe(true);
        expect(data.total).toBe(ids.length);

        const all = await page(`/api/device/subDevice/candidates?gwId=${gw.deviceId}&pageSize=1000`);
        const allIds = all.records.map((r) => r.deviceId);
        expect(allIds).not.toContain(gw.deviceId);
        expect(allIds).not.toContain(otherGw.deviceId);
        expect(allIds).toContain(free.deviceId);
        expect(all.records.every((r) => r.nodeType === 0)).toBe(true);
        // Counted from the counters, not the rows: the two must agree.
        expect(all.total).toBe(allIds.length);
        const [demoChild] = await s.db
            .select({ id: devices.id })
            .from(devices)
            .where(eq(devices.deviceName, 'EM-FAC-01-01'));
        expect(allIds).not.toContain(Number(demoChild.id));
    });

    it('filters by deviceName and answers an empty page for an unknown productKey', async () => {
        const gw = await gateway();
        const named = await child({ deviceName: `pick-me-${gw.deviceId}` });
        const data = await page(
            `/api/device/subDevice/candidates?gwId=${gw.deviceId}&deviceName=pick-me-${gw.deviceId}`,
        );
        expect(data.records.map((r) => r.deviceId)).toEqual([named.deviceId]);
        expect(data.total).toBe(1);
        expect(await page(`/api/device/subDevice/candidates?gwId=${gw.deviceId}&productKey=NoSuchKey01`)).toEqual({
            records: [],
            total: 0,
        });
    });
});

describe('sub-devices: add', () => {
    it('attaches devices sent as repeated keys or comma-joined, and replaces their remark when one is given', async () => {
        const gw = await gateway();
        const a = await child({ remark: '旧备注' });
        const b = await child();
        const c = await child({ remark: '保留' });
        expect(await add(gw.deviceId, [a.deviceId, b.deviceId], '车间电表')).toEqual({ count: 2 });
        const joined = await call(
            s,
            'POST',
            '/api/device/subDevice/add',
            form({ gwId: gw.deviceId, deviceId: `${c.deviceId}`, remark: '  ' }),
        );
        expect(joined.body).toEqual({ code: 0, msg: 'success', data: { count: 1 } });
        const data = await page(`/api/device/subDevice/list?gwId=${gw.deviceId}`);
        expect(data.records.map((r) => [r.deviceId, r.remark])).toEqual([
            [c.deviceId, '保留'],
            [b.deviceId, '车间电表'],
            [a.deviceId, '车间电表'],
        ]);
        const detail = await call(s, 'GET', `/api/device/detail?deviceId=${gw.deviceId}`);
        expect((detail.body.data as { device: { subDeviceCount: number } }).device.subDeviceCount).toBe(3);
        const kid = await call(s, 'GET', `/api/device/detail?deviceId=${a.deviceId}`);
        expect((kid.body.data as { device: { gwid: number } }).device.gwid).toBe(gw.deviceId);
    });

    it('accepts comma-joined ids in one value, and a device already under this gateway', async () => {
        const gw = await gateway();
        const a = await child();
        const b = await child();
        await add(gw.deviceId, [a.deviceId]);
        const answer = await call(
            s,
            'POST',
            '/api/device/subDevice/add',
            form({ gwId: gw.deviceId, deviceId: `${a.deviceId},${b.deviceId}` }),
        );
        expect(answer.body).toEqual({ code: 0, msg: 'success', data: { count: 2 } });
        expect(await gwIdOf(b.deviceId)).toBe(gw.deviceId);
    });

    it('refuses, writing nothing, each case the contract lists', async () => {
        const gw = await gateway();
        const otherGw = await gateway();
        const free = await child();
        const taken = await child();
        await add(otherGw.deviceId, [taken.deviceId]);
        const target = '/api/device/subDevice/add';
        await expectRefused(target, listForm({ gwId: 99999999, deviceId: [free.deviceId] }), '网关设备不存在', 404);
        await expectRefused(
            target,
            listForm({ gwId: free.deviceId, deviceId: [taken.deviceId] }),
            '该设备不是网关设备',
        );
        await expectRefused(
            target,
            listForm({ gwId: gw.deviceId, deviceId: [free.deviceId, otherGw.deviceId] }),
            '网关设备不能作为子设备',
        );
        await expectRefused(target, listForm({ gwId: gw.deviceId, deviceId: [gw.deviceId] }), '网关设备不能作为子设备');
        await expectRefused(
            target,
            listForm({ gwId: gw.deviceId, deviceId: [free.deviceId, taken.deviceId] }),
            '设备已挂载到其他网关',
        );
        await expectRefused(
            target,
            listForm({ gwId: gw.deviceId, deviceId: [free.deviceId, 99999999] }),
            '设备不存在',
            404,
        );
        await expectRefused(target, listForm({ gwId: gw.deviceId }), '请选择子设备');
        await expectRefused(target, listForm({ deviceId: [free.deviceId] }), '缺少网关ID');
        await expectRefused(target, listForm({ gwId: gw.deviceId, deviceId: ['abc'] }), '设备ID必须是正整数');
        await expectRefused(
            target,
            listForm({ gwId: gw.deviceId, deviceId: [free.deviceId], remark: '备'.repeat(101) }),
            '备注不得超过100个字符',
        );
        await expectRefused(
            target,
            listForm({ gwId: gw.deviceId, deviceId: Array.from({ length: 10001 }, (_, i) => i + 1).join(',') }),
            '一次最多选择10000个设备',
        );
        expect(await gwIdOf(free.deviceId)).toBeNull();
        expect(await gwIdOf(taken.deviceId)).toBe(otherGw.deviceId);
    });
});

describe('sub-devices: remove', () => {
    it('detaches a sub-device; it becomes a candidate again', async () => {
        const gw = await gateway();
        const a = await child();
        const b = await child();
        await add(gw.deviceId, [a.deviceId, b.deviceId]);
        const answer = await call(
            s,
            'POST',
            '/api/device/subDevice/remove',
            form({ gwId: gw.deviceId, deviceId: a.deviceId }),
        );
        expect(answer.body).toEqual({ code: 0, msg: 'success', data: null });
        expect(await gwIdOf(a.deviceId)).toBeNull();
        expect(await gwIdOf(b.deviceId)).toBe(gw.deviceId);
        const candidates = await page(
            `/api/device/subDevice/candidates?gwId=${gw.deviceId}&deviceName=${encodeURIComponent(a.deviceName)}`,
        );
        expect(candidates.records.map((r) => r.deviceId)).toEqual([a.deviceId]);
    });

    it('refuses, writing nothing, a device that is not this gateway sub-device, and unknown ids', async () => {
        const gw = await gateway();
        const otherGw = await gateway();
        const mine = await child();
        const theirs = await child();
        const free = await child();
        await add(gw.deviceId, [mine.deviceId]);
        await add(otherGw.deviceId, [theirs.deviceId]);
        const target = '/api/device/subDevice/remove';
        await expectRefused(
            target,
            listForm({ gwId: gw.deviceId, deviceId: [mine.deviceId, theirs.deviceId] }),
            '该设备不是此网关的子设备',
        );
        await expectRefused(target, form({ gwId: gw.deviceId, deviceId: free.deviceId }), '该设备不是此网关的子设备');
        await expectRefused(target, form({ gwId: gw.deviceId, deviceId: 99999999 }), '设备不存在', 404);
        await expectRefused(target, form({ gwId: 99999999, deviceId: mine.deviceId }), '网关设备不存在', 404);
        await expectRefused(target, form({ gwId: mine.deviceId, deviceId: mine.deviceId }), '该设备不是网关设备');
        await expectRefused(target, form({ gwId: gw.deviceId }), '请选择子设备');
        expect(await gwIdOf(mine.deviceId)).toBe(gw.deviceId);
    });

    it('leaves sub-devices without a gateway when the gateway is deleted', async () => {
        const gw = await gateway();
        const a = await child();
        await add(gw.deviceId, [a.deviceId]);
        const res = await s.fetch(`/api/device?deviceId=${gw.deviceId}`, { method: 'DELETE' });
        expect(res.status).toBe(200);
        expect(await gwIdOf(a.deviceId)).toBeNull();
    });
});
