import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEVICE_NAME } from '../../schemas/device';
import { devices } from '../../server/db/schema';
import { createTestServer, type TestServer } from '../../server/testing';
import { call, form } from './support';
import {
    counters,
    createDevice,
    createProduct,
    deviceName,
    expectRefused,
    listDevices,
    realCounts,
    type DeviceRow,
    type TestProduct,
} from './devicesSupport';

let s: TestServer;
let product: TestProduct;
let other: TestProduct;

beforeAll(async () => {
    s = await createTestServer({ seed: false });
    product = await createProduct(s, { productName: '设备测试_A' });
    other = await createProduct(s, { productName: '设备测试_B', nodeType: 1 });
});
afterAll(() => s?.close());

const detail = async (deviceId: number) =>
    ((await call(s, 'GET', `/api/device/detail?deviceId=${deviceId}`)).body.data as { device: DeviceRow }).device;

describe('adding a device', () => {
    it('generates the MQTT credentials, a 128-bit secret of its own, and ignores a secret sent by the client', async () => {
        const a = await createDevice(s, product.productKey, { deviceName: 'lamp-01', secret: 'chosen_by_client' });
        const b = await createDevice(s, product.productKey, { deviceName: 'lamp-02' });
        expect(a).toMatchObject({
            deviceName: 'lamp-01',
            productKey: product.productKey,
            productName: '设备测试_A',
            status: 'INACTIVE',
            deviceStatus: false,
            username: `lamp-01&${product.productKey}`,
            clientId: `${product.productKey}.lamp-01`,
            subDeviceCount: 0,
            gwid: null,
        });
        expect(a.secret).toMatch(/^[0-9a-f]{32}$/);
        expect(a.secret).not.toBe(b.secret);
        expect(a.secret).not.toBe('chosen_by_client');
        const [stored] = await s.db.select().from(devices).where(eq(devices.id, a.deviceId));
        expect(stored.secret).toBe(a.secret);
    });

    it('keeps markup in a remark verbatim (it is data; the console escapes it when rendering)', async () => {
        const remark = `<img src=x onerror="alert(1)"> & '引号' "双引号"`;
        const d = await createDevice(s, product.productKey, { remark, addr: '<b>上海</b>' });
        expect(d.remark).toBe(remark);
        expect((await detail(d.deviceId)).remark).toBe(remark);
        const page = await listDevices(s, `productKey=${product.productKey}&deviceName=${d.deviceName}`);
        expect(page.records[0]).toMatchObject({ remark, addr: '<b>上海</b>' });
    });

    it('adds by productId on the tabs screen (SaveDevice), and refuses a name the product already has', async () => {
        const name = deviceName('tab');
        const saved = await call(
            s,
            'POST',
            '/api/device/SaveDevice',
            form({ productId: other.productId, deviceName: name }),
        );
        expect(saved.body).toMatchObject({ code: 0, data: { deviceName: name, productKey: other.productKey } });
        await expectRefused(
            s,
            'POST',
            '/api/device/SaveDevice',
            form({ productId: other.productId, deviceName: name }),
            '设备名称已存在',
            409,
        );
        // The same name in another product is another device.
        expect((await createDevice(s, product.productKey, { deviceName: name })).deviceName).toBe(name);
    });

    it('lets exactly one of several simultaneous adds of one name through', async () => {
        const name = deviceName('race');
        const answers = await Promise.all(
            Array.from({ length: 4 }, () =>
                call(s, 'POST', '/api/device/save', form({ productKey: product.productKey, deviceName: name })),
            ),
        );
        expect(answers.map((a) => a.status).sort()).toEqual([200, 409, 409, 409]);
    });
});

