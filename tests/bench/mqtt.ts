import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import mqtt from 'mqtt';
import pg from 'pg';
import { compiled } from './compiled';
import type { BenchGroup, Figure } from './run';
import {
    connectRate,
    figure as tlsFigure,
    memoryPerIdle,
    mosquittoPackets,
    platformPackets,
    startMosquittoTls,
} from './mqtt/tls';

/**
 * `npm run bench -- mqtt`: the platform's broker (its own process, in-memory PGlite) beside Mosquitto 2 (Debian's
 * package, on a free port) under the same load from the same clients:
 * The platform runs twice: on PGlite in a data directory (as `npm start`: in a worker thread, PGLITE_WORKER=0 in the
 * broker's main thread), then on PostgreSQL (BENCH_DATABASE_URL, else the machine's 127.0.0.1:5432/test in a schema of
 * its own; `none` skips it), the database then in a process of its own.
 * - ingest: 1,000 devices publishing QoS 1 property posts, each waiting for its PUBACK before the next. The platform's
 *   figure is rows committed per second (PUBACK follows the write); Mosquitto's is messages relayed per second to one
 *   subscriber of every topic (QoS 0). The devices are bare sockets in a generator process of its own
 *   (mqtt/publishers.ts), whose CPU per message is printed beside (BENCH_MOSQUITTO=none: the platform only).
 * - latency: publish → PUBACK (platform: stored) at 1,000 msg/s spread over the devices, p50 and p99.
 * - connections: idle devices (keep-alive 60 s) held, connect rate and RSS, in one process up to the open-files limit
 *   and beyond it in several processes of one platform (see connections()).
 */

const ROOT = path.resolve(import.meta.dirname, '../..');
const DEVICES = 1000;
const INGEST_SECONDS = 10;
const LATENCY_SECONDS = 10;
/** Idle connections are read again after this long (one keep-alive period by default; MQTT_SETTLE_MS=0 skips it). */
const SETTLE_MS = Number(process.env.MQTT_SETTLE_MS ?? 60_000);

type Dev = [string, string, string];

function lineReader(child: ChildProcess) {
    const queue: string[] = [];
    const waiters: Array<(l: string) => void> = [];
    createInterface({ input: child.stdout! }).on('line', (l) => {
        const w = waiters.shift();
        if (w) w(l);
        else queue.push(l);
    });
    return () =>
        new Promise<string>((resolve, reject) => {
            const l = queue.shift();
            if (l !== undefined) return resolve(l);
            waiters.push(resolve);
            child.once('exit', (code) => reject(new Error(`process exited (${code})`)));
        });
}

async function startPlatform(devices: number, extraEnv: Record<string, string> = {}) {
    const { DATABASE_URL: _db, ...env } = process.env;
    // Bundled as `npm start` runs the server, not through tsx (compiled.ts).
    const child = spawn(process.execPath, [await compiled('tests/bench/mqtt/brokerProcess.ts')], {
        cwd: ROOT,
        env: { ...env, DEVICES: String(devices), ...extraEnv },
        stdio: ['pipe', 'pipe', 'inherit'],
    });
    const next = lineReader(child);
    const ready = JSON.parse(await next()) as {
        port: number;
        dataDir?: string;
        devices: Dev[];
        /** BENCH_TLS=1: MQTTS and the generated CA's files. */
        tlsPort?: number;
        caFile?: string;
        certFile?: string;
        keyFile?: string;
    };
    return {
        ...ready,
        async stats() {
            child.stdin!.write('stats\n');
            return JSON.parse(await next()) as {
                written: number;
                batches: number;
                cpu: number;
                /** CPU µs by thread id (the main thread's id is `pid`). */
                threads: Record<string, number>;
                pid: number;
                rss: number;
                connected: number;
            };
        },
        /** A CPU profile of the broker's main thread from `start()` to `stop(file)` (brokerProcess.ts). */
        async profileStart() {
            child.stdin!.write('profile-start\n');
            await next();
        },
        async profileStop(file: string) {
            child.stdin!.write(`profile-stop ${file}\n`);
            await next();
        },
        stop() {
            child.kill('SIGKILL');
            // PGlite's data directory, once the process is gone (it holds hundreds of MB after an ingest run).
            if (ready.dataDir) {
                const dir = ready.dataDir;
                child.once('exit', () => {
                    // with its lock and pid beside it (server/db/lock.ts)
                    for (const p of [dir, `${dir}.lock`, `${dir}.pid`]) rmSync(p, { recursive: true, force: true });
                });
            }
        },
    };
}

