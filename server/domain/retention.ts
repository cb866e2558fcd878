import { isClosedDatabaseError } from '../db/closed';
import type { Db } from '../db/client';
import { startLegacyMover } from '../db/partitionMover';
import { DAY_MS, dropPartitionsBefore, maintainPartitions } from '../db/partitions';

/** The sweep runs at start and then every hour. */
export const RETENTION_INTERVAL_MS = 60 * 60 * 1000;

export interface RetentionResult {
    /** Rows deleted one by one: those still waiting in the default partition (a late message not yet split off). */
    messages: number;
    /** Day partitions dropped whole (device_messages_pYYYYMMDD). */
    partitions: string[];
}

export interface SweepOptions {
    /** The clock (tests move it). */
    now?: () => Date;
}

/**
 * Drops the days of device_messages (the message log, property history included) older than `days` days: each day is
 * its own partition (server/db/partitions.ts), gone in one DROP TABLE however many rows it held, with no dead rows
 * left behind for vacuum. A day goes once all of it is older than `days` days, so messages are kept `days` to
 * `days` + 1 days. Partitions ahead are made and the default partition split first, so a late message waiting there
 * goes with its day.
 */
export async function sweepOldMessages(db: Db, days: number, opts: SweepOptions = {}): Promise<RetentionResult> {
    const now = opts.now?.() ?? new Date();
    await maintainPartitions(db, now, days);
    const r = await dropPartitionsBefore(db, 'device_messages', new Date(now.getTime() - days * DAY_MS));
    return { messages: r.rows, partitions: r.partitions };
}

/**
 * Days of presence history kept (device_presence, the report's online rate): the report's longest range and a day,
 * whatever LOG_RETENTION_DAYS says, as the rows are few (one per change to or from ONLINE).
 */
export const PRESENCE_RETENTION_DAYS = 93;

/**
 * Drops the days of presence changes older than `days` days (day partitions, like the messages). What is left still
 * answers each day: before its oldest kept change a device was in the opposite state, and a device with none kept its
 * status throughout. Returns the partitions dropped.
 */
export async function sweepOldPresence(db: Db, days = PRESENCE_RETENTION_DAYS, opts: SweepOptions = {}) {
    const now = opts.now?.() ?? new Date();
    return (await dropPartitionsBefore(db, 'device_presence', new Date(now.getTime() - days * DAY_MS))).partitions;
}

/**
 * Sweeps once now and then every RETENTION_INTERVAL_MS, in the background (call it after the seed, from the
 * server's start). The timer does not keep the process alive; the returned function stops it (resolving once the
 * legacy move's batch under way has ended). A sweep still running
 * when the next is due is not doubled. Each run also keeps the partitions made ahead (maintainPartitions). After an
 * upgrade past 0026_partitions.sql the first run is followed by the move of the legacy rows (partitionMover.ts).
 */
export function startRetentionSweeper(
    db: Db,
    days: number,
    logError: (message: string, err: unknown) => void = (m, e) => console.error(m, e),
): () => Promise<void> {
    let running = false;
    let stopMover: (() => Promise<void>) | undefined;
    const run = async () => {
        if (running) return;
        running = true;
        try {
            await sweepOldMessages(db, days);
            await sweepOldPresence(db);
            stopMover ??= startLegacyMover(db, days);
        } catch (err) {
            if (!isClosedDatabaseError(err))
                logError('清理过期消息日志失败 / purging old device messages failed:', err);
        } finally {
            running = false;
        }
    };
    void run();
    const timer = setInterval(() => void run(), RETENTION_INTERVAL_MS);
    timer.unref();
    return async () => {
        clearInterval(timer);
        await stopMover?.();
    };
}
