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
import v8 from 'node:v8';
import { openDatabase } from '../../../server/db/client';
import { createBroker } from '../../../server/mqtt/broker';
import { loadTls } from '../../../server/tls/certificates';
import { answerCommands, seedBenchLamps, type BenchDevice } from '../harness';
import { threadCpuMs } from '../procStat';

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
const benchDevices: BenchDevice[] =
    process.env.BENCH_SEED !== '0' ? (await seedBenchLamps(handle.db, count)).devices : [];
const broker = await createBroker({
    db: handle.db,
    redisUrl: process.env.REDIS_URL,
    log: () => undefined,
    // The TLS rows connect 1,000 devices at once on a shared machine: handshakes queue longer than the 10 s a device
    // gets in production to sign in.
    connectTimeoutMs: process.env.BENCH_TLS === '1' ? 60_000 : undefined,
});
const port = await broker.listen(0, '0.0.0.0');
// BENCH_TLS=1: MQTTS beside it, with the CA the platform's first start makes (server/tls), for the TLS rows.
const tls =
    process.env.BENCH_TLS === '1'
        ? await loadTls({
              dataDir: mkdtempSync(path.join(os.tmpdir(), 'bench-tls-')),
              certFile: undefined,
              keyFile: undefined,
          })
        : undefined;
const tlsPort = tls ? await broker.listenTls(0, '0.0.0.0', { key: tls.key, cert: tls.cert }) : undefined;
process.stdout.write(
    JSON.stringify({
        port,
        dataDir,
        devices: benchDevices,
        tlsPort,
        caFile: tls?.caFile,
        certFile: tls?.certFile,
        keyFile: tls?.keyFile,
    }) + '\n',
);
let profiler: Session | undefined;
const cpuMicros = () => (({ user, system }) => user + system)(process.cpuUsage());
/** CPU µs of each of this process's threads by thread id: the main thread's id is the pid; PGlite's worker another. */
const threadCpu = () => Object.fromEntries([...threadCpuMs('self')].map(([tid, ms]) => [tid, ms * 1000]));
answerCommands({
    // `profile-start`, `profile-stop FILE`: a CPU profile of the broker's main thread over a chosen window.
    'profile-start': async () => {
        profiler = new Session();
        profiler.connect();
        await profiler.post('Profiler.enable');
        await profiler.post('Profiler.start');
        return {};
    },
    'profile-stop': async (file) => {
        if (!profiler) return undefined;
        const { profile } = await profiler.post('Profiler.stop');
        writeFileSync(file, JSON.stringify(profile));
        profiler.disconnect();
        return {};
    },
    stats: () => ({
        written: broker.writer.written,
        batches: broker.writer.batches,
        cpu: cpuMicros(),
        threads: threadCpu(),
        pid: process.pid,
        rss: process.memoryUsage().rss,
        connected: broker.connected,
    }),
    // `mem`: after a full collection when the process runs with --expose-gc: where the memory is (bytes).
    mem: () => {
        (globalThis as { gc?: () => void }).gc?.();
        return { ...process.memoryUsage(), connected: broker.connected, cpu: cpuMicros() };
    },
    // `heap FILE`: a heap snapshot (open it in Chrome's DevTools, Memory tab).
    heap: (file) => ({ file: v8.writeHeapSnapshot(file) }),
    quit: async () => {
        await broker.close();
        await handle.close();
        process.exit(0);
    },
});
