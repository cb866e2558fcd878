import { and, eq, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { rowsOf } from '../db/rows';
import { devices, products } from '../db/schema';
import type { DeviceEntry } from './deviceTypes';
import { keep, nameKey, type SignInCache } from './signInCache';

/** Sign-in lookups answered by one statement at most. */
export const MAX_LOOKUP = 1_000;

export type Found = DeviceEntry | { unknownProduct: boolean };

interface Lookup {
    productKey: string;
    deviceName: string;
    waiters: Array<{ resolve: (found: Found) => void; reject: (err: unknown) => void }>;
}

/** Sign-in lookups waiting for the next statement, and whether one runs or is scheduled. */
export interface LookupQueue {
    db: Db;
    signIns: SignInCache;
    queued: Map<string, Lookup>;
    running: boolean;
    scheduled: boolean;
}

export function createLookupQueue(db: Db, signIns: SignInCache): LookupQueue {
    return { db, signIns, queued: new Map(), running: false, scheduled: false };
}

export const deviceColumns = {
    deviceId: devices.id,
    productId: devices.productId,
    productKey: products.productKey,
    deviceName: devices.deviceName,
    secret: devices.secret,
    enabled: devices.enabled,
    nodeType: products.nodeType,
    dataType: products.dataType,
    gwId: devices.gwId,
    status: devices.status,
};

export interface DeviceRow {
    deviceId: number;
    productId: number;
    productKey: string;
    deviceName: string;
    secret: string;
    enabled: boolean;
    nodeType: number;
    dataType: number;
    gwId: number | null;
    status: string;
}

export function toEntry(r: DeviceRow): DeviceEntry {
    return {
        deviceId: Number(r.deviceId),
        productId: r.productId,
        productKey: r.productKey,
        deviceName: r.deviceName,
        secret: r.secret,
        enabled: r.enabled,
        nodeType: r.nodeType,
        passthrough: r.dataType === 1,
        gwId: r.gwId === null ? null : Number(r.gwId),
        status: r.status,
    };
}

/**
 * The device named by productKey and deviceName, or `{ unknownProduct }`. Lookups asked for meanwhile are answered
 * together by one statement (a reconnect storm is a few statements per thousand devices, not one round trip each):
 * one runs at a time, the next takes all that queued behind it.
 */
export function byName(q: LookupQueue, productKey: string, deviceName: string): Promise<Found> {
    return new Promise((resolve, reject) => {
        const key = nameKey(productKey, deviceName);
        let lookup = q.queued.get(key);
        if (!lookup) q.queued.set(key, (lookup = { productKey, deviceName, waiters: [] }));
        lookup.waiters.push({ resolve, reject });
        scheduleLookup(q);
    });
}

function scheduleLookup(q: LookupQueue) {
    if (q.running || q.scheduled) return;
    q.scheduled = true;
    setImmediate(() => {
        q.scheduled = false;
        void lookUp(q);
    });
}

/** One device: a plain indexed join (cheaper than the JSON path for a lone sign-in). */
function selectOne(db: Db, l: Lookup): Promise<DeviceRow[]> {
    return db
        .select(deviceColumns)
        .from(devices)
        .innerJoin(products, eq(products.id, devices.productId))
        .where(and(eq(products.productKey, l.productKey), eq(devices.deviceName, l.deviceName)));
}

async function selectMany(db: Db, batch: Lookup[]): Promise<DeviceRow[]> {
    const wanted = JSON.stringify(batch.map((l) => ({ k: l.productKey, n: l.deviceName })));
    return rowsOf<DeviceRow>(
        await db.execute(sql`
            SELECT d.id AS "deviceId", d.product_id AS "productId", p.product_key AS "productKey",
                d.device_name AS "deviceName", d.secret, d.enabled, p.node_type AS "nodeType",
                p.data_type AS "dataType", d.gw_id AS "gwId", d.status
            FROM json_to_recordset(${wanted}::json) AS x(k text, n text)
            JOIN products p ON p.product_key = x.k
            -- one index probe per name (a plain join may scan the table when the planner guesses many names)
            CROSS JOIN LATERAL (
                SELECT id, product_id, device_name, secret, enabled, gw_id, status FROM devices
                WHERE product_id = p.id AND device_name = x.n LIMIT 1
            ) d`),
    );
}

/** Which of these product keys exist (for the rare lookup of a device that is not there). */
async function knownProducts(db: Db, missing: Lookup[]): Promise<Set<string>> {
    const known = new Set<string>();
    if (!missing.length) return known;
    const keys = JSON.stringify([...new Set(missing.map((l) => l.productKey))]);
    const rows = await db.execute(sql`
        SELECT product_key AS "productKey" FROM products
        WHERE product_key IN (SELECT json_array_elements_text(${keys}::json))`);
    for (const r of rowsOf<{ productKey: string }>(rows)) known.add(r.productKey);
    return known;
}

/** Takes up to MAX_LOOKUP queued lookups and answers them with one statement (two when a device is missing). */
export async function lookUp(q: LookupQueue) {
    const batch: Lookup[] = [];
    for (const [key, lookup] of q.queued) {
        if (batch.length === MAX_LOOKUP) break;
        batch.push(lookup);
        q.queued.delete(key);
    }
    if (!batch.length) return;
    q.running = true;
    const began = q.signIns.generation;
    try {
        const rows = batch.length === 1 ? await selectOne(q.db, batch[0]) : await selectMany(q.db, batch);
        const found = new Map(rows.map((r) => [nameKey(r.productKey, r.deviceName), toEntry(r)]));
        const known = await knownProducts(
            q.db,
            batch.filter((l) => !found.has(nameKey(l.productKey, l.deviceName))),
        );
        const now = performance.now();
        for (const l of batch) {
            const key = nameKey(l.productKey, l.deviceName);
            const entry = found.get(key);
            if (entry?.enabled && began === q.signIns.generation) keep(q.signIns, key, entry, now);
            // Each waiter its own copy: the broker keeps the entry per connection.
            for (const w of l.waiters) w.resolve(entry ? { ...entry } : { unknownProduct: !known.has(l.productKey) });
        }
    } catch (err) {
        for (const l of batch) for (const w of l.waiters) w.reject(err);
    } finally {
        q.running = false;
        if (q.queued.size) scheduleLookup(q);
    }
}
