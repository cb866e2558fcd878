import { sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { RETENTION_BATCH, RETENTION_INTERVAL_MS } from '../domain/retention';

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * The rule journal and the notification records are kept LOG_RETENTION_DAYS like the message log
 * (server/domain/retention.ts): older rows go in batches, at start and every hour. Claimed schedule ticks go after a day.
 */
export async function sweepRuleLogs(db: Db, days: number, now = new Date()): Promise<number> {
    const cutoff = new Date(now.getTime() - days * DAY_MS).toISOString();
    let total = 0;
    for (const table of ['rule_logs', 'notifications']) {
        for (;;) {
            const result = (await db.execute(sql`
                WITH gone AS (
                    DELETE FROM ${sql.identifier(table)} WHERE id IN (
                        SELECT id FROM ${sql.identifier(table)} WHERE ts < ${cutoff}::timestamptz ORDER BY ts LIMIT ${RETENTION_BATCH})
                    RETURNING 1)
                SELECT count(*)::int AS n FROM gone`)) as unknown as { rows: Array<{ n: number }> };
            const n = Number(result.rows[0]?.n ?? 0);
            total += n;
            if (n < RETENTION_BATCH) break;
        }
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
            if (!/closed|ended/i.test(String((err as Error)?.message)))
                logError('清理过期规则日志失败 / purging rule logs failed:', err);
        });
    void run();
    const timer = setInterval(() => void run(), RETENTION_INTERVAL_MS);
    timer.unref();
    return () => clearInterval(timer);
}
