import { isClosedDatabaseError } from './closed';
import { sql } from 'drizzle-orm';
import type { Db } from './client';
import { DAY_MS, PARTITIONED_TABLES, type PartitionedTable } from './partitions';

/**
 * Moves the rows of the tables renamed <table>_legacy by migration 0026_partitions.sql into the partitioned tables,
 * in batches, in the background after start. Why a mover and not a copy in the migration: the migration runs in
 * one transaction at start, and copying a table of hundreds of millions of rows there would hold the start for hours
 * and start over from nothing after a kill. Here each batch is ONE statement that deletes the batch from the legacy
 * table and inserts it into the partitioned one (ids kept), so the batch is moved wholly or not at all: the legacy
 * table itself is the progress record, a kill -9 at any point loses and doubles nothing, and the next start goes on
 * where it stopped. The newest rows go first (id descending), so the recent days' history and log are whole first;
 * until a row is moved it is not visible to the readers (docs/deployment.md "The message store").
 *
 * Rows older than the retention are deleted instead of moved, and messages of devices deleted meanwhile are not
 * moved (the legacy table lost its foreign key: deleting a device no longer cascades into it).
 *
 * Several processes on one database (DATABASE_URL) each start a mover: only one moves at a time. Each batch runs in a
 * transaction that first takes a transaction-level advisory lock (MOVER_LOCK, per schema) with pg_try_advisory_xact_lock;
 * a mover that does not get it stops with `busy` and its process tries again later (startLegacyMover). Why a
 * transaction-level lock and not a session one: the pool hands each statement any connection, and a transaction's lock
 * goes with its commit, rollback or the death of its process (kill -9 included), so no process can leave it held.
 */
export const MOVE_BATCH = 10_000;
/** Seconds a process whose mover found another one moving waits before it tries again. */
export const MOVER_RETRY_MS = 30_000;
/** The advisory lock key of the mover in the current schema (advisory locks are per database). */
const MOVER_LOCK = `hashtext('iot_partition_mover:' || current_schema())`;

type Rows<T> = { rows: T[] };

export interface MoveOptions {
    batch?: number;
    /** Rows older than this many days are dropped, not moved (LOG_RETENTION_DAYS; presence keeps its own). */
    retentionDays?: number;
    now?: () => Date;
    /** Called after each batch (tests stop the mover between batches; the log shows progress). */
    onBatch?: (table: PartitionedTable, moved: number, kept: number) => void | Promise<void>;
    signal?: AbortSignal;
}

export interface MoveResult {
    /** Rows taken out of the legacy tables. */
    moved: number;
    /** Of those, rows inserted into the partitioned tables (the rest were past retention or of deleted devices). */
    kept: number;
    /** Legacy tables emptied and dropped. */
    dropped: string[];
    /** Stopped because another mover (another process) held the lock: try again later. */
    busy?: boolean;
}

async function columnsOf(db: Db, table: string): Promise<string[]> {
    const r = (await db.execute(sql`
        SELECT attname FROM pg_attribute WHERE attrelid = to_regclass(${table}) AND attnum > 0 AND NOT attisdropped
        ORDER BY attnum`)) as unknown as Rows<{ attname: string }>;
    return r.rows.map((c) => c.attname);
}

/** The legacy tables still there (none once the move is over, or on a database created after 0026). */
export async function legacyTables(db: Db): Promise<PartitionedTable[]> {
    const out: PartitionedTable[] = [];
    for (const t of PARTITIONED_TABLES) {
        const r = (await db.execute(
            sql`SELECT to_regclass(${`${t}_legacy`}) IS NOT NULL AS there`,
        )) as unknown as Rows<{ there: boolean }>;
        if (r.rows[0]?.there) out.push(t);
    }
    return out;
}

/** Runs `fn` in a transaction holding the mover's lock; undefined when another mover holds it. */
async function underLock<T>(db: Db, fn: (tx: Db) => Promise<T>): Promise<{ value: T } | undefined> {
    return db.transaction(async (tx) => {
        const lock = (await tx.execute(
            sql.raw(`SELECT pg_try_advisory_xact_lock(${MOVER_LOCK}) AS got`),
        )) as unknown as Rows<{ got: boolean }>;
        if (!lock.rows[0]?.got) return undefined;
        return { value: await fn(tx as unknown as Db) };
    });
}

const isMissingTable = (err: unknown) => {
    const e = err as { code?: string; cause?: { code?: string } } | undefined;
    return (e?.code ?? e?.cause?.code) === '42P01';
};

