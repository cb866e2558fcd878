import os from 'node:os';
import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { rowsOf } from '../db/rows';

/**
 * Cluster membership (docs/deployment.md "Losing a process"). Each process of a cluster (REDIS_URL) registers a row
 * in cluster_nodes and heartbeats it; every heartbeat also looks for members silent for NODE_TIMEOUT and cleans up
 * after them: their devices OFFLINE (the devices' presence trigger writes the presence history, and a
 * `device.status` message says why), their AMQP claims released at once instead of after their 60 s lease, and the
 * once-per-cluster jobs (retention sweeps) move to the oldest living member.
 *
 * Why PostgreSQL and not Redis: PostgreSQL is the platform's shared truth (ARCHITECTURE.md). The heartbeat, the
 * death verdict and the cleanup are one transaction on the same database as the devices and amqp_queue they change,
 * so exactly one survivor cleans up after a member (the DELETE ... RETURNING decides who) and a survivor that dies
 * midway leaves the member to the next (its transaction rolls back). Redis keys with a TTL would need a second
 * store to agree with the first. A heartbeat is one small UPDATE every NODE_TIMEOUT / 3 (at most 5 s) per process.
 *
 * A restarted process is a new member (a fresh node id), so its predecessor is cleaned up like any dead member.
 * One process without REDIS_URL never starts this: no table writes, no timer.
 */

export interface NodeRow {
    nodeId: string;
    startedAt: string;
    heartbeatAt: string;
    figures: Record<string, unknown>;
}

export interface MembershipOptions {
    db: Db;
    /** Silent this long (ms), a member is dead (NODE_TIMEOUT). */
    timeoutMs: number;
    /** This member's claims in amqp_queue (released when it dies). */
    amqpOwner?: string;
    /** Who this member is (host, pid), written with each heartbeat; its live figures go through Redis (figures.ts). */
    figures: () => Record<string, unknown>;
    /** This member was declared dead by another while alive (a long pause): its devices must be marked again. */
    onRevived?: () => void;
    /** After each heartbeat and sweep (the simulations' takeover, server/cluster/simulations.ts). */
    onBeat?: () => Promise<unknown>;
    /** Called when this member becomes the oldest living one (runs the once-per-cluster jobs). */
    onLeader?: () => void;
    log?: (message: string) => void;
}

/** How often a member heartbeats and looks for the dead: a third of the timeout, at most 5 s. */
export const heartbeatMs = (timeoutMs: number) => Math.max(200, Math.min(5_000, Math.floor(timeoutMs / 3)));

export function newNodeId(): string {
    return `${os.hostname()}-${process.pid}-${randomBytes(4).toString('hex')}`;
}

