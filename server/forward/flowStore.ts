import { and, count, desc, eq, ilike, inArray, sql, type SQL } from 'drizzle-orm';
import * as yup from 'yup';
import type { Db } from '../db/client';
import { rowsOf } from '../db/rows';
import { forwardDestinations, forwardFlows, projects } from '../db/schema';
import { badRequest, isUniqueViolation, notFound } from '../http/errors';
import { validate } from '../http/input';
import { formatTime } from '../http/time';
import { inScope, scopeByProjectId } from '../rights/scope';
import { DESTINATION_KINDS } from './destinations';
import { compileFlowSql, FlowSqlError } from './sql';

/**
 * 流转规则 (docs/forwarding.md): a flow's SQL is compiled when saved (a refusal is a 400 with its position), its
 * destinations are of its own project, and each (flow, destination) is a route; a new route starts after the messages
 * stored so far (a flow forwards what comes after it was given the destination).
 */

const saveSchema = yup.object({
    id: yup.number().integer().positive('规则ID不正确').optional(),
    projectId: yup.number().typeError('请选择项目').integer().positive('请选择项目').required('请选择项目'),
    name: yup.string().trim().required('请填写规则名称').max(64, '规则名称不得超过64个字符'),
    sql: yup.string().trim().required('请填写 SQL 语句').max(8192, 'SQL 语句不得超过 8 KB'),
    destinationIds: yup
        .array()
        .of(yup.number().integer().positive('目的地ID不正确').required())
        .max(10, '一个规则最多 10 个目的地')
        .default([]),
    remark: yup.string().trim().max(200, '备注不得超过200个字符').optional(),
});

export type FlowRow = typeof forwardFlows.$inferSelect;

/** The statement compiled, or the parser's refusal as a 400. */
export function compiled(statement: string, timeZone: string) {
    try {
        return compileFlowSql(statement, { timeZone });
    } catch (err) {
        if (err instanceof FlowSqlError) throw badRequest(err.message);
        throw err;
    }
}

export async function flowOf(db: Db, id: number): Promise<FlowRow> {
    const [row] = await db.select().from(forwardFlows).where(eq(forwardFlows.id, id));
    if (!row || !inScope(row.projectId)) throw notFound('流转规则不存在');
    return row;
}

export async function saveFlow(db: Db, input: unknown, timeZone: string): Promise<number> {
    const body = await validate(saveSchema, input);
    if (!inScope(body.projectId)) throw notFound('项目不存在');
    if (body.id) await flowOf(db, body.id);
    compiled(body.sql, timeZone);
    const ids = [...new Set(body.destinationIds)];
    await checkDestinations(db, ids, body.projectId);
    const values = { projectId: body.projectId, name: body.name, sql: body.sql, remark: body.remark ?? null };
    try {
        return await db.transaction(async (tx) => {
            const id = body.id
                ? (
                      await tx
                          .update(forwardFlows)
                          .set({ ...values, updateTime: new Date() })
                          .where(eq(forwardFlows.id, body.id))
                          .returning({ id: forwardFlows.id })
                  )[0].id
                : (await tx.insert(forwardFlows).values(values).returning({ id: forwardFlows.id }))[0].id;
            await setRoutes(tx as unknown as Db, id, ids);
            return id;
        });
    } catch (err) {
        if (isUniqueViolation(err)) throw badRequest('该项目下已有同名流转规则');
        throw err;
    }
}

async function checkDestinations(db: Db, ids: number[], projectId: number) {
    if (!ids.length) return;
    const rows = await db
        .select({ id: forwardDestinations.id, projectId: forwardDestinations.projectId })
        .from(forwardDestinations)
        .where(inArray(forwardDestinations.id, ids));
    if (rows.length !== ids.length) throw badRequest('所选目的地不存在，请刷新后重新选择');
    if (rows.some((r) => r.projectId !== projectId)) throw badRequest('只能选择本项目的目的地');
}

/** The flow's routes become `ids`: removed ones go (with their dead letters), new ones start at the store's end. */
async function setRoutes(db: Db, flowId: number, ids: number[]) {
    await db.execute(
        sql`DELETE FROM forward_routes WHERE flow_id = ${flowId} AND NOT (destination_id = ANY(${`{${ids.join(',')}}`}::int[]))`,
    );
    if (!ids.length) return;
    await db.execute(sql`
        INSERT INTO forward_routes (flow_id, destination_id, position)
        SELECT ${flowId}, d, (SELECT coalesce(max(id), 0) FROM device_messages)
        FROM unnest(${`{${ids.join(',')}}`}::int[]) AS d
        ON CONFLICT (flow_id, destination_id) DO NOTHING`);
}

export async function enableFlow(db: Db, id: number, enabled: boolean) {
    await flowOf(db, id);
    await db.update(forwardFlows).set({ enabled, updateTime: new Date() }).where(eq(forwardFlows.id, id));
}

export async function deleteFlow(db: Db, id: number) {
    await flowOf(db, id);
    await db.delete(forwardFlows).where(eq(forwardFlows.id, id));
}

