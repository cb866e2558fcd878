import { sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { rowsOf } from '../db/rows';

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

/**
 * The online rate of each day of the range (in the platform's time zone), from the presence history
 * (device_presence, written by a trigger on devices whenever a status turns ONLINE or stops being ONLINE): the time
 * the devices were online that day over the time they existed that day, as a percentage with one decimal. Today
 * counts up to `now`. Before its first recorded change a device was in the opposite state; a device with no change
 * recorded has kept its status now throughout. Devices deleted since are not counted. A day no device existed in
 * (or still to come) is 0.
 */
export async function dailyOnlineRates(
    db: Db,
    { start, end, timeZone }: ReportRange,
    now: Date,
): Promise<Map<string, number>> {
    const rows = rowsOf<{ day: string; whole: string | number | null; online: string | number | null }>(
        await db.execute(sql`
            WITH days AS (
                SELECT to_char(d, 'YYYY-MM-DD') AS day, d AT TIME ZONE ${timeZone} AS ds,
                       least((d + interval '1 day') AT TIME ZONE ${timeZone}, ${now.toISOString()}::timestamptz) AS de
                FROM generate_series(date_trunc('day', ${start.toISOString()}::timestamptz AT TIME ZONE ${timeZone}),
                                     date_trunc('day', ${end.toISOString()}::timestamptz AT TIME ZONE ${timeZone}),
                                     interval '1 day') AS d
            ),
            bounds AS (SELECT min(ds) AS first_ds, max(de) AS last_de FROM days),
            -- Only the changes since the range's first day (pruned to those days' partitions): the changes alternate
            -- (the trigger writes one each time a device goes to or from ONLINE), so before its first change since
            -- then a device was in the opposite state, and one with none has kept its status since, as for the
            -- changes the retention dropped.
            pres AS (
                SELECT device_id, ts, online FROM device_presence
                WHERE ts >= date_trunc('day', ${start.toISOString()}::timestamptz AT TIME ZONE ${timeZone}) AT TIME ZONE ${timeZone}
            ),
            changed AS (SELECT DISTINCT device_id FROM pres),
            dev AS (
                SELECT d.id, d.create_time AS ct, (d.status = 'ONLINE' AND c.device_id IS NULL) AS always_online
                FROM devices d CROSS JOIN bounds LEFT JOIN changed c ON c.device_id = d.id
                WHERE d.create_time < bounds.last_de
            ),
            early AS (
                SELECT count(*) AS n, count(*) FILTER (WHERE always_online) AS n_online
                FROM dev, bounds WHERE dev.ct <= bounds.first_ds
            ),
            late AS (SELECT dev.ct, dev.always_online FROM dev, bounds WHERE dev.ct > bounds.first_ds),
            iv AS (
                SELECT device_id, ts AS s,
                       coalesce(lead(ts) OVER (PARTITION BY device_id ORDER BY ts), 'infinity'::timestamptz) AS e, online
                FROM pres
                UNION ALL
                SELECT device_id, '-infinity'::timestamptz, min(ts), NOT (array_agg(online ORDER BY ts))[1]
                FROM pres GROUP BY device_id
            ),
            online_iv AS (
                SELECT iv.s, iv.e, dev.ct FROM iv JOIN dev ON dev.id = iv.device_id, bounds
                WHERE iv.online AND iv.e > bounds.first_ds AND iv.s < bounds.last_de
            )
            SELECT days.day,
                   greatest(0, extract(epoch FROM days.de - days.ds)) * early.n
                     + coalesce((SELECT sum(extract(epoch FROM days.de - greatest(days.ds, l.ct)))
                                 FROM late l WHERE l.ct < days.de), 0) AS whole,
                   greatest(0, extract(epoch FROM days.de - days.ds)) * early.n_online
                     + coalesce((SELECT sum(extract(epoch FROM days.de - greatest(days.ds, l.ct)))
                                 FROM late l WHERE l.always_online AND l.ct < days.de), 0)
                     + coalesce((SELECT sum(extract(epoch FROM least(o.e, days.de) - greatest(o.s, days.ds, o.ct)))
                                 FROM online_iv o
                                 WHERE least(o.e, days.de) > greatest(o.s, days.ds, o.ct)), 0) AS online
            FROM days CROSS JOIN early
            ORDER BY days.day`),
    );
    return new Map(
        rows.map((r) => {
            const whole = Number(r.whole ?? 0);
            const online = Number(r.online ?? 0);
            return [r.day, whole > 0 ? Math.round((online / whole) * 1000) / 10 : 0];
        }),
    );
}
