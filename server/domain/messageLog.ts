import { sql, type SQL } from 'drizzle-orm';
import type { Db } from '../db/client';
import { formatTime } from '../http/time';
import { PROPERTY_POST } from './telemetry';

/**
 * The message log (/log): a product's uplink, downlink or status messages, newest first, from device_messages.
 * Every query walks one index (0012_message_log.sql) and stops after the page; the total is counted up to
 * COUNT_CAP rows, so a product with tens of millions of messages costs no more than one with ten thousand.
 *
 * Uplink is everything a device sent: property and event posts, replies to downlink calls (data.direction 'up'),
 * custom-topic messages and passthrough. Downlink is what the platform sent (data.direction 'down'). Status
 * changes (device.status, online/offline) are a third kind of their own: the uplink tab offers them as its
 * 消息类型 filter, so they do not drown the data messages.
 */

export type Direction = 'up' | 'down' | 'status';

/** Totals stop here: a longer log says "10,000" and the time range narrows it. */
export const COUNT_CAP = 10_000;

export interface LogQuery {
    productId: number;
    productKey: string;
    direction: Direction;
    /** The device, when the query names one (exact name within the product). */
    deviceId?: number;
    deviceName?: string;
    start?: Date;
    end?: Date;
    messageId?: string;
    limit: number;
    offset: number;
}

interface Row extends Record<string, unknown> {
    id: number | string;
    ts: string | Date;
    method: string;
    data: unknown;
    device_name: string;
}

/** The topic a message travelled on, rebuilt from its method (custom topics keep their own). */
export function topicOf(method: string, data: unknown, productKey: string, deviceName: string): string {
    const d = (data ?? {}) as Record<string, unknown>;
    if (method === 'user.message') return typeof d.topic === 'string' ? d.topic : '';
    // OTA messages (server/ota) keep the topic they travelled on; a result is the platform's own, on no topic.
    if (method.startsWith('ota.')) return typeof d.topic === 'string' ? d.topic : '';
    if (method === 'device.status') return `/as/mqtt/status/${productKey}/${deviceName}`;
    return `/sys/${productKey}/${deviceName}/${method.replaceAll('.', '/')}`;
}

/**
 * The Alink message id (downlink calls and their replies), else the log row's own id. A property post's data is its
 * values (a property may be named `id`), never a message id.
 */
export function messageIdOf(id: number | string, method: string, data: unknown): string {
    const own = method === PROPERTY_POST ? undefined : (data as Record<string, unknown> | null)?.id;
    return typeof own === 'string' || typeof own === 'number' ? String(own) : String(id);
}

/**
 * The conditions of one query, spelled as the partial index that serves it (the planner matches predicates as
 * written), and the index's own column order for ORDER BY.
 */
function plan(q: LogQuery): { where: SQL[]; order: SQL } {
    const where: SQL[] = [];
    const byDevice = q.deviceId !== undefined;
    where.push(byDevice ? sql`m.device_id = ${q.deviceId}` : sql`m.product_id = ${q.productId}`);
    if (q.direction === 'down') where.push(sql`(m.data->>'direction') = 'down'`);
    else if (q.direction === 'status') where.push(sql`m.method = 'device.status'`);
    else where.push(sql`m.method <> 'device.status' AND (m.data->>'direction') IS DISTINCT FROM 'down'`);
    if (q.start) where.push(sql`m.ts >= ${q.start.toISOString()}::timestamptz`);
    if (q.end) where.push(sql`m.ts <= ${q.end.toISOString()}::timestamptz`);
    if (q.messageId !== undefined) {
        const numeric = /^\d{1,15}$/.test(q.messageId);
        // A property post's data is its values: never searched as an Alink id, found by its log id.
        const post = sql`m.method = ${PROPERTY_POST}`;
        const alink = sql`NOT ${post} AND (m.data->>'id') = ${q.messageId}`;
        where.push(
            numeric
                ? sql`((${alink}) OR (m.id = ${Number(q.messageId)} AND (${post} OR (m.data->>'id') IS NULL)))`
                : alink,
        );
        // Within the product even when a device is named, so the message-id index applies.
        if (byDevice) where.push(sql`m.product_id = ${q.productId}`);
    }
    const order =
        byDevice && q.direction === 'status'
            ? sql`m.device_id, m.method, m.ts DESC, m.id DESC`
            : byDevice
              ? sql`m.device_id, m.ts DESC, m.id DESC`
              : sql`m.product_id, m.ts DESC, m.id DESC`;
    return { where, order };
}

export async function queryMessageLog(db: Db, q: LogQuery, timeZone: string) {
    if (q.offset >= COUNT_CAP) return { records: [], total: COUNT_CAP };
    const { where, order } = plan(q);
    const cond = sql.join(where, sql` AND `);
    const page = (await db.execute(sql`
        SELECT m.id, m.ts, m.method, m.data, d.device_name
        FROM (SELECT id, ts, method, data, device_id FROM device_messages m WHERE ${cond} ORDER BY ${order}
              LIMIT ${q.limit} OFFSET ${q.offset}) m
        JOIN devices d ON d.id = m.device_id
        ORDER BY m.ts DESC, m.id DESC`)) as unknown as { rows: Row[] };
    const counted = (await db.execute(sql`
        SELECT count(*)::int AS n FROM (SELECT 1 FROM device_messages m WHERE ${cond} LIMIT ${COUNT_CAP}) s`)) as unknown as {
        rows: Array<{ n: number }>;
    };
    return {
        records: page.rows.map((r) => ({
            id: String(r.id),
            time: formatTime(r.ts, timeZone),
            deviceName: r.device_name,
            method: r.method,
            topic: topicOf(r.method, r.data, q.productKey, r.device_name),
            messageId: messageIdOf(r.id, r.method, r.data),
            payload: JSON.stringify(r.data ?? {}),
        })),
        total: Number(counted.rows[0]?.n ?? 0),
    };
}