describe('lists', () => {
    let p: TestProduct;
    let made: DeviceRow[];
    beforeAll(async () => {
        p = await createProduct(s, { productName: '列表测试_L' });
        made = [];
        for (let i = 0; i < 7; i++) {
            made.push(
                await createDevice(s, p.productKey, {
                    deviceName: `List_${i}${i % 2 ? '_odd' : ''}`,
                    remark: i < 3 ? `一楼_${i}` : `二楼_${i}`,
                }),
            );
        }
        await s.db
            .update(devices)
            .set({ status: 'ONLINE', lastTime: new Date() })
            .where(sql`${devices.id} in (${made[1].deviceId}, ${made[4].deviceId})`);
    });

    it('pages newest first, with total and onlineCount of the whole filter, never a secret', async () => {
        const page1 = await listDevices(s, `productKey=${p.productKey}&pageNumber=1&pageSize=3`);
        expect(page1.records.map((r) => r.deviceName)).toEqual(['List_6', 'List_5_odd', 'List_4']);
        expect(page1).toMatchObject({ total: 7, onlineCount: 2 });
        const page3 = await listDevices(s, `productKey=${p.productKey}&pageNumber=3&pageSize=3`);
        expect(page3.records.map((r) => r.deviceName)).toEqual(['List_0']);
        for (const r of [...page1.records, ...page3.records]) expect(r).not.toHaveProperty('secret');
        expect(page1.records[2]).toMatchObject({ status: 'ONLINE', deviceStatus: true });
        expect((await listDevices(s, `productKey=${p.productKey}&pageNumber=9`)).records).toEqual([]);
    });

    it('filters by a literal, case-sensitive substring of deviceName or remark, and by status', async () => {
        const by = async (q: string) =>
            (await listDevices(s, `productKey=${p.productKey}&pageSize=20&${q}`)).records.map((r) => r.deviceName);
        expect(await by('deviceName=_odd')).toEqual(['List_5_odd', 'List_3_odd', 'List_1_odd']);
        expect(await by('deviceName=list_')).toEqual([]);
        expect(await by(`deviceName=${encodeURIComponent('%')}`)).toEqual([]);
        expect(await by(`remark=${encodeURIComponent('一楼')}`)).toEqual(['List_2', 'List_1_odd', 'List_0']);
        expect(await by('status=ONLINE')).toEqual(['List_4', 'List_1_odd']);
        const online = await listDevices(s, `productKey=${p.productKey}&status=ONLINE&deviceName=_odd`);
        expect(online).toMatchObject({ total: 1, onlineCount: 1 });
        expect(await listDevices(s, 'productKey=NoSuchKey01')).toEqual({ records: [], total: 0, onlineCount: 0 });
    });

    it('counts every device across products without a filter, matching the table', async () => {
        const all = await listDevices(s, 'pageSize=1');
        const [{ n }] = await s.db.select({ n: sql<number>`count(*)::int` }).from(devices);
        expect(all.total).toBe(Number(n));
        const stats = (await call(s, 'GET', `/api/device/statistics?productKey=${p.productKey}`)).body.data;
        expect(stats).toEqual({ total: 7, onlineTotal: 2, inActiveTotal: 5 });
        const zero = (await call(s, 'GET', '/api/device/statistics?productKey=NoSuchKey01')).body.data;
        expect(zero).toEqual({ total: 0, onlineTotal: 0, inActiveTotal: 0 });
    });

    it('refuses malformed list parameters', async () => {
        for (const q of [
            'pageNumber=0',
            'pageSize=1001',
            'status=Y',
            'projectId=abc',
            `deviceName=${'x'.repeat(101)}`,
        ]) {
            expect((await call(s, 'GET', `/api/device/list?${q}`)).status, q).toBe(400);
        }
    });
});

describe('detail, getInfo and getStatus', () => {
    it('answers the device with its secret and product, by id or by productKey and deviceName', async () => {
        const d = await createDevice(s, other.productKey);
        const byId = (await call(s, 'GET', `/api/device/detail?deviceId=${d.deviceId}`)).body.data as {
            device: DeviceRow;
            product: { productKey: string; nodeType: number };
        };
        expect(byId.device).toEqual(d);
        expect(byId.product).toMatchObject({ productKey: other.productKey, nodeType: 1 });
        const q = `productKey=${other.productKey}&deviceName=${d.deviceName}`;
        expect((await call(s, 'GET', `/api/device/getInfo?${q}`)).body.data).toEqual(d);
        const status = await call(
            s,
            'POST',
            '/api/device/getStatus',
            form({ productKey: other.productKey, deviceName: d.deviceName }),
        );
        expect(status.body.data).toEqual({ status: 'INACTIVE', deviceStatus: false, lastTime: null });
        expect((await call(s, 'GET', '/api/device/detail?deviceId=99999999')).body).toEqual({
            code: 1,
            msg: '设备不存在',
        });
        expect(
            (await call(s, 'GET', `/api/device/getInfo?productKey=${other.productKey}&deviceName=nope_x`)).status,
        ).toBe(404);
        expect((await call(s, 'GET', '/api/device/getInfo?productKey=NoSuchKey01&deviceName=nope_x')).body).toEqual({
            code: 1,
            msg: '产品不存在',
        });
    });
});

