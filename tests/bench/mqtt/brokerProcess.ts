/**
 * The platform's broker in a process of its own for `npm run bench -- mqtt`: an in-memory PGlite (or DATABASE_URL)
 * with the demo seed, DEVICES devices of the demo lamp product, the broker on a free port. Prints one JSON line
 * `{ port, devices: [[productKey, deviceName, secret], ...] }`, then answers `stats` on stdin with
 * `{ written, batches, cpu, rss, connected }` (cpu: µs of CPU this process used so far), `mem` with
 * process.memoryUsage() after a full collection (with --expose-gc) and `heap FILE` with a heap snapshot.
 * With REDIS_URL it is one process of a multi-process platform (docs/deployment.md); BENCH_SEED=0 for the others.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Session } from 'node:inspector/promises';
import { createInterface } from 'node:readline';
import v8 from 'node:v8';
import { eq } from 'drizzle-orm';
import { openDatabase } from '../../../server/db/client';
import { devices, products } from '../../../server/db/schema';
import { insertDevices } from '../../../server/domain/deviceWrite';
import { createBroker } from '../../../server/mqtt/broker';
import { seedDatabase } from '../../../server/seed';

const count = Number(process.env.DEVICES ?? 1000);
// PGlite on a data directory of its own, as `npm start` runs it (BENCH_PGLITE=memory: in memory instead).
// The bench removes the directory (named in the ready line) once it has stopped this process.
const dataDir =
    process.env.DATABASE_URL || process.env.BENCH_PGLITE === 'memory'
        ? undefined
        : mkdtempSync(path.join(os.tmpdir(), 'bench-pglite-'));
const handle = await openDatabase(
    process.env.DATABASE_URL
        ? { databaseUrl: process.env.DATABASE_URL, pgSchema: process.env.BENCH_PG_SCHEMA }
        : { pgliteDir: dataDir },
);
// BENCH_SEED=0: another process of the same platform (REDIS_URL, the same DATABASE_URL schema), which the first seeded.
const seed = process.env.BENCH_SEED !== '0';
let benchDevices: Array<[string, string, string]> = [];
if (seed) {
    await seedDatabase(handle.db, { demo: true });
    const [lamp] = await handle.db.select().from(products).where(eq(products.productName, '智能路灯_L1'));
    const names = Array.from({ length: count }, (_, i) => ({ deviceName: `bench${String(i).padStart(6, '0')}` }));
    await handle.db.transaction((tx) => insertDevices(tx, lamp, names));
    const rows = await handle.db
        .select({ deviceName: devices.deviceName, secret: devices.secret })
        .from(devices)
        .where(eq(devices.productId, lamp.id));
    benchDevices = rows
        .filter((r) => r.deviceName.startsWith('bench'))
        .map((r): [string, string, string] => [lamp.productKey, r.deviceName, r.secret]);
}
const broker = await createBroker({ db: handle.db, redisUrl: process.env.REDIS_URL, log: () => undefined });
const port = await broker.listen(0, '0.0.0.0');
process.stdout.write(JSON.stringify({ port, dataDir, devices: benchDevices }) + '\n');
let profiler: Session | undefined;
const cpuMicros = () => (({ user, system }) => user + system)(process.cpuUsage());
createInterface({ input: process.stdin }).on('line', (line) => {
    // `profile-start`, `profile-stop FILE`: a CPU profile of the broker's main thread over a chosen window.
    if (line.trim() === 'profile-start') {
        profiler = new Session();
        profiler.connect();
        void profiler
            .post('Profiler.enable')
            .then(() => profiler!.post('Profiler.start'))
            .then(() => process.stdout.write('{}\n'));
    }
    if (line.startsWith('profile-stop ') && profiler) {
        void profiler.post('Profiler.stop').then(({ profile }) => {
            writeFileSync(line.slice('profile-stop '.length).trim(), JSON.stringify(profile));
            profiler!.disconnect();
            process.stdout.write('{}\n');
        });
    }
    if (line.trim() === 'stats') {
        process.stdout.write(
            JSON.stringify({
                written: broker.writer.written,
                batches: broker.writer.batches,
                cpu: cpuMicros(),
                rss: process.memoryUsage().rss,
                connected: broker.connected,
            }) + '\n',
        );
    }
    // `mem`: after a full collection when the process runs with --expose-gc: where the memory is (bytes).
    if (line.trim() === 'mem') {
        (globalThis as { gc?: () => void }).gc?.();
        const m = process.memoryUsage();
        process.stdout.write(JSON.stringify({ ...m, connected: broker.connected, cpu: cpuMicros() }) + '\n');
    }
    // `heap FILE`: a heap snapshot (open it in Chrome's DevTools, Memory tab).
    if (line.startsWith('heap ')) {
        const file = v8.writeHeapSnapshot(line.slice('heap '.length).trim());
        process.stdout.write(JSON.stringify({ file }) + '\n');
    }
    if (line.trim() === 'quit')
        void broker
            .close()
            .then(() => handle.close())
            .then(() => process.exit(0));
});