async function startMosquitto() {
    const { freePort } = await import('../e2e/support');
    const port = await freePort();
    const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-mosquitto-'));
    const conf = path.join(dir, 'mosquitto.conf');
    writeFileSync(
        conf,
        `listener ${port} 0.0.0.0\nallow_anonymous true\npersistence false\nmax_queued_messages 100000\n`,
    );
    const child = spawn('/usr/sbin/mosquitto', ['-c', conf], { stdio: 'ignore' });
    for (let i = 0; i < 100; i++) {
        const ok = await mqtt
            .connectAsync(`mqtt://127.0.0.1:${port}`, { reconnectPeriod: 0, connectTimeout: 500 })
            .then((c) => (c.end(true), true))
            .catch(() => false);
        if (ok) break;
        await new Promise((r) => setTimeout(r, 50));
    }
    return {
        port,
        rss() {
            const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
            return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) * 1024;
        },
        stop() {
            child.kill('SIGKILL');
        },
    };
}

/**
 * The load generator (mqtt/publishers.ts): a process of its own with bare-socket devices, so that the broker's process
 * is measured without a client library beside it on its cores. Answers the commands it takes.
 */
async function startGenerator() {
    const child = spawn(process.execPath, [await compiled('tests/bench/mqtt/publishers.ts')], {
        cwd: ROOT,
        stdio: ['pipe', 'pipe', 'inherit'],
    });
    const next = lineReader(child);
    await next();
    const ask = async <T>(command: object): Promise<T> => {
        child.stdin!.write(JSON.stringify(command) + '\n');
        return JSON.parse(await next()) as T;
    };
    return {
        /** Connects the devices; device i publishes on topicOf(i). */
        async connect(port: number, devices: Dev[], alibaba: boolean, topicOf: (i: number) => string, ca?: string) {
            const topics = devices.map((_, i) => topicOf(i));
            const r = await ask<{ connected: number; failed: number }>({
                cmd: 'connect',
                port,
                devices,
                topics,
                alibaba,
                ca,
            });
            if (r.failed) throw new Error(`${r.failed} of ${devices.length} bench devices did not connect`);
        },
        /** Every device publishes QoS 1 and waits for PUBACK, for `seconds`: acknowledged messages, the generator's CPU. */
        flood: (seconds: number) => ask<{ acked: number; ms: number; cpu: number }>({ cmd: 'flood', seconds }),
        /** 1,000 msg/s spread over the devices for `seconds`: publish → PUBACK times (ms, sorted). */
        paced: (seconds: number) =>
            ask<{ acked: number; cpu: number; times: number[] }>({ cmd: 'paced', seconds, rate: 1000 }),
        /** One subscriber of `filter` (QoS 0) counting the PUBLISH packets it receives. */
        subscribe: (port: number, filter: string) => ask({ cmd: 'subscribe', port, filter }),
        count: () => ask<{ received: number; cpu: number }>({ cmd: 'count' }),
        stop: () => child.kill('SIGKILL'),
    };
}

const pct = (sorted: number[], p: number) =>
    Math.round(sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] * 10) / 10;

/**
 * The load generator's own CPU per acknowledged message over the ingest window (its process; the devices' side of the
 * load, off the broker's process but on the same cores).
 */
const generatorCpu = (label: string, run: { acked: number; cpu: number }): Figure => ({
    name: `${label}.generatorCpuPerMessage`,
    value: Math.round((run.cpu / Math.max(1, run.acked)) * 10) / 10,
    unit: 'µs/msg',
});