describe('editing', () => {
    it('renames (credentials follow) and edits the remark; refuses a taken name', async () => {
        const d = await createDevice(s, product.productKey);
        const taken = await createDevice(s, product.productKey);
        const renamed = await call(
            s,
            'POST',
            '/api/device/update',
            form({ deviceId: d.deviceId, newDeviceName: 'renamed-01', remark: '新备注' }),
        );
        expect(renamed.body.data).toMatchObject({
            deviceName: 'renamed-01',
            remark: '新备注',
            username: `renamed-01&${product.productKey}`,
            clientId: `${product.productKey}.renamed-01`,
            secret: d.secret,
        });
        await expectRefused(
            s,
            'POST',
            '/api/device/update',
            form({ deviceId: d.deviceId, newDeviceName: taken.deviceName, remark: 'x' }),
            '设备名称已存在',
            409,
        );
    });

    it('edits the remark through UpdateDeviceNickname (returnCode 1111) and the legacy ms4 path (returnCode 0)', async () => {
        const d = await createDevice(s, product.productKey);
        const nick = await call(
            s,
            'POST',
            '/api/device/UpdateDeviceNickname',
            form({ deviceId: d.deviceId, remark: '昵称' }),
        );
        expect(nick.body).toMatchObject({ returnCode: '1111', data: { remark: '昵称' } });
        const legacy = await call(s, 'POST', '/ms4/device/update', form({ deviceId: d.deviceId, remark: '旧接口' }));
        expect(legacy.body).toEqual({ returnCode: 0, returnMessage: 'success', data: null });
        expect((await detail(d.deviceId)).remark).toBe('旧接口');
        const refused = await call(
            s,
            'POST',
            '/api/device/UpdateDeviceNickname',
            form({ deviceId: d.deviceId, remark: '' }),
        );
        expect(refused.body).toEqual({ returnCode: '9999', returnMessage: '备注名称不能为空' });
        const missing = await call(s, 'POST', '/ms4/device/update', form({ deviceId: 99999999, remark: 'x' }));
        expect(missing.body).toEqual({ returnCode: 1, returnMessage: '设备不存在' });
        expect(missing.status).toBe(404);
    });
});

describe('enable and disable', () => {
    const act = async (deviceId: number, action: string) =>
        (await call(s, 'PUT', '/api/device/update', form({ deviceId, action }))).body.data as DeviceRow;

    it('disable sets DISABLE; enable returns to INACTIVE when never online, else OFFLINE; repeats change nothing', async () => {
        const fresh = await createDevice(s, product.productKey);
        expect((await act(fresh.deviceId, 'disable')).status).toBe('DISABLE');
        expect((await act(fresh.deviceId, 'disable')).status).toBe('DISABLE');
        expect((await act(fresh.deviceId, 'enable')).status).toBe('INACTIVE');

        const seen = await createDevice(s, product.productKey);
        await s.db.update(devices).set({ status: 'ONLINE', lastTime: new Date() }).where(eq(devices.id, seen.deviceId));
        expect((await act(seen.deviceId, 'enable')).status).toBe('ONLINE');
        const disabled = await act(seen.deviceId, 'disable');
        expect(disabled).toMatchObject({ status: 'DISABLE', deviceStatus: false });
        expect(disabled.statusTime).not.toBeNull();
        expect((await act(seen.deviceId, 'enable')).status).toBe('OFFLINE');
        // The query string works as well as the form.
        const viaQuery = await call(s, 'PUT', `/api/device/update?deviceId=${seen.deviceId}&action=disable`);
        expect((viaQuery.body.data as DeviceRow).status).toBe('DISABLE');
        expect(await counters(s)).toEqual(await realCounts(s));
    });

    it('refuses an unknown action or device', async () => {
        const d = await createDevice(s, product.productKey);
        await expectRefused(
            s,
            'PUT',
            '/api/device/update',
            form({ deviceId: d.deviceId, action: 'reboot' }),
            'action 只能是 enable 或 disable',
        );
        await expectRefused(
            s,
            'PUT',
            '/api/device/update',
            form({ deviceId: 99999999, action: 'enable' }),
            '设备不存在',
            404,
        );
    });
});

