import { sql } from 'drizzle-orm';
import type { Db, Tx } from '../db/client';
import { rowsOf } from '../db/rows';

/**
 * The cleanup after members silent for NODE_TIMEOUT (docs/deployment.md "Losing a process"), in one transaction on
 * the database the devices and amqp_queue live in: the DELETE ... RETURNING decides which survivor cleans up after a
 * member, and a survivor that dies midway leaves the member to the next (its transaction rolls back).
 */

interface DeadRow {
    node_id: string;
    amqp_owner: string | null;
    heartbeat_at: string | Date;
}

const textArray = (values: string[]) => `{${values.map((v) => `"${v}"`).join(',')}}`;

/**
 * Removes the members silent for `timeoutMs` (by the database's clock) other than `self`, marks their devices
 * OFFLINE and releases their AMQP claims; the number of devices marked. Each statement is held to `statementMs`.
 */
export async function sweepDead(
    db: Db,
    self: string,
    timeoutMs: number,
    statementMs: number,
    log: (message: string) => void,
): Promise<number> {
    return db.transaction(async (tx) => {
        await tx.execute(sql.raw(`SET LOCAL statement_timeout = ${Math.max(1, Math.floor(statementMs))}`));
        const dead = rowsOf<DeadRow>(
            await tx.execute(sql`
                DELETE FROM cluster_nodes
                WHERE heartbeat_at < now() - ${`${timeoutMs} milliseconds`}::interval AND node_id <> ${self}
                RETURNING node_id, amqp_owner, heartbeat_at`),
        );
        if (!dead.length) return 0;
        let marked = 0;
        for (const d of dead) marked += await markLost(tx, d);
        await releaseLost(tx, dead);
        log(
            `集群: 节点 ${dead.map((d) => d.node_id).join(', ')} 已 ${timeoutMs / 1000} 秒无心跳，` +
                `已将其 ${marked} 台设备标记为离线并释放其 AMQP 消息`,
        );
        return marked;
    });
}

/**
 * A lost member's devices OFFLINE as of its last heartbeat (the last moment it is known to have held them): a device
 * that reconnected to a survivor since is newer, so its ONLINE (written by presence, maybe after this) wins. The
 * presence trigger writes device_presence; a device.status message says why, like markLeftOnline's serverRestart.
 */
async function markLost(tx: Tx, d: DeadRow): Promise<number> {
    const at = new Date(d.heartbeat_at).toISOString();
    const rows = rowsOf<{ n: number }>(
        await tx.execute(sql`
            WITH gone AS (
                UPDATE devices d SET status = 'OFFLINE', status_time = ${at}::timestamptz, node_id = NULL
                WHERE d.node_id = ${d.node_id} AND d.status = 'ONLINE'
                    AND (d.status_time IS NULL OR d.status_time <= ${at}::timestamptz)
                RETURNING d.id, d.product_id),
            logged AS (
                INSERT INTO device_messages (device_id, ts, method, identifier, data, product_id)
                SELECT id, ${at}::timestamptz, 'device.status', NULL,
                    '{"status": "offline", "reason": "nodeLost"}'::jsonb, product_id FROM gone
                RETURNING 1)
            SELECT count(*)::int AS n FROM logged`),
    );
    return Number(rows[0]?.n ?? 0);
}

/** The lost members' other device markers go (those devices were not ONLINE any more), and their AMQP claims. */
async function releaseLost(tx: Tx, dead: DeadRow[]): Promise<void> {
    const ids = textArray(dead.map((d) => d.node_id));
    await tx.execute(sql`UPDATE devices SET node_id = NULL WHERE node_id = ANY(${ids}::text[])`);
    const owners = dead.map((d) => d.amqp_owner).filter((o): o is string => Boolean(o));
    if (!owners.length) return;
    await tx.execute(sql`
        UPDATE amqp_queue SET owner = NULL, lease_until = NULL WHERE owner = ANY(${textArray(owners)}::text[])`);
}
