import { sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { rowsOf } from '../db/rows';
import type { Simulator } from '../simulation/simulator';
import { processState } from './processState';

/**
 * Simulations in a cluster (docs/deployment.md "Losing a process"): each running simulation is run by one member,
 * named in `simulations.node_id`. At its start and with each heartbeat a member
 *
 * - takes the running simulations that no living member runs: their member died (silent for NODE_TIMEOUT) or left
 *   (SIGTERM), or none ever took them. One UPDATE … RETURNING claims them, so two survivors never both take one
 *   (the second's UPDATE finds the row already claimed by a living member), and the member runs them here
 *   (Simulator.adopt: the row keeps its start time and message count);
 * - names itself on the simulations it started here (the console's start, the live demo's first start);
 * - stops here what is no longer its own: stopped or deleted through another process, or taken by another member
 *   while this one was paused past NODE_TIMEOUT.
 *
 * A simulation not yet named (just started on another member) is left to that member for NODE_TIMEOUT after its
 * start. One process (no REDIS_URL) does none of this: the server's start resumes every running simulation.
 */
export interface TakeoverState {
    db: Db;
    simulator: Simulator;
    nodeId: string;
    timeoutMs: number;
    log: (message: string) => void;
    /** Simulations seen running here (one deleted through another process is then still stopped here). */
    here: Set<number>;
}

interface SimulationRow {
    id: number;
    running: boolean;
    node_id: string | null;
}

export function createSimulationTakeover({
    db,
    simulator,
    nodeId,
    timeoutMs,
    log = (m) => console.warn(m),
}: Omit<TakeoverState, 'here' | 'log'> & { log?: (message: string) => void }) {
    const state: TakeoverState = { db, simulator, nodeId, timeoutMs, log, here: new Set() };
    return {
        reconcile: () => reconcile(state),
        /** The member fenced itself: every simulation here stops (its row stays its own until another takes it). */
        haltAll: () => haltAll(state),
    };
}

/** One pass: stop what is no longer this member's, name itself on its own, take and run the free ones. */
export async function reconcile(state: TakeoverState): Promise<number[]> {
    const rows = rowsOf<SimulationRow>(await state.db.execute(sql`SELECT id, running, node_id FROM simulations`));
    for (const r of rows) if (state.simulator.status(Number(r.id)).active) state.here.add(Number(r.id));
    await settleHere(state, new Map(rows.map((r) => [Number(r.id), r])));
    // Its own rows not running here: stopped by a fence, not taken by another since.
    const own = rows
        .filter((r) => r.running && r.node_id === state.nodeId && !state.simulator.status(Number(r.id)).active)
        .map((r) => ({ id: Number(r.id), node_id: r.node_id }));
    const taken = [...own, ...(await claimFree(state))];
    const adopted: number[] = [];
    for (const t of taken) if (await adoptOne(state, t.id)) adopted.push(t.id);
    if (adopted.length) {
        const from = [...new Set(taken.map((t) => t.node_id ?? '（无）'))].join(', ');
        state.log(`集群: 本节点接管了 ${adopted.length} 个运行中的模拟（${adopted.join(', ')}），原节点 ${from}`);
    }
    return adopted;
}

/** The simulations running here: stopped when no longer this member's, named when not yet anyone's. */
async function settleHere(state: TakeoverState, byId: Map<number, SimulationRow>): Promise<void> {
    const { db, simulator, nodeId, here, log } = state;
    for (const id of [...here]) {
        const row = byId.get(id);
        if (!simulator.status(id).active) {
            here.delete(id);
        } else if (!row || !row.running || (row.node_id !== null && row.node_id !== nodeId)) {
            await simulator.halt(id);
            here.delete(id);
            log(
                `集群: 模拟 ${id} 已${!row ? '被删除' : !row.running ? '停止' : `由节点 ${row.node_id} 运行`}，本节点停止运行`,
            );
        } else if (row.node_id === null) {
            await db.execute(sql`UPDATE simulations SET node_id = ${nodeId} WHERE id = ${id} AND node_id IS NULL`);
        }
    }
}

/** Claims the running simulations no living member runs (one UPDATE … RETURNING: two survivors never both take one). */
async function claimFree(state: TakeoverState): Promise<Array<{ id: number; node_id: string | null }>> {
    const timeout = `${state.timeoutMs} milliseconds`;
    const rows = rowsOf<{ id: number; node_id: string | null }>(
        await state.db.execute(sql`
            WITH free AS (
                SELECT s.id, s.node_id FROM simulations s
                WHERE s.running
                    AND (s.node_id IS NOT NULL OR s.start_time IS NULL
                        OR s.start_time < now() - ${timeout}::interval)
                    AND NOT EXISTS (SELECT 1 FROM cluster_nodes n WHERE n.node_id = s.node_id
                        AND n.heartbeat_at >= now() - ${timeout}::interval)
                FOR UPDATE SKIP LOCKED)
            UPDATE simulations s SET node_id = ${state.nodeId} FROM free WHERE s.id = free.id
            RETURNING s.id, free.node_id`),
    );
    return rows.map((r) => ({ id: Number(r.id), node_id: r.node_id }));
}

/** Runs a claimed simulation here; one that cannot run here (no broker) is left for another member. */
async function adoptOne(state: TakeoverState, id: number): Promise<boolean> {
    try {
        if (await state.simulator.adopt(id)) {
            state.here.add(id);
            return true;
        }
    } catch (err) {
        state.log(`集群: 接管模拟 ${id} 失败: ${String(err)}`);
    }
    await state.db.execute(sql`UPDATE simulations SET node_id = NULL WHERE id = ${id} AND node_id = ${state.nodeId}`);
    return false;
}

/** Stops every simulation running here at once (their timers stop now; their last counts are written when they can). */
export function haltAll(state: TakeoverState): void {
    for (const id of [...state.here]) {
        state.here.delete(id);
        state.simulator.halt(id).catch((err) => state.log(`集群: 停止模拟 ${id} 失败: ${String(err)}`));
    }
}

export type SimulationTakeover = ReturnType<typeof createSimulationTakeover>;

/** The console started a simulation on this process: in a cluster this member runs it (no survivor takes it). */
export async function ownSimulation(db: Db, id: number): Promise<void> {
    const nodeId = processState()?.cluster?.nodeId;
    if (nodeId) await db.execute(sql`UPDATE simulations SET node_id = ${nodeId} WHERE id = ${id}`);
}