/** The platform's ingest and latency figures, named `{label}.…`, on PGlite or (`databaseUrl`) PostgreSQL. */
async function measurePlatform(label: string, databaseUrl?: string): Promise<Figure[]> {
    const figures: Figure[] = [];
    const pgSchema = databaseUrl ? `bench_mqtt_${process.pid}` : undefined;
    const platform = await startPlatform(
        DEVICES,
        databaseUrl ? { DATABASE_URL: databaseUrl, BENCH_PG_SCHEMA: pgSchema! } : {},
    );
    const generator = await startGenerator();
    try {
        const topic = (i: number) =>
            `/sys/${platform.devices[i][0]}/${platform.devices[i][1]}/thing/event/property/post`;
        await generator.connect(platform.port, platform.devices, true, topic);
        // MQTT_PROFILE=FILE: the broker's CPU profile of the ingest window (open it in Chrome's DevTools).
        const profile = !databaseUrl && process.env.MQTT_PROFILE;
        if (profile) await platform.profileStart();
        const before = await platform.stats();
        const flood = await generator.flood(INGEST_SECONDS);
        const seconds = flood.ms / 1000;
        const after = await platform.stats();
        console.log(
            `mqtt: ${label}: ${flood.acked} acknowledged, ${after.written - before.written} stored in ${seconds.toFixed(1)} s, load average ${os.loadavg()[0].toFixed(1)}`,
        );
        if (profile) await platform.profileStop(path.resolve(profile));
        figures.push({
            name: `${label}.ingestPersisted`,
            value: Math.round((after.written - before.written) / seconds),
            unit: 'msg/s',
        });
        // The broker's own CPU per stored message: a figure the other jobs on a shared machine bend far less than
        // the rate (the database's CPU is in it on PGlite, not on PostgreSQL).
        figures.push({
            name: `${label}.ingestCpuPerMessage`,
            value: Math.round(((after.cpu - before.cpu) / Math.max(1, after.written - before.written)) * 10) / 10,
            unit: 'µs/msg',
        });
        // The same split by thread: the main thread (MQTT, validation, the writer's batches) and the busiest other
        // (the PGlite worker on PGlite; the database is another process on PostgreSQL), from /proc.
        const stored = Math.max(1, after.written - before.written);
        const used = (tid: string) => (after.threads[tid] ?? 0) - (before.threads[tid] ?? 0);
        const others = Object.keys(after.threads).filter((tid) => tid !== String(after.pid));
        const busiest = others.reduce((a, b) => (used(a) >= used(b) ? a : b), others[0]);
        figures.push({
            name: `${label}.ingestCpuMainThread`,
            value: Math.round((used(String(after.pid)) / stored) * 10) / 10,
            unit: 'µs/msg',
        });
        if (busiest)
            figures.push({
                name: `${label}.ingestCpuBusiestOtherThread`,
                value: Math.round((used(busiest) / stored) * 10) / 10,
                unit: 'µs/msg',
            });
        figures.push({
            name: `${label}.ingestBatchSize`,
            value: Math.round((after.written - before.written) / Math.max(1, after.batches - before.batches)),
            unit: 'msg/batch',
        });
        figures.push(generatorCpu(label, flood));
        const lat = await generator.paced(LATENCY_SECONDS);
        figures.push({ name: `${label}.latencyP50`, value: pct(lat.times, 50), unit: 'ms' });
        figures.push({ name: `${label}.latencyP99`, value: pct(lat.times, 99), unit: 'ms' });
        figures.push({
            name: `${label}.rssAfterIngest`,
            value: Math.round((await platform.stats()).rss / 1048576),
            unit: 'MB',
        });
        figures.push({ name: `${label}.loadAverage`, value: Number(os.loadavg()[0].toFixed(1)), unit: '' });
    } finally {
        generator.stop();
        platform.stop();
        if (databaseUrl) {
            const admin = new pg.Client({ connectionString: databaseUrl });
            await admin.connect();
            await admin.query(`DROP SCHEMA IF EXISTS "${pgSchema}" CASCADE`).finally(() => admin.end());
        }
    }
    return figures;
}

/** PostgreSQL for the platform's second run: BENCH_DATABASE_URL, else the machine's own when it answers. */
async function benchDatabaseUrl(): Promise<string | undefined> {
    const url = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
    if (url === 'none') return undefined;
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
    try {
        await client.connect();
        return url;
    } catch {
        console.log(`mqtt: PostgreSQL (${url}) does not answer: its run is skipped (BENCH_DATABASE_URL names another)`);
        return undefined;
    } finally {
        await client.end().catch(() => undefined);
    }
}

