// @vitest-environment node
import { and, eq, inArray, ne, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATOR_ROLE_ID } from '../../schemas/rights';
import { devices, products, projects } from '../../server/db/schema';
import { createTestServer, type TestServer } from '../../server/testing';
import { firmware, uploadFirmware } from './otaSupport';
import { as, json as read, makeUser } from './rolesSupport';
import { call, json } from './support';

/**
 * OTA for a user scoped to one project (docs/ota.md): they name only packages, batches and tasks of their projects'
 * products (others answer as missing, 404 with the words of a missing one), list only theirs, and a batch they
 * create reaches only their projects' devices.
 */

let s: TestServer;
let user: (path: string, init?: RequestInit) => Promise<Response>;
/** A product of the user's project, and one they cannot see (neither its project nor any of its devices is theirs). */
let mine: { productId: number; devices: number[] };
let theirs: { productId: number; devices: number[] };
let project: number;
let other: number;
/** One device of `mine` moved to another project: the user's batch over the product must leave it out. */
let moved: number;
const ids = { mine: { pkg: 0, batch: 0, task: 0 }, theirs: { pkg: 0, batch: 0, task: 0 } };

// eslint-disable-next-line @typescript-eslint/no-explicit-any
const data = (a: { body: unknown }) => (a.body as any).data;

async function packageAndBatch(productId: number, deviceId: number, version: string) {
    const up = await uploadFirmware(
        s,
        { name: `范围固件${version}`, productId, version, signMethod: 'SHA256' },
        'fw.bin',
        firmware(4096),
    );
    expect(up.status, JSON.stringify(up.body)).toBe(200);
    const pkg = data(up).id as number;
    const b = await call(
        s,
        'POST',
        '/api/ota/batch',
        json({ packageId: pkg, scope: 'devices', deviceIds: String(deviceId) }),
    );
    expect(b.status, JSON.stringify(b.body)).toBe(200);
    const batch = data(b).id as number;
    const tasks = await call(s, 'GET', `/api/ota/batch/devices?batchId=${batch}&pageNumber=1&pageSize=20`);
    return { pkg, batch, task: data(tasks).records[0].id as number };
}

beforeAll(async () => {
    s = await createTestServer();
    const rows = await s.db
        .select({ id: projects.id, code: projects.code })
        .from(projects)
        .where(inArray(projects.code, ['P2024001', 'P2024002']));
    project = rows.find((r) => r.code === 'P2024001')!.id;
    other = rows.find((r) => r.code === 'P2024002')!.id;
    const devicesOf = async (productId: number) =>
        (await s.db.select({ id: devices.id }).from(devices).where(eq(devices.productId, productId))).map((d) =>
            Number(d.id),
        );
    // Mine: a product of the project with at least two of the project's devices.
    const [a] = await s.db
        .select({ id: products.id })
        .from(products)
        .where(
            and(
                eq(products.projectCode, 'P2024001'),
                sql`(SELECT count(*) FROM devices d WHERE d.product_id = ${products.id} AND d.project_id = ${project}) >= 2`,
            ),
        )
        .limit(1);
    // Theirs: another project's product none of whose devices is of the user's project.
    const [b] = await s.db
        .select({ id: products.id })
        .from(products)
        .where(
            and(
                ne(products.projectCode, 'P2024001'),
                sql`EXISTS (SELECT 1 FROM devices d WHERE d.product_id = ${products.id})`,
                sql`NOT EXISTS (SELECT 1 FROM devices d WHERE d.product_id = ${products.id} AND d.project_id = ${project})`,
            ),
        )
        .limit(1);
    expect(a && b).toBeTruthy();
    const own = (
        await s.db
            .select({ id: devices.id })
            .from(devices)
            .where(and(eq(devices.productId, a.id), eq(devices.projectId, project)))
    ).map((d) => Number(d.id));
    mine = { productId: a.id, devices: own };
    theirs = { productId: b.id, devices: await devicesOf(b.id) };
    moved = own[own.length - 1];
    await s.db.update(devices).set({ projectId: other }).where(eq(devices.id, moved));
    mine.devices = own.slice(0, -1);

    ids.mine = await packageAndBatch(mine.productId, mine.devices[0], '5.0.1');
    ids.theirs = await packageAndBatch(theirs.productId, theirs.devices[0], '5.0.2');
    user = as(
        s,
        (await makeUser(s, { username: 'otascope1', roleId: OPERATOR_ROLE_ID, projectCodes: ['P2024001'] })).token,
    );
});
afterAll(() => s?.close());

type Answer = { code: number; msg: string; data: { records: Array<{ id: number }>; total: number } & { id: number } };
const post = (path: string, body: unknown) =>
    user(path, { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });

