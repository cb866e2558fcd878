import os from 'node:os';
import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { Db, DedicatedConnection } from '../db/client';
import { rowsOf } from '../db/rows';
import type { FenceToken } from './fence';
import { Lease, monotonic, type Clock } from './lease';
import { sweepDead } from './sweep';

/**
 * Cluster membership (docs/deployment.md "Losing a process"). Each process of a cluster (REDIS_URL) registers a row
 * in cluster_nodes and renews it with a heartbeat; after each renewal it looks for members silent for NODE_TIMEOUT
 * and cleans up after them (server/cluster/sweep.ts): their devices OFFLINE, their AMQP claims released at once
 * instead of after their 60 s lease, and the once-per-cluster jobs (retention sweeps) move to the oldest member.
 *
 * The renewal runs on a connection of its own (not the pool the ingest fills), each statement and the whole renewal
 * held to the heartbeat's period, so one hung query costs one beat and the next beat tries afresh. A member that
 * cannot renew for NODE_TIMEOUT / 2 fences itself (server/cluster/lease.ts) and lifts the fence when a renewal
 * succeeds again; when the others declared it lost meanwhile (its heartbeat older than NODE_TIMEOUT by the database's
 * clock, or its row gone), it registers again and marks its devices ONLINE again before it takes devices.
 *
 * Why PostgreSQL and not Redis: PostgreSQL is the platform's shared truth (ARCHITECTURE.md); the heartbeat, the death
 * verdict and the cleanup are on the same database as the devices and amqp_queue they change. A restarted process is
 * a new member (a fresh node id). One process without REDIS_URL never starts this: no table writes, no timer.
 */

export interface NodeRow {
    nodeId: string;
    startedAt: string;
    heartbeatAt: string;
    figures: Record<string, unknown>;
}

export interface MembershipOptions {
    /** This member's id (newNodeId() when absent). */
    nodeId?: string;
    /** The shared database: the sweep, the nodes' list, the hooks. */
    db: Db;
    /** The heartbeat's own connection (PostgreSQL); without it the renewal runs on `db`, still under its timeout. */
    heartbeat?: DedicatedConnection;
    /** Silent this long (ms), a member is dead (NODE_TIMEOUT). */
    timeoutMs: number;
    /** This member's claims in amqp_queue (released when it dies). */
    amqpOwner?: string;
    /** Who this member is (host, pid), written with each heartbeat; its live figures go through Redis (figures.ts). */
    figures: () => Record<string, unknown>;
    /** This member was declared dead by another while alive (a long pause): its devices must be marked again. */
    onRevived?: () => void;
    /** The lease ran out (server/cluster/lease.ts): take no devices and close those held. */
    onFenced?: () => void;
    /** A renewal succeeded after a fence (after onRevived when the member had been declared dead). */
    onUnfenced?: () => void;
    /** After each renewal and sweep while not fenced (the simulations' takeover, server/cluster/simulations.ts). */
    onBeat?: () => Promise<unknown>;
    /** Called when this member becomes the oldest living one (runs the once-per-cluster jobs). */
    onLeader?: () => void;
    log?: (message: string) => void;
    /** Monotonic milliseconds (tests pass a fake one). */
    clock?: Clock;
}

/**
 * How often a member heartbeats and looks for the dead: a sixth of the timeout, at most 5 s, so its lease (half the
 * timeout) spans three beats and a late beat (a busy event loop) does not fence it.
 */
export const heartbeatMs = (timeoutMs: number) => Math.max(200, Math.min(5_000, Math.floor(timeoutMs / 6)));

/**
 * A renewal (and each of its statements) is given up after this: a quarter of the timeout, at most two beats, so a
 * renewal given up and the next beat's still renew within the lease.
 */
export const renewalTimeoutMs = (timeoutMs: number) => Math.min(Math.floor(timeoutMs / 4), 2 * heartbeatMs(timeoutMs));

export function newNodeId(): string {
    return `${os.hostname()}-${process.pid}-${randomBytes(4).toString('hex')}`;
}