async function ingestAndLatency(): Promise<Figure[]> {
    // The platform on PGlite (a data directory, as `npm start` runs it), then on PostgreSQL (DATABASE_URL: the
    // database in a process of its own), then Mosquitto under the same clients.
    const figures = await measurePlatform('platform');
    const databaseUrl = await benchDatabaseUrl();
    if (databaseUrl) figures.push(...(await measurePlatform('platformPostgres', databaseUrl)));

    // BENCH_MOSQUITTO=none: the platform's runs only (A/B runs of the broker).
    if (process.env.BENCH_MOSQUITTO === 'none') return figures;
    const mosquitto = await startMosquitto();
    const [generator, subscriber] = await Promise.all([startGenerator(), startGenerator()]);
    try {
        const devices = Array.from({ length: DEVICES }, (_, i): Dev => ['pk', `bench${i}`, '']);
        const topic = (i: number) => `/sys/pk/bench${i}/thing/event/property/post`;
        await generator.connect(mosquitto.port, devices, false, topic);
        // One subscriber of every topic, in a generator process of its own (QoS 0: it counts what Mosquitto relays).
        await subscriber.subscribe(mosquitto.port, '/sys/#');
        const before = await subscriber.count();
        const flood = await generator.flood(INGEST_SECONDS);
        const after = await subscriber.count();
        figures.push({
            name: 'mosquitto.ingestRelayed',
            value: Math.round((after.received - before.received) / (flood.ms / 1000)),
            unit: 'msg/s',
        });
        figures.push(generatorCpu('mosquitto', flood));
        figures.push({
            name: 'mosquitto.subscriberCpuPerMessage',
            value: Math.round(((after.cpu - before.cpu) / Math.max(1, after.received - before.received)) * 10) / 10,
            unit: 'µs/msg',
        });
        const lat = await generator.paced(LATENCY_SECONDS);
        figures.push({ name: 'mosquitto.latencyP50', value: pct(lat.times, 50), unit: 'ms' });
        figures.push({ name: 'mosquitto.latencyP99', value: pct(lat.times, 99), unit: 'ms' });
        figures.push({ name: 'mosquitto.loadAverage', value: Number(os.loadavg()[0].toFixed(1)), unit: '' });
    } finally {
        generator.stop();
        subscriber.stop();
        mosquitto.stop();
    }
    return figures;
}

/** Client sockets per client process (each process below the open-files limit). */
const PER_CLIENT_PROCESS = 12_500;

/**
 * Holds the devices idle (keep-alive 60 s) through client processes of at most PER_CLIENT_PROCESS sockets each, spread
 * over the brokers' ports (device i to port i mod ports) and over loopback source addresses (one address has about
 * 28,000 ephemeral ports). Answers how many connected, the connect rate over the whole wall time, the client
 * processes' RSS, and `stop`.
 */
async function hold(ports: number[], devices: Dev[], alibaba: boolean) {
    const jobs: Array<{ port: number; devices: Dev[] }> = [];
    for (const [p, port] of ports.entries()) {
        const mine = devices.filter((_, i) => i % ports.length === p);
        for (let from = 0; from < mine.length; from += PER_CLIENT_PROCESS)
            jobs.push({ port, devices: mine.slice(from, from + PER_CLIENT_PROCESS) });
    }
    // The client processes start first (each says it is ready): the clock runs from the first connect.
    const clients = await compiled('tests/bench/mqtt/clients.ts');
    const procs = await Promise.all(
        jobs.map(async () => {
            const child = spawn(process.execPath, [clients], {
                cwd: ROOT,
                stdio: ['pipe', 'pipe', 'inherit'],
            });
            const next = lineReader(child);
            await next();
            return { child, next };
        }),
    );
    const started = performance.now();
    const results = await Promise.all(
        jobs.map(async (job, k) => {
            const { child, next } = procs[k];
            const localAddresses = Array.from({ length: 8 }, (_, a) => `127.0.${k + 1}.${a + 1}`);
            child.stdin!.write(
                JSON.stringify({
                    port: job.port,
                    devices: job.devices,
                    from: 0,
                    to: job.devices.length,
                    alibaba,
                    keepalive: 60,
                    localAddresses,
                }) + '\n',
            );
            return JSON.parse(await next()) as { connected: number; failed: number; cpu: number; rss: number };
        }),
    );
    const ms = performance.now() - started;
    const connected = results.reduce((n, r) => n + r.connected, 0);
    return {
        connected,
        rate: Math.round(connected / (ms / 1000)),
        clientRss: results.reduce((n, r) => n + r.rss, 0),
        stop: () => procs.forEach((p) => p.child.stdin!.write('quit\n')),
    };
}

function openFilesLimit(): number {
    const limits = readFileSync('/proc/self/limits', 'utf8');
    return Number(/Max open files\s+\d+\s+(\d+)/.exec(limits)?.[1] ?? Infinity);
}

const MB = (bytes: number) => Math.round(bytes / 1048576);
const KB = (bytes: number, n: number) => Math.round(bytes / 1024 / n);

/** Redis for the multi-process runs (BENCH_REDIS_URL, else the machine's own, database 8), when it answers. */
async function benchRedisUrl(): Promise<string | undefined> {
    const url = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379/8';
    if (url === 'none') return undefined;
    const net = await import('node:net');
    const u = new URL(url);
    const ok = await new Promise<boolean>((resolve) => {
        const socket = net.connect(Number(u.port || 6379), u.hostname, () => (socket.end(), resolve(true)));
        socket.once('error', () => resolve(false));
    });
    if (!ok) console.log(`mqtt: Redis (${url}) does not answer: the multi-process runs are skipped`);
    return ok ? url : undefined;
}

