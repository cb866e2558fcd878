import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countDevices, devicePage, findDevice, type DeviceFilter } from '../../server/domain/devices';
import { createTestServer, type TestServer } from '../../server/testing';
import { createDevice, createProduct, type DeviceRow, type TestProduct } from './devicesSupport';

let s: TestServer;
let a: TestProduct;
let b: TestProduct;
const made: Record<string, DeviceRow[]> = {};
const TZ = 'Asia/Shanghai';

beforeAll(async () => {
    s = await createTestServer({ seed: false });
    a = await createProduct(s, { productName: '语句甲' });
    b = await createProduct(s, { productName: '语句乙' });
    made.a = [];
    made.b = [];
    for (let i = 0; i < 3; i++) made.a.push(await createDevice(s, a.productKey, { remark: `甲${i}` }));
    for (let i = 0; i < 2; i++) made.b.push(await createDevice(s, b.productKey, { remark: `乙${i}` }));
});
afterAll(() => s?.close());

const ids = (rows: Array<{ deviceId: number }>) => rows.map((r) => r.deviceId);
const newestFirst = (rows: DeviceRow[]) => ids(rows).sort((x, y) => y - x);

describe('device statements built once and run with their values', () => {
    it('answer each call with its own values, whatever the call before asked', async () => {
        const cases: Array<[DeviceFilter, number, number, number[]]> = [
            [{ productId: a.productId }, 10, 0, newestFirst(made.a)],
            [{ productId: b.productId }, 10, 0, newestFirst(made.b)],
            [{ productId: a.productId }, 1, 1, newestFirst(made.a).slice(1, 2)],
            [{}, 2, 0, newestFirst([...made.a, ...made.b]).slice(0, 2)],
            [{}, 10, 3, newestFirst([...made.a, ...made.b]).slice(3)],
            [{ remark: '乙1' }, 10, 0, ids(made.b.slice(1))],
            [{ remark: '甲' }, 10, 0, newestFirst(made.a)],
            [{ productId: b.productId, remark: '乙0' }, 10, 0, ids(made.b.slice(0, 1))],
            [{ productId: b.productId, status: 'INACTIVE' }, 10, 0, newestFirst(made.b)],
            [{ productId: b.productId, status: 'ONLINE' }, 10, 0, []],
            // Pages far from the start take their size and offset as values, not written into the statement.
            [{}, 1000, 1, newestFirst([...made.a, ...made.b]).slice(1)],
            [{ productId: a.productId }, 1, 1000, []],
            [{ productId: a.productId }, 999, 1, newestFirst(made.a).slice(1)],
        ];
        // Twice over: the second round runs the statements the first one built.
        for (let round = 0; round < 2; round++) {
            for (const [filter, limit, offset, expected] of cases) {
                const label = `${JSON.stringify(filter)} ${limit}/${offset}`;
                expect(ids(await devicePage(s.db, filter, limit, offset, TZ)), label).toEqual(expected);
            }
        }
    });

    it('answer pages of every size and offset near the start, more of them than are kept', async () => {
        const all = newestFirst([...made.a, ...made.b]);
        for (let round = 0; round < 2; round++)
            for (let size = 1; size <= 30; size++)
                for (let offset = 0; offset < 8; offset++)
                    expect(ids(await devicePage(s.db, {}, size, offset, TZ)), `${size}/${offset}`).toEqual(
                        all.slice(offset, offset + size),
                    );
    });

    it('count per filter from the counters, and find each device by its id', async () => {
        for (let round = 0; round < 2; round++) {
            expect(await countDevices(s.db, { productId: a.productId })).toMatchObject({
                total: 3,
                inactive: 3,
                online: 0,
            });
            expect(await countDevices(s.db, { productId: b.productId })).toMatchObject({ total: 2, inactive: 2 });
            expect(await countDevices(s.db, { productId: b.productId, status: 'ONLINE' })).toMatchObject({ total: 0 });
            expect((await countDevices(s.db, {})).total).toBe(5);
            for (const device of [...made.a, ...made.b]) {
                const found = await findDevice(s.db, device.deviceId, TZ);
                expect(found).toMatchObject({ deviceId: device.deviceId, deviceName: device.deviceName });
                expect(found?.secret).toMatch(/^[0-9a-f]{32}$/);
            }
            expect(await findDevice(s.db, 987654321, TZ)).toBeUndefined();
        }
    });

    it('run inside a transaction too', async () => {
        await s.db.transaction(async (tx) => {
            expect((await findDevice(tx, made.a[0].deviceId, TZ))?.deviceId).toBe(made.a[0].deviceId);
        });
    });
});