/** A membership's state: who, its lease, and what is running now. */
export interface MemberState {
    options: MembershipOptions;
    nodeId: string;
    /** The incarnation this member is registered under, with its lease (set by register; server/cluster/fence.ts). */
    token?: FenceToken;
    lease: Lease;
    leader: boolean;
    stopped: boolean;
    /** The renewal in flight (at most one; each ends within the heartbeat's period). */
    renewing?: Promise<boolean>;
    /** The sweep and hooks after a renewal, on the shared pool (at most one; they never hold up a renewal). */
    following?: Promise<void>;
    timer?: NodeJS.Timeout;
    log: (message: string) => void;
    /** When the last renewal was sent (monotonic ms). */
    renewedAt: number;
    /**
     * Since when this member has renewed without a gap longer than its lease: it judges others silent (sweeps them,
     * adopts their simulations) only after watching for a whole NODE_TIMEOUT. After a database outage every member's
     * heartbeat is old; the first one back would otherwise declare the others lost a beat before they renew.
     */
    watchingSince: number;
}

/**
 * Registers this member under a new incarnation (server/cluster/fence.ts), taken as this member's once committed: the
 * batches it had accepted under the last one are refused from then on.
 */
async function register(db: Db, state: MemberState): Promise<void> {
    const incarnation = randomBytes(8).toString('hex');
    await db.execute(sql`
        INSERT INTO cluster_nodes (node_id, amqp_owner, figures, incarnation)
        VALUES (${state.nodeId}, ${state.options.amqpOwner ?? null}, ${JSON.stringify(state.options.figures())}::jsonb,
            ${incarnation})
        ON CONFLICT (node_id) DO UPDATE SET heartbeat_at = now(), incarnation = excluded.incarnation`);
    state.token = { nodeId: state.nodeId, incarnation, leaseMs: state.options.timeoutMs / 2 };
}

/**
 * Renews the heartbeat; 'renewed', or 'lost' when the others may have declared this member dead (its row gone, or
 * its last heartbeat older than the timeout by the database's clock): it registers again here.
 */
export async function renewOn(db: Db, state: MemberState): Promise<'renewed' | 'lost'> {
    const timeout = `${state.options.timeoutMs} milliseconds`;
    const rows = rowsOf<{ expired: boolean }>(
        await db.execute(sql`
            UPDATE cluster_nodes n SET heartbeat_at = now(), figures = ${JSON.stringify(state.options.figures())}::jsonb
            FROM cluster_nodes o
            WHERE n.node_id = ${state.nodeId} AND o.node_id = n.node_id
            RETURNING o.heartbeat_at < now() - ${timeout}::interval AS expired`),
    );
    if (rows.length && !rows[0].expired) return 'renewed';
    await register(db, state);
    return 'lost';
}

/**
 * Runs `work` on the heartbeat's connection, given up after `ms`. The verdict waits for the I/O phase after the timer:
 * an event loop that was busy past `ms` reads an answer that has arrived meanwhile before it gives up.
 */
function onHeartbeatConnection<T>(state: MemberState, ms: number, work: (db: Db) => Promise<T>): Promise<T> {
    const { heartbeat, db } = state.options;
    const controller = new AbortController();
    const run = heartbeat ? heartbeat.run(work, controller.signal) : work(db);
    let settled = false;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<never>((_, reject) => {
        timer = setTimeout(
            () =>
                setImmediate(() => {
                    if (settled) return;
                    controller.abort();
                    reject(new Error(`heartbeat took over ${ms} ms`));
                }),
            ms,
        );
    });
    run.catch(() => undefined); // given up: its late failure is nobody's
    return Promise.race([run, timedOut]).finally(() => {
        settled = true;
        clearTimeout(timer);
    });
}

/**
 * One renewal, held to the heartbeat's period. On success the lease runs from when it was sent; a member declared
 * lost marks its devices again before its fence lifts. False when it failed or timed out (the lease then runs out by
 * itself, and the next beat tries again).
 */
export async function renew(state: MemberState, clock: Clock): Promise<boolean> {
    const sentAt = clock();
    const { options, log } = state;
    try {
        const outcome = await onHeartbeatConnection(state, renewalTimeoutMs(options.timeoutMs), (db) =>
            renewOn(db, state),
        );
        if (state.stopped) return false;
        if (outcome === 'lost') {
            log(`集群: 本节点 ${state.nodeId} 曾被判定失联，重新登记并恢复其设备的在线状态`);
            options.onRevived?.();
        }
        state.lease.renewed(sentAt);
        watched(state, sentAt);
        return true;
    } catch (err) {
        if (!state.stopped) log(`集群心跳失败 / heartbeat failed: ${String(err)}`);
        return false;
    }
}

