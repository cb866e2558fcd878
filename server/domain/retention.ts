import { sql } from 'drizzle-orm';
import type { Db } from '../db/client';

/** Rows deleted per statement: each batch is a short transaction, so ingest never waits long behind the sweep. */
export const RETENTION_BATCH = 5_000;
/** The sweep runs at start and then every hour. */
export const RETENTION_INTERVAL_MS = 60 * 60 * 1000;
const DAY_MS = 24 * 60 * 60 * 1000;

export interface RetentionResult {
    messages: number;
}

export interface SweepOptions {
    /** The clock (tests move it). */
    now?: () => Date;
    batch?: number;
}

async function deleted(result: unknown): Promise<number> {
    const r = result as { rowCount?: number | null; affectedRows?: number; rows?: Array<{ n: number }> };
    return Number(r.rows?.[0]?.n ?? r.affectedRows ?? r.rowCount ?? 0);
}

/**
 * Deletes device_messages (the message log, property history included) older than `days` days, RETENTION_BATCH rows
 * per statement found on its ts index (oldest first), until none is left: never one huge DELETE holding locks and WAL
 * for minutes.
 */
export async function sweepOldMessages(db: Db, days: number, opts: SweepOptions = {}): Promise<RetentionResult> {
    const batch = opts.batch ?? RETENTION_BATCH;
    const cutoff = new Date((opts.now?.() ?? new Date()).getTime() - days * DAY_MS).toISOString();
    const out: RetentionResult = { messages: 0 };
    for (;;) {
        const n = await deleted(
            await db.execute(sql`
                WITH gone AS (
                    DELETE FROM device_messages WHERE id IN (
                        SELECT id FROM device_messages WHERE ts < ${cutoff}::timestamptz ORDER BY ts LIMIT ${batch})
                    RETURNING 1)
                SELECT count(*)::int AS n FROM gone`),
        );
        out.messages += n;
        if (n < batch) break;
    }
    return out;
}

/**
 * Days of presence history kept (device_presence, the report's online rate): the report's longest range and a day,
 * whatever LOG_RETENTION_DAYS says, as the rows are few (one per change to or from ONLINE).
 */
export const PRESENCE_RETENTION_DAYS = 93;

/**
 * Deletes presence changes older than `days` days, in batches. What is left still answers each day: before its
 * oldest kept change a device was in the opposite state, and a device with none kept its status throughout.
 */
export async function sweepOldPresence(db: Db, days = PRESENCE_RETENTION_DAYS, opts: SweepOptions = {}) {
    const batch = opts.batch ?? RETENTION_BATCH;
    const cutoff = new Date((opts.now?.() ?? new Date()).getTime() - days * DAY_MS).toISOString();
    let total = 0;
    for (;;) {
        const n = await deleted(
            await db.execute(sql`
                WITH gone AS (
                    DELETE FROM device_presence WHERE ctid = ANY (ARRAY(
                        SELECT ctid FROM device_presence WHERE ts < ${cutoff}::timestamptz ORDER BY ts LIMIT ${batch}))
                    RETURNING 1)
                SELECT count(*)::int AS n FROM gone`),
        );
        total += n;
        if (n < batch) return total;
    }
}

/**
 * Sweeps once now and then every RETENTION_INTERVAL_MS, in the background (call it after the seed, from the
 * server's start). The timer does not keep the process alive; the returned function stops it. A sweep still running
 * when the next is due is not doubled.
 */
export function startRetentionSweeper(
    db: Db,
    days: number,
    logError: (message: string, err: unknown) => void = (m, e) => console.error(m, e),
): () => void {
    let running = false;
    const run = async () => {
        if (running) return;
        running = true;
        try {
            await sweepOldMessages(db, days);
            await sweepOldPresence(db);
        } catch (err) {
            if (!/closed|ended/i.test(String((err as Error)?.message)))
                logError('清理过期消息日志失败 / purging old device messages failed:', err);
        } finally {
            running = false;
        }
    };
    void run();
    const timer = setInterval(() => void run(), RETENTION_INTERVAL_MS);
    timer.unref();
    return () => clearInterval(timer);
}
