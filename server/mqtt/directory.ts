import { eq } from 'drizzle-orm';
import type { Db } from '../db/client';
import { devices, products } from '../db/schema';
import { byName, createLookupQueue, deviceColumns, toEntry, type Found } from './deviceLookup';
import { createSignInCache, forget, signedInBefore } from './signInCache';
import { loadModel, loadedModel, model, type ModelCache } from './thingModels';
import type { DeviceEntry, ThingModelIndex } from './deviceTypes';

export type { DeviceEntry, ThingFunction, ThingModelIndex } from './deviceTypes';

/**
 * What the broker and the rule engine ask about devices: sign-in lookups batched into few statements
 * (deviceLookup.ts), the devices signed in lately (signInCache.ts), thing models kept a few seconds (thingModels.ts).
 */
export function createDirectory(db: Db) {
    const signIns = createSignInCache();
    const lookups = createLookupQueue(db, signIns);
    const models: ModelCache = new Map();
    const load = (productId: number) => loadModel(db, productId);
    return {
        /** The device named by productKey and deviceName, or `{ unknownProduct }` (true when the product is unknown too). */
        byName: (productKey: string, deviceName: string): Promise<Found> => byName(lookups, productKey, deviceName),
        /**
         * The enabled device of that name as a sign-in lookup found it within the last minutes (a copy), else undefined
         * (then ask byName, which keeps what it finds).
         */
        signedInBefore: (productKey: string, deviceName: string): DeviceEntry | undefined =>
            signedInBefore(signIns, productKey, deviceName),
        /** Forgets these devices' sign-in entries (disabled, deleted or renamed): their next sign-in asks the database. */
        forget: (deviceIds: Iterable<number>) => forget(signIns, deviceIds),
        async byId(deviceId: number): Promise<DeviceEntry | undefined> {
            const [row] = await db
                .select(deviceColumns)
                .from(devices)
                .innerJoin(products, eq(products.id, devices.productId))
                .where(eq(devices.id, deviceId));
            return row ? toEntry(row) : undefined;
        },
        /** The product's thing model, at most a few seconds old. */
        model: (productId: number): Promise<ThingModelIndex> => model(models, load, productId),
        /**
         * The same model when it is loaded and fresh, else undefined (then call model()): the message path checks a
         * post against it without waiting for a promise each time.
         */
        loadedModel: (productId: number): ThingModelIndex | undefined => loadedModel(models, productId),
    };
}

export type Directory = ReturnType<typeof createDirectory>;
