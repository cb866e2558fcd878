import { desc, eq, sql } from 'drizzle-orm';
import { Hono } from 'hono';
import { productLogSchema } from '../../schemas/productLog';
import { productLogs } from '../db/schema';
import type { AppEnv, Services } from '../deps';
import { ok } from '../http/envelope';
import { notFound } from '../http/errors';
import { paging, positiveInt, readBody, validate } from '../http/input';
import { formatTime } from '../http/time';

/** /ms3/productLog: the product update log (ms3 envelope: '000000' / '999999'). */
export function productLogRoutes({ db, config }: Services) {
    const app = new Hono<AppEnv>();
    const toLog = (row: typeof productLogs.$inferSelect) => ({
        id: row.id,
        opTime: formatTime(row.opTime, config.timeZone),
        log: row.log,
    });

    app.post('/find', async (c) => {
        const body = await readBody(c);
        const { size, offset } = paging(body.page, body.size);
        const rows = await db
            .select()
            .from(productLogs)
            .orderBy(desc(productLogs.opTime), desc(productLogs.id))
            .limit(size)
            .offset(offset);
        const [{ total, last }] = await db
            .select({
                total: sql<number>`count(*)::int`,
                last: sql<Date | null>`max(${productLogs.opTime})`.mapWith(productLogs.opTime),
            })
            .from(productLogs);
        return ok(c, {
            records: rows.map(toLog),
            total: Number(total),
            lastOpTime: formatTime(last, config.timeZone),
        });
    });

    app.post('/save', async (c) => {
        const input = await validate(productLogSchema, await readBody(c));
        const [row] = await db.insert(productLogs).values({ log: input.log }).returning();
        return ok(c, toLog(row));
    });

    app.post('/delete', async (c) => {
        const id = positiveInt((await readBody(c)).id, '缺少日志ID');
        const deleted = await db.delete(productLogs).where(eq(productLogs.id, id)).returning({ id: productLogs.id });
        if (deleted.length === 0) throw notFound('日志不存在');
        return ok(c, null);
    });

    return app;
}
