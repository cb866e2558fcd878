import { eq, inArray, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { devices } from '../../server/db/schema';
import { createTestServer, type TestServer } from '../../server/testing';
import { call, form } from './support';
import { counters, createDevice, createProduct, listDevices, realCounts, type TestProduct } from './devicesSupport';

/** device_counts is kept by triggers: after every kind of write it must equal a count over devices. */
let s: TestServer;
let a: TestProduct;
let b: TestProduct;

beforeAll(async () => {
    s = await createTestServer({ seed: false });
    a = await createProduct(s, { productName: '计数测试_A' });
    b = await createProduct(s, { productName: '计数测试_B' });
});
afterAll(() => s?.close());

async function expectExact(expected?: Record<string, number>) {
    const real = await realCounts(s);
    expect(await counters(s)).toEqual(real);
    if (expected) expect(real).toEqual(expected);
    const totals = (await call(s, 'GET', '/api/device/total')).body.data as Record<string, number>;
    const all = Object.values(real).reduce((x, y) => x + y, 0);
    expect(totals.onlineTotal + totals.offlineTotal + totals.inActiveTotal).toBe(all);
    expect((await listDevices(s, 'pageSize=1')).total).toBe(all);
}

describe('device_counts', () => {
    it('follows inserts one by one and in bulk', async () => {
        for (let i = 0; i < 3; i++) await createDevice(s, a.productKey);
        await call(s, 'POST', '/api/device/BatchRegisterDevice', form({ productId: b.productId, amount: 250 }));
        await expectExact({ [`${a.productId}/INACTIVE`]: 3, [`${b.productId}/INACTIVE`]: 250 });
    });

    it('follows status changes through the API and in bulk SQL', async () => {
        const ids = (
            await s.db.select({ id: devices.id }).from(devices).where(eq(devices.productId, b.productId)).limit(100)
        ).map((r) => r.id);
        await s.db
            .update(devices)
            .set({ status: 'ONLINE', lastTime: new Date() })
            .where(inArray(devices.id, ids.slice(0, 60)));
        await s.db
            .update(devices)
            .set({ status: 'OFFLINE', lastTime: new Date() })
            .where(inArray(devices.id, ids.slice(60)));
        await call(s, 'PUT', '/api/device/update', form({ deviceId: ids[0], action: 'disable' }));
        await expectExact({
            [`${a.productId}/INACTIVE`]: 3,
            [`${b.productId}/INACTIVE`]: 150,
            [`${b.productId}/ONLINE`]: 59,
            [`${b.productId}/OFFLINE`]: 40,
            [`${b.productId}/DISABLE`]: 1,
        });
        // Edits that change neither product nor status move no count.
        await s.db.update(devices).set({ remark: '只改备注' }).where(eq(devices.productId, b.productId));
        await expectExact();
        const stats = (await call(s, 'GET', `/api/device/statistics?productKey=${b.productKey}`)).body.data;
        expect(stats).toEqual({ total: 250, onlineTotal: 59, inActiveTotal: 150 });
        expect((await listDevices(s, `productKey=${b.productKey}&pageSize=1`)).onlineCount).toBe(59);
    });

    it('follows devices moved to another product, with and without a status change', async () => {
        const ids = (
            await s.db
                .select({ id: devices.id })
                .from(devices)
                .where(eq(devices.productId, b.productId))
                .orderBy(devices.id)
                .limit(10)
        ).map((r) => r.id);
        await s.db
            .update(devices)
            .set({ productId: a.productId })
            .where(inArray(devices.id, ids.slice(0, 5)));
        await s.db
            .update(devices)
            .set({ productId: a.productId, status: 'OFFLINE' })
            .where(inArray(devices.id, ids.slice(5)));
        await expectExact();
        const totalA = (await call(s, 'GET', `/api/device/statistics?productKey=${a.productKey}`)).body.data as {
            total: number;
        };
        expect(totalA.total).toBe(13);
    });

    it('follows deletes one by one, in bulk, and truncation', async () => {
        const first = await createDevice(s, a.productKey);
        await call(s, 'DELETE', `/api/device?deviceId=${first.deviceId}`);
        await s.db.delete(devices).where(sql`${devices.id} % 3 = 0`);
        await expectExact();
        // CASCADE: the tables that reference devices (files, telemetry, groups, alerts) empty with it.
        await s.db.execute(sql`TRUNCATE devices CASCADE`);
        await expectExact({});
        await createDevice(s, a.productKey);
        await expectExact({ [`${a.productId}/INACTIVE`]: 1 });
    });
});
