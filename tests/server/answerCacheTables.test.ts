import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { tableVersionsOf } from '../../server/db/dataVersion';
import { devices, products } from '../../server/db/schema';
import { createTestServer, type TestServer } from '../../server/testing';
import { createDevice, createProduct, type TestProduct } from './devicesSupport';
import { createProject } from './projectsSupport';
import { call, form } from './support';

let s: TestServer;
let product: TestProduct;

beforeAll(async () => {
    s = await createTestServer({ seed: true });
    product = await createProduct(s, { productName: '按表缓存产品' });
});
afterAll(() => s?.close());

/**
 * The answers are kept only on the embedded database (server/http/answerCache.ts: PostgreSQL, which other processes
 * may write, is not cached): the cases about what is kept and how writes are recorded run there; the cases that every
 * read shows every write run on both.
 */
const onPostgres = Boolean(process.env.DATABASE_URL);

const data = async (target: string) => {
    const answer = await call(s, 'GET', target);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    return answer.body.data as Record<string, unknown> & { records: Array<Record<string, unknown>>; total: number };
};

/** The statements the database ran while fn ran. */
async function statementsOf(fn: () => Promise<unknown>): Promise<string[]> {
    const client = (s.db as unknown as { $client: { query: (text: string) => Promise<unknown> } }).$client;
    const spy = vi.spyOn(client, 'query');
    try {
        await fn();
        return spy.mock.calls.map((args) => String(args[0]));
    } finally {
        spy.mockRestore();
    }
}

describe('answers cached per table', () => {
    it.skipIf(onPostgres)('survive writes to tables they were not computed from', async () => {
        const productList = '/api/product?pageNumber=1&pageSize=10';
        const groupList = '/api/group/list?pageNumber=1&pageSize=10';
        const before = { products: await data(productList), groups: await data(groupList) };
        const total = (await data('/api/device/total')).inActiveTotal as number;
        await createDevice(s, product.productKey);
        const again = await statementsOf(async () => {
            expect(await data(productList)).toEqual(before.products);
            expect(await data(groupList)).toEqual(before.groups);
        });
        expect(again).toEqual([]);
        // The device total was computed from device counts, which the device write reached through its trigger.
        expect((await data('/api/device/total')).inActiveTotal).toBe(total + 1);
    });

    it('show every write to their tables on the next read, on every cached path', async () => {
        const project = await createProject(s);
        const productList = '/api/product?pageNumber=1&pageSize=10';
        const deviceList = `/api/device/list?pageNumber=1&pageSize=10&productKey=${product.productKey}`;
        const statistics = `/api/device/statistics?productKey=${product.productKey}`;
        const projectList = '/api/project/list?page=1&size=100';
        const groupList = '/api/group/list?pageNumber=1&pageSize=10';
        const projectRow = async () =>
            (await data(projectList)).records.find((r) => r.id === project.id) as { deviceCount: number };
        const read = async () => ({
            products: (await data(productList)).total,
            devices: (await data(deviceList)).total,
            statistics: (await data(statistics)).total as number,
            inactive: (await data('/api/device/total')).inActiveTotal as number,
            dashboard: (await data('/api/dashboard/count')).deviceCount as number,
            projectDevices: (await projectRow()).deviceCount,
            groups: (await data(groupList)).total,
        });
        const start = await read();

        const other = await createProduct(s, { productName: '按表缓存产品二' });
        expect((await data(productList)).records[0].productKey).toBe(other.productKey);
        expect((await data(productList)).total).toBe(start.products + 1);

        const device = await createDevice(s, product.productKey);
        const bound = await call(
            s,
            'GET',
            `/api/project/associateDevice?projectId=${project.id}&deviceId=${device.deviceId}`,
        );
        expect(bound.status).toBe(200);
        const group = await call(
            s,
            'POST',
            '/api/group/save',
            form({ projectCode: project.code, pid: 0, name: '按表缓存分组' }),
        );
        expect(group.status, JSON.stringify(group.body)).toBe(200);
        expect(await read()).toEqual({
            ...start,
            products: start.products + 1,
            devices: start.devices + 1,
            statistics: start.statistics + 1,
            inactive: start.inactive + 1,
            dashboard: start.dashboard + 1,
            projectDevices: start.projectDevices + 1,
            groups: start.groups + 1,
        });
        const detail = `/api/device/detail?deviceId=${device.deviceId}`;
        expect(((await data(detail)).device as { projectName: string }).projectName).toBe(project.name);
        const renamed = await call(
            s,
            'POST',
            '/api/product/update',
            form({ productId: product.productId, productName: '按表缓存产品改名' }),
        );
        expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
        expect(((await data(detail)).product as { productName: string }).productName).toBe('按表缓存产品改名');
        expect((await data(deviceList)).records[0].productName).toBe('按表缓存产品改名');
        // A direct statement (as the broker writes status) shows on the detail and the list alike.
        await s.db.update(devices).set({ remark: '直接写入' }).where(eq(devices.id, device.deviceId));
        expect(((await data(detail)).device as { remark: string }).remark).toBe('直接写入');
        expect((await data(deviceList)).records[0].remark).toBe('直接写入');

        const removed = await call(s, 'DELETE', `/api/device?deviceId=${device.deviceId}`);
        expect(removed.status).toBe(200);
        expect((await call(s, 'GET', detail)).status).toBe(404);
        expect(await read()).toEqual({ ...start, products: start.products + 1, groups: start.groups + 1 });
    });
});

