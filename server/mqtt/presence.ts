import { sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { rowsOf } from '../db/rows';
import type { MessageWriter } from './writer';

/**
 * ONLINE / OFFLINE as devices connect and leave: changes within 100 ms go to the database as one
 * UPDATE (a reconnect storm of 100,000 devices is a few hundred statements, not 100,000), each logged as a
 * `device.status` message. A disabled device is never marked ONLINE, and a device already marked otherwise keeps
 * the newer state (statusTime only moves forward).
 */

// Each batch costs an UPDATE and a log transaction (~7 ms of PGlite CPU here whatever its size, ~0.2 ms per device on
// top): at a few hundred connects a second a 20 ms linger left batches of 2-3 devices and the status write was most of
// a connect's CPU.
const LINGER_MS = 100;
const MAX_BATCH = 2_000;

export function createPresence(
    db: Db,
    writer: MessageWriter,
    onError: (err: unknown) => void,
    /** In a cluster: the member holding the connections (devices.node_id, server/cluster/membership.ts). */
    nodeOf: () => string | undefined = () => undefined,
) {
    const pending = new Map<number, { online: boolean; at: Date; address?: string }>();
    let timer: NodeJS.Timeout | undefined;
    let running: Promise<void> | undefined;

    async function flush() {
        const batch = [...pending.entries()].slice(0, MAX_BATCH);
        for (const [id] of batch) pending.delete(id);
        if (!batch.length) return;
        const rows = sql.join(
            batch.map(
                ([id, s]) =>
                    sql`(${id}::bigint, ${s.online ? 'ONLINE' : 'OFFLINE'}::text, ${s.at.toISOString()}::timestamptz)`,
            ),
            sql`, `,
        );
        const nodeId = nodeOf();
        // In a cluster an ONLINE row names its member (a survivor marks a dead member's devices OFFLINE by it).
        const node = nodeId ? sql`, node_id = CASE WHEN v.status = 'ONLINE' THEN ${nodeId} END` : sql``;
        try {
            await db.execute(sql`
                UPDATE devices d SET status = v.status, status_time = v.at,
                    last_time = CASE WHEN v.status = 'ONLINE' THEN v.at ELSE d.last_time END${node}
                FROM (VALUES ${rows}) AS v(id, status, at)
                WHERE d.id = v.id AND d.enabled AND (d.status_time IS NULL OR d.status_time <= v.at)`);
        } catch (err) {
            onError(err);
        }
        for (const [deviceId, s] of batch) {
            writer
                .write({
                    deviceId,
                    ts: s.at,
                    method: 'device.status',
                    identifier: null,
                    data: { status: s.online ? 'online' : 'offline', ...(s.address ? { clientIp: s.address } : {}) },
                })
                .catch(() => undefined); // a device deleted meanwhile has no log to keep
        }
    }

    function run() {
        timer = undefined;
        running = flush().finally(() => {
            running = undefined;
            if (pending.size) timer = setTimeout(run, LINGER_MS);
        });
    }

    function note(deviceId: number, online: boolean, address?: string) {
        pending.set(deviceId, { online, at: new Date(), address });
        if (!timer && !running) timer = setTimeout(run, LINGER_MS);
    }

    return {
        online: (deviceId: number, address?: string) => note(deviceId, true, address),
        offline: (deviceId: number) => note(deviceId, false),
        async drain() {
            while (pending.size || running || timer) {
                if (timer) {
                    clearTimeout(timer);
                    run();
                }
                await running;
            }
        },
    };
}

export type Presence = ReturnType<typeof createPresence>;

/**
 * A server start in a single process: every connection of the previous run ended with it, so the devices it left
 * ONLINE are OFFLINE now (as of `since`, the start), each change logged as a `device.status` message with the reason.
 * Video devices keep theirs (their registration and pulls say it). A device that connects meanwhile is newer than
 * `since` and keeps ONLINE, so this may run beside the broker. In a cluster (REDIS_URL) the other processes still hold
 * their devices' connections, so it is not called there.
 */
export async function markLeftOnline(db: Db, since: Date): Promise<number> {
    const at = since.toISOString();
    const result = await db.execute<{ n: number }>(sql`
        WITH gone AS (
            UPDATE devices d SET status = 'OFFLINE', status_time = ${at}::timestamptz
            WHERE d.status = 'ONLINE' AND (d.status_time IS NULL OR d.status_time < ${at}::timestamptz)
                AND NOT EXISTS (SELECT 1 FROM video_devices v WHERE v.device_id = d.id)
            RETURNING d.id, d.product_id),
        logged AS (
            INSERT INTO device_messages (device_id, ts, method, identifier, data, product_id)
            SELECT id, ${at}::timestamptz, 'device.status', NULL,
                '{"status": "offline", "reason": "serverRestart"}'::jsonb, product_id FROM gone
            RETURNING 1)
        SELECT count(*)::int AS n FROM logged`);
    return rowsOf<{ n: number }>(result)[0]?.n ?? 0;
}
