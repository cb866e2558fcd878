/**
 * The platform for `npm run bench -- connMemory`, in a process of its own (bundled as `npm start` bundles the server,
 * run with --expose-gc): PGlite in a data directory of its own, the demo seed plus DEVICES lamps, the whole app (routes,
 * the rule engine, the OTA service and its scheduler) on a free HTTP port and the broker on a free MQTT port. Prints one
 * JSON line `{ mqttPort, dataDir, devices }`, then answers on stdin:
 * - `stats` → `{ rss, heapUsed, external, arrayBuffers, held }` (held: what the broker holds, brokerHeld.ts)
 * - `gc` → the same after two full garbage collections
 * - `profile` → `{}`: starts V8's sampling heap profiler (a sample every 512 bytes allocated)
 * - `profiled FILE` → `{ file }`: after a full collection, the samples of what is still alive written to FILE (a
 *   .heapprofile, Chrome DevTools' format) and the profiler stopped. (A heap snapshot, v8.writeHeapSnapshot, took
 *   more than ten minutes with a thousand devices connected on this machine, and did not finish.)
 */
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { createAdaptorServer } from '@hono/node-server';
import { createApp } from '../../../server/app';
import { loadConfig } from '../../../server/config';
import { openDatabase } from '../../../server/db/client';
import { createAccessHub } from '../../../server/mqtt/access';
import { createBroker } from '../../../server/mqtt/broker';
import { createOtaService } from '../../../server/ota/service';
import { createRuleEngine } from '../../../server/rules/engine';
import { ensureAdmin } from '../../../server/sso/users';
import { answerCommands, seedBenchLamps } from '../harness';
import { brokerHeld } from './brokerHeld';

const count = Number(process.env.DEVICES ?? 10_000);
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'bench-conn-memory-'));
const handle = await openDatabase({ pgliteDir: path.join(dataDir, 'pgdata') });
await ensureAdmin(handle.db, 'bench_password');
const { devices } = await seedBenchLamps(handle.db, count);

const config = loadConfig({ DATA_DIR: dataDir, PORT: '0' });
const access = createAccessHub();
const rules = createRuleEngine({ db: handle.db, access, timeZone: config.timeZone });
await rules.attach();
const ota = createOtaService({ db: handle.db, access, config });
const app = createApp({ db: handle.db, config, access, rules, ota });
const http = createAdaptorServer({ fetch: app.fetch });
await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
const broker = await createBroker({ db: handle.db, log: () => undefined, connectTimeoutMs: 120_000 });
access.attach(broker);
const mqttPort = await broker.listen(0, '127.0.0.1');

const collect = () => {
    const gc = (globalThis as { gc?: () => void }).gc;
    gc?.();
    gc?.();
    return Boolean(gc);
};
const stats = (collected?: boolean) => {
    const m = process.memoryUsage();
    return {
        rss: m.rss,
        heapUsed: m.heapUsed,
        external: m.external,
        arrayBuffers: m.arrayBuffers,
        collected,
        held: brokerHeld(broker.aedes),
    };
};

const inspector = new Session();
process.stdout.write(JSON.stringify({ mqttPort, dataDir, devices }) + '\n');
answerCommands({
    stats: () => stats(),
    gc: () => stats(collect()),
    profile: async () => {
        inspector.connect();
        await inspector.post('HeapProfiler.startSampling', { samplingInterval: 512 });
        return {};
    },
    profiled: async (file) => {
        collect();
        const { profile } = await inspector.post('HeapProfiler.stopSampling');
        inspector.disconnect();
        writeFileSync(file, JSON.stringify(profile));
        return { file };
    },
});
