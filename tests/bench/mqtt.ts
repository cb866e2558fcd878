import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import mqtt, { type MqttClient } from 'mqtt';
import pg from 'pg';
import { alibabaCredentials } from '../../server/mqtt/signIn';
import type { BenchGroup, Figure } from './run';

/**
 * `npm run bench -- mqtt`: the platform's broker (its own process, in-memory PGlite) beside Mosquitto 2 (Debian's
 * package, on a free port) under the same load from the same clients:
 * The platform runs twice: on PGlite in a data directory (as `npm start`: in a worker thread, PGLITE_WORKER=0 in the
 * broker's main thread), then on PostgreSQL (BENCH_DATABASE_URL, else the machine's 127.0.0.1:5432/test in a schema of
 * its own; `none` skips it), the database then in a process of its own.
 * - ingest: 1,000 devices publishing QoS 1 property posts, each waiting for its PUBACK before the next. The platform's
 *   figure is rows committed per second (PUBACK follows the write); Mosquitto's is messages relayed per second to one
 *   subscriber of every topic.
 * - latency: publish → PUBACK (platform: stored) at 1,000 msg/s spread over the devices, p50 and p99.
 * - connections: idle devices (keep-alive 60 s) held, connect rate and broker RSS. The sandbox's hard open-files
 *   limit (ulimit -Hn) bounds how many one process may hold; the bench says so instead of failing.
 */

