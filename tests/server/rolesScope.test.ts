// @vitest-environment node
import { parse } from 'csv-parse/sync';
import { and, eq, ne, notExists } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { READONLY_ROLE_ID } from '../../schemas/rights';
import { deviceGroups, devices, products, projects } from '../../server/db/schema';
import { createTestServer, type TestServer } from '../../server/testing';
import { as, json, makeUser } from './rolesSupport';

let s: TestServer;
let get: (path: string) => Promise<Response>;
let project: { id: number; code: string };
let projectDevices: number;

type Page<T> = { data: { records: T[]; total: number } };

beforeAll(async () => {
    s = await createTestServer();
    const reader = await makeUser(s, { username: 'scoped1', roleId: READONLY_ROLE_ID, projectCodes: ['P2024001'] });
    get = as(s, reader.token);
    [project] = await s.db
        .select({ id: projects.id, code: projects.code })
        .from(projects)
        .where(eq(projects.code, 'P2024001'));
    projectDevices = (await s.db.select({ id: devices.id }).from(devices).where(eq(devices.projectId, project.id)))
        .length;
});
afterAll(() => s?.close());

describe('a user who is not an administrator sees only the projects they are staff of', () => {
    it('lists, picks and counts projects', async () => {
        const list = await json<Page<{ id: number }>>(get('/api/project/list?page=1&size=50'));
        expect(list.data.records.map((p) => p.id)).toEqual([project.id]);
        expect(list.data.total).toBe(1);
        const all = await json<{ data: { list: Array<{ code: string }> } }>(get('/api/project/listAll'));
        expect(all.data.list.map((p) => p.code)).toEqual(['P2024001']);
        expect((await json<{ data: { count: number } }>(get('/api/project/selectCount'))).data.count).toBe(1);
        // The administrator still sees them all.
        const admin = await json<Page<unknown>>(s.fetch('/api/project/list?page=1&size=50'));
        expect(admin.data.total).toBeGreaterThan(1);
    });

    it("lists, counts and exports that project's devices only", async () => {
        expect(projectDevices).toBeGreaterThan(0);
        const list = await json<{ data: { records: Array<{ projectId: number }>; total: number } }>(
            get('/api/device/list?pageNumber=1&pageSize=100'),
        );
        expect(list.data.total).toBe(projectDevices);
        expect(new Set(list.data.records.map((d) => d.projectId))).toEqual(new Set([project.id]));
        const total = await json<{ data: { onlineTotal: number; offlineTotal: number; inActiveTotal: number } }>(
            get('/api/device/total'),
        );
        expect(total.data.onlineTotal + total.data.offlineTotal + total.data.inActiveTotal).toBe(projectDevices);
        const stats = await json<{ data: { total: number } }>(get('/api/device/statistics'));
        expect(stats.data.total).toBe(projectDevices);
        const count = await json<{ data: { deviceCount: number; projectCount: number } }>(get('/api/dashboard/count'));
        expect(count.data).toMatchObject({ deviceCount: projectDevices, projectCount: 1 });

        const csv = await get('/api/device/export');
        expect(csv.status).toBe(200);
        const rows = parse(
            Buffer.from(await csv.arrayBuffer())
                .toString('utf8')
                .replace(/^\uFEFF/, ''),
            {
                columns: true,
            },
        ) as Array<Record<string, string>>;
        expect(rows).toHaveLength(projectDevices);
        expect(new Set(rows.map((r) => r['所属项目']))).toEqual(new Set(['智慧园区示范项目']));
    });

    it("maps that project's devices only, as points and as clusters", async () => {
        const inProject = new Set(
            (await s.db.select({ id: devices.id }).from(devices).where(eq(devices.projectId, project.id))).map((d) =>
                Number(d.id),
            ),
        );
        const map = await json<{ data: { list: Array<{ deviceId: number }>; total: number } }>(
            get('/api/device/queryLonLatList'),
        );
        expect(map.data.list.length).toBeGreaterThan(0);
        for (const d of map.data.list) expect(inProject.has(d.deviceId)).toBe(true);
        const adminMap = await json<{ data: { total: number } }>(s.fetch('/api/device/queryLonLatList'));
        expect(adminMap.data.total).toBeGreaterThan(map.data.total);
        // Clusters of the project's devices (domain/gridClusters.ts): together with the single points they count
        // every located device of the project once; past the last clustering zoom each device stands alone.
        type Clusters = { data: { devices: Array<{ deviceId: number }>; clusters: Array<{ count: number }> } };
        const clusters = await json<Clusters>(get('/api/device/queryLonLatClusters?zoom=3'));
        const counted = clusters.data.clusters.reduce((n, c) => n + c.count, 0) + clusters.data.devices.length;
        expect(counted).toBe(map.data.total);
        for (const d of clusters.data.devices) expect(inProject.has(d.deviceId)).toBe(true);
        const street = await json<Clusters>(get('/api/device/queryLonLatClusters?zoom=16'));
        expect(new Set(street.data.devices.map((d) => d.deviceId))).toEqual(
            new Set(map.data.list.map((d) => d.deviceId)),
        );
        // The dashboard's first call: few enough for the whole map is counted over the project, not the platform.
        const whole = await json<{ data: { whole?: boolean; total: number; devices: Array<{ deviceId: number }> } }>(
            get(`/api/device/queryLonLatClusters?zoom=3&bbox=0,0,1,1&whole=${map.data.total}`),
        );
        expect(whole.data.whole).toBe(true);
        expect(whole.data.total).toBe(map.data.total);
        expect(new Set(whole.data.devices.map((d) => d.deviceId))).toEqual(
            new Set(map.data.list.map((d) => d.deviceId)),
        );
        const over = await json<{ data: { whole?: boolean } }>(
            get(`/api/device/queryLonLatClusters?zoom=3&whole=${map.data.total - 1}`),
        );
        expect(over.data.whole).toBeUndefined();
    });

    it("lists that project's products, groups and alerts only", async () => {
        const products = await json<Page<{ productId: number; projectCode: string | null }>>(
            get('/api/product?pageNumber=1&pageSize=100'),
        );
        const adminProducts = await json<Page<unknown>>(s.fetch('/api/product?pageNumber=1&pageSize=100'));
        expect(products.data.total).toBeGreaterThan(0);
        expect(products.data.total).toBeLessThan(adminProducts.data.total);
        const picker = await json<{ data: { list: unknown[] } }>(get('/api/product/list-product'));
        expect(picker.data.list).toHaveLength(products.data.total);

        const groups = await json<{ data: { records: Array<{ projectCode: string }>; total: number } }>(
            get('/api/group/list?pageNumber=1&pageSize=100'),
        );
        for (const g of groups.data.records) expect(g.projectCode).toBe('P2024001');

        const alerts = await json<{ data: { records: Array<{ projectId: number | null }>; total: number } }>(
            get('/api/event/list?pageNumber=1&pageSize=100'),
        );
        expect(alerts.data.total).toBe(alerts.data.records.length);
        for (const a of alerts.data.records) expect(a.projectId).toBe(project.id);
        const byType = await json<{ data: { list: Array<{ amount: number }> } }>(get('/api/event/countByType'));
        const pending = await json<Page<unknown>>(get('/api/event/list?pageNumber=1&pageSize=1&status=0'));
        expect(byType.data.list.reduce((n, t) => n + t.amount, 0)).toBe(pending.data.total);
        const adminPending = await json<Page<unknown>>(s.fetch('/api/event/list?pageNumber=1&pageSize=1&status=0'));
        expect(pending.data.total).toBeLessThan(adminPending.data.total);
    });

    it('finds no device or project outside its projects by id (the secret included)', async () => {
        const [outside] = await s.db
            .select({ id: devices.id, projectId: devices.projectId })
            .from(devices)
            .where(ne(devices.projectId, project.id))
            .limit(1);
        const detail = await get(`/api/device/detail?deviceId=${outside.id}`);
        expect(detail.status).toBe(404);
        expect(await detail.json()).toMatchObject({ code: 1, msg: '设备不存在' });
        const own = await json<{ data: { device: { projectId: number } } }>(
            get(
                `/api/device/detail?deviceId=${(await s.db.select({ id: devices.id }).from(devices).where(eq(devices.projectId, project.id)).limit(1))[0].id}`,
            ),
        );
        expect(own.data.device.projectId).toBe(project.id);
        expect((await get(`/api/project/get?id=${outside.projectId}`)).status).toBe(404);
        expect((await get(`/api/project/get?id=${project.id}`)).status).toBe(200);
    });

    it('is answered "not found" by every call whose query names a record of another project, and served its own', async () => {
        const [outside] = await s.db
            .select({ id: devices.id, projectId: devices.projectId, productId: devices.productId })
            .from(devices)
            .where(ne(devices.projectId, project.id))
            .limit(1);
        const [mine] = await s.db
            .select({ id: devices.id, productId: devices.productId })
            .from(devices)
            .where(eq(devices.projectId, project.id))
            .limit(1);
        const [foreignProduct] = await s.db
            .select({ id: products.id, productKey: products.productKey })
            .from(products)
            .where(
                and(
                    ne(products.projectCode, project.code),
                    notExists(
                        s.db
                            .select({ id: devices.id })
                            .from(devices)
                            .where(and(eq(devices.productId, products.id), eq(devices.projectId, project.id))),
                    ),
                ),
            )
            .limit(1);
        const [foreignGroup] = await s.db
            .select({ id: deviceGroups.id })
            .from(deviceGroups)
            .where(ne(deviceGroups.projectCode, project.code))
            .limit(1);
        // Answered as if the record did not exist, so the scope does not tell what lies outside it.
        const refused = [
            [`/api/device/properties?deviceId=${outside.id}`, '设备不存在'],
            [`/api/overview/deviceStatus?projectId=${outside.projectId}`, '项目不存在'],
            [`/api/product/detail?productId=${foreignProduct.id}`, '产品不存在'],
            [`/api/product/detail?productKey=${foreignProduct.productKey}`, '产品不存在'],
            [`/api/group/detail?groupId=${foreignGroup.id}`, '分组不存在'],
        ];
        for (const [path, msg] of refused) {
            const answer = await get(path);
            expect(answer.status, path).toBe(404);
            // In the family's own envelope (msg, or returnMessage for groups).
            expect(Object.values(await answer.json()), path).toContain(msg);
        }
        // Their own records, and the product of a device of theirs (whatever project the product is in), are served.
        for (const path of [
            `/api/device/properties?deviceId=${mine.id}`,
            `/api/overview/deviceStatus?projectId=${project.id}`,
            `/api/product/detail?productId=${mine.productId}`,
        ])
            expect((await get(path)).status, path).toBe(200);
        // The administrator is not scoped.
        expect((await s.fetch(`/api/product/detail?productId=${foreignProduct.id}`)).status).toBe(200);
    });

    it('sees a project as soon as the administrator adds them to its staff', async () => {
        const user = await makeUser(s, { username: 'scoped2', roleId: READONLY_ROLE_ID });
        const before = await json<Page<unknown>>(as(s, user.token)('/api/device/list?pageNumber=1&pageSize=5'));
        expect(before.data.total).toBe(0);
        const res = await s.fetch('/api/project-user/addUser', {
            method: 'POST',
            body: new URLSearchParams({ list: JSON.stringify([{ projectCode: 'P2024001', userId: user.id }]) }),
        });
        expect(res.status).toBe(200);
        const after = await json<Page<unknown>>(as(s, user.token)('/api/device/list?pageNumber=1&pageSize=5'));
        expect(after.data.total).toBe(projectDevices);
    });
});
