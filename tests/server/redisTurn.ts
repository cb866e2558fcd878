import { connect as netConnect } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import lockfile from 'proper-lockfile';
import { afterAll, beforeAll } from 'vitest';

/**
 * The test files whose clusters share the machine's Redis take turns, across vitest's workers and across the CI's
 * two passes (the same lock file). Each file has a database number of its own, but Redis's publish/subscribe channels
 * belong to the whole server, not to a database: two clusters at once hear each other's close messages (same device
 * ids, same client ids in their seeded data) and close each other's devices (seen: /monitor/real counting 2 of 5).
 * Call inside the file's describe, before its own beforeAll: the turn is taken first and given back last.
 */
export function takeTurnOnRedis(): void {
    let release: (() => Promise<void>) | undefined;
    beforeAll(async () => {
        release = await lockfile.lock(path.join(os.tmpdir(), 'iot-platform-tests-redis'), {
            realpath: false,
            // Held while the file runs (the lock is refreshed); a crashed holder's lock is stale after 30 s.
            stale: 30_000,
            update: 5_000,
            retries: { retries: 2_400, factor: 1, minTimeout: 250, maxTimeout: 250 },
        });
    }, 11 * 60_000);
    afterAll(async () => {
        await release?.();
    });
}

/** The Redis the cluster tests share (CLUSTER_REDIS_URL; database 7 of the local one by default). */
export const REDIS_URL = process.env.CLUSTER_REDIS_URL || 'redis://127.0.0.1:6379/7';

/** Whether REDIS_URL answers a TCP connect; when it does not and a run requires it (E2E_REQUIRED), throws. */
export async function clusterRedisReachable(): Promise<boolean> {
    const u = new URL(REDIS_URL);
    const reachable = await new Promise<boolean>((resolve) => {
        const socket = netConnect(Number(u.port || 6379), u.hostname, () => (socket.end(), resolve(true)));
        socket.once('error', () => resolve(false));
    });
    if (!reachable && process.env.E2E_REQUIRED) throw new Error(`Redis (${REDIS_URL}) is not reachable`);
    return reachable;
}