export async function createMembership({
    db,
    timeoutMs,
    amqpOwner,
    figures,
    onRevived,
    onLeader,
    onBeat,
    log = (m) => console.warn(m),
}: MembershipOptions) {
    const nodeId = newNodeId();
    let leader = false;
    let stopped = false;
    let beating: Promise<void> | undefined;
    const register = () =>
        db.execute(sql`
            INSERT INTO cluster_nodes (node_id, amqp_owner, figures)
            VALUES (${nodeId}, ${amqpOwner ?? null}, ${JSON.stringify(figures())}::jsonb)
            ON CONFLICT (node_id) DO UPDATE SET heartbeat_at = now()`);
    await register();

    /** Cleans up after members silent for the timeout; the number of devices marked OFFLINE. */
    async function sweepDead(): Promise<number> {
        return db.transaction(async (tx) => {
            const dead = rowsOf<{ node_id: string; amqp_owner: string | null; heartbeat_at: string | Date }>(
                await tx.execute(sql`
                    DELETE FROM cluster_nodes
                    WHERE heartbeat_at < now() - ${`${timeoutMs} milliseconds`}::interval AND node_id <> ${nodeId}
                    RETURNING node_id, amqp_owner, heartbeat_at`),
            );
            if (!dead.length) return 0;
            const ids = `{${dead.map((d) => `"${d.node_id}"`).join(',')}}`;
            const owners = dead.map((d) => d.amqp_owner).filter((o): o is string => Boolean(o));
            let marked = 0;
            for (const d of dead) {
                // OFFLINE as of the member's last heartbeat (the last moment it is known to have held them): a device
                // that reconnected to a survivor since is newer, so its ONLINE (written by presence, maybe after
                // this) wins. The presence trigger writes device_presence; a device.status message says why, like
                // markLeftOnline's serverRestart.
                const at = new Date(d.heartbeat_at).toISOString();
                marked += Number(
                    rowsOf<{ n: number }>(
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
                    )[0]?.n ?? 0,
                );
            }
            // Devices of the dead member that were not ONLINE any more keep their status; the marker goes.
            await tx.execute(sql`UPDATE devices SET node_id = NULL WHERE node_id = ANY(${ids}::text[])`);
            if (owners.length) {
                await tx.execute(sql`
                    UPDATE amqp_queue SET owner = NULL, lease_until = NULL
                    WHERE owner = ANY(${`{${owners.map((o) => `"${o}"`).join(',')}}`}::text[])`);
            }
            log(
                `集群: 节点 ${dead.map((d) => d.node_id).join(', ')} 已 ${timeoutMs / 1000} 秒无心跳，` +
                    `已将其 ${marked} 台设备标记为离线并释放其 AMQP 消息`,
            );
            return marked;
        });
    }

    async function beat() {
        const updated = rowsOf<{ node_id: string }>(
            await db.execute(sql`
                UPDATE cluster_nodes SET heartbeat_at = now(), figures = ${JSON.stringify(figures())}::jsonb
                WHERE node_id = ${nodeId} RETURNING node_id`),
        );
        if (!updated.length) {
            // Declared dead during a pause (its devices were marked OFFLINE): it is alive, so it says so again.
            log(`集群: 本节点 ${nodeId} 曾被判定失联，重新登记并恢复其设备的在线状态`);
            await register();
            onRevived?.();
        }
        await sweepDead();
        await onBeat?.();
        const oldest = rowsOf<{ node_id: string }>(
            await db.execute(sql`SELECT node_id FROM cluster_nodes ORDER BY started_at, node_id LIMIT 1`),
        )[0]?.node_id;
        if (oldest === nodeId && !leader) {
            leader = true;
            onLeader?.();
        }
    }

    const timer = setInterval(() => {
        if (beating || stopped) return; // a slow database: the next tick tries again
        beating = beat()
            .catch((err) => {
                if (!stopped) log(`集群心跳失败 / heartbeat failed: ${String(err)}`);
            })
            .finally(() => (beating = undefined));
    }, heartbeatMs(timeoutMs));
    timer.unref();
    beating = beat()
        .catch((err) => log(`集群心跳失败 / heartbeat failed: ${String(err)}`))
        .finally(() => (beating = undefined));
    await beating;

    return {
        nodeId,
        get leader() {
            return leader;
        },
        /** The living members (heartbeat within the timeout), oldest first, with their last published figures. */
        async nodes(): Promise<NodeRow[]> {
            const rows = rowsOf<{
                node_id: string;
                started_at: string | Date;
                heartbeat_at: string | Date;
                figures: unknown;
            }>(
                await db.execute(sql`
                    SELECT node_id, started_at, heartbeat_at, figures FROM cluster_nodes
                    WHERE heartbeat_at >= now() - ${`${timeoutMs} milliseconds`}::interval
                    ORDER BY started_at, node_id`),
            );
            return rows.map((r) => ({
                nodeId: r.node_id,
                startedAt: new Date(r.started_at).toISOString(),
                heartbeatAt: new Date(r.heartbeat_at).toISOString(),
                figures: (typeof r.figures === 'string' ? JSON.parse(r.figures) : r.figures) as Record<string, unknown>,
            }));
        },
        /** Runs a sweep now (tests, and the drain's last look). */
        sweepDead,
        /** Leaves the cluster (SIGTERM): the row goes, so no survivor waits out the timeout for it. */
        async leave() {
            stopped = true;
            clearInterval(timer);
            await beating;
            await db.execute(sql`DELETE FROM cluster_nodes WHERE node_id = ${nodeId}`);
        },
    };
}

export type Membership = Awaited<ReturnType<typeof createMembership>>;
