import { and, eq, sql } from 'drizzle-orm';
import { otaBatches, otaTasks } from '../db/schema';
import type { Db } from '../db/client';
import { claimBatchDone, claimPush, claimWindowClosed } from './claims';
import { publishUpgrades } from './device';
import { failLateTasks } from './failures';
import { packageById } from './packages';
import type { OtaState } from './state';

/**
 * The OTA scheduler, run by every process (every second once a broker attaches, and on demand): fails or retries
 * tasks past their timeout, closes batches past their window, pushes pending tasks of running batches to online
 * devices within each batch's rate, and closes finished static batches. Every change goes through a claim
 * (claims.ts), so processes running it at once over one database each take a different share.
 */

/** Pushes per batch in one run at most (a batch without a rate limit still goes out in slices). */
export const SLICE = 500;

type Batch = typeof otaBatches.$inferSelect;

/** How many more the batch may push now: its rate per minute less those pushed in the last minute, up to a slice. */
export async function pushBudget(db: Db, b: Batch, at: Date): Promise<number> {
    if (!b.ratePerMinute) return SLICE;
    const [recent] = await db
        .select({ n: sql<number>`count(*)::int` })
        .from(otaTasks)
        .where(
            and(
                eq(otaTasks.batchId, b.id),
                sql`${otaTasks.pushedAt} > ${new Date(at.getTime() - 60_000).toISOString()}::timestamptz`,
            ),
        );
    return Math.min(SLICE, b.ratePerMinute - Number(recent.n));
}

/** Pending tasks of the batch whose devices are online here, oldest first, up to `budget`. */
export async function pushable(db: Db, state: OtaState, batchId: number, budget: number) {
    const pending = await db
        .select({ id: otaTasks.id, deviceId: otaTasks.deviceId })
        .from(otaTasks)
        .where(and(eq(otaTasks.batchId, batchId), eq(otaTasks.state, 'pending')))
        .orderBy(otaTasks.id)
        .limit(SLICE * 10);
    return pending
        .map((t) => ({ id: Number(t.id), deviceId: Number(t.deviceId) }))
        .filter((t) => state.backend?.isOnline(t.deviceId))
        .slice(0, budget);
}

/** One running batch's turn: closed past its window, waiting before its start, else pushes and maybe finishes. */
export async function scheduleBatch(state: OtaState, b: Batch, at: Date): Promise<void> {
    if (b.endTime && b.endTime <= at) {
        await claimWindowClosed(state.db, b.id, at);
        return;
    }
    if (b.startTime && b.startTime > at) return;
    const claimed = await claimBatchPushes(state, b, at);
    if (claimed.length) await publishUpgrades(state, claimed, await packageById(state.db, b.packageId));
    if (!b.dynamic) await claimBatchDone(state.db, b);
}

/** The batch's push lock (a transaction-level advisory lock, per schema: advisory locks are per database). */
const pushLock = (batchId: number) =>
    sql`pg_try_advisory_xact_lock(hashtext('iot_ota_push:' || current_schema()), ${batchId})`;

/**
 * Claims the batch's next pushes within its rate: the count of the last minute's pushes and the claim run under the
 * batch's push lock, so processes scheduling at once do not each spend the whole rate. A process that finds the lock
 * taken leaves the batch to the one holding it until its next run. Answers the tasks claimed (to publish).
 */
export async function claimBatchPushes(state: OtaState, b: Batch, at: Date) {
    if (!state.backend) return [];
    return state.db.transaction(async (tx) => {
        const db = tx as unknown as Db;
        const lock = (await db.execute(sql`SELECT ${pushLock(b.id)} AS got`)) as unknown as {
            rows: Array<{ got: boolean }>;
        };
        if (!lock.rows[0]?.got) return [];
        const budget = await pushBudget(db, b, at);
        if (budget <= 0) return [];
        const tasks = await pushable(db, state, b.id, budget);
        return claimPush(
            db,
            tasks.map((t) => t.id),
            at,
        );
    });
}

/** One scheduler run over every running batch. */
export async function runScheduler(state: OtaState): Promise<void> {
    if (!state.backend) return;
    const at = state.now();
    await failLateTasks(state, at);
    const batches = await state.db.select().from(otaBatches).where(eq(otaBatches.status, 'running'));
    for (const b of batches) await scheduleBatch(state, b, at);
}

/**
 * One scheduler run. A call during a run is answered by one more run after it (one for all such calls), so what the
 * caller changed before asking is seen by the run it waits for, not by one that began before. None starts once the
 * service is stopped.
 */
export function tick(state: OtaState): Promise<void> {
    if (state.stopped) return state.running ?? Promise.resolve();
    if (state.running) {
        state.queued ??= state.running.then(() => {
            state.queued = undefined;
            return tick(state);
        });
        return state.queued;
    }
    state.running = runScheduler(state)
        .catch((err: unknown) => state.logError('OTA 调度失败 / OTA scheduler failed:', err))
        .finally(() => {
            state.running = undefined;
        });
    return state.running;
}
