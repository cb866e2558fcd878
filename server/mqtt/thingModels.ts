import { eq } from 'drizzle-orm';
import type { Db } from '../db/client';
import { thingFunctions } from '../db/schema';
import type { ThingFunction, ThingModelIndex } from './deviceTypes';
import type { TslDataType } from './thingValues';

/** Thing models change rarely and every message needs one: kept for a few seconds per product. */
export const MODEL_TTL_MS = 3_000;

interface Cached {
    at: number;
    model: Promise<ThingModelIndex>;
    value?: ThingModelIndex;
}

/** Thing models by product id, each with the time it was loaded. */
export type ModelCache = Map<number, Cached>;

/** The product's thing functions, by kind and identifier. */
export async function loadModel(db: Db, productId: number): Promise<ThingModelIndex> {
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
        const bucket = fn.type === 'property' ? index.properties : fn.type === 'event' ? index.events : index.services;
        bucket.set(fn.identifier, fn);
    }
    return index;
}

/** The product's thing model, at most MODEL_TTL_MS old (a failed load is not kept). */
export function model(
    cache: ModelCache,
    load: (productId: number) => Promise<ThingModelIndex>,
    productId: number,
): Promise<ThingModelIndex> {
    const hit = cache.get(productId);
    if (hit && performance.now() - hit.at < MODEL_TTL_MS) return hit.model;
    const entry: Cached = { at: performance.now(), model: load(productId) };
    cache.set(productId, entry);
    entry.model.then(
        (value) => void (entry.value = value),
        () => cache.delete(productId),
    );
    return entry.model;
}

/** The same model when it is loaded and fresh, else undefined (then call model()). */
export function loadedModel(cache: ModelCache, productId: number): ThingModelIndex | undefined {
    const hit = cache.get(productId);
    return hit && performance.now() - hit.at < MODEL_TTL_MS ? hit.value : undefined;
}
