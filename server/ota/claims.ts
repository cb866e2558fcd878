import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { otaBatches, otaPackages, otaTasks } from '../db/schema';
import { OPEN_STATES } from './batches';

/**
 * Every change of a task's or a batch's state, each one conditional UPDATE ... WHERE state = <expected> RETURNING.
 * Several processes run the scheduler and the handlers over one database; a row is claimed by the one statement that
 * matched it (PostgreSQL re-checks the condition after a concurrent write), and only the rows returned here get the
 * effect (a push, a failure's fan-out, a result in the log). A claim that returns nothing means another process or a
 * cancel got there first.
 */

/** States a pushed upgrade is in until the device finishes, fails or times out. */
export const ACTIVE_STATES = ['pushed', 'upgrading'] as const;

/** pending → pushed, for tasks of running batches: the ones returned are this process's to publish. */
export async function claimPush(db: Db, taskIds: number[], at: Date): Promise<Array<{ id: number; deviceId: number }>> {
    if (!taskIds.length) return [];
    const rows = await db
        .update(otaTasks)
        .set({ state: 'pushed', pushedAt: at, updatedAt: at, step: null, attempts: sql`${otaTasks.attempts} + 1` })
        .where(
            and(
                inArray(otaTasks.id, taskIds),
                eq(otaTasks.state, 'pending'),
                sql`EXISTS (SELECT 1 FROM ${otaBatches} WHERE ${otaBatches.id} = ${otaTasks.batchId}
                    AND ${otaBatches.status} = 'running')`,
            ),
        )
        .returning({ id: otaTasks.id, deviceId: otaTasks.deviceId });
    return rows.map((r) => ({ id: Number(r.id), deviceId: Number(r.deviceId) }));
}

/** pushed → pending again, the attempt not counted: the device was not reached (offline by the time of the push). */
export async function unclaimPush(db: Db, taskIds: number[]): Promise<number[]> {
    if (!taskIds.length) return [];
    const rows = await db
        .update(otaTasks)
        .set({ state: 'pending', attempts: sql`${otaTasks.attempts} - 1` })
        .where(and(inArray(otaTasks.id, taskIds), eq(otaTasks.state, 'pushed')))
        .returning({ id: otaTasks.id });
    return rows.map((r) => Number(r.id));
}

/** A task that left pushed or upgrading for failed (for good) or pending (a retry remains). */
export interface FailedTask {
    id: number;
    batchId: number;
    deviceId: number;
    /** 'failed' or 'pending'. */
    state: string;
    step: number | null;
    packageId: number;
    packageName: string;
    module: string;
    version: string;
}

interface FailedRow {
    id: number | string;
    batch_id: number;
    device_id: number | string;
    state: string;
    step: number | null;
    package_id: number;
    name: string;
    module: string;
    version: string;
}

const failedTask = (r: FailedRow): FailedTask => ({
    id: Number(r.id),
    batchId: Number(r.batch_id),
    deviceId: Number(r.device_id),
    state: r.state,
    step: r.step === null ? null : Number(r.step),
    packageId: Number(r.package_id),
    packageName: r.name,
    module: r.module,
    version: r.version,
});

/**
 * pushed or upgrading → failed, or pending while the batch's retries last (attempts <= retries): the tasks matching
 * `which`, in running batches. The reason gets 「（将重试）」 on a retry.
 */
async function claimFailures(db: Db, which: ReturnType<typeof sql>, reason: string, at: Date): Promise<FailedTask[]> {
    const result = (await db.execute(sql`
        UPDATE ota_tasks t SET
            state = CASE WHEN t.attempts <= b.retries THEN 'pending' ELSE 'failed' END,
            reason = CASE WHEN t.attempts <= b.retries THEN ${`${reason}（将重试）`} ELSE ${reason} END,
            updated_at = ${at.toISOString()}::timestamptz
        FROM ota_batches b JOIN ota_packages p ON p.id = b.package_id
        WHERE b.id = t.batch_id AND b.status = 'running' AND t.state IN ('pushed', 'upgrading') AND ${which}
        RETURNING t.id, t.batch_id, t.device_id, t.state, t.step, p.id AS package_id, p.name, p.module, p.version`)) as unknown as {
        rows: FailedRow[];
    };
    return result.rows.map(failedTask);
}