describe('a productKey looked up again from memory', () => {
    it('finds the product once it exists, and no longer once it is gone', async () => {
        const productKey = 'MemoKey0001';
        const page = () => data(`/api/device/list?pageNumber=1&pageSize=10&productKey=${productKey}`);
        expect((await page()).total).toBe(0);
        const [row] = await s.db
            .insert(products)
            .values({
                productKey,
                productName: '按表缓存直写产品',
                nodeType: 0,
                categoryId: 3,
                networkType: 5,
                dataType: 0,
            })
            .returning({ id: products.id });
        await s.db.insert(devices).values({
            productId: row.id,
            deviceName: 'memo_dev',
            username: 'memo_dev&k',
            clientId: 'k.memo_dev',
            secret: 's',
        });
        expect((await page()).records.map((r) => r.deviceName)).toEqual(['memo_dev']);
        await s.db.delete(devices).where(eq(devices.productId, row.id));
        await s.db.delete(products).where(eq(products.id, row.id));
        expect((await page()).total).toBe(0);
    });
});

describe('requests that come while the same answer is computed', () => {
    const total = async () => {
        const res = await s.fetch('/api/device/total');
        return ((await res.json()) as { data: { inActiveTotal: number } }).data.inActiveTotal;
    };

    it('see every write that finished before they were sent', async () => {
        const start = await total();
        for (let round = 1; round <= 3; round++) {
            const early = Array.from({ length: 10 }, total);
            await createDevice(s, product.productKey);
            const late = Array.from({ length: 10 }, total);
            for (const n of await Promise.all(early)) expect([start + round - 1, start + round]).toContain(n);
            expect(await Promise.all(late)).toEqual(Array(10).fill(start + round));
        }
    });

    it.skipIf(onPostgres)(
        'do not take an answer whose statements ran before a write that finished before they came',
        async () => {
            const start = await total();
            // Written after the last answer: the next request computes it again.
            await createDevice(s, product.productKey);
            // The counting statement runs at once, but its rows are handed back only once the device below is written.
            const client = (s.db as unknown as { $client: { query: (...args: unknown[]) => Promise<unknown> } })
                .$client;
            const query = client.query.bind(client);
            let ran!: () => void;
            const counted = new Promise<void>((resolve) => (ran = resolve));
            let release!: () => void;
            const written = new Promise<void>((resolve) => (release = resolve));
            let armed = true;
            const spy = vi.spyOn(client, 'query').mockImplementation(async (...args: unknown[]) => {
                const hold = armed && String(args[0]).includes('device_counts');
                if (hold) armed = false;
                const result = await query(...args);
                if (hold) {
                    ran();
                    await written;
                }
                return result;
            });
            try {
                const early = total();
                await counted;
                await createDevice(s, product.productKey);
                const late = Array.from({ length: 5 }, total);
                release();
                expect(await early).toBe(start + 1);
                expect(await Promise.all(late)).toEqual(Array(5).fill(start + 2));
            } finally {
                spy.mockRestore();
            }
        },
    );
});

