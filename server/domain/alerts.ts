import dayjs from 'dayjs';
import { and, count, desc, eq, gte, sql, type SQL } from 'drizzle-orm';
import { healthScore } from '../../schemas/project';
import type { Db } from '../db/client';
import { alertEvents, projects } from '../db/schema';
import '../http/time';
import { currentScope, scopeByProjectId } from '../rights/scope';

/** Alert levels: 1 urgent, 2 severe, 3 general. */
export const ALERT_TYPES = [1, 2, 3] as const;

/** The alert list's timestamp: milliseconds included (the console trims the last 4 characters). */
export const ALERT_TIME_FORMAT = 'YYYY-MM-DD HH:mm:ss.SSS';

export function formatAlertTime(value: Date | string, timeZone: string): string {
    return dayjs(value).tz(timeZone).format(ALERT_TIME_FORMAT);
}

export interface AlertFilter {
    projectId?: number;
    /** 0 pending, 1 handled */
    status?: number;
}

/**
 * Alerts matching a filter, from alert_counts (migration 0008: per project, level and status, kept by triggers), never
 * a count over alert_events.
 */
export async function countAlerts(db: Db, filter: AlertFilter & { type?: number }): Promise<number> {
    const parts: SQL[] = [sql`true`];
    if (filter.projectId !== undefined) parts.push(sql`project_key = ${filter.projectId}`);
    if (filter.status !== undefined) parts.push(sql`status = ${filter.status}`);
    if (filter.type !== undefined) parts.push(sql`type = ${filter.type}`);
    parts.push(alertCountScope());
    const result = await db.execute(
        sql`SELECT coalesce(sum(total), 0) AS n FROM alert_counts WHERE ${sql.join(parts, sql` AND `)}`,
    );
    return Number((result as unknown as { rows: Array<{ n: string | number }> }).rows[0].n);
}

/** alert_counts rows of the caller's projects (every row for an administrator; server/rights/scope.ts). */
function alertCountScope(): SQL {
    const scope = currentScope();
    if (!scope) return sql`true`;
    if (scope.projectIds.length === 0) return sql`false`;
    return sql`project_key IN (${sql.join(
        scope.projectIds.map((id) => sql`${id}`),
        sql`, `,
    )})`;
}

function filterSql(filter: AlertFilter): SQL | undefined {
    const parts: SQL[] = [];
    if (filter.projectId !== undefined) parts.push(eq(alertEvents.projectId, filter.projectId));
    if (filter.status !== undefined) parts.push(eq(alertEvents.status, filter.status));
    const scoped = scopeByProjectId(alertEvents.projectId);
    if (scoped) parts.push(scoped);
    return parts.length ? and(...parts) : undefined;
}

/** A page of alert events, newest first, in the shape the dashboard and the project overview read. */
export async function listAlerts(db: Db, filter: AlertFilter, page: number, size: number, timeZone: string) {
    const where = filterSql(filter);
    const [rows, total] = await Promise.all([
        db
            .select({
                id: alertEvents.id,
                type: alertEvents.type,
                status: alertEvents.status,
                ts: alertEvents.ts,
                params: alertEvents.params,
                deviceName: alertEvents.deviceName,
                productKey: alertEvents.productKey,
                projectId: alertEvents.projectId,
                projectName: projects.name,
            })
            .from(alertEvents)
            .leftJoin(projects, eq(projects.id, alertEvents.projectId))
            .where(where)
            .orderBy(desc(alertEvents.ts), desc(alertEvents.id))
            .limit(size)
            .offset((page - 1) * size),
        countAlerts(db, filter),
    ]);
    return {
        records: rows.map(({ ts, ...r }) => ({ ...r, id: Number(r.id), timestamp: formatAlertTime(ts, timeZone) })),
        total,
        size,
        current: page,
    };
}

/** Pending alerts per level, every level present (0 included); from alert_counts. */
export async function pendingByType(db: Db, projectId?: number) {
    const result = await db.execute(sql`
        SELECT type, coalesce(sum(total), 0) AS amount FROM alert_counts
        WHERE status = 0 ${projectId === undefined ? sql`` : sql`AND project_key = ${projectId}`} AND ${alertCountScope()}
        GROUP BY type`);
    const rows = (result as unknown as { rows: Array<{ type: number; amount: string | number }> }).rows;
    const byType = new Map(rows.map((r) => [Number(r.type), Number(r.amount)]));
    return ALERT_TYPES.map((type) => ({ type, amount: byType.get(type) ?? 0 }));
}

/**
 * One health point per day of the last `days` days in the server's zone (today included), oldest first: the score
 * of the alerts raised that day, whatever their handling.
 */
export async function projectHealth(db: Db, projectId: number, days: number, timeZone: string, now: Date) {
    const today = dayjs(now).tz(timeZone).startOf('day');
    const first = today.subtract(days - 1, 'day');
    const day = sql<string>`to_char(${alertEvents.ts} AT TIME ZONE ${timeZone}, 'YYYY-MM-DD')`;
    const rows = await db
        .select({ day, type: alertEvents.type, n: count() })
        .from(alertEvents)
        .where(and(eq(alertEvents.projectId, projectId), gte(alertEvents.ts, first.toDate())))
        .groupBy(sql`1`, alertEvents.type); // by position: the zone would be bound twice otherwise
    const counts = new Map<string, [number, number, number]>();
    for (const r of rows) {
        const c = counts.get(r.day) ?? [0, 0, 0];
        c[Number(r.type) - 1] += Number(r.n);
        counts.set(r.day, c);
    }
    return Array.from({ length: days }, (_, i) => {
        const date = first.add(i, 'day').format('YYYY-MM-DD');
        const [urgent, severe, general] = counts.get(date) ?? [0, 0, 0];
        return { date, score: healthScore(urgent, severe, general) };
    });
}
