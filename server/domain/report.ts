import { sql } from 'drizzle-orm';
import type { Db } from '../db/client';

type Rows<T> = { rows: T[] };
const rowsOf = <T>(result: unknown) => (result as Rows<T>).rows;

export interface ReportRange {
    start: Date;
    end: Date;
    timeZone: string;
}

export interface ProductDay {
    day: string;
    productKey: string;
    productName: string;
    up: number;
    down: number;
    activeDevices: number;
    deviceTotal: number;
    urgent: number;
    severe: number;
    general: number;
}

/**
 * Per day (in the platform's time zone) and product: uplink and downlink messages and devices that were active
 * (sent anything or changed status) from device_messages, alerts per level from alert_events, and the product's
 * devices now (device_counts). Only products with activity or alerts in the range are listed.
 */
export async function productDays(db: Db, { start, end, timeZone }: ReportRange): Promise<ProductDay[]> {
    const rows = rowsOf<Record<string, string | number>>(
        await db.execute(sql`
            WITH msg AS (
                SELECT to_char(ts AT TIME ZONE ${timeZone}, 'YYYY-MM-DD') AS day, product_id,
                       count(*) FILTER (WHERE method <> 'device.status' AND (data->>'direction') IS DISTINCT FROM 'down') AS up,
                       count(*) FILTER (WHERE (data->>'direction') = 'down') AS down,
                       count(DISTINCT device_id) AS active
                FROM device_messages
                WHERE ts >= ${start.toISOString()}::timestamptz AND ts <= ${end.toISOString()}::timestamptz
                GROUP BY 1, 2
            ),
            alert AS (
                SELECT to_char(a.ts AT TIME ZONE ${timeZone}, 'YYYY-MM-DD') AS day, p.id AS product_id,
                       count(*) FILTER (WHERE a.type = 1) AS urgent,
                       count(*) FILTER (WHERE a.type = 2) AS severe,
                       count(*) FILTER (WHERE a.type = 3) AS general
                FROM alert_events a
                JOIN products p ON p.product_key = a.product_key
                WHERE a.ts >= ${start.toISOString()}::timestamptz AND a.ts <= ${end.toISOString()}::timestamptz
                GROUP BY 1, 2
            ),
            both_ AS (
                SELECT coalesce(m.day, a.day) AS day, coalesce(m.product_id, a.product_id) AS product_id,
                       coalesce(m.up, 0) AS up, coalesce(m.down, 0) AS down, coalesce(m.active, 0) AS active,
                       coalesce(a.urgent, 0) AS urgent, coalesce(a.severe, 0) AS severe, coalesce(a.general, 0) AS general
                FROM msg m FULL JOIN alert a ON a.day = m.day AND a.product_id = m.product_id
            )
            SELECT b.day, p.product_key, p.product_name, b.up, b.down, b.active, b.urgent, b.severe, b.general,
                   (SELECT coalesce(sum(total), 0) FROM device_counts c WHERE c.product_id = p.id) AS device_total
            FROM both_ b JOIN products p ON p.id = b.product_id
            ORDER BY b.day, p.product_name`),
    );
    return rows.map((r) => ({
        day: String(r.day),
        productKey: String(r.product_key),
        productName: String(r.product_name),
        up: Number(r.up),
        down: Number(r.down),
        activeDevices: Number(r.active),
        deviceTotal: Number(r.device_total),
        urgent: Number(r.urgent),
        severe: Number(r.severe),
        general: Number(r.general),
    }));
}

/** Every day of the range, in order, as YYYY-MM-DD in the time zone. */
export async function daysOf(db: Db, { start, end, timeZone }: ReportRange): Promise<string[]> {
    return rowsOf<{ day: string }>(
        await db.execute(sql`
            SELECT to_char(d, 'YYYY-MM-DD') AS day
            FROM generate_series(date_trunc('day', ${start.toISOString()}::timestamptz AT TIME ZONE ${timeZone}),
                                 date_trunc('day', ${end.toISOString()}::timestamptz AT TIME ZONE ${timeZone}),
                                 interval '1 day') AS d`),
    ).map((r) => r.day);
}

/** Devices now: all, online, alerts in range per level (also those of devices without a product key). */
export async function reportTotals(db: Db, { start, end }: ReportRange) {
    const [row] = rowsOf<Record<string, string | number>>(
        await db.execute(sql`
            SELECT (SELECT coalesce(sum(total), 0) FROM device_counts) AS device_total,
                   (SELECT coalesce(sum(total), 0) FROM device_counts WHERE status = 'ONLINE') AS online_total`),
    );
    const alerts = rowsOf<{ day: string; type: number; n: string | number }>(
        await db.execute(sql`
            SELECT type, count(*) AS n FROM alert_events
            WHERE ts >= ${start.toISOString()}::timestamptz AND ts <= ${end.toISOString()}::timestamptz
            GROUP BY type`),
    );
    const level = (t: number) => Number(alerts.find((a) => Number(a.type) === t)?.n ?? 0);
    return {
        deviceTotal: Number(row.device_total),
        onlineTotal: Number(row.online_total),
        alerts: { urgent: level(1), severe: level(2), general: level(3) },
    };
}
