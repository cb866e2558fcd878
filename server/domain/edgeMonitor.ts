import { sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { formatTime } from '../http/time';
import { PROPERTY_POST, latestValues } from './telemetry';

/**
 * 监控: what an edge gateway reports about itself as properties of its own thing model (Link IoT Edge's instance
 * monitor): CPU, memory and disk usage in percent and the messages it received from sub-devices (msgUp) and sent to
 * them (msgDown) per minute. The latest values come from device_latest, the last hour from its property posts in
 * device_messages, averaged per minute.
 */
export const EDGE_METRICS = ['cpuUsage', 'memUsage', 'diskUsage', 'msgUp', 'msgDown'] as const;
export type EdgeMetric = (typeof EDGE_METRICS)[number];

const HOUR_MS = 3_600_000;
const numeric = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : null);

export async function monitorFigures(db: Db, gatewayId: number, now: Date, timeZone: string) {
    const latestAll = await latestValues(db, gatewayId);
    const latest = Object.fromEntries(EDGE_METRICS.map((m) => [m, numeric(latestAll[m])])) as Record<
        EdgeMetric,
        number | null
    >;
    const averages = EDGE_METRICS.map(
        (m) =>
            sql`avg(CASE WHEN jsonb_typeof(m.data -> ${m}) = 'number' THEN (m.data ->> ${m})::float8 END) AS ${sql.identifier(m)}`,
    );
    const since = new Date(now.getTime() - HOUR_MS);
    const result = await db.execute(sql`
        SELECT (extract(epoch FROM date_trunc('minute', m.ts)) * 1000)::float8 AS ms, ${sql.join(averages, sql`, `)},
               (extract(epoch FROM max(m.ts)) * 1000)::float8 AS last
        FROM device_messages m
        WHERE m.device_id = ${gatewayId} AND m.method = ${PROPERTY_POST}
          AND m.ts >= ${since.toISOString()}::timestamptz AND m.ts <= ${now.toISOString()}::timestamptz
          AND m.data ?| ${sql.raw(`array[${EDGE_METRICS.map((x) => `'${x}'`).join(',')}]`)}
        GROUP BY 1 ORDER BY 1`);
    const rows = (result as unknown as { rows: Array<Record<string, unknown>> }).rows;
    const round = (v: unknown) => (v === null || v === undefined ? null : Math.round(Number(v) * 100) / 100);
    const series = rows.map((r) => ({
        minute: formatTime(new Date(Number(r.ms)), timeZone)!.slice(11, 16),
        time: formatTime(new Date(Number(r.ms)), timeZone),
        ...Object.fromEntries(EDGE_METRICS.map((m) => [m, round(r[m])])),
    }));
    const reported = EDGE_METRICS.some((m) => latest[m] !== null);
    const last = rows.length ? formatTime(new Date(Number(rows[rows.length - 1].last)), timeZone) : null;
    return { reported, latest, lastReport: last, series };
}