/** Moves every legacy table's rows, batch after batch, then drops the emptied legacy tables. */
export async function moveLegacyRows(db: Db, opts: MoveOptions = {}): Promise<MoveResult> {
    const batch = opts.batch ?? MOVE_BATCH;
    const out: MoveResult = { moved: 0, kept: 0, dropped: [] };
    for (const table of await legacyTables(db)) {
        const legacy = `${table}_legacy`;
        // The columns both tables have: a column added to the partitioned table after 0026 (resend_key) stays NULL.
        const legacyColumns = await columnsOf(db, legacy);
        const columns = (await columnsOf(db, table))
            .filter((c) => legacyColumns.includes(c))
            .map((c) => `"${c}"`)
            .join(', ');
        const hasId = legacyColumns.includes('id');
        // The next batch: newest first by id (the primary key walks it), or by physical place (presence has no key).
        const pick = hasId
            ? `id IN (SELECT id FROM "${legacy}" ORDER BY id DESC LIMIT ${batch})`
            : `ctid = ANY (ARRAY(SELECT ctid FROM "${legacy}" LIMIT ${batch}))`;
        const days = table === 'device_presence' ? 93 : opts.retentionDays;
        for (;;) {
            if (opts.signal?.aborted) return out;
            const cutoff = new Date((opts.now?.() ?? new Date()).getTime() - (days ?? 36_500) * DAY_MS).toISOString();
            const alive =
                table === 'device_messages' ? 'AND EXISTS (SELECT 1 FROM devices d WHERE d.id = g.device_id)' : '';
            // The batch's days get their partitions first (its own statements: a partition made inside the moving
            // statement would hold the parent's lock for the whole batch), so moved rows do not pile up in default.
            // Another process's mover may have finished this table and dropped it meanwhile: then it is done.
            try {
                await db.execute(
                    sql.raw(`SELECT store_day_partition('${table}', day) FROM (
                    SELECT DISTINCT (ts AT TIME ZONE 'UTC')::date AS day FROM "${legacy}" WHERE ${pick}) x
                    WHERE day >= ('${cutoff}'::timestamptz AT TIME ZONE 'UTC')::date`),
                );
            } catch (err) {
                if (isMissingTable(err)) break;
                throw err;
            }
            // One mover at a time: the batch's statement under the advisory lock, in one transaction.
            const r = await underLock(db, async (tx) => {
                const there = (await tx.execute(
                    sql`SELECT to_regclass(${legacy}) IS NOT NULL AS there`,
                )) as unknown as Rows<{ there: boolean }>;
                if (!there.rows[0]?.there) return { moved: 0, kept: 0 };
                const r = (await tx.execute(
                    sql.raw(`WITH g AS (DELETE FROM "${legacy}" WHERE ${pick} RETURNING *),
                    ins AS (INSERT INTO "${table}" (${columns}) OVERRIDING SYSTEM VALUE
                        SELECT ${columns} FROM g WHERE ts >= '${cutoff}'::timestamptz ${alive} RETURNING 1)
                    SELECT (SELECT count(*) FROM g)::int AS moved, (SELECT count(*) FROM ins)::int AS kept`),
                )) as unknown as Rows<{ moved: number; kept: number }>;
                return { moved: Number(r.rows[0]?.moved ?? 0), kept: Number(r.rows[0]?.kept ?? 0) };
            }).catch((err: unknown) => {
                // to_regclass takes no lock, so it can still see a table another mover dropped a moment ago (its
                // catalog cache is brought up to date when a lock is taken): the batch's DELETE, which takes one,
                // then finds no table. The table is done either way.
                if (isMissingTable(err)) return { value: { moved: 0, kept: 0 } };
                throw err;
            });
            if (!r) return { ...out, busy: true };
            const { moved, kept } = r.value;
            out.moved += moved;
            out.kept += kept;
            if (moved) await opts.onBatch?.(table, moved, kept);
            if (moved < batch) break;
        }
        // Empty now: dropped in one go (a row written meanwhile cannot land there: nothing writes to a legacy table),
        // under the lock too, so no other mover is inside a batch of this table.
        const gone = await underLock(db, async (tx) => {
            const left = (await tx.execute(
                sql.raw(`SELECT count(*)::int AS n FROM (SELECT 1 FROM "${legacy}" LIMIT 1) x`),
            )) as unknown as Rows<{ n: number }>;
            if (Number(left.rows[0]?.n)) return false;
            await tx.execute(sql.raw(`DROP TABLE "${legacy}"`));
            return true;
        }).catch((err: unknown) => {
            if (isMissingTable(err)) return { value: false };
            throw err;
        });
        if (!gone) return { ...out, busy: true };
        if (gone.value) out.dropped.push(legacy);
    }
    return out;
}

/**
 * Starts the move in the background when legacy tables are there (after an upgrade past 0026), logging progress.
 * Returns a function that stops it between batches and resolves once the batch under way has ended (a stopping
 * process awaits it before it closes the database, which would otherwise cut the batch and print its failure).
 */
export function startLegacyMover(
    db: Db,
    retentionDays: number,
    log: (message: string) => void = (m) => console.log(m),
    logError = (m: string, e: unknown) => console.error(m, e),
    retryMs = MOVER_RETRY_MS,
): () => Promise<void> {
    const abort = new AbortController();
    let last = 0;
    let total = 0;
    let timer: NodeJS.Timeout | undefined;
    let saidBusy = false;
    const attempt = () =>
        legacyTables(db)
            .then(async (tables) => {
                if (!tables.length || abort.signal.aborted) return;
                if (!saidBusy)
                    log(
                        `消息表分区迁移：开始搬迁旧表 ${tables.join(', ')} / moving legacy rows into the partitioned tables`,
                    );
                const r = await moveLegacyRows(db, {
                    retentionDays,
                    signal: abort.signal,
                    onBatch: (table, moved) => {
                        total += moved;
                        if (Date.now() - last > 10_000) {
                            last = Date.now();
                            log(`消息表分区迁移：${table} 已搬迁 ${total} 行 / ${total} rows moved`);
                        }
                    },
                });
                if (abort.signal.aborted) return;
                if (r.busy) {
                    // Another process is moving: this one looks again later (and takes over if that one died).
                    if (!saidBusy)
                        log('消息表分区迁移：另一进程正在搬迁，稍后再试 / another process is moving legacy rows');
                    saidBusy = true;
                    timer = setTimeout(retry, retryMs);
                    timer.unref?.();
                    return;
                }
                log(`消息表分区迁移完成：${total} 行 / legacy move done: ${total} rows`);
            })
            .catch((err) => {
                if (!isClosedDatabaseError(err))
                    logError(
                        '消息表分区迁移失败（下次启动继续） / moving legacy rows failed (resumes at next start):',
                        err,
                    );
            });
    let running = attempt();
    const retry = () => void (running = attempt());
    return async () => {
        abort.abort();
        clearTimeout(timer);
        await running;
    };
}
