import { Hono, type Context } from 'hono';
import { inArray, sql } from 'drizzle-orm';
import type { AppEnv, Services } from '../deps';
import { rowsOf } from '../db/rows';
import { forwardDeadLetters } from '../db/schema';
import { ok } from '../http/envelope';
import { badRequest } from '../http/errors';
import { paging, positiveInt, readBody } from '../http/input';
import { formatTime } from '../http/time';
import { currentScope } from '../rights/scope';
import {
    deleteDestination,
    destinationKindsView,
    destinationOf,
    destinationViews,
    listDestinations,
    saveDestination,
} from '../forward/destinationStore';
import { deleteFlow, enableFlow, flowOf, flowViews, listFlows, saveFlow } from '../forward/flowStore';
import { debugFlow, redeliver, testDestination } from '../forward/operations';
import type { ForwardService } from '../forward/service';

/**
 * /api/forward (docs/forwarding.md, openapi.yaml tag forward): destinations, flows and dead letters. Writes need the
 * forward.* rights; a scoped user sees and names only their projects' (the stores check each record's project).
 */

type Ctx = Context<AppEnv>;

const optionalId = (raw: unknown, message: string) =>
    raw === undefined || raw === '' ? undefined : positiveInt(raw, message);

function ids(raw: unknown): number[] {
    if (!Array.isArray(raw) || raw.length > 1000) throw badRequest('请选择消息（最多 1000 条）');
    return raw.map((v) => positiveInt(v, '消息ID不正确'));
}

function destinationRoutes(s: Services, forward: ForwardService) {
    const app = new Hono<AppEnv>();
    const tz = s.config.timeZone;
    const one = async (c: Ctx, id: number) =>
        ok(c, (await destinationViews(s.db, [await destinationOf(s.db, id)], tz))[0]);
    app.get('/kinds', (c) => ok(c, destinationKindsView()));
    app.get('/list', async (c) => {
        const q = c.req.query();
        const { size, offset } = paging(q.pageNumber, q.pageSize);
        const projectId = optionalId(q.projectId, '项目ID必须是正整数');
        return ok(
            c,
            await listDestinations(
                s.db,
                { projectId, kind: q.kind?.trim() || undefined, name: q.name?.trim() || undefined, size, offset },
                tz,
            ),
        );
    });
    app.get('/detail', async (c) => one(c, positiveInt(c.req.query('id'), '缺少目的地ID')));
    app.post('/save', async (c) => {
        const id = await saveDestination(s.db, await forward.box(), await readBody(c));
        await forward.changed();
        return one(c, id);
    });
    app.post('/delete', async (c) => {
        await deleteDestination(s.db, positiveInt((await readBody(c)).id, '缺少目的地ID'));
        return ok(c, null);
    });
    app.post('/test', async (c) => {
        const body = await readBody(c);
        const config = body.config;
        if (config !== undefined && (typeof config !== 'object' || config === null || Array.isArray(config)))
            throw badRequest('目的地配置应为对象');
        const input = {
            id: optionalId(body.id, '目的地ID不正确'),
            kind: typeof body.kind === 'string' ? body.kind : undefined,
            config: config as Record<string, unknown> | undefined,
        };
        return ok(c, await testDestination(s.db, await forward.box(), forward.context, input));
    });
    return app;
}

function flowRoutes(s: Services, forward: ForwardService) {
    const app = new Hono<AppEnv>();
    const tz = s.config.timeZone;
    const one = async (c: Ctx, id: number) =>
        ok(c, (await flowViews(s.db, [await flowOf(s.db, id)], tz, forward.rates))[0]);
    app.get('/list', async (c) => {
        const q = c.req.query();
        const { size, offset } = paging(q.pageNumber, q.pageSize);
        const enabled =
            q.enabled === 'true' || q.enabled === '1'
                ? true
                : q.enabled === 'false' || q.enabled === '0'
                  ? false
                  : undefined;
        if (q.enabled && enabled === undefined) throw badRequest('参数 enabled 应为 true 或 false');
        const projectId = optionalId(q.projectId, '项目ID必须是正整数');
        const { rows, total } = await listFlows(s.db, {
            projectId,
            name: q.name?.trim() || undefined,
            enabled,
            size,
            offset,
        });
        return ok(c, { records: await flowViews(s.db, rows, tz, forward.rates), total });
    });
    app.get('/detail', async (c) => one(c, positiveInt(c.req.query('id'), '缺少规则ID')));
    app.post('/save', async (c) => {
        const id = await saveFlow(s.db, await readBody(c), tz);
        await forward.changed();
        return one(c, id);
    });
    app.post('/delete', async (c) => {
        await deleteFlow(s.db, positiveInt((await readBody(c)).id, '缺少规则ID'));
        await forward.changed();
        return ok(c, null);
    });
    app.post('/enable', async (c) => {
        const body = await readBody(c);
        if (typeof body.enabled !== 'boolean') throw badRequest('参数 enabled 应为 true 或 false');
        const id = positiveInt(body.id, '缺少规则ID');
        await enableFlow(s.db, id, body.enabled);
        await forward.changed();
        return one(c, id);
    });
    app.post('/debug', async (c) => {
        const body = await readBody(c);
        if (typeof body.sql !== 'string') throw badRequest('请填写 SQL 语句');
        const text = (k: string) => (typeof body[k] === 'string' ? (body[k] as string) : undefined);
        return ok(
            c,
            await debugFlow(s.db, tz, {
                sql: body.sql,
                topic: text('topic'),
                productKey: text('productKey'),
                deviceName: text('deviceName'),
                payload: body.payload,
                deviceId: optionalId(body.deviceId, '设备ID不正确'),
            }),
        );
    });
    return app;
}