export interface FlowQuery {
    projectId?: number;
    name?: string;
    enabled?: boolean;
    size: number;
    offset: number;
}

/** Figures kept in the database for all processes, plus the backlog (messages stored after the route's position). */
export interface RouteTotals {
    routeId: number;
    flowId: number;
    destinationId: number;
    name: string;
    kind: string;
    position: number;
    selected: number;
    sent: number;
    failed: number;
    dead: number;
    dropped: number;
    lastError: string | null;
    lastErrorTime: Date | null;
}

export async function listFlows(db: Db, q: FlowQuery) {
    const parts: SQL[] = [];
    const scope = scopeByProjectId(forwardFlows.projectId);
    if (scope) parts.push(scope);
    if (q.projectId) parts.push(eq(forwardFlows.projectId, q.projectId));
    if (q.enabled !== undefined) parts.push(eq(forwardFlows.enabled, q.enabled));
    if (q.name) parts.push(ilike(forwardFlows.name, `%${q.name.replace(/[\\%_]/g, '\\$&')}%`));
    const where = parts.length ? and(...parts) : undefined;
    const [rows, [{ n }]] = await Promise.all([
        db.select().from(forwardFlows).where(where).orderBy(desc(forwardFlows.id)).limit(q.size).offset(q.offset),
        db.select({ n: count() }).from(forwardFlows).where(where),
    ]);
    return { rows, total: Number(n) };
}

export async function routeTotals(db: Db, flowIds: number[]): Promise<RouteTotals[]> {
    if (!flowIds.length) return [];
    return rowsOf<Record<string, unknown>>(
        await db.execute(sql`
            SELECT r.id, r.flow_id, r.destination_id, d.name, d.kind, r.position, r.selected, r.sent, r.failed, r.dead,
                   r.dropped,
                   r.last_error, r.last_error_time
            FROM forward_routes r JOIN forward_destinations d ON d.id = r.destination_id
            WHERE r.flow_id = ANY(${`{${flowIds.join(',')}}`}::int[]) ORDER BY r.id`),
    ).map((r) => ({
        routeId: Number(r.id),
        flowId: Number(r.flow_id),
        destinationId: Number(r.destination_id),
        name: String(r.name),
        kind: String(r.kind),
        position: Number(r.position),
        selected: Number(r.selected),
        sent: Number(r.sent),
        failed: Number(r.failed),
        dead: Number(r.dead),
        dropped: Number(r.dropped),
        lastError: (r.last_error as string | null) ?? null,
        lastErrorTime: r.last_error_time ? new Date(r.last_error_time as string) : null,
    }));
}

export interface FlowRates {
    /** Per flow: selected and sent per second over the last sampling window (this platform's processes). */
    rates(flowId: number): { selectedPerSecond: number; sentPerSecond: number; selected: number };
}

/** Flows as the API answers them. */
export async function flowViews(db: Db, rows: FlowRow[], timeZone: string, rates: FlowRates) {
    if (!rows.length) return [];
    const [totals, names, [{ top }]] = await Promise.all([
        routeTotals(
            db,
            rows.map((r) => r.id),
        ),
        db
            .select({ id: projects.id, name: projects.name })
            .from(projects)
            .where(inArray(projects.id, [...new Set(rows.map((r) => r.projectId))])),
        rowsOf<{ top: string | number | null }>(await db.execute(sql`SELECT max(id) AS top FROM device_messages`)),
    ]);
    const projectName = new Map(names.map((p) => [p.id, p.name]));
    return rows.map((f) => {
        const mine = totals.filter((t) => t.flowId === f.id);
        const last = mine
            .filter((t) => t.lastErrorTime)
            .sort((a, b) => b.lastErrorTime!.getTime() - a.lastErrorTime!.getTime())[0];
        const sum = (k: 'sent' | 'failed' | 'dead' | 'dropped') => mine.reduce((n, t) => n + t[k], 0);
        const r = rates.rates(f.id);
        return {
            id: f.id,
            projectId: f.projectId,
            projectName: projectName.get(f.projectId) ?? '',
            name: f.name,
            sql: f.sql,
            enabled: f.enabled,
            remark: f.remark,
            destinationIds: mine.map((t) => t.destinationId),
            destinations: mine.map((t) => ({
                id: t.destinationId,
                name: t.name,
                kind: t.kind,
                kindLabel: DESTINATION_KINDS.get(t.kind)?.label ?? t.kind,
            })),
            createTime: formatTime(f.createTime, timeZone),
            updateTime: formatTime(f.updateTime, timeZone),
            figures: {
                // A flow's destinations select the same messages: the flow selected what its furthest route did.
                selected: Math.max(0, ...mine.map((t) => t.selected)),
                sent: sum('sent'),
                failed: sum('failed'),
                dead: sum('dead'),
                dropped: sum('dropped'),
                backlog: Math.max(0, ...mine.map((t) => Number(top ?? 0) - t.position)),
                selectedPerSecond: r.selectedPerSecond,
                sentPerSecond: r.sentPerSecond,
                lastError: last?.lastError ?? null,
                lastErrorTime: formatTime(last?.lastErrorTime ?? null, timeZone),
            },
        };
    });
}
