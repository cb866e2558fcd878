import { sql } from 'drizzle-orm';
import type { Db, Tx } from '../db/client';
import { PROPERTY_POST, mergeLatest, type LatestValue } from '../domain/telemetry';

/**
 * Device messages in batches: what arrives within a few milliseconds is written in one transaction of two
 * multi-row statements (the devices' latest values, the message log, which is also the property history), so ingest
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
}

interface Pending extends MessageWrite {
    done: (err?: unknown) => void;
}

const MAX_BATCH = 1_000;
/** The longest a lone message waits for company. */
const LINGER_MS = 4;

export function createMessageWriter(db: Db) {
    const queue: Pending[] = [];
    let timer: NodeJS.Timeout | undefined;
    let flushing: Promise<void> | undefined;
    let written = 0;
    let batches = 0;

    // One statement per table, its rows as one JSON document (json_to_recordset): PGlite parses and plans two
    // statements per batch instead of binding thousands of parameters. A property post is two rows: its message (the
    // property history) and its device's latest values, merged in per device here first (one upsert may touch a row
    // once).
    async function writeBatch(tx: Db | Tx, batch: MessageWrite[]) {
        const latest = new Map<number, { d: number; p: Record<string, LatestValue>; t: number }>();
        for (const m of batch) {
            if (!m.values) continue;
            const t = m.ts.getTime();
            let row = latest.get(m.deviceId);
            if (!row) latest.set(m.deviceId, (row = { d: m.deviceId, p: {}, t }));
            for (const identifier in m.values) {
                const prev = row.p[identifier];
                if (!prev || prev.t <= t) row.p[identifier] = { v: m.values[identifier], t };
            }
            if (t > row.t) row.t = t;
        }
        if (latest.size) await tx.execute(mergeLatest([...latest.values()]));
        const messages = batch.map((m) => ({
            d: m.deviceId,
            t: m.ts.toISOString(),
            m: m.method,
            i: m.identifier,
            x: m.data ?? {},
        }));
        // product_id: the log query (/log) pages a product's messages on (product_id, ts); copied from the device here
        // (a LEFT JOIN, so a device deleted meanwhile still fails its row on the foreign key, as before).
        await tx.execute(sql`
            INSERT INTO device_messages (device_id, ts, method, identifier, data, product_id)
            SELECT x.d, x.t, x.m, x.i, x.x, dev.product_id FROM json_to_recordset(${JSON.stringify(messages)}::json)
                AS x(d bigint, t timestamptz, m text, i text, x jsonb)
                LEFT JOIN devices dev ON dev.id = x.d`);
    }

    async function flush(): Promise<void> {
        timer = undefined;
        const batch = queue.splice(0, MAX_BATCH);
        if (!batch.length) return;
        try {
            await db.transaction((tx) => writeBatch(tx, batch));
            written += batch.length;
            batches++;
            for (const p of batch) p.done();
        } catch {
            for (const p of batch) {
                try {
                    await db.transaction((tx) => writeBatch(tx, [p]));
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
            if (queue.length) schedule();
        });
    }

    return {
        /** Resolves once the message is committed. The object is queued as it is (not copied): pass a fresh one. */
        write(message: MessageWrite): Promise<void> {
            return new Promise((resolve, reject) => {
                const pending = message as Pending;
                pending.done = (err) => (err ? reject(err) : resolve());
                queue.push(pending);
                schedule();
            });
        },
        propertyPost(deviceId: number, ts: Date, values: Record<string, unknown>) {
            return this.write({ deviceId, ts, method: PROPERTY_POST, identifier: null, data: values, values });
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