/** Pushed tasks past their batch's timeout: each returned to exactly one caller, however many run at once. */
export function claimTimeouts(db: Db, at: Date): Promise<FailedTask[]> {
    return claimFailures(
        db,
        sql`t.pushed_at < ${at.toISOString()}::timestamptz - b.timeout_minutes * interval '1 minute'`,
        '升级超时',
        at,
    );
}

/** The device reported a failing step: the task fails (or waits for a retry) unless it already left pushed/upgrading. */
export async function claimFailure(db: Db, taskId: number, reason: string, at: Date): Promise<FailedTask | undefined> {
    const [row] = await claimFailures(db, sql`t.id = ${taskId}`, reason, at);
    return row;
}

/** pushed or upgrading → upgrading at a step: false when the task has left them. */
export async function claimProgress(db: Db, taskId: number, step: number, at: Date): Promise<boolean> {
    const rows = await db
        .update(otaTasks)
        .set({ state: 'upgrading', step, updatedAt: at })
        .where(and(eq(otaTasks.id, taskId), inArray(otaTasks.state, [...ACTIVE_STATES])))
        .returning({ id: otaTasks.id });
    return rows.length > 0;
}

/** pushed or upgrading → succeeded (the device informed the target version): false when another took it. */
export async function claimSuccess(db: Db, taskId: number, at: Date): Promise<boolean> {
    const rows = await db
        .update(otaTasks)
        .set({ state: 'succeeded', step: 100, reason: null, updatedAt: at })
        .where(and(eq(otaTasks.id, taskId), inArray(otaTasks.state, [...ACTIVE_STATES])))
        .returning({ id: otaTasks.id });
    return rows.length > 0;
}

/** A batch past its end time: running → done, and its pending tasks cancelled with it (one transaction). */
export async function claimWindowClosed(db: Db, batchId: number, at: Date): Promise<boolean> {
    return db.transaction(async (tx) => {
        const closed = await tx
            .update(otaBatches)
            .set({ status: 'done' })
            .where(and(eq(otaBatches.id, batchId), eq(otaBatches.status, 'running')))
            .returning({ id: otaBatches.id });
        if (!closed.length) return false;
        await tx
            .update(otaTasks)
            .set({ state: 'cancelled', reason: '超出升级时间窗口', updatedAt: at })
            .where(and(eq(otaTasks.batchId, batchId), eq(otaTasks.state, 'pending')));
        return true;
    });
}

/**
 * A static batch with no open task: running → done. A verification batch that reached every device marks its
 * package verified, once, by the process whose claim matched.
 */
export async function claimBatchDone(db: Db, batch: { id: number; kind: string; packageId: number }): Promise<boolean> {
    const done = await db
        .update(otaBatches)
        .set({ status: 'done' })
        .where(
            and(
                eq(otaBatches.id, batch.id),
                eq(otaBatches.status, 'running'),
                sql`NOT EXISTS (SELECT 1 FROM ${otaTasks} WHERE ${otaTasks.batchId} = ${batch.id}
                    AND ${otaTasks.state} IN (${sql.join(
                        OPEN_STATES.map((s) => sql`${s}`),
                        sql`, `,
                    )}))`,
            ),
        )
        .returning({ id: otaBatches.id });
    if (!done.length) return false;
    if (batch.kind === 'verify') {
        await db
            .update(otaPackages)
            .set({ verified: true })
            .where(
                and(
                    eq(otaPackages.id, batch.packageId),
                    sql`NOT EXISTS (SELECT 1 FROM ${otaTasks} WHERE ${otaTasks.batchId} = ${batch.id}
                        AND ${otaTasks.state} <> 'succeeded')`,
                ),
            );
    }
    return true;
}