/**
 * `processes` platform processes of one platform (DATABASE_URL in a schema of its own, REDIS_URL), the first seeding
 * `count` devices. Each holds its share of the devices; figures are summed over the processes.
 */
async function startCluster(count: number, processes: number, databaseUrl: string, redisUrl: string) {
    const pgSchema = `bench_conn_${process.pid}`;
    const env = { DATABASE_URL: databaseUrl, BENCH_PG_SCHEMA: pgSchema, REDIS_URL: redisUrl };
    const first = await startPlatform(count, env);
    const others = await Promise.all(
        Array.from({ length: processes - 1 }, () => startPlatform(0, { ...env, BENCH_SEED: '0' })),
    );
    const all = [first, ...others];
    return {
        first,
        devices: first.devices,
        ports: all.map((p) => p.port),
        async stats() {
            const each = await Promise.all(all.map((p) => p.stats()));
            return {
                connected: each.reduce((n, s) => n + s.connected, 0),
                rss: each.reduce((n, s) => n + s.rss, 0),
                cpu: each.reduce((n, s) => n + s.cpu, 0),
            };
        },
        async stop() {
            for (const p of all) p.stop();
            const admin = new pg.Client({ connectionString: databaseUrl });
            await admin.connect();
            await admin.query(`DROP SCHEMA IF EXISTS "${pgSchema}" CASCADE`).finally(() => admin.end());
        },
    };
}

/** `processes` Mosquitto processes (the same open-files limit binds each), summed. */
async function startMosquittos(processes: number) {
    const all = await Promise.all(Array.from({ length: processes }, () => startMosquitto()));
    return {
        ports: all.map((m) => m.port),
        rss: () => all.reduce((n, m) => n + m.rss(), 0),
        stop: () => all.forEach((m) => m.stop()),
    };
}