function deadLetterRoutes(s: Services, forward: ForwardService) {
    const app = new Hono<AppEnv>();
    app.get('/list', async (c) => {
        const q = c.req.query();
        const { size, offset } = paging(q.pageNumber, q.pageSize);
        return ok(
            c,
            await listDeadLetters(s, {
                projectId: optionalId(q.projectId, '项目ID必须是正整数'),
                flowId: optionalId(q.flowId, '规则ID必须是正整数'),
                size,
                offset,
            }),
        );
    });
    app.post('/redeliver', async (c) => {
        const body = await readBody(c);
        return ok(c, await redeliver(s.db, await forward.box(), forward.context, ids(body.ids)));
    });
    app.post('/delete', async (c) => {
        const list = ids((await readBody(c)).ids);
        const scope = currentScope();
        const mine = rowsOf<{ id: string }>(
            await s.db.execute(sql`
                SELECT l.id FROM forward_dead_letters l JOIN forward_routes r ON r.id = l.route_id JOIN forward_flows f ON f.id = r.flow_id
                WHERE l.id = ANY(${`{${list.join(',')}}`}::bigint[]) ${scope ? sql`AND f.project_id = ANY(${`{${scope.projectIds.join(',')}}`}::int[])` : sql``}`),
        ).map((r) => Number(r.id));
        if (mine.length) await s.db.delete(forwardDeadLetters).where(inArray(forwardDeadLetters.id, mine));
        return ok(c, { deleted: mine.length });
    });
    return app;
}

async function listDeadLetters(s: Services, q: { projectId?: number; flowId?: number; size: number; offset: number }) {
    const scope = currentScope();
    const where = sql.join(
        [
            sql`true`,
            ...(scope ? [sql`f.project_id = ANY(${`{${scope.projectIds.join(',')}}`}::int[])`] : []),
            ...(q.projectId ? [sql`f.project_id = ${q.projectId}`] : []),
            ...(q.flowId ? [sql`f.id = ${q.flowId}`] : []),
        ],
        sql` AND `,
    );
    const from = sql`FROM forward_dead_letters l JOIN forward_routes r ON r.id = l.route_id
        JOIN forward_flows f ON f.id = r.flow_id JOIN forward_destinations d ON d.id = r.destination_id WHERE ${where}`;
    const [rows, [{ n }]] = await Promise.all([
        s.db
            .execute(sql`SELECT l.id, l.message_id, l.record, l.error, l.attempts, l.create_time, f.id AS flow_id, f.name AS flow_name,
            d.id AS destination_id, d.name AS destination_name ${from} ORDER BY l.id DESC LIMIT ${q.size} OFFSET ${q.offset}`),
        s.db.execute(sql`SELECT count(*) AS n ${from}`).then((r) => rowsOf<{ n: string }>(r)),
    ]);
    return {
        records: rowsOf<Record<string, unknown>>(rows).map((r) => {
            const record = r.record as { productKey: string; deviceName: string; row: unknown };
            return {
                id: Number(r.id),
                flowId: Number(r.flow_id),
                flowName: String(r.flow_name),
                destinationId: Number(r.destination_id),
                destinationName: String(r.destination_name),
                messageId: String(r.message_id),
                productKey: record.productKey,
                deviceName: record.deviceName,
                row: record.row,
                error: String(r.error),
                attempts: Number(r.attempts),
                createTime: formatTime(r.create_time as string, s.config.timeZone),
            };
        }),
        total: Number(n),
    };
}

export function forwardRoutes(s: Services, forward: ForwardService) {
    const app = new Hono<AppEnv>();
    app.route('/destination', destinationRoutes(s, forward));
    app.route('/flow', flowRoutes(s, forward));
    app.route('/dead-letter', deadLetterRoutes(s, forward));
    return app;
}
