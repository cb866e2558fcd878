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