/** Holds `count` idle devices on the platform's processes and then on as many Mosquitto processes; their figures. */
async function measureConnections(
    label: string,
    count: number,
    platform: {
        devices: Dev[];
        ports: number[];
        stats(): Promise<{
            connected: number;
            rss: number;
            cpu: number;
            /** One process: CPU µs by thread id (the main thread's id is pid). */
            threads?: Record<string, number>;
            pid?: number;
        }>;
        stop(): unknown;
    },
): Promise<Figure[]> {
    const figures: Figure[] = [];
    const processes = platform.ports.length;
    const load = () => os.loadavg()[0].toFixed(1);
    try {
        const before = await platform.stats();
        const held = await hold(platform.ports, platform.devices, true);
        // The status writes of the last connects land within a moment; then every process counts its devices.
        await new Promise((r) => setTimeout(r, 2000));
        const s = await platform.stats();
        console.log(
            `mqtt: ${label}${count}: platform ${processes} process(es), ${s.connected}/${count} connected at ` +
                `${held.rate} conn/s, RSS ${MB(s.rss)} MB (${MB(before.rss)} MB before), load average ${load()}`,
        );
        figures.push({ name: `platform.${label}connected${count}`, value: s.connected, unit: 'devices' });
        figures.push({ name: `platform.${label}connectRate${count}`, value: held.rate, unit: 'conn/s' });
        figures.push({ name: `platform.${label}rss${count}`, value: MB(s.rss), unit: 'MB' });
        figures.push({
            name: `platform.${label}rssPerConnection${count}`,
            value: KB(s.rss - before.rss, count),
            unit: 'KB',
        });
        figures.push({
            name: `platform.${label}cpuPerConnect${count}`,
            value: Math.round((s.cpu - before.cpu) / count),
            unit: 'µs',
        });
        // One process: the main thread's part (MQTT, sign-in, the status batches) and the busiest other (PGlite's).
        if (s.threads && before.threads && s.pid) {
            const used = (tid: string) => (s.threads![tid] ?? 0) - (before.threads![tid] ?? 0);
            const others = Object.keys(s.threads).filter((tid) => tid !== String(s.pid));
            const busiest = others.reduce((a, b) => (used(a) >= used(b) ? a : b), others[0]);
            const spread = others.map((tid) => Math.round(used(tid) / count)).filter((us) => us > 0);
            console.log(`mqtt: ${label}${count}: µs per connect in the other threads: ${spread.join(', ')}`);
            figures.push({
                name: `platform.${label}cpuPerConnectMainThread${count}`,
                value: Math.round(used(String(s.pid)) / count),
                unit: 'µs',
            });
            if (busiest)
                figures.push({
                    name: `platform.${label}cpuPerConnectBusiestOtherThread${count}`,
                    value: Math.round(used(busiest) / count),
                    unit: 'µs',
                });
        }
        // Held idle for a keep-alive period (every device pings once): what the processes keep once the connect
        // storm's garbage is collected, beside the figure above, taken while that garbage is still in the heap.
        if (SETTLE_MS > 0) {
            await new Promise((r) => setTimeout(r, SETTLE_MS));
            const settled = await platform.stats();
            console.log(
                `mqtt: ${label}${count}: platform after ${SETTLE_MS / 1000} s idle: ${settled.connected} connected, ` +
                    `RSS ${MB(settled.rss)} MB`,
            );
            figures.push({ name: `platform.${label}rssSettled${count}`, value: MB(settled.rss), unit: 'MB' });
        }
        held.stop();
        // The outage: every device gone at once, then back at once (the platform has seen them before).
        const gone = Date.now();
        while ((await platform.stats()).connected > 0 && Date.now() - gone < 60_000)
            await new Promise((r) => setTimeout(r, 200));
        await new Promise((r) => setTimeout(r, 1000)); // the OFFLINE batches
        const beforeAgain = await platform.stats();
        const again = await hold(platform.ports, platform.devices, true);
        await new Promise((r) => setTimeout(r, 2000));
        const afterAgain = await platform.stats();
        const perThread = (a: typeof beforeAgain, b: typeof beforeAgain) =>
            Object.keys(b.threads ?? {})
                .map((tid) => Math.round(((b.threads?.[tid] ?? 0) - (a.threads?.[tid] ?? 0)) / count))
                .filter((us) => us > 0)
                .join(', ');
        console.log(
            `mqtt: ${label}${count}: platform reconnect after an outage, ${afterAgain.connected}/${count} connected at ` +
                `${again.rate} conn/s (µs per reconnect by thread: ${perThread(beforeAgain, afterAgain)}), ` +
                `load average ${load()}`,
        );
        figures.push({ name: `platform.${label}reconnectRate${count}`, value: again.rate, unit: 'conn/s' });
        figures.push({
            name: `platform.${label}cpuPerReconnect${count}`,
            value: Math.round((afterAgain.cpu - beforeAgain.cpu) / count),
            unit: 'µs',
        });
        again.stop();
    } finally {
        await platform.stop();
    }
    const mosquitto = await startMosquittos(processes);
    try {
        const before = mosquitto.rss();
        const devices = Array.from({ length: count }, (_, i): Dev => ['pk', `bench${i}`, '']);
        const held = await hold(mosquitto.ports, devices, false);
        const rss = mosquitto.rss();
        console.log(
            `mqtt: ${label}${count}: Mosquitto ${processes} process(es), ${held.connected}/${count} connected at ` +
                `${held.rate} conn/s, RSS ${MB(rss)} MB, load average ${load()}`,
        );
        figures.push({ name: `mosquitto.${label}connected${count}`, value: held.connected, unit: 'devices' });
        figures.push({ name: `mosquitto.${label}connectRate${count}`, value: held.rate, unit: 'conn/s' });
        figures.push({ name: `mosquitto.${label}rss${count}`, value: MB(rss), unit: 'MB' });
        figures.push({
            name: `mosquitto.${label}rssPerConnection${count}`,
            value: KB(rss - before, count),
            unit: 'KB',
        });
        if (SETTLE_MS > 0) {
            await new Promise((r) => setTimeout(r, SETTLE_MS));
            figures.push({ name: `mosquitto.${label}rssSettled${count}`, value: MB(mosquitto.rss()), unit: 'MB' });
        }
        held.stop();
    } finally {
        mosquitto.stop();
    }
    figures.push({ name: `${label}loadAverage${count}`, value: Number(load()), unit: '' });
    return figures;
}

/**
 * Idle devices (keep-alive 60 s): how many the platform holds, how fast they connect, its summed RSS, beside
 * Mosquitto holding the same. One process may hold at most the hard open-files limit (ulimit -Hn: 20,000 here, and
 * raising it needs CAP_SYS_RESOURCE), so:
 * - one process (PGlite, as `npm start`): 10,000 and the largest round thousand below the limit;
 * - several processes of one platform (PostgreSQL + Redis, docs/deployment.md), each below the limit: 50,000 and
 *   100,000, beside as many Mosquitto processes (each bound by the same limit). PostgreSQL's and Redis's own memory
 *   is not in the platform's sum (they serve the whole platform; PGlite's is, in the single process).
 * MQTT_CONNECTIONS=10000,19000,50000,100000 chooses the counts (`3000x2`: 3,000 on two processes).
 */