/** A renewal sent at `sentAt` succeeded: the watch goes on, or starts again after a gap longer than the lease. */
export function watched(state: MemberState, sentAt: number): void {
    if (sentAt - state.renewedAt > state.options.timeoutMs / 2) state.watchingSince = sentAt;
    state.renewedAt = sentAt;
}

/** Whether this member has watched the cluster for a whole NODE_TIMEOUT (see MemberState.watchingSince). */
export const mayJudge = (state: MemberState, now: number) => now - state.watchingSince >= state.options.timeoutMs;

/** After a renewal: the sweep, the hooks, and whether this member is now the oldest. */
export async function follow(state: MemberState, clock: Clock = monotonic): Promise<void> {
    const { db, timeoutMs, onBeat, onLeader } = state.options;
    const judging = mayJudge(state, clock());
    if (judging) await sweepDead(db, state.nodeId, timeoutMs, timeoutMs, state.log);
    if (state.lease.check()) return;
    if (judging) await onBeat?.();
    const oldest = rowsOf<{ node_id: string }>(
        await db.execute(sql`SELECT node_id FROM cluster_nodes ORDER BY started_at, node_id LIMIT 1`),
    )[0]?.node_id;
    if (oldest === state.nodeId && !state.leader) {
        state.leader = true;
        onLeader?.();
    }
}

/**
 * One heartbeat: a renewal unless one is still in flight, then (not fenced, and none still running) the sweep and
 * hooks. A hung renewal or sweep never stops the beats: each renewal ends within the period.
 */
export function beat(state: MemberState, clock: Clock): Promise<void> {
    if (state.stopped) return Promise.resolve();
    state.lease.check();
    const renewing = (state.renewing ??= renew(state, clock).finally(() => (state.renewing = undefined)));
    return renewing.then((renewed) => {
        if (!renewed || state.stopped || state.lease.check() || state.following) return;
        state.following = follow(state, clock)
            .catch((err) => {
                if (!state.stopped) state.log(`集群心跳失败 / heartbeat failed: ${String(err)}`);
            })
            .finally(() => (state.following = undefined));
        return state.following;
    });
}

export async function createMembership(options: MembershipOptions) {
    const clock = options.clock ?? monotonic;
    const state: MemberState = {
        options,
        nodeId: options.nodeId ?? newNodeId(),
        lease: new Lease(options.timeoutMs, { onFenced: options.onFenced, onUnfenced: options.onUnfenced }, clock),
        leader: false,
        stopped: false,
        log: options.log ?? ((m) => console.warn(m)),
        renewedAt: clock(),
        watchingSince: clock(),
    };
    await register(options.db, state);
    state.lease.renewed(clock());
    state.timer = setInterval(() => void beat(state, clock), heartbeatMs(options.timeoutMs));
    state.timer.unref();
    await beat(state, clock);
    return membershipHandle(state);
}

/** What the node sees of its membership. */
function membershipHandle(state: MemberState) {
    const { db, timeoutMs } = state.options;
    return {
        nodeId: state.nodeId,
        get leader() {
            return state.leader;
        },
        /** Fenced now: take no devices (read by the broker and the AMQP service before each new connection). */
        get fenced() {
            return state.lease.check();
        },
        /** What this member's writes name to be fenced by the database: its incarnation and its lease. */
        get fenceToken(): FenceToken | undefined {
            return state.token;
        },
        /** The living members (heartbeat within the timeout), oldest first, with their last published figures. */
        nodes: () => livingNodes(db, timeoutMs),
        /** Runs a sweep now (tests, and the drain's last look). */
        sweepDead: () => sweepDead(db, state.nodeId, timeoutMs, timeoutMs, state.log),
        /** Leaves the cluster (SIGTERM): the row goes, so no survivor waits out the timeout for it. */
        async leave() {
            state.stopped = true;
            clearInterval(state.timer);
            state.lease.stop();
            await state.renewing;
            await state.following;
            await db.execute(sql`DELETE FROM cluster_nodes WHERE node_id = ${state.nodeId}`);
        },
    };
}

export type Membership = ReturnType<typeof membershipHandle>;

async function livingNodes(db: Db, timeoutMs: number): Promise<NodeRow[]> {
    const rows = rowsOf<{ node_id: string; started_at: string | Date; heartbeat_at: string | Date; figures: unknown }>(
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
}
