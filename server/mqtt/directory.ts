import { and, eq, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { rowsOf } from '../db/rows';
import { devices, products, thingFunctions } from '../db/schema';
import type { TslDataType } from './thingValues';

/** What the broker knows of a device: who it is, its secret, whether it may connect, what it reports. */
export interface DeviceEntry {
    deviceId: number;
    productId: number;
    productKey: string;
    deviceName: string;
    secret: string;
    enabled: boolean;
    /** 1: gateway. */
    nodeType: number;
    /** Products of data type 1 pass raw payloads through (no Alink validation). */
    passthrough: boolean;
    gwId: number | null;
    /** As stored when looked up: another server process may hold the device's connection (ONLINE there). */
    status: string;
}

export interface ThingFunction {
    type: 'property' | 'event' | 'service';
    identifier: string;
    dataType: TslDataType | null;
    accessMode: string | null;
    inputData: Array<{ identifier: string; dataType: TslDataType }>;
    outputData: Array<{ identifier: string; dataType: TslDataType }>;
    callType: string | null;
}

export interface ThingModelIndex {
    properties: Map<string, ThingFunction>;
    events: Map<string, ThingFunction>;
    services: Map<string, ThingFunction>;
}

/** Thing models change rarely and every message needs one: kept for a few seconds per product. */
const MODEL_TTL_MS = 3_000;
/** Sign-in lookups answered by one statement at most. */
const MAX_LOOKUP = 1_000;
/**
 * Enabled devices found by a sign-in lookup are kept this long, so a reconnect storm after an outage signs its devices
 * in without the database. Disabling, deleting or renaming a device forgets it at once (the broker's disconnect, in
 * every process of a cluster); the age bounds what nothing forgets (a product's node or data type), as long as a
 * connected device keeps the entry it signed in with.
 */
const SIGN_IN_TTL_MS = 5 * 60_000;
/** At most this many kept (the oldest go first): ~0.3 KB each. */
const SIGN_IN_MAX = 200_000;

type Found = DeviceEntry | { unknownProduct: boolean };
interface Lookup {
    productKey: string;
    deviceName: string;
    waiters: Array<{ resolve: (found: Found) => void; reject: (err: unknown) => void }>;
}

export function createDirectory(db: Db) {
    const models = new Map<number, { at: number; model: Promise<ThingModelIndex>; value?: ThingModelIndex }>();

    const select = {
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
    const toEntry = (r: {
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
    }): DeviceEntry => ({
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
    });

    /** Enabled devices by `{productKey}\u0000{deviceName}`, in the order found; the key of each device id. */
    const signIns = new Map<string, { entry: DeviceEntry; at: number }>();
    const signInKeys = new Map<number, string>();
    /** Moved on by every forget: a lookup that began before one does not keep what it found. */
    let generation = 0;
    function keep(key: string, entry: DeviceEntry, at: number) {
        const older = signInKeys.get(entry.deviceId);
        if (older !== undefined && older !== key) signIns.delete(older);
        signIns.delete(key);
        signIns.set(key, { entry, at });
        signInKeys.set(entry.deviceId, key);
        if (signIns.size > SIGN_IN_MAX) {
            const [oldest, { entry: gone }] = signIns.entries().next().value!;
            signIns.delete(oldest);
            signInKeys.delete(gone.deviceId);
        }
    }

    const queued = new Map<string, Lookup>();
    let lookingUp = false;
    let lookupScheduled = false;

    function scheduleLookup() {
        if (lookingUp || lookupScheduled) return;
        lookupScheduled = true;
        setImmediate(() => {
            lookupScheduled = false;
            void lookUp();
        });
    }

    // One device: a plain indexed join (cheaper than the JSON path for a lone sign-in).
    const one = (l: Lookup) =>
        db
            .select(select)
            .from(devices)
            .innerJoin(products, eq(products.id, devices.productId))
            .where(and(eq(products.productKey, l.productKey), eq(devices.deviceName, l.deviceName)));

    async function many(batch: Lookup[]) {
        const wanted = JSON.stringify(batch.map((l) => ({ k: l.productKey, n: l.deviceName })));
        return rowsOf<Parameters<typeof toEntry>[0]>(
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

    async function lookUp() {
        const batch: Lookup[] = [];
        for (const [key, lookup] of queued) {
            if (batch.length === MAX_LOOKUP) break;
            batch.push(lookup);
            queued.delete(key);
        }
        if (!batch.length) return;
        lookingUp = true;
        const began = generation;
        try {
            const rows = batch.length === 1 ? await one(batch[0]) : await many(batch);
            const found = new Map(rows.map((r) => [`${r.productKey}\u0000${r.deviceName}`, toEntry(r)]));
            const missing = batch.filter((l) => !found.has(`${l.productKey}\u0000${l.deviceName}`));
            // Which of the missing devices' products exist (rare: a device that is not there).
            const knownProducts = new Set<string>();
            if (missing.length) {
                const keys = JSON.stringify([...new Set(missing.map((l) => l.productKey))]);
                const known = await db.execute(sql`
                    SELECT product_key AS "productKey" FROM products
                    WHERE product_key IN (SELECT json_array_elements_text(${keys}::json))`);
                for (const r of rowsOf<{ productKey: string }>(known)) knownProducts.add(r.productKey);
            }
            const now = performance.now();
            for (const l of batch) {
                const key = `${l.productKey}\u0000${l.deviceName}`;
                const entry = found.get(key);
                if (entry?.enabled && began === generation) keep(key, entry, now);
                // Each waiter its own copy: the broker keeps the entry per connection.
                for (const w of l.waiters)
                    w.resolve(entry ? { ...entry } : { unknownProduct: !knownProducts.has(l.productKey) });
            }
        } catch (err) {
            for (const l of batch) for (const w of l.waiters) w.reject(err);
        } finally {
            lookingUp = false;
            if (queued.size) scheduleLookup();
        }
    }

    async function loadModel(productId: number): Promise<ThingModelIndex> {
        const rows = await db
            .select({
                type: thingFunctions.type,
                identifier: thingFunctions.identifier,
                dataType: thingFunctions.dataType,
                accessMode: thingFunctions.accessMode,
                inputData: thingFunctions.inputData,
                outputData: thingFunctions.outputData,
                callType: thingFunctions.callType,
            })
            .from(thingFunctions)
            .where(eq(thingFunctions.productId, productId));
        const index: ThingModelIndex = { properties: new Map(), events: new Map(), services: new Map() };
        for (const r of rows) {
            const fn: ThingFunction = {
                type: r.type as ThingFunction['type'],
                identifier: r.identifier,
                dataType: (r.dataType as TslDataType | null) ?? null,
                accessMode: r.accessMode,
                inputData: Array.isArray(r.inputData) ? (r.inputData as ThingFunction['inputData']) : [],
                outputData: Array.isArray(r.outputData) ? (r.outputData as ThingFunction['outputData']) : [],
                callType: r.callType,
            };
            const bucket =
                fn.type === 'property' ? index.properties : fn.type === 'event' ? index.events : index.services;
            bucket.set(fn.identifier, fn);
        }
        return index;
    }

    return {
        /**
         * The device named by productKey and deviceName, or `{ unknownProduct }` (true when the product is unknown too).
         * Lookups asked for meanwhile are answered together by one statement (a reconnect storm is a few statements per
         * thousand devices, not one round trip each): one runs at a time, the next takes all that queued behind it.
         */
        byName(productKey: string, deviceName: string): Promise<Found> {
            return new Promise((resolve, reject) => {
                const key = `${productKey}\u0000${deviceName}`;
                let lookup = queued.get(key);
                if (!lookup) queued.set(key, (lookup = { productKey, deviceName, waiters: [] }));
                lookup.waiters.push({ resolve, reject });
                scheduleLookup();
            });
        },

        /**
         * The enabled device of that name as a sign-in lookup found it within the last minutes (a copy), else undefined
         * (then ask byName, which keeps what it finds).
         */
        signedInBefore(productKey: string, deviceName: string): DeviceEntry | undefined {
            const key = `${productKey}\u0000${deviceName}`;
            const hit = signIns.get(key);
            if (!hit) return undefined;
            if (performance.now() - hit.at < SIGN_IN_TTL_MS) return { ...hit.entry };
            signIns.delete(key);
            signInKeys.delete(hit.entry.deviceId);
            return undefined;
        },

        /** Forgets these devices' sign-in entries (disabled, deleted or renamed): their next sign-in asks the database. */
        forget(deviceIds: Iterable<number>) {
            generation++;
            for (const id of deviceIds) {
                const key = signInKeys.get(id);
                if (key === undefined) continue;
                signInKeys.delete(id);
                signIns.delete(key);
            }
        },

        async byId(deviceId: number): Promise<DeviceEntry | undefined> {
            const [row] = await db
                .select(select)
                .from(devices)
                .innerJoin(products, eq(products.id, devices.productId))
                .where(eq(devices.id, deviceId));
            return row ? toEntry(row) : undefined;
        },

        /** The product's thing model, at most a few seconds old. */
        model(productId: number): Promise<ThingModelIndex> {
            const hit = models.get(productId);
            if (hit && performance.now() - hit.at < MODEL_TTL_MS) return hit.model;
            const entry: { at: number; model: Promise<ThingModelIndex>; value?: ThingModelIndex } = {
                at: performance.now(),
                model: loadModel(productId),
            };
            models.set(productId, entry);
            entry.model.then(
                (value) => void (entry.value = value),
                () => models.delete(productId),
            );
            return entry.model;
        },

        /**
         * The same model when it is loaded and fresh, else undefined (then call model()): the message path checks a
         * post against it without waiting for a promise each time.
         */
        loadedModel(productId: number): ThingModelIndex | undefined {
            const hit = models.get(productId);
            return hit && performance.now() - hit.at < MODEL_TTL_MS ? hit.value : undefined;
        },
    };
}

export type Directory = ReturnType<typeof createDirectory>;
