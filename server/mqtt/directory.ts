import { and, eq } from 'drizzle-orm';
import type { Db } from '../db/client';
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
        /** The device named by productKey and deviceName, or undefined (with `product: false` when the product is unknown too). */
        async byName(productKey: string, deviceName: string): Promise<DeviceEntry | { unknownProduct: boolean }> {
            const [row] = await db
                .select(select)
                .from(devices)
                .innerJoin(products, eq(products.id, devices.productId))
                .where(and(eq(products.productKey, productKey), eq(devices.deviceName, deviceName)));
            if (row) return toEntry(row);
            const [product] = await db
                .select({ id: products.id })
                .from(products)
                .where(eq(products.productKey, productKey));
            return { unknownProduct: !product };
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
