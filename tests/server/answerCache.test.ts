import { gunzipSync } from 'node:zlib';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readsOnly } from '../../server/db/dataVersion';
import { devices } from '../../server/db/schema';
import { createTestServer, type TestServer } from '../../server/testing';
import { createDevice, createProduct, type DeviceRow, type TestProduct } from './devicesSupport';
import { call } from './support';

let s: TestServer;
let product: TestProduct;

beforeAll(async () => {
    s = await createTestServer({ seed: false });
    product = await createProduct(s, { productName: '缓存测试产品' });
});
afterAll(() => s?.close());

const page = async () =>
    (await call(s, 'GET', `/api/device/list?pageNumber=1&pageSize=10&productKey=${product.productKey}`)).body.data as {
        records: DeviceRow[];
        total: number;
    };

describe('the answers of the busiest reads', () => {
    it('show every write at once, whoever wrote it (the API, or any statement such as the broker sends)', async () => {
        const a = await createDevice(s, product.productKey);
        expect((await page()).records.map((r) => r.deviceId)).toEqual([a.deviceId]);
        expect(await page()).toEqual(await page());
        // A write that is not an API call (the broker's status updates write this way).
        await s.db.update(devices).set({ remark: '直接写入' }).where(eq(devices.id, a.deviceId));
        expect((await page()).records[0].remark).toBe('直接写入');
        await s.db.transaction(async (tx) => {
            await tx.update(devices).set({ status: 'ONLINE' }).where(eq(devices.id, a.deviceId));
        });
        expect((await page()).records[0].status).toBe('ONLINE');
        const detail = await call(s, 'GET', `/api/device/detail?deviceId=${a.deviceId}`);
        expect(detail.body.data).toMatchObject({ device: { status: 'ONLINE', remark: '直接写入' } });
        const b = await createDevice(s, product.productKey);
        expect((await page()).records.map((r) => r.deviceId)).toEqual([b.deviceId, a.deviceId]);
        const removed = await call(s, 'DELETE', `/api/device?deviceId=${b.deviceId}`);
        expect(removed.status).toBe(200);
        expect((await page()).total).toBe(1);
    });

    it('answer concurrent identical requests alike, gzipped for clients that take gzip', async () => {
        // A page of several devices: answers under a kilobyte go as they are (compression.test.ts).
        const before = (await page()).total;
        for (let i = 0; i < 4; i++) await createDevice(s, product.productKey);
        const target = `/api/device/list?pageNumber=1&pageSize=10&productKey=${product.productKey}`;
        const answers = await Promise.all(
            Array.from({ length: 20 }, () => s.fetch(target, { headers: { 'accept-encoding': 'gzip' } })),
        );
        const plain = await (await s.fetch(target)).json();
        for (const res of answers) {
            expect(res.status).toBe(200);
            expect(res.headers.get('content-encoding')).toBe('gzip');
            expect(res.headers.get('content-type')).toContain('application/json');
            expect(res.headers.get('x-content-type-options')).toBe('nosniff');
            expect(JSON.parse(gunzipSync(Buffer.from(await res.arrayBuffer())).toString('utf8'))).toEqual(plain);
        }
        expect((plain as { data: { total: number } }).data.total).toBe(before + 4);
    });

    it('are refused without a session as before', async () => {
        const answer = await call(s, 'GET', '/api/device/total', { anonymous: true });
        expect(answer.status).toBe(401);
    });

    it('count as reads only plain SELECTs that lock and write nothing', () => {
        expect(readsOnly('select "id" from "devices" order by "id" desc limit $1')).toBe(true);
        expect(readsOnly(' SELECT count(*) FROM projects')).toBe(true);
        expect(readsOnly('select "update_time", "last_update" from "devices"')).toBe(true);
        expect(readsOnly('insert into "devices" ("name") values ($1)')).toBe(false);
        expect(readsOnly('update "devices" set "status" = $1')).toBe(false);
        expect(
            readsOnly('WITH moved AS (UPDATE devices SET status = $1 RETURNING id) SELECT count(*) FROM moved'),
        ).toBe(false);
        expect(readsOnly('select "id" from "devices" where "id" in ($1) for update')).toBe(false);
        expect(readsOnly('select "id" from "projects" where "id" = $1 for share')).toBe(false);
        expect(readsOnly("select nextval('device_map_version')")).toBe(false);
        expect(readsOnly('select pg_advisory_xact_lock(1)')).toBe(false);
        expect(readsOnly('select * into copy from devices')).toBe(false);
    });
});