describe('OTA for a user scoped to one project', () => {
    it("sees their project's package, batch and task", async () => {
        const pkg = await read<Answer>(user(`/api/ota/package/detail?id=${ids.mine.pkg}`));
        expect(pkg.code).toBe(200);
        expect(pkg.data.id).toBe(ids.mine.pkg);
        const packages = await read<Answer>(user('/api/ota/package?pageNumber=1&pageSize=50'));
        expect(packages.data.records.map((p) => p.id)).toEqual([ids.mine.pkg]);
        expect(packages.data.total).toBe(1);
        const batch = await read<Answer>(user(`/api/ota/batch/detail?id=${ids.mine.batch}`));
        expect(batch.code).toBe(200);
        const tasks = await read<Answer>(
            user(`/api/ota/batch/devices?batchId=${ids.mine.batch}&pageNumber=1&pageSize=20`),
        );
        expect(tasks.data.records.map((t) => t.id)).toEqual([ids.mine.task]);
        const batches = await read<Answer>(user('/api/ota/batch?pageNumber=1&pageSize=50'));
        expect(batches.data.records.map((b) => b.id)).toEqual([ids.mine.batch]);
        expect(batches.data.total).toBe(1);
        // The administrator sees both.
        const all = await call(s, 'GET', '/api/ota/batch?pageNumber=1&pageSize=50');
        expect(data(all).total).toBe(2);
    });

    it("answers another project's package, batch and task as missing, and lists none of them", async () => {
        const missing = async (res: Promise<Response>, msg: string) => {
            const r = await res;
            const body = (await r.json()) as { msg: string };
            expect(r.status, `${r.url} ${JSON.stringify(body)}`).toBe(404);
            expect(body.msg).toBe(msg);
        };
        await missing(user(`/api/ota/package/detail?id=${ids.theirs.pkg}`), '固件不存在');
        await missing(user(`/api/ota/batch?packageId=${ids.theirs.pkg}&pageNumber=1&pageSize=20`), '固件不存在');
        await missing(user(`/api/ota/batch/detail?id=${ids.theirs.batch}`), '升级批次不存在');
        await missing(
            user(`/api/ota/batch/devices?batchId=${ids.theirs.batch}&pageNumber=1&pageSize=20`),
            '升级批次不存在',
        );
        await missing(post('/api/ota/batch/cancel', { id: ids.theirs.batch }), '升级批次不存在');
        await missing(post('/api/ota/task/cancel', { id: ids.theirs.task }), '升级任务不存在');
        const packages = await read<Answer>(
            user(`/api/ota/package?productId=${theirs.productId}&pageNumber=1&pageSize=50`),
        );
        // The product itself is outside the scope: the rights middleware answers it missing, or the list is empty.
        if (packages.code === 200) expect(packages.data.records).toEqual([]);
        else expect(packages.code).toBe(404);
        // Nothing changed: the other project's batch is still running with its task.
        const batch = await call(s, 'GET', `/api/ota/batch/detail?id=${ids.theirs.batch}`);
        expect(data(batch).status).toBe('running');
    });

    it("cannot create a batch on another project's package or devices", async () => {
        const onTheirPackage = await post('/api/ota/batch', { packageId: ids.theirs.pkg, scope: 'product' });
        expect(onTheirPackage.status).toBe(404);
        expect(((await onTheirPackage.json()) as { msg: string }).msg).toBe('固件不存在');
        // Their own package, another project's device of the same product: that device is missing to them.
        const onTheirDevice = await post('/api/ota/batch', {
            packageId: ids.mine.pkg,
            scope: 'devices',
            deviceIds: String(moved),
        });
        expect(onTheirDevice.status).toBe(404);
        expect(((await onTheirDevice.json()) as { msg: string }).msg).toBe('设备不存在');
        const before = await call(s, 'GET', '/api/ota/batch?pageNumber=1&pageSize=50');
        expect(data(before).total).toBe(2);
    });

    it("reaches only their projects' devices with a batch over the whole product", async () => {
        const up = await uploadFirmware(
            s,
            { name: '范围固件整产品', productId: mine.productId, module: 'mcu', version: '5.1.0', signMethod: 'MD5' },
            'fw.bin',
            firmware(2048),
        );
        expect(up.status).toBe(200);
        const created = await read<Answer>(post('/api/ota/batch', { packageId: data(up).id, scope: 'product' }));
        expect(created.code, created.msg).toBe(200);
        const tasks = await call(
            s,
            'GET',
            `/api/ota/batch/devices?batchId=${created.data.id}&pageNumber=1&pageSize=100`,
        );
        const reached = (data(tasks).records as Array<{ deviceId: number }>).map((t) => Number(t.deviceId));
        // Every device of the product in the user's project (another module: the running batch of the first does not
        // hold it back), not the one moved to another project.
        expect(new Set(reached)).toEqual(new Set(mine.devices));
        expect(reached).not.toContain(moved);
    });
});