async function connections(): Promise<Figure[]> {
    const figures: Figure[] = [];
    const limit = openFilesLimit();
    // Headroom for the process's other files (database, Redis, listeners, modules).
    const perProcess = Number.isFinite(limit) ? Math.floor((limit - 1_000) / 1_000) * 1_000 : 100_000;
    // `COUNTxN`: COUNT devices on N processes of one platform (even below the limit).
    const runs = (process.env.MQTT_CONNECTIONS ?? `10000,${Math.min(perProcess, 100_000)},50000,100000`)
        .split(',')
        .map((r) => r.split('x').map(Number))
        .filter(([count], i, all) => all.findIndex(([c]) => c === count) === i);
    let cluster: { databaseUrl: string; redisUrl: string } | undefined | null = null;
    for (const [count, forced] of runs) {
        if (count <= perProcess && !forced) {
            const platform = await startPlatform(count);
            // MQTT_CONNECT_PROFILE=FILE: the broker's CPU profile of the connect storm (written before it stops).
            const profile = process.env.MQTT_CONNECT_PROFILE;
            if (profile) await platform.profileStart();
            figures.push(
                ...(await measureConnections('', count, {
                    devices: platform.devices,
                    ports: [platform.port],
                    stats: () => platform.stats(),
                    stop: async () => {
                        if (profile) await platform.profileStop(path.resolve(profile));
                        platform.stop();
                    },
                })),
            );
            continue;
        }
        if (cluster === null) {
            const [databaseUrl, redisUrl] = [await benchDatabaseUrl(), await benchRedisUrl()];
            cluster = databaseUrl && redisUrl ? { databaseUrl, redisUrl } : undefined;
        }
        if (!cluster) {
            console.log(
                `mqtt: ${count} connections skipped: one process may hold at most ${limit} open files here (ulimit -Hn), and the multi-process platform needs PostgreSQL and Redis`,
            );
            continue;
        }
        // Each process well below the limit (its sockets, plus its database pool and Redis connections).
        const processes = forced || Math.ceil(count / Math.min(perProcess - 2_000, 17_000));
        const platform = await startCluster(count, processes, cluster.databaseUrl, cluster.redisUrl);
        // MQTT_CONNECT_PROFILE=FILE: the first process's CPU profile of the storms.
        const profile = process.env.MQTT_CONNECT_PROFILE;
        if (profile) await platform.first.profileStart();
        figures.push(
            ...(await measureConnections('cluster', count, {
                ...platform,
                stop: async () => {
                    if (profile) await platform.first.profileStop(path.resolve(profile));
                    await platform.stop();
                },
            })),
        );
    }
    return figures;
}

/**
 * MQTT_BENCH=tls: the platform's MQTTS beside its plain MQTT and beside Mosquitto's TLS listener on the same
 * certificate, in one run: connect rate (full handshakes, resumed sessions), persisted ingest and p99 at 1,000 msg/s
 * over TLS and plain, memory per idle connection. Goals (issue 26): TLS ingest >= 90% of plain; TLS connect rate >= 50%
 * of Mosquitto's TLS connect rate.
 */
