import { sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { bigintArray, intArray, jsonbElements, textArray } from '../db/arrays';
import { AHEAD_DAYS, DAY_MS, requestMaintenance } from '../db/partitions';
import { PROPERTY_POST, mergeLatestColumns, type LatestValue } from '../domain/telemetry';

/**
 * Device messages in batches: what arrives within a few milliseconds is written by one multi-row statement (the
 * devices' latest values and the message log, which is also the property history), so ingest
 * is limited by rows, not by round trips. Each write resolves when its batch is committed (the broker answers PUBACK
 * and _reply then). A batch that fails (a device deleted meanwhile) is retried one message at a time, so one bad row fails alone.
 */

export interface MessageWrite {
    deviceId: number;
    ts: Date;
    method: string;
    identifier: string | null;
    data: unknown;
    /** Property values to keep as latest and history (property posts only). */
    values?: Record<string, unknown>;
    /** The device's product when the caller knows it (a device never changes product); else read from devices. */
    productId?: number;
}

interface Pending extends MessageWrite {
    done: (err?: unknown) => void;
}

const MAX_BATCH = 1_000;

/** The longest a lone message waits for company. */
const LINGER_MS = 4;

export function createMessageWriter(db: Db) {
    const queue: Pending[] = [];
    const batchObservers: Array<(ms: number, size: number) => void> = [];
    let timer: NodeJS.Timeout | undefined;
    let flushing: Promise<void> | undefined;
    let written = 0;
    let batches = 0;

    // One statement per batch: the devices' latest values (a data-modifying WITH) and the message log, which is also the
    // property history. One statement is atomic on its own, so a batch is one round trip to the database (PGlite's
    // worker: one message instead of BEGIN, two statements and COMMIT). The rows come as arrays, unnested side by side:
    // ids and times as number arrays, method and identifier as text arrays, the jsonb values as one JSON array split
    // in order; about 20 % less of the database's CPU per row than two json_to_recordset statements in a transaction.
    // A property post is two rows: its message and its device's latest values, merged in per device here first (one
    // upsert may touch a row once).
    async function writeBatch(batch: MessageWrite[]) {
        const latest = new Map<number, { p: Record<string, LatestValue>; t: number }>();
        for (const m of batch) {
            if (!m.values) continue;
            const t = m.ts.getTime();
            let row = latest.get(m.deviceId);
            if (!row) latest.set(m.deviceId, (row = { p: {}, t }));
            for (const identifier in m.values) {
                const prev = row.p[identifier];
                if (!prev || prev.t <= t) row.p[identifier] = { v: m.values[identifier], t };
            }
            if (t > row.t) row.t = t;
        }
        const latestIds: number[] = [];
        const latestTimes: number[] = [];
        const latestProps: Array<Record<string, LatestValue>> = [];
        for (const [deviceId, row] of latest) {
            latestIds.push(deviceId);
            latestTimes.push(row.t);
            latestProps.push(row.p);
        }
        const ids: number[] = [];
        const times: number[] = [];
        const methods: string[] = [];
        const identifiers: Array<string | null> = [];
        const data: unknown[] = [];
        const productIds: Array<number | null> = [];
        // device_messages is partitioned by UTC day (server/db/partitions.ts): a message outside the days made ahead
        // is stored in the default partition and split off into its own day right after this batch (not in its way).
        const ahead = Math.floor(Date.now() / DAY_MS) * DAY_MS;
        let outside = false;
        for (const m of batch) {
            const t = m.ts.getTime();
            if (t < ahead || t >= ahead + (AHEAD_DAYS + 1) * DAY_MS) outside = true;
            ids.push(m.deviceId);
            times.push(t);
            methods.push(m.method);
            identifiers.push(m.identifier);
            data.push(m.data ?? {});
            productIds.push(m.productId ?? null);
        }
        // product_id: the log query (/log) pages a product's messages on (product_id, ts). The caller's (the directory's
        // entry: a device never changes product), else copied from the device row (null for a device deleted
        // meanwhile, whose row then fails on the foreign key, as before). Given by the caller, no join with devices per
        // batch (a hash of the whole table, or an index probe per row). ROWS FROM zips the columns by position.
        await db.execute(sql`
            WITH latest AS (${mergeLatestColumns(latestIds, latestTimes, latestProps)})
            INSERT INTO device_messages (device_id, ts, method, identifier, data, product_id)
            SELECT x.d, to_timestamp(x.t / 1000.0::float8), x.m, x.i, x.x,
                    coalesce(x.p, (SELECT dev.product_id FROM devices dev WHERE dev.id = x.d))
                FROM ROWS FROM (unnest(${bigintArray(ids)}), unnest(${bigintArray(times)}), unnest(${textArray(methods)}),
                    unnest(${textArray(identifiers)}), ${jsonbElements(data)}, unnest(${intArray(productIds)}))
                    AS x(d, t, m, i, x, p)`);
        if (outside) requestMaintenance(db);
    }

    async function flush(): Promise<void> {
        timer = undefined;
        const batch = queue.splice(0, MAX_BATCH);
        if (!batch.length) return;
        const started = performance.now();
        try {
            await writeBatch(batch);
            for (const fn of batchObservers) fn(performance.now() - started, batch.length);
            written += batch.length;
            batches++;
            for (const p of batch) p.done();
        } catch {
            for (const p of batch) {
                try {
                    await writeBatch([p]);
                    written++;
                    p.done();
                } catch (err) {
                    p.done(err);
                }
            }
        }
    }

    function schedule() {
        if (flushing || timer) return;
        if (queue.length >= MAX_BATCH) {
            run();
            return;
        }
        timer = setTimeout(run, LINGER_MS);
    }

    function run() {
        if (timer) clearTimeout(timer);
        timer = undefined;
        flushing = flush().finally(() => {
            flushing = undefined;
            // What came in during the flush has waited already: written at once, not after another linger.
            if (queue.length) run();
        });
    }

    return {
        /** Messages waiting for their batch (the ingest queue's depth, /metrics). */
        get pending() {
            return queue.length;
        },
        /** Each committed batch's time (ms) and size (/metrics). */
        onBatch(fn: (ms: number, size: number) => void) {
            batchObservers.push(fn);
        },
        /** Resolves once the message is committed. The object is queued as it is (not copied): pass a fresh one. */
        write(message: MessageWrite): Promise<void> {
            return new Promise((resolve, reject) => {
                const pending = message as Pending;
                pending.done = (err) => (err ? reject(err) : resolve());
                queue.push(pending);
                schedule();
            });
        },
        propertyPost(deviceId: number, ts: Date, values: Record<string, unknown>, productId?: number) {
            return this.write({
                deviceId,
                ts,
                method: PROPERTY_POST,
                identifier: null,
                data: values,
                values,
                productId,
            });
        },
        /** Messages committed since start. */
        get written() {
            return written;
        },
        /** Batches committed since start (written / batches: the mean batch size). */
        get batches() {
            return batches;
        },
        /** Waits for everything queued (shutdown, tests). */
        async drain(): Promise<void> {
            while (queue.length || flushing) {
                if (!flushing) run();
                await flushing;
            }
        },
    };
}

export type MessageWriter = ReturnType<typeof createMessageWriter>;
