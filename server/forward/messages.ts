import { sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { rowsOf } from '../db/rows';
import { topicOf } from '../domain/messageLog';
import { PROPERTY_POST } from '../domain/telemetry';
import { DEVICE_TIME_KEY } from '../mqtt/messageTime';
import type { FlowMessage } from './sql';

/**
 * The device messages a route reads (device_messages in id order, the store being the outbox), and each as a flow
 * sees it: its topic rebuilt from the method (server/domain/messageLog.ts) and a payload in Alink's shape, `params`
 * (what the device sent) and, for property posts, `items` as Alibaba's forwarding gives them ({ value, time }).
 */

export interface StoredMessage {
    id: number;
    ts: Date;
    method: string;
    data: Record<string, unknown>;
    productKey: string;
    deviceName: string;
}

interface Row extends Record<string, unknown> {
    id: string | number;
    ts: string | Date;
    method: string;
    data: Record<string, unknown> | null;
    product_key: string;
    device_name: string;
}

/** Up to `limit` messages of the project's devices with after < id <= upTo, in id order. */
export async function readMessages(
    db: Db,
    projectId: number,
    after: number,
    upTo: number,
    limit: number,
): Promise<StoredMessage[]> {
    const rows = rowsOf<Row>(
        await db.execute(sql`
            SELECT m.id, m.ts, m.method, m.data, p.product_key, d.device_name
            FROM device_messages m
            JOIN devices d ON d.id = m.device_id
            JOIN products p ON p.id = d.product_id
            WHERE m.id > ${after} AND m.id <= ${upTo} AND d.project_id = ${projectId}
            ORDER BY m.id
            LIMIT ${limit}`),
    );
    return rows.map((r) => ({
        id: Number(r.id),
        ts: new Date(r.ts),
        method: r.method,
        data: r.data ?? {},
        productKey: r.product_key,
        deviceName: r.device_name,
    }));
}

/** The message as the flow's SQL reads it. */
export function flowMessageOf(m: StoredMessage): FlowMessage {
    const { [DEVICE_TIME_KEY]: deviceTime, ...data } = m.data;
    const time = typeof deviceTime === 'number' ? deviceTime : m.ts.getTime();
    const payload: Record<string, unknown> = { method: m.method, params: data };
    if (m.method === PROPERTY_POST)
        payload.items = Object.fromEntries(Object.entries(data).map(([k, value]) => [k, { value, time }]));
    else if (m.method.startsWith('thing.event.')) payload.value = data;
    return {
        topic: topicOf(m.method, m.data, m.productKey, m.deviceName),
        productKey: m.productKey,
        deviceName: m.deviceName,
        messageId: String(m.id),
        timestamp: time,
        payload: m.method === 'device.status' ? { ...data, method: m.method } : payload,
    };
}
