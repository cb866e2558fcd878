import { sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { rowsOf } from '../db/rows';
import { bigintArray, textArray } from '../db/arrays';

/**
 * ONLINE / OFFLINE as devices connect and leave: changes within 100 ms go to the database as one
 * UPDATE (a reconnect storm of 100,000 devices is a few hundred statements, not 100,000), each logged as a
 * `device.status` message. A disabled device is never marked ONLINE, and a device already marked otherwise keeps
 * the newer state (statusTime only moves forward).
 *
 * Every presence time is the database's (now() of the write), like the cluster's OFFLINE for a lost member
 * (server/cluster/membership.ts): a process whose clock runs behind would otherwise write an ONLINE older than that
 * OFFLINE and lose the reconnect. In a cluster an OFFLINE applies only while the row still names this member: a
 * device that reconnected to another member meanwhile is that member's, however late this write lands.
 */

// Each batch cost an UPDATE and a log transaction (~7 ms of PGlite CPU here whatever its size, ~0.2 ms per device on
// top; one statement since): at a few hundred connects a second a 20 ms linger left batches of 2-3 devices and the
// status write was most of a connect's CPU.
const LINGER_MS = 100;
const MAX_BATCH = 2_000;

interface Change {
    online: boolean;
    address?: string;
}

/** One statement for a batch: each device's status (a disabled one is never ONLINE; a newer state stays) and each
 * change's `device.status` log row (for every device still there, whether or not the status moved). In a cluster an
 * ONLINE row names its member (a survivor marks a dead member's devices OFFLINE by it). */
export function presenceWrite(batch: Array<[number, Change]>, nodeId: string | undefined) {
    const ids = batch.map(([id]) => id);
    const states = batch.map(([, c]) => (c.online ? 'ONLINE' : 'OFFLINE'));
    const addresses = batch.map(([, c]) => c.address ?? null);
    return sql`
        WITH v AS (
            SELECT x.id, x.status, now() AS at, x.ip
            FROM ROWS FROM (unnest(${bigintArray(ids)}), unnest(${textArray(states)}),
                unnest(${textArray(addresses)})) AS x(id, status, ip)),
        changed AS (
            UPDATE devices d SET status = v.status, status_time = v.at,
                last_time = CASE WHEN v.status = 'ONLINE' THEN v.at ELSE d.last_time END,
                node_id = CASE WHEN v.status = 'ONLINE' THEN ${nodeId ?? null}::text END
            FROM v
            WHERE d.id = v.id AND d.enabled AND (d.status_time IS NULL OR d.status_time <= v.at)
                AND (v.status = 'ONLINE' OR d.node_id IS NOT DISTINCT FROM ${nodeId ?? null}))
        INSERT INTO device_messages (device_id, ts, method, identifier, data, product_id)
        SELECT v.id, v.at, 'device.status', NULL,
            jsonb_strip_nulls(jsonb_build_object('status', lower(v.status), 'clientIp', v.ip)), d.product_id
        FROM v JOIN devices d ON d.id = v.id`;
}

export function createPresence(
    db: Db,
    onError: (err: unknown) => void,
    /** In a cluster: the member holding the connections (devices.node_id, server/cluster/membership.ts). */
    nodeOf: () => string | undefined = () => undefined,
) {
    const pending = new Map<number, Change>();
    /** The devices noted ONLINE here and not OFFLINE since (direct and gateway sub-devices), with their address. */
    const online = new Map<number, string | undefined>();
    let timer: NodeJS.Timeout | undefined;
    let running: Promise<void> | undefined;

    async function flush() {
        const batch = [...pending.entries()].slice(0, MAX_BATCH);
        for (const [id] of batch) pending.delete(id);
        if (!batch.length) return;
        const write = () => db.execute(presenceWrite(batch, nodeOf()));
        try {
            // Once more when it fails: a device deleted by another connection meanwhile (its log row then breaks the
            // foreign key) is not in the join the second time.
            await write().catch(() => write());
        } catch (err) {
            onError(err);
        }
    }

    function run() {
        timer = undefined;
        running = flush().finally(() => {
            running = undefined;
            if (pending.size) timer = setTimeout(run, LINGER_MS);
        });
    }

    function note(deviceId: number, change: Change) {
        if (change.online) online.set(deviceId, change.address);
        else online.delete(deviceId);
        pending.set(deviceId, change);
        if (!timer && !running) timer = setTimeout(run, LINGER_MS);
    }

    return {
        online: (deviceId: number, address?: string) => note(deviceId, { online: true, address }),
        offline: (deviceId: number) => note(deviceId, { online: false }),
        /**
         * Every device ONLINE here is written ONLINE again (a member back after others declared it lost: they marked
         * its devices, gateway sub-devices too, OFFLINE).
         */
        reassert() {
            for (const [deviceId, address] of online) note(deviceId, { online: true, address });
        },
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
