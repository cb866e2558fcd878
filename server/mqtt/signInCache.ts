import type { DeviceEntry } from './deviceTypes';

/**
 * Enabled devices found by a sign-in lookup are kept this long, so a reconnect storm after an outage signs its devices
 * in without the database. Disabling, deleting or renaming a device forgets it at once (the broker's disconnect, in
 * every process of a cluster); the age bounds what nothing forgets (a product's node or data type), as long as a
 * connected device keeps the entry it signed in with.
 */
export const SIGN_IN_TTL_MS = 5 * 60_000;
/** At most this many kept (the oldest go first): ~0.3 KB each. */
export const SIGN_IN_MAX = 200_000;

/** Enabled devices by `{productKey}\u0000{deviceName}`, in the order found; the key of each device id. */
export interface SignInCache {
    entries: Map<string, { entry: DeviceEntry; at: number }>;
    keys: Map<number, string>;
    /** Moved on by every forget: a lookup that began before one does not keep what it found. */
    generation: number;
    max: number;
    ttlMs: number;
}

export function createSignInCache(max = SIGN_IN_MAX, ttlMs = SIGN_IN_TTL_MS): SignInCache {
    return { entries: new Map(), keys: new Map(), generation: 0, max, ttlMs };
}

export const nameKey = (productKey: string, deviceName: string) => `${productKey}\u0000${deviceName}`;

/** Keeps what a lookup found (under its name; a renamed device's older name goes); the oldest goes past `max`. */
export function keep(cache: SignInCache, key: string, entry: DeviceEntry, at: number) {
    const older = cache.keys.get(entry.deviceId);
    if (older !== undefined && older !== key) cache.entries.delete(older);
    cache.entries.delete(key);
    cache.entries.set(key, { entry, at });
    cache.keys.set(entry.deviceId, key);
    if (cache.entries.size > cache.max) {
        const [oldest, { entry: gone }] = cache.entries.entries().next().value!;
        cache.entries.delete(oldest);
        cache.keys.delete(gone.deviceId);
    }
}

/** The enabled device of that name as a lookup found it within the TTL (a copy), else undefined. */
export function signedInBefore(
    cache: SignInCache,
    productKey: string,
    deviceName: string,
    now = performance.now(),
): DeviceEntry | undefined {
    const key = nameKey(productKey, deviceName);
    const hit = cache.entries.get(key);
    if (!hit) return undefined;
    if (now - hit.at < cache.ttlMs) return { ...hit.entry };
    cache.entries.delete(key);
    cache.keys.delete(hit.entry.deviceId);
    return undefined;
}

/** Forgets these devices (disabled, deleted or renamed): their next sign-in asks the database. */
export function forget(cache: SignInCache, deviceIds: Iterable<number>) {
    cache.generation++;
    for (const id of deviceIds) {
        const key = cache.keys.get(id);
        if (key === undefined) continue;
        cache.keys.delete(id);
        cache.entries.delete(key);
    }
}