describe.skipIf(onPostgres)('the record of writes per table', () => {
    it('marks what a write reaches through triggers and cascades, and no more', async () => {
        const tracker = tableVersionsOf(s.db)!;
        await tracker.ready();
        let since = tracker.seq();
        await s.db.insert(devices).values({
            productId: product.productId,
            deviceName: 'table_record',
            username: 'table_record&x',
            clientId: 'x.table_record',
            secret: 'x',
        });
        expect(tracker.changedSince(['devices'], since)).toBe(true);
        expect(tracker.changedSince(['device_counts'], since)).toBe(true);
        expect(tracker.changedSince(['products', 'projects', 'device_groups'], since)).toBe(false);

        const doomed = await createProduct(s, { productName: '按表缓存待删产品' });
        since = tracker.seq();
        await s.db.delete(products).where(eq(products.id, doomed.productId));
        // device_counts rows of the product go with it (ON DELETE CASCADE).
        expect(tracker.changedSince(['device_counts'], since)).toBe(true);
        expect(tracker.changedSince(['device_groups'], since)).toBe(false);

        since = tracker.seq();
        await s.db.transaction(async (tx) => {
            await tx.update(devices).set({ remark: '事务' }).where(eq(devices.deviceName, 'table_record'));
        });
        expect(tracker.changedSince(['devices'], since)).toBe(true);
        expect(tracker.changedSince(['device_groups'], since)).toBe(false);

        // A statement that names no known table may have written anything.
        since = tracker.seq();
        await s.db.execute(sql`select set_config('application_name', 'answer-cache-test', false)`);
        expect(tracker.changedSince(['device_groups'], since)).toBe(true);
    });
});

describe.skipIf(onPostgres)('what a write marks as written', () => {
    /** Which of `tables` a statement marked as written. */
    async function marked(tables: string[], statement: ReturnType<typeof sql>): Promise<string[]> {
        const versions = tableVersionsOf(s.db)!;
        await versions.ready();
        const since = versions.seq();
        await s.db.execute(statement);
        return tables.filter((t) => versions.changedSince([t], since));
    }

    it('is the tables a statement writes into, not those it only reads', async () => {
        const tables = ['devices', 'products', 'device_messages', 'device_latest'];
        const [device] = await s.db.select({ id: devices.id }).from(devices).limit(1);
        // As the broker writes a batch: latest values in a WITH, the log row with its product copied from devices.
        expect(
            await marked(
                tables,
                sql`WITH latest AS (INSERT INTO device_latest AS l (device_id, props, ts)
                        VALUES (${device.id}, '{}'::jsonb, now())
                        ON CONFLICT (device_id) DO UPDATE SET ts = excluded.ts RETURNING 1)
                    INSERT INTO device_messages (device_id, ts, method, identifier, data, product_id)
                    SELECT d.id, now(), 'thing.event.property.post', NULL, '{}'::jsonb, d.product_id
                    FROM devices d WHERE d.id = ${device.id}`,
            ),
        ).toEqual(['device_messages', 'device_latest']);
        // The devices' cascades reach their messages and latest values; products, only read, stay unmarked.
        const update = await marked(
            tables,
            sql`UPDATE devices d SET remark = p.product_name FROM products p
                WHERE p.id = d.product_id AND d.id = ${device.id}`,
        );
        expect(update).toContain('devices');
        expect(update).not.toContain('products');
    });

    it('adds the tables a schema function it calls writes, and every named table when it cannot tell', async () => {
        await s.db.execute(sql`CREATE FUNCTION touch_products_for_test() RETURNS int LANGUAGE sql AS
            $$ UPDATE products SET remark = remark WHERE false; SELECT 1 $$`);
        const tables = ['devices', 'products', 'device_groups'];
        expect(
            await marked(
                tables,
                sql`UPDATE devices SET remark = remark WHERE id < 0 AND touch_products_for_test() = 1`,
            ),
        ).toEqual(['devices', 'products']);
        // Sequence calls write where no target says: every table it names.
        expect(
            await marked(
                tables,
                sql`SELECT setval('device_groups_id_seq', last_value, is_called) FROM device_groups_id_seq, device_groups LIMIT 0`,
            ),
        ).toEqual(['device_groups']);
    });
});
