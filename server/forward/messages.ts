import { sql } from 'drizzle-orm';
import { bigintArray } from '../db/arrays';
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
    /** The device's project when the message was read: a flow takes its own project's messages. */
    projectId: number;
    productKey: string;
    deviceName: string;
}

interface Row extends Record<string, unknown> {
    id: string | number;
    ts: string | Date;
    method: string;
    data: Record<string, unknown> | null;
    device_id: string | number;
}

interface DeviceRow extends Record<string, unknown> {
    id: string | number;
    project_id: number | null;
    product_key: string;
    device_name: string;
}

/** Messages read, in id order, and the id up to which the store was read (every message up to it is there). */
export interface MessagesRead {
    messages: StoredMessage[];
    through: number;
}

/**
 * The messages of every project with after < id <= upTo, in id order (at most `limit`: `through` is then the last
 * one's id). device_messages alone, by its
 * primary key: a JOIN with devices filtered by project made the planner walk the project's devices, reading every
 * message of the range (tens of thousands) to keep 500. The devices' names and projects come after, by their ids;
 * a message whose device is gone (deleted since) is left out, as the JOIN left it out.
 */
export async function readMessages(db: Db, after: number, upTo: number, limit: number): Promise<MessagesRead> {
    const rows = rowsOf<Row>(
        await db.execute(sql`
            SELECT id, ts, method, data, device_id FROM device_messages
            WHERE id > ${after} AND id <= ${upTo}
            ORDER BY id
            LIMIT ${limit}`),
    );
    const through = rows.length < limit ? upTo : Number(rows[rows.length - 1].id);
    if (!rows.length) return { messages: [], through };
    const devices = await devicesOf(db, [...new Set(rows.map((r) => Number(r.device_id)))]);
    const out: StoredMessage[] = [];
    for (const r of rows) {
        const device = devices.get(Number(r.device_id));
        if (!device || device.project_id === null) continue;
        out.push({
            id: Number(r.id),
            ts: new Date(r.ts),
            method: r.method,
            data: r.data ?? {},
            projectId: Number(device.project_id),
            productKey: device.product_key,
            deviceName: device.device_name,
        });
    }
    return { messages: out, through };
}

async function devicesOf(db: Db, ids: number[]): Promise<Map<number, DeviceRow>> {
    const rows = rowsOf<DeviceRow>(
        await db.execute(sql`
            SELECT d.id, d.project_id, p.product_key, d.device_name
            FROM devices d JOIN products p ON p.id = d.product_id
            WHERE d.id = ANY(${bigintArray(ids)})`),
    );
    return new Map(rows.map((r) => [Number(r.id), r]));
}

/** The message as the flow's SQL reads it. */
export function flowMessageOf(m: Omit<StoredMessage, 'projectId'>): FlowMessage {
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
