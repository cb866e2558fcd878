import { sql } from 'drizzle-orm';
import type { Db, Tx } from '../db/client';
import { deviceMessages, deviceProperties, propertyRecords } from '../db/schema';
import { PROPERTY_POST } from '../domain/telemetry';

/**
 * Device messages in batches: what arrives within a few milliseconds is written in one transaction of three
 * multi-row statements (latest values, property history, the message log), so ingest is limited by rows, not by
 * round trips. Each write resolves when its batch is committed (the broker answers PUBACK and _reply then).
 * A batch that fails (a device deleted meanwhile) is retried one message at a time, so one bad row fails alone.
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

    async function writeBatch(tx: Db | Tx, batch: MessageWrite[]) {
        const latest = new Map<string, { deviceId: number; identifier: string; value: unknown; ts: Date }>();
        const history = new Map<string, { deviceId: number; identifier: string; value: unknown; ts: Date }>();
        for (const m of batch) {
            for (const [identifier, value] of Object.entries(m.values ?? {})) {
                const key = `${m.deviceId}\u0000${identifier}`;
                const prev = latest.get(key);
                if (!prev || prev.ts <= m.ts) latest.set(key, { deviceId: m.deviceId, identifier, value, ts: m.ts });
                history.set(`${key}\u0000${m.ts.getTime()}`, { deviceId: m.deviceId, identifier, value, ts: m.ts });
            }
        }
        if (latest.size) {
            await tx
                .insert(deviceProperties)
                .values([...latest.values()])
                .onConflictDoUpdate({
                    target: [deviceProperties.deviceId, deviceProperties.identifier],
                    set: { value: sql`excluded.value`, ts: sql`excluded.ts` },
                    setWhere: sql`${deviceProperties.ts} <= excluded.ts`,
                });
            await tx
                .insert(propertyRecords)
                .values([...history.values()])
                .onConflictDoUpdate({
                    target: [propertyRecords.deviceId, propertyRecords.identifier, propertyRecords.ts],
                    set: { value: sql`excluded.value` },
                });
        }
        await tx.insert(deviceMessages).values(
            batch.map((m) => ({
                deviceId: m.deviceId,
                ts: m.ts,
                method: m.method,
                identifier: m.identifier,
                data: (m.data ?? {}) as Record<string, unknown>,
            })),
        );
    }

    async function flush(): Promise<void> {
        timer = undefined;
        const batch = queue.splice(0, MAX_BATCH);
        if (!batch.length) return;
        try {
            await db.transaction((tx) => writeBatch(tx, batch));
            written += batch.length;
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
        /** Resolves once the message is committed. */
        write(message: MessageWrite): Promise<void> {
            return new Promise((resolve, reject) => {
                queue.push({ ...message, done: (err) => (err ? reject(err) : resolve()) });
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
