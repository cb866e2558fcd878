import dayjs from 'dayjs';
import timezone from 'dayjs/plugin/timezone.js';
import utc from 'dayjs/plugin/utc.js';
import { and, eq, isNotNull, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as t from '../../server/db/schema';
import { createTestServer, type TestServer } from '../../server/testing';
import { DEMO_ALERT_COUNT, DEMO_APPS, DEMO_USERS } from '../../server/seed/dashboard';
import { createDevice, createProduct, listForm, type TestProduct } from './devicesSupport';
import { createProject, expectRefused } from './projectsSupport';
import { call } from './support';

dayjs.extend(utc);
dayjs.extend(timezone);
const TZ = 'Asia/Shanghai';

let s: TestServer;
let lamp: TestProduct;
let home: TestProduct;

beforeAll(async () => {
    s = await createTestServer();
    // categoryId 3 is 智慧城市/公共服务/路灯照明 (level 3); a level-2 category proves deeper levels roll up to the root.
    lamp = await createProduct(s, { productName: '看板测试路灯', categoryId: 3 });
    const [level2] = await s.db
        .select({ id: t.categories.id })
        .from(t.categories)
        .where(eq(t.categories.level, 2))
        .orderBy(sql`${t.categories.id} DESC`)
        .limit(1);
    home = await createProduct(s, { productName: '看板测试二级', categoryId: level2.id });
});
afterAll(() => s?.close());

const data = async <T>(target: string): Promise<T> => {
    const answer = await call(s, 'GET', target);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    return answer.body.data as T;
};
const one = async (query: ReturnType<typeof sql>) =>
    Number(((await s.db.execute(query)) as unknown as { rows: Array<{ n: unknown }> }).rows[0].n);

/** The dashboard counts, counted from the tables themselves. */
async function realCounts() {
    return {
        projectCount: await one(sql`SELECT count(*) AS n FROM projects`),
        productCount: await one(sql`SELECT count(*) AS n FROM products`),
        deviceCount: await one(sql`SELECT count(*) AS n FROM devices`),
        appUsedCount: await one(sql`SELECT count(*) AS n FROM apps WHERE use_status = 1`),
        appToUseCount: await one(sql`SELECT count(*) AS n FROM apps WHERE active_status = 1 AND use_status = 0`),
    };
}

/** Devices per root category, counted from devices → products → the category tree. */
async function realByCategory() {
    const result = await s.db.execute(sql`
        WITH RECURSIVE tree (id, root) AS (
            SELECT id, id FROM categories WHERE parent_id IS NULL
            UNION ALL SELECT c.id, tree.root FROM categories c JOIN tree ON c.parent_id = tree.id)
        SELECT r.id AS "categoryId", r.name AS "categoryName", count(*)::int AS total
        FROM devices d JOIN products p ON p.id = d.product_id JOIN tree ON tree.id = p.category_id
        JOIN categories r ON r.id = tree.root GROUP BY r.id, r.name, r.sort ORDER BY r.sort, r.id`);
    return (result as unknown as { rows: Array<{ categoryId: number; categoryName: string; total: number }> }).rows.map(
        (r) => ({ ...r, categoryId: Number(r.categoryId), total: Number(r.total) }),
    );
}

describe('demo content', () => {
    it('seeds staff users without a usable password, apps and alerts over the last 30 days', async () => {
        const users = await s.db.select().from(t.users);
        for (const u of DEMO_USERS) {
            const row = users.find((x) => x.username === u.username)!;
            expect(row.mobile).toBe(u.mobile);
            expect(row.passwordHash).toMatch(/^[0-9a-f]{128}$/);
        }
        const hashes = users
            .filter((u) => DEMO_USERS.some((d) => d.username === u.username))
            .map((u) => u.passwordHash);
        expect(new Set(hashes).size).toBe(DEMO_USERS.length);
        expect(await s.db.select().from(t.apps)).toHaveLength(DEMO_APPS.length);
        const alerts = await s.db.select().from(t.alertEvents);
        expect(alerts.length).toBeGreaterThanOrEqual(DEMO_ALERT_COUNT);
        const monthAgo = Date.now() - 31 * 24 * 3600 * 1000;
        expect(alerts.every((a) => a.ts.getTime() > monthAgo)).toBe(true);
        expect(new Set(alerts.map((a) => a.type))).toEqual(new Set([1, 2, 3]));
        expect(new Set(alerts.map((a) => a.status))).toEqual(new Set([0, 1]));
        expect(new Set(alerts.map((a) => a.projectId).filter((p) => p !== null)).size).toBeGreaterThan(1);
        expect(await s.db.select().from(t.projectUsers)).not.toHaveLength(0);
    });
});

describe('dashboard counts', () => {
    it('equal the data, and follow new devices, products, projects and apps', async () => {
        const before = await data<Record<string, number>>('/api/dashboard/count');
        expect(before).toEqual(await realCounts());
        expect(before.deviceCount).toBeGreaterThan(0);
        expect(before.appUsedCount).toBe(DEMO_APPS.filter((a) => a.useStatus === 1).length);
        expect(before.appToUseCount).toBe(DEMO_APPS.filter((a) => a.activeStatus === 1 && a.useStatus === 0).length);

        for (let i = 0; i < 3; i++) await createDevice(s, lamp.productKey);
        await createProduct(s);
        await createProject(s);
        await s.db.insert(t.apps).values([
            { name: '新应用甲', activeStatus: 1, useStatus: 1 },
            { name: '新应用乙', activeStatus: 1, useStatus: 0 },
            { name: '新应用丙', activeStatus: 2, useStatus: 0 },
        ]);
        const after = await data<Record<string, number>>('/api/dashboard/count');
        expect(after).toEqual({
            projectCount: before.projectCount + 1,
            productCount: before.productCount + 1,
            deviceCount: before.deviceCount + 3,
            appUsedCount: before.appUsedCount + 1,
            appToUseCount: before.appToUseCount + 1,
        });
        expect(after).toEqual(await realCounts());
    });

    it('device totals per top-level category equal the data; deeper categories count under their root', async () => {
        await createDevice(s, home.productKey);
        await createDevice(s, home.productKey);
        const { records } = await data<{ records: Array<{ categoryId: number; categoryName: string; total: number }> }>(
            '/api/device/getCntGroupByCate',
        );
        expect(records).toEqual(await realByCategory());
        const sum = records.reduce((n, r) => n + r.total, 0);
        expect(sum).toBe((await realCounts()).deviceCount);
        expect(records.every((r) => r.total > 0)).toBe(true);
        // The roots of the seeded tree come in its order.
        const roots = await s.db
            .select({ id: t.categories.id })
            .from(t.categories)
            .where(sql`${t.categories.parentId} IS NULL`)
            .orderBy(t.categories.sort, t.categories.id);
        const order = roots.map((r) => r.id);
        expect(records.map((r) => order.indexOf(r.categoryId))).toEqual(
            [...records.map((r) => order.indexOf(r.categoryId))].sort((a, b) => a - b),
        );
    });
});

describe('alert events', () => {
    it('counts pending alerts per level, every level present, overall and per project', async () => {
        const p = await createProject(s);
        await s.db.insert(t.alertEvents).values([
            { type: 2, status: 0, projectId: p.id, deviceName: 'a' },
            { type: 2, status: 0, projectId: p.id, deviceName: 'b' },
            { type: 3, status: 1, projectId: p.id, deviceName: 'c' },
        ]);
        const pending = await s.db
            .select({ type: t.alertEvents.type })
            .from(t.alertEvents)
            .where(eq(t.alertEvents.status, 0));
        const all = await data<{ list: Array<{ type: number; amount: number }> }>('/api/event/countByType');
        expect(all.list).toEqual(
            [1, 2, 3].map((type) => ({ type, amount: pending.filter((a) => a.type === type).length })),
        );
        const mine = await data<{ list: unknown[] }>(`/api/event/countByType?projectId=${p.id}`);
        expect(mine.list).toEqual([
            { type: 1, amount: 0 },
            { type: 2, amount: 2 },
            { type: 3, amount: 0 },
        ]);
        const overview = await data<{ list: unknown[] }>(`/api/overview/alertType?projectId=${p.id}`);
        expect(overview.list).toEqual(mine.list);
        await expectRefused(s, 'GET', '/api/event/countByType?projectId=999999', {}, '项目不存在', 404);
    });

    it('lists newest first with millisecond timestamps in the server zone, filtered and paged', async () => {
        const p = await createProject(s);
        const d = await createDevice(s, lamp.productKey);
        const base = Math.ceil((Date.now() + 60_000) / 1000) * 1000; // a whole second, newer than every demo alert
        const inserted = await s.db
            .insert(t.alertEvents)
            .values(
                [0, 1, 2, 3, 4].map((i) => ({
                    type: 1 + (i % 3),
                    status: i % 2,
                    projectId: p.id,
                    deviceId: d.deviceId,
                    deviceName: d.deviceName,
                    productKey: lamp.productKey,
                    params: `告警 ${i}`,
                    ts: new Date(base + i * 1000 + 123),
                })),
            )
            .returning({ id: t.alertEvents.id });
        const page = await data<{
            records: Array<Record<string, unknown>>;
            total: number;
            size: number;
            current: number;
        }>('/api/event/list?pageNumber=1&pageSize=10');
        expect(page.size).toBe(10);
        expect(page.current).toBe(1);
        expect(page.total).toBe((await s.db.select().from(t.alertEvents)).length);
        expect(page.records.slice(0, 5).map((r) => r.id)).toEqual(inserted.map((r) => r.id).reverse());
        expect(page.records[0]).toEqual({
            id: inserted[4].id,
            type: 2,
            status: 0,
            timestamp: dayjs(base + 4123)
                .tz(TZ)
                .format('YYYY-MM-DD HH:mm:ss.SSS'),
            params: '告警 4',
            deviceName: d.deviceName,
            productKey: lamp.productKey,
            projectId: p.id,
            projectName: p.name,
        });
        expect(String(page.records[0].timestamp)).toMatch(/\.123$/);

        const handled = await data<{ records: Array<{ id: number; status: number }>; total: number }>(
            `/api/event/list?projectId=${p.id}&status=1&pageSize=1&pageNumber=2`,
        );
        expect(handled.total).toBe(2);
        expect(handled.records.map((r) => r.id)).toEqual([inserted[1].id]);
        const overview = await data<{ records: Array<{ id: number }>; total: number; current: number }>(
            `/api/overview/alertList?projectId=${p.id}&pageNumber=1&pageSize=3`,
        );
        expect(overview.total).toBe(5);
        expect(overview.records.map((r) => r.id)).toEqual([inserted[4].id, inserted[3].id, inserted[2].id]);

        await expectRefused(s, 'GET', '/api/event/list?status=2', {}, '状态只能是0（未处理）或1（已处理）');
        await expectRefused(s, 'GET', '/api/event/list?projectId=999999', {}, '项目不存在', 404);
        await expectRefused(s, 'GET', '/api/event/list?pageNumber=0', {}, '页码必须是正整数');
    });
});

describe('alert counters', () => {
    /** alert_counts without zero rows, and the same counted from alert_events. */
    const counters = async () => {
        const kept = await s.db.execute(
            sql`SELECT project_key AS p, type, status, total::int AS n FROM alert_counts WHERE total <> 0 ORDER BY 1, 2, 3`,
        );
        const real = await s.db.execute(
            sql`SELECT coalesce(project_id, 0) AS p, type, status, count(*)::int AS n FROM alert_events GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`,
        );
        const norm = (r: unknown) =>
            (r as { rows: Array<Record<string, unknown>> }).rows.map((x) => [x.p, x.type, x.status, x.n].map(Number));
        return { kept: norm(kept), real: norm(real) };
    };

    it('follow inserts, handling, deletes and deleted projects (through the API or the foreign key)', async () => {
        const start = await counters();
        expect(start.kept).toEqual(start.real);
        const a = await createProject(s);
        const b = await createProject(s);
        const ids = await s.db
            .insert(t.alertEvents)
            .values([
                { type: 1, projectId: a.id, deviceName: 'a1' },
                { type: 1, projectId: a.id, deviceName: 'a2' },
                { type: 2, projectId: b.id, deviceName: 'b1' },
                { type: 3, projectId: null, deviceName: 'n1' },
            ])
            .returning({ id: t.alertEvents.id });
        expect((await counters()).kept).toEqual((await counters()).real);
        await s.db.update(t.alertEvents).set({ status: 1 }).where(eq(t.alertEvents.id, ids[0].id));
        await s.db.update(t.alertEvents).set({ params: '只改内容' }).where(eq(t.alertEvents.id, ids[1].id));
        expect((await counters()).kept).toEqual((await counters()).real);
        await s.db.delete(t.alertEvents).where(eq(t.alertEvents.id, ids[3].id));
        expect((await counters()).kept).toEqual((await counters()).real);
        await call(s, 'DELETE', `/api/project/delete?ids=${a.id}`);
        expect((await counters()).kept).toEqual((await counters()).real);
        // Deleted behind the API's back: the key sets project_id null, and the counters follow.
        await s.db.delete(t.projects).where(eq(t.projects.id, b.id));
        const end = await counters();
        expect(end.kept).toEqual(end.real);
        const pending = await data<{ list: Array<{ type: number; amount: number }> }>('/api/event/countByType');
        const real = await s.db
            .select({ type: t.alertEvents.type })
            .from(t.alertEvents)
            .where(eq(t.alertEvents.status, 0));
        expect(pending.list.map((x) => x.amount)).toEqual(
            [1, 2, 3].map((ty) => real.filter((r) => r.type === ty).length),
        );
    });
});

describe('project overview', () => {
    it('pies: devices by status (all four) and by top-level category', async () => {
        const p = await createProject(s);
        const ds = [];
        for (let i = 0; i < 3; i++) ds.push(await createDevice(s, lamp.productKey));
        ds.push(await createDevice(s, home.productKey));
        await call(s, 'POST', '/api/device/bind', listForm({ projectId: p.id, deviceId: ds.map((d) => d.deviceId) }));
        await s.db.update(t.devices).set({ status: 'ONLINE' }).where(eq(t.devices.id, ds[0].deviceId));
        await s.db.update(t.devices).set({ status: 'DISABLE', enabled: false }).where(eq(t.devices.id, ds[3].deviceId));
        const status = await data<{ list: unknown[] }>(`/api/overview/deviceStatus?projectId=${p.id}`);
        expect(status.list).toEqual([
            { status: 'ONLINE', amount: 1 },
            { status: 'OFFLINE', amount: 0 },
            { status: 'INACTIVE', amount: 2 },
            { status: 'DISABLE', amount: 1 },
        ]);
        const type = await data<{ list: Array<{ type: string; amount: number }> }>(
            `/api/overview/deviceType?projectId=${p.id}`,
        );
        const rootOf = async (productId: number) => {
            const r = await s.db.execute(sql`
                WITH RECURSIVE up (id, parent_id, name) AS (
                    SELECT c.id, c.parent_id, c.name FROM categories c JOIN products p ON p.category_id = c.id
                    WHERE p.id = ${productId}
                    UNION ALL SELECT c.id, c.parent_id, c.name FROM categories c JOIN up ON up.parent_id = c.id)
                SELECT name FROM up WHERE parent_id IS NULL`);
            return (r as unknown as { rows: Array<{ name: string }> }).rows[0].name;
        };
        const lampRoot = await rootOf(lamp.productId);
        const homeRoot = await rootOf(home.productId);
        expect(lampRoot).not.toBe(homeRoot);
        expect(type.list).toEqual(
            expect.arrayContaining([
                { type: lampRoot, amount: 3 },
                { type: homeRoot, amount: 1 },
            ]),
        );
        expect(type.list).toHaveLength(2);

        const empty = await createProject(s);
        expect((await data<{ list: unknown[] }>(`/api/overview/deviceType?projectId=${empty.id}`)).list).toEqual([]);
        for (const path of ['deviceStatus', 'deviceType', 'alertType', 'alertList', 'health']) {
            await expectRefused(s, 'GET', `/api/overview/${path}?projectId=999999`, {}, '项目不存在', 404);
            await expectRefused(s, 'GET', `/api/overview/${path}`, {}, '缺少项目ID');
        }
    });

    it('health: one point per day, oldest first, from the alerts raised that day', async () => {
        const p = await createProject(s);
        const today = dayjs().tz(TZ).startOf('day');
        const at = (daysAgo: number, hour: number) => today.subtract(daysAgo, 'day').add(hour, 'hour').toDate();
        await s.db.insert(t.alertEvents).values([
            // Today: one urgent, one severe (handled alerts count too): 100 − 10 − 5 = 85.
            { type: 1, status: 0, projectId: p.id, deviceName: 'x', ts: at(0, 0) },
            { type: 2, status: 1, projectId: p.id, deviceName: 'x', ts: at(0, 0) },
            // Two days ago: three general at the day's edges (00:00 and 23:59 local): 97.
            { type: 3, projectId: p.id, deviceName: 'x', ts: at(2, 0) },
            { type: 3, projectId: p.id, deviceName: 'x', ts: today.subtract(1, 'day').subtract(1, 'minute').toDate() },
            { type: 3, projectId: p.id, deviceName: 'x', ts: at(2, 12) },
            // Five days ago: twelve urgent, the floor is 0.
            ...Array.from({ length: 12 }, () => ({ type: 1, projectId: p.id, deviceName: 'x', ts: at(5, 8) })),
            // Ten days ago: outside the default week.
            { type: 1, projectId: p.id, deviceName: 'x', ts: at(10, 8) },
        ]);
        // Another project's alerts do not count.
        const other = await createProject(s);
        await s.db.insert(t.alertEvents).values({ type: 1, projectId: other.id, deviceName: 'y', ts: at(1, 1) });

        const week = await data<{ list: Array<{ date: string; score: number }> }>(
            `/api/overview/health?projectId=${p.id}`,
        );
        const day = (n: number) => today.subtract(n, 'day').format('YYYY-MM-DD');
        expect(week.list).toEqual([
            { date: day(6), score: 100 },
            { date: day(5), score: 0 },
            { date: day(4), score: 100 },
            { date: day(3), score: 100 },
            { date: day(2), score: 97 },
            { date: day(1), score: 100 },
            { date: day(0), score: 85 },
        ]);
        const month = await data<{ list: Array<{ date: string; score: number }> }>(
            `/api/overview/health?projectId=${p.id}&days=30`,
        );
        expect(month.list).toHaveLength(30);
        expect(month.list[0].date).toBe(day(29));
        expect(month.list.find((x) => x.date === day(10))?.score).toBe(90);
        await expectRefused(s, 'GET', `/api/overview/health?projectId=${p.id}&days=31`, {}, '天数不能超过30');
        await expectRefused(s, 'GET', `/api/overview/health?projectId=${p.id}&days=0`, {}, '天数必须是正整数');
    });
});

describe('device map', () => {
    type MapAnswer = {
        list: Array<{
            deviceId: number;
            productId: number;
            deviceName: string;
            longitude: number;
            latitude: number;
            status: string;
        }>;
        total: number;
    };

    it('answers every located device and only those, or those inside bbox', async () => {
        const placed = await createDevice(s, lamp.productKey, { longitude: 87.6168, latitude: 43.8256 });
        const unplaced = await createDevice(s, lamp.productKey);
        // A name with JSON's special characters survives the database-built answer.
        await s.db.update(t.devices).set({ deviceName: 'q"uo\\te' }).where(eq(t.devices.id, placed.deviceId));
        const map = await data<MapAnswer>('/api/device/queryLonLatList');
        const located = await s.db
            .select({ id: t.devices.id })
            .from(t.devices)
            .where(and(isNotNull(t.devices.longitude), isNotNull(t.devices.latitude)));
        expect(map.total).toBe(located.length);
        expect(map.list.map((d) => d.deviceId).sort((a, b) => a - b)).toEqual(
            located.map((d) => d.id).sort((a, b) => a - b),
        );
        expect(map.list.map((d) => d.deviceId)).not.toContain(unplaced.deviceId);
        expect(map.list.find((d) => d.deviceId === placed.deviceId)).toEqual({
            deviceId: placed.deviceId,
            productId: lamp.productId,
            deviceName: 'q"uo\\te',
            longitude: 87.6168,
            latitude: 43.8256,
            status: 'INACTIVE',
        });

        const urumqi = await data<MapAnswer>('/api/device/queryLonLatList?bbox=87,43,88,44');
        expect(urumqi.list.map((d) => d.deviceId)).toEqual([placed.deviceId]);
        expect(urumqi.total).toBe(1);
        const nowhere = await data<MapAnswer>('/api/device/queryLonLatList?bbox=-10,-10,-9,-9');
        expect(nowhere).toEqual({ list: [], total: 0 });
    });

    it('refuses a malformed bbox in the device envelope', async () => {
        const message = 'bbox 格式应为 西经,南纬,东经,北纬（如 73,18,135,54）';
        for (const bbox of ['1,2,3', '88,43,87,44', '87,44,88,43', 'a,b,c,d', '0,0,200,10', '1,2,3,4,5']) {
            const answer = await call(s, 'GET', `/api/device/queryLonLatList?bbox=${bbox}`);
            expect(answer.status, bbox).toBe(400);
            expect(answer.body).toEqual({ code: 1, msg: message });
        }
    });
});
