import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import type { DirectJob } from './direct';
import { compiled } from '../compiled';
import { lineReader } from '../lineReader';

/**
 * The forwarding bench's two processes beside its own: the platform (platformProcess.ts) and the devices (devices.ts),
 * each bundled as `npm start` bundles the server (../compiled.ts) and answering one JSON line per command line.
 */

const ROOT = path.resolve(import.meta.dirname, '../../..');

export type Dev = [productKey: string, deviceName: string, secret: string];

async function start(entry: string, env: Record<string, string> = {}) {
    const { DATABASE_URL: _db, FORWARD_BENCH_STORE_URL: storeUrl, ...inherited } = process.env;
    // The platform's store on PostgreSQL (flows.ts STORE): createTestServer makes a database of its own there.
    if (storeUrl && entry.endsWith('platformProcess.ts')) inherited.DATABASE_URL = storeUrl;
    const child = spawn(process.execPath, [await compiled(entry)], {
        cwd: ROOT,
        env: { ...inherited, ...env },
        stdio: ['pipe', 'pipe', 'inherit'],
    });
    const next = lineReader(child);
    /** Sends a line, answers the next line read as JSON; an answer `{ error }` rejects. */
    const ask = async <T>(line: string): Promise<T> => {
        child.stdin!.write(`${line}\n`);
        const answer = JSON.parse(await next()) as T & { error?: string };
        if (answer && typeof answer === 'object' && 'error' in answer && answer.error) throw new Error(answer.error);
        return answer;
    };
    return { child, next, ask };
}

/** Drops the database of `url` (a killed platform's connections with it), connected to the server's own database. */
async function dropDatabase(url: string) {
    const u = new URL(url);
    const name = u.pathname.slice(1);
    u.pathname = '/postgres';
    const admin = new pg.Client({ connectionString: u.toString() });
    await admin.connect();
    try {
        await admin.query(`DROP DATABASE IF EXISTS "${name.replace(/"/g, '""')}" WITH (FORCE)`);
    } finally {
        await admin.end();
    }
}

export interface PlatformStats {
    written: number;
    sent: number;
    selected: number;
    failed: number;
    /** CPU µs of the process so far, and of each thread by id (the main thread's id is `pid`). */
    cpu: number;
    threads: Record<string, number>;
    pid: number;
}

export async function startPlatform(devices: number) {
    const { child, next, ask } = await start('tests/bench/forward/platformProcess.ts', { DEVICES: String(devices) });
    const ready = JSON.parse(await next()) as {
        port: number;
        projectId: number;
        dataDir: string;
        /** On PostgreSQL: the run's own database, dropped by stop(). */
        databaseUrl?: string;
        devices: Dev[];
    };
    return {
        ...ready,
        /** The console's API as the admin: the answer's data. */
        api: <T>(method: string, target: string, body?: unknown) =>
            ask<T>(`api ${JSON.stringify({ method, path: target, body })}`),
        stats: () => ask<PlatformStats>('stats'),
        direct: (job: DirectJob) => ask<{ rows: number; ms: number }>(`direct ${JSON.stringify(job)}`),
        read: (count: number) => ask<{ messages: number; ms: number }>(`read ${count}`),
        gaps: (from: number) => ask<{ gaps: number; maxId: number }>(`gaps ${from}`),
        profileStart: () => ask('profile-start'),
        profileStop: (file: string) => ask(`profile-stop ${file}`),
        /** Kills the process, then removes its PGlite data directory (with its lock, pid and files beside it). */
        async stop() {
            const exited = new Promise((resolve) => child.once('exit', resolve));
            if (child.exitCode === null && child.signalCode === null) {
                child.kill('SIGKILL');
                await exited;
            }
            for (const p of ['', '.lock', '.pid', '.files'].map((suffix) => `${ready.dataDir}${suffix}`))
                rmSync(p, { recursive: true, force: true });
            if (ready.databaseUrl) await dropDatabase(ready.databaseUrl);
        },
    };
}

export type Platform = Awaited<ReturnType<typeof startPlatform>>;

export async function startDevices() {
    const { child, next, ask } = await start('tests/bench/forward/devices.ts');
    await next();
    const command = <T>(value: object) => ask<T>(JSON.stringify(value));
    return {
        async connect(port: number, devices: Dev[]) {
            const r = await command<{ connected: number; failed: number }>({ cmd: 'connect', port, devices });
            if (r.failed) throw new Error(`${r.failed} of ${devices.length} bench devices did not connect`);
        },
        /** Every device posts and waits for its PUBACK, for `seconds`. */
        flood: (seconds: number) => command<{ acked: number; ms: number }>({ cmd: 'flood', seconds }),
        /** `rate` posts a second for `seconds`: each post's PUBACK time by seq, and write → PUBACK times. */
        paced: (seconds: number, rate: number) =>
            command<{ acked: number; first: number; acks: Array<[number, number]>; rtt: number[] }>({
                cmd: 'paced',
                seconds,
                rate,
            }),
        stop: () => child.kill('SIGKILL'),
    };
}

export type Devices = Awaited<ReturnType<typeof startDevices>>;