describe('batch registration', () => {
    it('registers 10,000 devices with random valid names unique within the product, answering the first 100', async () => {
        const p = await createProduct(s, { productName: '批量测试_B' });
        await createDevice(s, p.productKey);
        const answer = await call(
            s,
            'POST',
            '/api/device/BatchRegisterDevice',
            form({ productId: p.productId, amount: 10_000 }),
        );
        const data = answer.body.data as { count: number; deviceNames: string[] };
        expect(data.count).toBe(10_000);
        expect(data.deviceNames).toHaveLength(100);
        for (const name of data.deviceNames) expect(name).toMatch(DEVICE_NAME);
        const stats = (await call(s, 'GET', `/api/device/statistics?productKey=${p.productKey}`)).body.data;
        expect(stats).toEqual({ total: 10_001, onlineTotal: 0, inActiveTotal: 10_001 });
        const [{ distinct }] = await s.db
            .select({ distinct: sql<number>`count(distinct ${devices.deviceName})::int` })
            .from(devices)
            .where(eq(devices.productId, p.productId));
        expect(Number(distinct)).toBe(10_001);
        const [{ secrets }] = await s.db
            .select({ secrets: sql<number>`count(distinct ${devices.secret})::int` })
            .from(devices)
            .where(eq(devices.productId, p.productId));
        expect(Number(secrets)).toBe(10_001);
    }, 60_000);
});

describe('deleting', () => {
    it('deletes by productKey and deviceName, or by id; a gateway leaves its sub-devices without a gateway', async () => {
        const gateway = await createDevice(s, other.productKey);
        const sub = await createDevice(s, product.productKey);
        await s.db.update(devices).set({ gwId: gateway.deviceId }).where(eq(devices.id, sub.deviceId));
        const page = await listDevices(s, `productKey=${other.productKey}&deviceName=${gateway.deviceName}`);
        expect(page.records[0].subDeviceCount).toBe(1);
        expect((await detail(sub.deviceId)).gwid).toBe(gateway.deviceId);

        const removed = await call(
            s,
            'POST',
            '/api/device/RemoveDevice',
            form({ productKey: other.productKey, deviceName: gateway.deviceName }),
        );
        expect(removed.body).toEqual({ code: 0, msg: 'success', data: null });
        expect((await detail(sub.deviceId)).gwid).toBeNull();
        expect((await call(s, 'DELETE', `/api/device?deviceId=${sub.deviceId}`)).body).toEqual({
            code: 0,
            msg: 'success',
            data: null,
        });
        await expectRefused(s, 'DELETE', `/api/device?deviceId=${sub.deviceId}`, {}, '设备不存在', 404);
        await expectRefused(
            s,
            'POST',
            '/api/device/RemoveDevice',
            form({ productKey: other.productKey, deviceName: gateway.deviceName }),
            '设备不存在',
            404,
        );
        expect(await counters(s)).toEqual(await realCounts(s));
    });

    it('refuses to delete a product that still has devices, saying how many', async () => {
        const p = await createProduct(s, { productName: '删除测试_P' });
        const a = await createDevice(s, p.productKey);
        await createDevice(s, p.productKey);
        const refused = await call(s, 'DELETE', `/api/product?productId=${p.productId}`);
        expect(refused.body).toEqual({ code: 409, msg: '该产品下还有2个设备，请先删除设备' });
        expect(refused.status).toBe(409);
        await call(s, 'DELETE', `/api/device?deviceId=${a.deviceId}`);
        expect((await call(s, 'DELETE', `/api/product?productId=${p.productId}`)).body.msg).toBe(
            '该产品下还有1个设备，请先删除设备',
        );
        await s.db.delete(devices).where(eq(devices.productId, p.productId));
        expect((await call(s, 'DELETE', `/api/product?productId=${p.productId}`)).status).toBe(200);
    });
});
