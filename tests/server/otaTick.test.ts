import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { loadConfig } from '../../server/config';
import { otaBatches } from '../../server/db/schema';
import { createAccessHub, type DeviceAccessBackend } from '../../server/mqtt/access';
import { createOtaService } from '../../server/ota/service';
import { createTestServer, type TestServer } from '../../server/testing';

/**
 * The OTA scheduler's on-demand run (`ota.tick()`), as the API, a device coming online and the tests ask for it: a call
 * made while a run is under way is answered by a run that starts after the call, so what the caller changed before
 * asking (a batch made, a lock released) is seen by the run it waits for.
 */

let s: TestServer;

beforeAll(async () => {
    s = await createTestServer({ seed: false });
});

afterAll(async () => {
    vi.restoreAllMocks();
    await s?.close();
});

it('a tick asked for during a run waits for a run that starts after it, one for all such calls', async () => {
    const access = createAccessHub();
    access.attach({
        isOnline: () => true,
        publishTo: () => Promise.resolve(true),
        traffic: { subscribe: () => () => undefined },
    } as unknown as DeviceAccessBackend);
    const ota = createOtaService({ db: s.db, access, config: { ...loadConfig({}), port: 0 }, tickMs: 3_600_000 });
    // Each run reads the running batches once: counted, and the first read held until released.
    let runs = 0;
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const select = s.db.select.bind(s.db);
    vi.spyOn(s.db, 'select').mockImplementation(((...args: Parameters<typeof select>) => {
        const query = select(...args);
        return {
            from: (table: typeof otaBatches) => {
                if (table !== otaBatches) return query.from(table);
                runs++;
                const read = query.from(table);
                const where = read.where.bind(read) as (...w: unknown[]) => unknown;
                return runs === 1 ? { where: async (...w: unknown[]) => (await held, where(...w)) } : read;
            },
        };
    }) as unknown as typeof s.db.select);
    try {
        const first = ota.tick();
        await vi.waitFor(() => expect(runs).toBe(1));
        const during = [ota.tick(), ota.tick()];
        release();
        await first;
        await Promise.all(during);
        // The first run, then one more for the two calls made during it: both answered when it ended.
        expect(runs).toBe(2);
        await ota.tick();
        expect(runs).toBe(3);
    } finally {
        release();
        await ota.close();
    }
});
