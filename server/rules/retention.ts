import { isClosedDatabaseError } from '../db/closed';
import { sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { DAY_MS, dropPartitionsBefore } from '../db/partitions';
import { RETENTION_INTERVAL_MS } from '../domain/retention';

/**
 * The rule journal and the notification records are kept LOG_RETENTION_DAYS like the message log
 * (server/domain/retention.ts): both are partitioned by day and a day older than that is dropped whole, at start and
 * every hour. Claimed schedule ticks go after a day. Returns the day partitions dropped.
 */
export async function sweepRuleLogs(db: Db, days: number, now = new Date()): Promise<number> {
    const cutoff = new Date(now.getTime() - days * DAY_MS);
    let total = 0;
    for (const table of ['rule_logs', 'notifications'] as const) {
        total += (await dropPartitionsBefore(db, table, cutoff)).partitions.length;
    }
    // Schedule ticks claimed (engine.ts) matter only while the tick is under way.
    await db.execute(
        sql`DELETE FROM rule_ticks WHERE tick < ${new Date(now.getTime() - DAY_MS).toISOString()}::timestamptz`,
    );
    return total;
}

export function startRuleLogSweeper(db: Db, days: number, logError = (m: string, e: unknown) => console.error(m, e)) {
    const run = () =>
        sweepRuleLogs(db, days).catch((err) => {
            if (!isClosedDatabaseError(err)) logError('清理过期规则日志失败 / purging rule logs failed:', err);
        });
    void run();
    const timer = setInterval(() => void run(), RETENTION_INTERVAL_MS);
    timer.unref();
    return () => clearInterval(timer);
}