const ROOT = path.resolve(import.meta.dirname, '../..');
const DEVICES = 1000;
const INGEST_SECONDS = 10;
const LATENCY_SECONDS = 10;
const CONNECTIONS = [10_000, 50_000, 100_000];

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
    const child = spawn(process.execPath, ['--import', 'tsx', 'tests/bench/mqtt/brokerProcess.ts'], {
        cwd: ROOT,
        env: { ...env, DEVICES: String(devices), ...extraEnv },
        stdio: ['pipe', 'pipe', 'inherit'],
    });
    const next = lineReader(child);
    const ready = JSON.parse(await next()) as { port: number; dataDir?: string; devices: Dev[] };
    return {
        port: ready.port,
        devices: ready.devices,
        async stats() {
            child.stdin!.write('stats\n');
            return JSON.parse(await next()) as {
                written: number;
                batches: number;
                cpu: number;
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

async function connectAll(port: number, devices: Dev[], alibaba: boolean): Promise<MqttClient[]> {
    const clients: MqttClient[] = [];
    for (let i = 0; i < devices.length; i += 100) {
        const batch = devices.slice(i, i + 100).map(([productKey, deviceName, secret], j) =>
            mqtt.connectAsync(`mqtt://127.0.0.1:${port}`, {
                ...(alibaba
                    ? alibabaCredentials({ productKey, deviceName, secret })
                    : { clientId: `bench${i + j}`, username: deviceName }),
                reconnectPeriod: 0,
                keepalive: 60,
            }),
        );
        clients.push(...(await Promise.all(batch)));
    }
    return clients;
}

const post = (n: number) =>
    JSON.stringify({
        id: String(n),
        version: '1.0',
        params: { Brightness: n % 101, ActivePower: (n % 2000) / 10, LightSwitch: n % 2 },
        method: 'thing.event.property.post',
    });

/** Every client publishes QoS 1 and waits for PUBACK, for `seconds`. Answers acknowledged messages. */
async function flood(clients: MqttClient[], topicOf: (i: number) => string, seconds: number): Promise<number> {
    const until = performance.now() + seconds * 1000;
    let acked = 0;
    await Promise.all(
        clients.map(async (c, i) => {
            let n = 0;
            while (performance.now() < until) {
                await c.publishAsync(topicOf(i), post(n++), { qos: 1 });
                acked++;
            }
        }),
    );
    return acked;
}

/** 1,000 msg/s spread over the clients for `seconds`; publish → PUBACK times. */
async function paced(clients: MqttClient[], topicOf: (i: number) => string, seconds: number): Promise<number[]> {
    const times: number[] = [];
    const pending: Array<Promise<void>> = [];
    const total = 1000 * seconds;
    const start = performance.now();
    for (let n = 0; n < total; n++) {
        const due = start + n; // one per millisecond
        const wait = due - performance.now();
        if (wait > 1) await new Promise((r) => setTimeout(r, wait));
        const i = n % clients.length;
        const t0 = performance.now();
        pending.push(
            clients[i]
                .publishAsync(topicOf(i), post(n), { qos: 1 })
                .then(() => void times.push(performance.now() - t0)),
        );
    }
    await Promise.all(pending);
    return times.sort((a, b) => a - b);
}

const pct = (sorted: number[], p: number) =>
    Math.round(sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] * 10) / 10;

/** The platform's ingest and latency figures, named `{label}.…`, on PGlite or (`databaseUrl`) PostgreSQL. */
async function measurePlatform(label: string, databaseUrl?: string): Promise<Figure[]> {
    const figures: Figure[] = [];
    const pgSchema = databaseUrl ? `bench_mqtt_${process.pid}` : undefined;
    const platform = await startPlatform(
        DEVICES,
        databaseUrl ? { DATABASE_URL: databaseUrl, BENCH_PG_SCHEMA: pgSchema! } : {},
    );
    try {
        const clients = await connectAll(platform.port, platform.devices, true);
        const topic = (i: number) =>
            `/sys/${platform.devices[i][0]}/${platform.devices[i][1]}/thing/event/property/post`;
        // MQTT_PROFILE=FILE: the broker's CPU profile of the ingest window (open it in Chrome's DevTools).
        const profile = !databaseUrl && process.env.MQTT_PROFILE;
        if (profile) await platform.profileStart();
        const before = await platform.stats();
        const t0 = performance.now();
        await flood(clients, topic, INGEST_SECONDS);
        const seconds = (performance.now() - t0) / 1000;
        const after = await platform.stats();
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
        figures.push({
            name: `${label}.ingestBatchSize`,
            value: Math.round((after.written - before.written) / Math.max(1, after.batches - before.batches)),
            unit: 'msg/batch',
        });
        const lat = await paced(clients, topic, LATENCY_SECONDS);
        figures.push({ name: `${label}.latencyP50`, value: pct(lat, 50), unit: 'ms' });
        figures.push({ name: `${label}.latencyP99`, value: pct(lat, 99), unit: 'ms' });
        figures.push({
            name: `${label}.rssAfterIngest`,
            value: Math.round((await platform.stats()).rss / 1048576),
            unit: 'MB',
        });
        for (const c of clients) c.end(true);
    } finally {
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

    const mosquitto = await startMosquitto();
    try {
        const devices = Array.from({ length: DEVICES }, (_, i): Dev => ['pk', `bench${i}`, '']);
        const clients = await connectAll(mosquitto.port, devices, false);
        const sub = await mqtt.connectAsync(`mqtt://127.0.0.1:${mosquitto.port}`, { reconnectPeriod: 0 });
        let received = 0;
        sub.on('message', () => void received++);
        await sub.subscribeAsync('/sys/#', { qos: 1 });
        const topic = (i: number) => `/sys/pk/bench${i}/thing/event/property/post`;
        const t0 = performance.now();
        await flood(clients, topic, INGEST_SECONDS);
        const seconds = (performance.now() - t0) / 1000;
        figures.push({ name: 'mosquitto.ingestRelayed', value: Math.round(received / seconds), unit: 'msg/s' });
        const lat = await paced(clients, topic, LATENCY_SECONDS);
        figures.push({ name: 'mosquitto.latencyP50', value: pct(lat, 50), unit: 'ms' });
        figures.push({ name: 'mosquitto.latencyP99', value: pct(lat, 99), unit: 'ms' });
        for (const c of [...clients, sub]) c.end(true);
    } finally {
        mosquitto.stop();
    }
    return figures;
}

/** Holds `count` idle devices through client processes of at most 8,000 sockets each. */
async function hold(port: number, devices: Dev[], alibaba: boolean) {
    const perProcess = 8_000;
    const procs: ChildProcess[] = [];
    const started = performance.now();
    const results = await Promise.all(
        Array.from({ length: Math.ceil(devices.length / perProcess) }, async (_, k) => {
            const child = spawn(process.execPath, ['--import', 'tsx', 'tests/bench/mqtt/clients.ts'], {
                cwd: ROOT,
                stdio: ['pipe', 'pipe', 'inherit'],
            });
            procs.push(child);
            const next = lineReader(child);
            const from = k * perProcess;
            const to = Math.min(devices.length, from + perProcess);
            const localAddresses = Array.from({ length: 8 }, (_, a) => `127.0.${k + 1}.${a + 1}`);
            child.stdin!.write(
                JSON.stringify({ port, devices, from, to, alibaba, keepalive: 60, localAddresses }) + '\n',
            );
            return JSON.parse(await next()) as { connected: number; failed: number };
        }),
    );
    const ms = performance.now() - started;
    return {
        connected: results.reduce((n, r) => n + r.connected, 0),
        rate: Math.round(results.reduce((n, r) => n + r.connected, 0) / (ms / 1000)),
        stop: () => procs.forEach((p) => p.stdin!.write('quit\n')),
    };
}

function openFilesLimit(): number {
    const limits = readFileSync('/proc/self/limits', 'utf8');
    return Number(/Max open files\s+\d+\s+(\d+)/.exec(limits)?.[1] ?? Infinity);
}

async function connections(): Promise<Figure[]> {
    const figures: Figure[] = [];
    const limit = openFilesLimit();
    for (const count of CONNECTIONS) {
        if (count + 100 > limit) {
            console.log(
                `mqtt: ${count} connections skipped: one broker process may hold at most ${limit} open files here (ulimit -Hn), and raising it needs CAP_SYS_RESOURCE`,
            );
            continue;
        }
        const platform = await startPlatform(count);
        try {
            const held = await hold(platform.port, platform.devices, true);
            const s = await platform.stats();
            figures.push({ name: `platform.connected${count}`, value: s.connected, unit: 'devices' });
            figures.push({ name: `platform.connectRate${count}`, value: held.rate, unit: 'conn/s' });
            figures.push({ name: `platform.rss${count}`, value: Math.round(s.rss / 1048576), unit: 'MB' });
            held.stop();
        } finally {
            platform.stop();
        }
        const mosquitto = await startMosquitto();
        try {
            const devices = Array.from({ length: count }, (_, i): Dev => ['pk', `bench${i}`, '']);
            const held = await hold(mosquitto.port, devices, false);
            figures.push({ name: `mosquitto.connected${count}`, value: held.connected, unit: 'devices' });
            figures.push({ name: `mosquitto.connectRate${count}`, value: held.rate, unit: 'conn/s' });
            figures.push({ name: `mosquitto.rss${count}`, value: Math.round(mosquitto.rss() / 1048576), unit: 'MB' });
            held.stop();
        } finally {
            mosquitto.stop();
        }
    }
    return figures;
}

const group: BenchGroup = {
    name: 'mqtt',
    async run() {
        // MQTT_BENCH=ingest or MQTT_BENCH=connections runs one part (default both).
        const parts = (process.env.MQTT_BENCH ?? 'ingest,connections').split(',');
        return [
            ...(parts.includes('ingest') ? await ingestAndLatency() : []),
            ...(parts.includes('connections') ? await connections() : []),
        ];
    },
};
export default group;