async function tlsRows(): Promise<Figure[]> {
    const figures: Figure[] = [];
    const connects = Number(process.env.MQTT_TLS_CONNECTS ?? 500);
    const idle = Number(process.env.MQTT_TLS_IDLE ?? 1000);
    const platform = await startPlatform(DEVICES, { BENCH_TLS: '1' });
    const ca = readFileSync(platform.caFile!, 'utf8');
    const rss = async () => (await platform.stats()).rss;
    const devs = platform.devices;
    const mosquitto = await startMosquittoTls({
        caFile: platform.caFile!,
        certFile: platform.certFile!,
        keyFile: platform.keyFile!,
    });
    try {
        const rate = async (
            name: string,
            port: number,
            packets: (i: number) => Buffer,
            tls?: { ca: string; resume: boolean },
        ) => figures.push(tlsFigure(name, await connectRate(port, packets, connects, tls), 'conn/s'));
        await rate('tls.platformPlain.connectRate', platform.port, platformPackets(devs, 3));
        await rate('tls.platform.connectRateFull', platform.tlsPort!, platformPackets(devs, 2), { ca, resume: false });
        await rate('tls.platform.connectRateResumed', platform.tlsPort!, platformPackets(devs, 2), {
            ca,
            resume: true,
        });
        await rate('tls.mosquittoPlain.connectRate', mosquitto.plain, mosquittoPackets);
        await rate('tls.mosquitto.connectRateFull', mosquitto.tls, mosquittoPackets, { ca, resume: false });
        await rate('tls.mosquitto.connectRateResumed', mosquitto.tls, mosquittoPackets, { ca, resume: true });
        console.log(`mqtt: tls: connect rates measured, load average ${os.loadavg()[0].toFixed(1)}`);

        for (const [name, port, packets, useCa, size] of [
            ['tls.platformPlain', platform.port, platformPackets(devs, 3), undefined, rss],
            ['tls.platform', platform.tlsPort!, platformPackets(devs, 2), ca, rss],
            ['tls.mosquittoPlain', mosquitto.plain, mosquittoPackets, undefined, mosquitto.rss],
            ['tls.mosquitto', mosquitto.tls, mosquittoPackets, ca, mosquitto.rss],
        ] as const) {
            const held = await memoryPerIdle(size, port, packets, idle, useCa);
            console.log(`mqtt: tls: ${name} idle connections held, load average ${os.loadavg()[0].toFixed(1)}`);
            figures.push(tlsFigure(`${name}.memoryPerIdleConnection`, held.kb, 'KB'));
            held.close();
            await new Promise((r) => setTimeout(r, 500));
        }

        const topic = (i: number) => `/sys/${devs[i][0]}/${devs[i][1]}/thing/event/property/post`;
        for (const [label, port, useCa] of [
            ['tls.platformPlain', platform.port, undefined],
            ['tls.platform', platform.tlsPort!, ca],
        ] as const) {
            const generator = await startGenerator();
            try {
                await generator.connect(port, devs, true, topic, useCa);
                console.log(`mqtt: tls: ${label} ingest, load average ${os.loadavg()[0].toFixed(1)}`);
                const before = await platform.stats();
                const flood = await generator.flood(INGEST_SECONDS);
                const after = await platform.stats();
                figures.push(
                    tlsFigure(
                        `${label}.ingestPersisted`,
                        Math.round((after.written - before.written) / (flood.ms / 1000)),
                        'msg/s',
                    ),
                );
                const lat = await generator.paced(LATENCY_SECONDS);
                figures.push(tlsFigure(`${label}.latencyP99`, pct(lat.times, 99), 'ms'));
            } finally {
                generator.stop();
            }
        }
        const mdevs = Array.from({ length: DEVICES }, (_, i): Dev => ['pk', `benchtls${i}`, '']);
        const mtopic = (i: number) => `/sys/pk/benchtls${i}/thing/event/property/post`;
        for (const [label, port, useCa] of [
            ['tls.mosquittoPlain', mosquitto.plain, undefined],
            ['tls.mosquitto', mosquitto.tls, ca],
        ] as const) {
            const [generator, subscriber] = await Promise.all([startGenerator(), startGenerator()]);
            try {
                await generator.connect(port, mdevs, false, mtopic, useCa);
                console.log(`mqtt: tls: ${label} ingest, load average ${os.loadavg()[0].toFixed(1)}`);
                await subscriber.subscribe(mosquitto.plain, '/sys/#');
                const before = await subscriber.count();
                const flood = await generator.flood(INGEST_SECONDS);
                const after = await subscriber.count();
                figures.push(
                    tlsFigure(
                        `${label}.ingestRelayed`,
                        Math.round((after.received - before.received) / (flood.ms / 1000)),
                        'msg/s',
                    ),
                );
                const lat = await generator.paced(LATENCY_SECONDS);
                figures.push(tlsFigure(`${label}.latencyP99`, pct(lat.times, 99), 'ms'));
            } finally {
                generator.stop();
                subscriber.stop();
            }
        }
        const value = (name: string) => figures.find((f) => f.name === name)?.value ?? NaN;
        figures.push(
            tlsFigure(
                'tls.ingestOfPlain',
                Math.round((value('tls.platform.ingestPersisted') / value('tls.platformPlain.ingestPersisted')) * 100),
                '% (goal >= 90)',
            ),
            tlsFigure(
                'tls.connectRateOfMosquittoTls',
                Math.round((value('tls.platform.connectRateFull') / value('tls.mosquitto.connectRateFull')) * 100),
                '% (goal >= 50)',
            ),
            tlsFigure('tls.loadAverage', Number(os.loadavg()[0].toFixed(1)), ''),
        );
    } finally {
        mosquitto.stop();
        platform.stop();
    }
    return figures;
}

const group: BenchGroup = {
    name: 'mqtt',
    async run() {
        // MQTT_BENCH=ingest, connections or tls runs one part (default all three).
        const parts = (process.env.MQTT_BENCH ?? 'ingest,connections,tls').split(',');
        return [
            ...(parts.includes('ingest') ? await ingestAndLatency() : []),
            ...(parts.includes('connections') ? await connections() : []),
            ...(parts.includes('tls') ? await tlsRows() : []),
        ];
    },
};
export default group;
