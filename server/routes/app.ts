import { and, desc, eq, ilike, sql, type SQL } from 'drizzle-orm';
import { Hono } from 'hono';
import { appAlarmSchema, appSchema } from '../../schemas/app';
import { appAlarms, apps } from '../db/schema';
import type { Db } from '../db/client';
import type { AppEnv, Services } from '../deps';
import { ok } from '../http/envelope';
import { badRequest, notFound } from '../http/errors';
import { paging, positiveInt, readBody, validate } from '../http/input';
import { formatTime } from '../http/time';

const escapeLike = (s: string) => s.replace(/[\\%_]/g, (m) => `\\${m}`);

function flag(raw: unknown, name: string, allowed: number[]): number {
    const n = Number(raw);
    if (typeof raw !== 'string' || !allowed.includes(n) || raw.trim() === '') {
        throw badRequest(`${name}只能是 ${allowed.join('、')}`);
    }
    return n;
}

/** How many alarm notifications an app has. */
const alarmCount = sql<number>`(SELECT count(*)::int FROM app_alarms a WHERE a.app_id = "apps"."id")`;

type AppRow = typeof apps.$inferSelect & { alarmCount?: number };

/** An app as answered. */
export const appRecord = (row: AppRow, timeZone: string) => ({
    id: row.id,
    name: row.name,
    company: row.company ?? '',
    domain: row.domain ?? '',
    description: row.description ?? '',
    publishStatus: row.publishStatus,
    activeStatus: row.activeStatus,
    useStatus: row.useStatus,
    recentTime: formatTime(row.recentTime, timeZone),
    createTime: formatTime(row.createTime, timeZone),
    alarmCount: Number(row.alarmCount ?? 0),
});

async function findApp(db: Db, id: number) {
    const [row] = await db.select().from(apps).where(eq(apps.id, id));
    if (!row) throw notFound('应用不存在');
    return row;
}

/**
 * /api/app: apps published on the platform (/appconfig: 上架, list, withdraw, delete) and their use (/applymanage:
 * activation, the use switch, alarm notifications). General family (code 200).
 */
export function appRoutes({ db, config, now }: Services) {
    const app = new Hono<AppEnv>();
    const toApp = (row: AppRow) => appRecord(row, config.timeZone);
    const find = (id: number) => findApp(db, id);

    app.get('/list', async (c) => {
        const q = c.req.query();
        const { size, offset } = paging(q.pageNumber, q.pageSize);
        const where: SQL[] = [];
        const name = q.name?.trim();
        if (name) where.push(ilike(apps.name, `%${escapeLike(name)}%`));
        if (q.publishStatus !== undefined && q.publishStatus !== '') {
            where.push(eq(apps.publishStatus, flag(q.publishStatus, '发布状态', [0, 1])));
        }
        const condition = where.length ? and(...where) : undefined;
        const rows = await db
            .select({ row: apps, alarmCount })
            .from(apps)
            .where(condition)
            .orderBy(desc(apps.createTime), desc(apps.id))
            .limit(size)
            .offset(offset);
        const [{ total }] = await db
            .select({ total: sql<number>`count(*)::int` })
            .from(apps)
            .where(condition);
        return ok(c, {
            records: rows.map((r) => toApp({ ...r.row, alarmCount: r.alarmCount })),
            total: Number(total),
        });
    });

    app.get('/get', async (c) => {
        const id = positiveInt(c.req.query('id'), '缺少应用ID');
        return ok(c, toApp(await find(id)));
    });

    /** 上架应用: the app is published at once (activation and use follow on /applymanage). */
    app.post('/save', async (c) => {
        const input = await validate(appSchema, await readBody(c));
        const [row] = await db
            .insert(apps)
            .values({
                name: input.name,
                domain: input.domain,
                description: input.description ?? '',
                publishStatus: 1,
                activeStatus: 0,
                useStatus: 0,
            })
            .returning();
        return ok(c, toApp(row));
    });

    /** 上架 (1) or 下架 (0); a withdrawn app is no longer in use. */
    app.post('/publish', async (c) => {
        const body = await readBody(c);
        const id = positiveInt(body.id, '缺少应用ID');
        const publishStatus = flag(body.publishStatus, '发布状态', [0, 1]);
        await find(id);
        const [row] = await db
            .update(apps)
            .set(publishStatus === 0 ? { publishStatus, useStatus: 0 } : { publishStatus })
            .where(eq(apps.id, id))
            .returning();
        return ok(c, toApp(row));
    });

    /** 激活 (1) or 停用 (2) a published app; a stopped app is no longer in use. */
    app.post('/activate', async (c) => {
        const body = await readBody(c);
        const id = positiveInt(body.id, '缺少应用ID');
        const activeStatus = flag(body.activeStatus, '激活状态', [1, 2]);
        const found = await find(id);
        if (found.publishStatus !== 1) throw badRequest('应用未上架');
        const [row] = await db
            .update(apps)
            .set(activeStatus === 2 ? { activeStatus, useStatus: 0 } : { activeStatus })
            .where(eq(apps.id, id))
            .returning();
        return ok(c, toApp(row));
    });

    /** The use switch: 1 in use (only an activated app), 0 not. */
    app.post('/use', async (c) => {
        const body = await readBody(c);
        const id = positiveInt(body.id, '缺少应用ID');
        const useStatus = flag(body.useStatus, '使用状态', [0, 1]);
        const found = await find(id);
        if (useStatus === 1 && (found.publishStatus !== 1 || found.activeStatus !== 1)) {
            throw badRequest('应用未激活，不能启用');
        }
        const [row] = await db
            .update(apps)
            .set(useStatus === 1 ? { useStatus, recentTime: now() } : { useStatus })
            .where(eq(apps.id, id))
            .returning();
        return ok(c, toApp(row));
    });

    app.delete('/delete', async (c) => {
        const id = positiveInt(c.req.query('id'), '缺少应用ID');
        const deleted = await db.delete(apps).where(eq(apps.id, id)).returning({ id: apps.id });
        if (deleted.length === 0) throw notFound('应用不存在');
        return ok(c, null);
    });

    app.get('/alarm/list', async (c) => {
        const appId = positiveInt(c.req.query('appId'), '缺少应用ID');
        const rows = await db.select().from(appAlarms).where(eq(appAlarms.appId, appId)).orderBy(desc(appAlarms.id));
        return ok(
            c,
            rows.map((r) => ({
                id: r.id,
                appId: r.appId,
                name: r.name,
                level: r.level,
                notifyType: r.notifyType,
                receiver: r.receiver,
                content: r.content ?? '',
                createTime: formatTime(r.createTime, config.timeZone),
            })),
        );
    });

    app.post('/alarm/save', async (c) => {
        const body = await readBody(c);
        const appId = positiveInt(body.appId, '缺少应用ID');
        const input = await validate(appAlarmSchema, body);
        await find(appId);
        const [row] = await db
            .insert(appAlarms)
            .values({
                appId,
                name: input.name,
                level: input.level,
                notifyType: input.notifyType,
                receiver: input.receiver,
                content: input.content ?? '',
            })
            .returning({ id: appAlarms.id });
        return ok(c, { id: row.id });
    });

    return app;
}
