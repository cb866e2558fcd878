import { isClosedDatabaseError } from './closed';
import { sql } from 'drizzle-orm';
import type { Db } from './client';

/**
 * The tables partitioned by day (migration 0026_partitions.sql): one partition per UTC day named <table>_pYYYYMMDD,
 * and a DEFAULT partition, <table>_default, for a row whose day has no partition yet.
 *
 * Why a DEFAULT partition rather than "create the partition and retry the batch": every writer of these tables (the
 * batch writer, the presence trigger inside a device UPDATE, the rule journal, notifications, the seed's history,
 * the OTA log rows written through the batch writer) keeps working unchanged and never fails for a missing day, and
 * the writer's hot path stays one INSERT. A late or back-dated message is stored at once (in the default partition,
 * readable like any other row) and moved into its own day partition by the next maintenance: on demand right after
 * the batch that brought it (the writer asks, see `requestMaintenance`) and every hour. The default partition must
 * stay small (creating a partition reads it), which that split sees to.
 */
export const PARTITIONED_TABLES = ['device_messages', 'device_presence', 'rule_logs', 'notifications'] as const;
export type PartitionedTable = (typeof PARTITIONED_TABLES)[number];

export const DAY_MS = 24 * 60 * 60 * 1000;
/** Partitions made ahead: today and the next AHEAD_DAYS days (UTC). */
export const AHEAD_DAYS = 2;

type Rows<T> = { rows: T[] };

/** The UTC day of an instant as 'YYYY-MM-DD'. */
export function utcDay(ms: number): string {
    return new Date(Math.floor(ms / DAY_MS) * DAY_MS).toISOString().slice(0, 10);
}

/** Makes the partition of one UTC day of `table` if it is missing (moving that day's rows out of the default one). */
export async function ensureDayPartition(db: Db, table: PartitionedTable, day: string): Promise<boolean> {
    const r = (await db.execute(sql`SELECT store_day_partition(${table}, ${day}::date) AS made`)) as unknown as Rows<{
        made: boolean;
    }>;
    return !!r.rows[0]?.made;
}

/** The day partitions of a table, oldest first, as { name, day }. */
export async function dayPartitions(db: Db, table: PartitionedTable): Promise<Array<{ name: string; day: string }>> {
    const r = (await db.execute(sql`
        SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
        WHERE i.inhparent = to_regclass(${table}) ORDER BY c.relname`)) as unknown as Rows<{ name: string }>;
    const out: Array<{ name: string; day: string }> = [];
    for (const { name } of r.rows) {
        const m = /_p(\d{4})(\d{2})(\d{2})$/.exec(name);
        if (m && name === `${table}_p${m[1]}${m[2]}${m[3]}`) out.push({ name, day: `${m[1]}-${m[2]}-${m[3]}` });
    }
    return out;
}

/**
 * LOG_RETENTION_DAYS as server/config.ts reads it (which refuses a bad value at start): the days messages are kept,
 * 30 when unset.
 */
export function retentionDaysFromEnv(env: NodeJS.ProcessEnv = process.env): number {
    const days = Number(env.LOG_RETENTION_DAYS?.trim() || 30);
    return Number.isInteger(days) && days >= 1 && days <= 36_500 ? days : 30;
}

/**
 * The days maintenance may make a partition of `table` for (UTC days, inclusive): up to AHEAD_DAYS on, and for
 * device_messages, whose times devices write, from `retentionDays` back; the other tables' rows carry the server's
 * or the database's time.
 */
export function partitionWindow(
    table: PartitionedTable,
    now: number,
    retentionDays: number,
): { first: string; last: string } {
    const today = Math.floor(now / DAY_MS) * DAY_MS;
    const first = table === 'device_messages' ? utcDay(today - retentionDays * DAY_MS) : '0000-01-01';
    return { first, last: utcDay(today + AHEAD_DAYS * DAY_MS) };
}

/**
 * Keeps the partitions ahead (today + AHEAD_DAYS, UTC) and moves whatever waits in the default partitions into
 * their own day partitions, within partitionWindow only: a message of a day past the retention stays in the default
 * partition until the retention sweep deletes it, and a far future row until its day comes near, so no number of
 * back-dated messages makes more partitions than the window holds days. Each partition is its own statement (a short lock on the
 * parent, not one long one).
 */
export async function maintainPartitions(
    db: Db,
    now = new Date(),
    retentionDays = retentionDaysFromEnv(),
): Promise<{ made: number }> {
    let made = 0;
    const today = Math.floor(now.getTime() / DAY_MS) * DAY_MS;
    for (const table of PARTITIONED_TABLES) {
        const { first, last } = partitionWindow(table, now.getTime(), retentionDays);
        for (let d = 0; d <= AHEAD_DAYS; d++) {
            if (await ensureDayPartition(db, table, utcDay(today + d * DAY_MS))) made++;
        }
        const waiting = (await db.execute(sql`
            SELECT day FROM (SELECT DISTINCT to_char(ts AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day
                FROM ${sql.identifier(`${table}_default`)}) d
            WHERE day BETWEEN ${first} AND ${last}`)) as unknown as Rows<{ day: string }>;
        for (const { day } of waiting.rows) if (await ensureDayPartition(db, table, day)) made++;
    }
    return { made };
}

/**
 * Drops the day partitions of `table` wholly older than `cutoff` (one DROP TABLE each: no row by row delete, no
 * bloat left behind) and deletes the few rows older than it still waiting in the default partition. A partition goes
 * once its whole day is past the cutoff, so rows are kept between `days` and `days` + 1 days.
 */
export async function dropPartitionsBefore(
    db: Db,
    table: PartitionedTable,
    cutoff: Date,
): Promise<{ partitions: string[]; rows: number }> {
    const dropped: string[] = [];
    for (const p of await dayPartitions(db, table)) {
        if (Date.parse(`${p.day}T00:00:00Z`) + DAY_MS > cutoff.getTime()) break;
        await db.execute(sql.raw(`DROP TABLE IF EXISTS "${p.name}"`));
        dropped.push(p.name);
    }
    const gone = (await db.execute(sql`
        WITH gone AS (DELETE FROM ${sql.identifier(`${table}_default`)} WHERE ts < ${cutoff.toISOString()}::timestamptz RETURNING 1)
        SELECT count(*)::int AS n FROM gone`)) as unknown as Rows<{ n: number }>;
    return { partitions: dropped, rows: Number(gone.rows[0]?.n ?? 0) };
}

const running = new WeakMap<Db, Promise<unknown>>();
const again = new WeakSet<Db>();

/**
 * Runs maintainPartitions soon, in the background, once however many ask meanwhile (the batch writer asks after a
 * batch that held a message outside the partitions made ahead). Errors are logged, never thrown at the asker.
 */
export function requestMaintenance(db: Db, logError = (m: string, e: unknown) => console.error(m, e)): void {
    if (running.has(db)) {
        again.add(db);
        return;
    }
    const run: Promise<unknown> = maintainPartitions(db, new Date())
        .catch((err) => {
            if (!isClosedDatabaseError(err)) logError('创建消息分区失败 / making message partitions failed:', err);
        })
        .finally(() => {
            running.delete(db);
            if (again.has(db)) {
                again.delete(db);
                requestMaintenance(db, logError);
            }
        });
    running.set(db, run);
}

/** Waits for a requested maintenance (tests). */
export async function maintenanceSettled(db: Db): Promise<void> {
    while (running.has(db)) await running.get(db);
}
