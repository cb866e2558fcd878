import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import pg from 'pg';

/**
 * Server processes of their own (server/index.ts) on one PostgreSQL database made for the test, for the tests of
 * several processes acting as one platform (mqttCluster, amqpCluster, rulesCluster). Each process takes free ports,
 * a data directory of its own and signs in as admin; `close()` stops them and drops the database.
 */

export const PG_URL = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
const ROOT = path.resolve(import.meta.dirname, '../..');
const PASSWORD = 'Cluster_Pass1';

export async function postgresReachable(): Promise<boolean> {
    const client = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 2000 });
    try {
        await client.connect();
        await client.end();
        return true;
    } catch {
        return false;
    }
}

export interface ServerProcess {
    child: ChildProcess;
    url: string;
    mqttPort: number;
    amqpPort: number;
    cookie: string;
    /** A form-encoded (or JSON, when `json`) call signed in as admin: the answer's body. */
    api(
        method: string,
        target: string,
        body?: Record<string, unknown>,
        json?: boolean,
    ): Promise<{ code: number; msg?: string; data: Record<string, unknown> }>;
    /** Stops the process (SIGTERM) and waits for it. */
    stop(): Promise<void>;
    /** What the process has printed (stdout and stderr), for a failing test's message. */
    output(): string;
}

export interface StartOptions {
    /** Wait for the demo seed to be written (the first process on a fresh database writes it). */
    waitForSeed?: boolean;
    /** Wait for the AMQP line (AMQP_PORT 0). */
    amqp?: boolean;
    /** Extra environment (REDIS_URL, ...). */
    env?: Record<string, string>;
    /** A data directory to reuse (a restart); else a fresh one. */
    dataDir?: string;
}

export function createCluster(prefix: string) {
    const database = `${prefix}_${Math.random().toString(36).slice(2, 10)}`;
    const procs: ServerProcess[] = [];
    const dirs: string[] = [];
    let created = false;

    const databaseUrl = () => {
        const u = new URL(PG_URL);
        u.pathname = `/${database}`;
        return u.toString();
    };

    async function admin(query: string) {
        const client = new pg.Client({ connectionString: PG_URL });
        await client.connect();
        try {
            await client.query(query);
        } finally {
            await client.end();
        }
    }

    async function start(opts: StartOptions = {}): Promise<ServerProcess> {
        if (!created) {
            await admin(`CREATE DATABASE ${database}`);
            created = true;
        }
        const dataDir = opts.dataDir ?? mkdtempSync(path.join(os.tmpdir(), `${prefix}-`));
        dirs.push(dataDir);
        const child = spawn(process.execPath, ['--import', 'tsx', 'server/index.ts'], {
            cwd: ROOT,
            env: {
                ...process.env,
                PORT: '0',
                HOST: '127.0.0.1',
                MQTT_PORT: '0',
                AMQP_PORT: '0',
                SIP_PORT: '0',
                // TLS listeners on free ports too (8443/8883/5671 may be another run's).
                HTTPS_PORT: '0',
                MQTTS_PORT: '0',
                AMQPS_PORT: '0',
                DATA_DIR: dataDir,
                DATABASE_URL: databaseUrl(),
                REDIS_URL: '',
                ADMIN_PASSWORD: PASSWORD,
                SEED_DEMO: '1',
                ...opts.env,
            },
            stdio: ['ignore', 'pipe', 'pipe'],
        });
        let url = '';
        let mqttPort = 0;
        let amqpPort = 0;
        let output = '';
        child.stderr!.on('data', (d) => (output += String(d)));
        const lines = createInterface({ input: child.stdout! }).on('line', (line) => (output += line + '\n'));
        await new Promise<void>((resolve, reject) => {
            const timer = setTimeout(() => reject(new Error(`server did not start:\n${output}`)), 90_000);
            lines.on('line', (line) => {
                url ||= /控制台: (http:\/\/\S+?)\/?$/.exec(line)?.[1] ?? '';
                mqttPort ||= Number(/MQTT: mqtt:\/\/[^:]+:(\d+)/.exec(line)?.[1] ?? 0);
                amqpPort ||= Number(/AMQP: amqp:\/\/[^:]+:(\d+)/.exec(line)?.[1] ?? 0);
                const seeded = !opts.waitForSeed || line.includes('已写入演示数据');
                if (url && mqttPort && (amqpPort || !opts.amqp) && seeded) {
                    clearTimeout(timer);
                    resolve();
                }
            });
            child.once('exit', (code) => reject(new Error(`server exited (${code}):\n${output}`)));
        });
        const login = await fetch(`${url}/sso/login`, {
            method: 'POST',
            body: new URLSearchParams({ username: 'admin', password: PASSWORD }),
            redirect: 'manual',
        });
        const cookie = login.headers.get('set-cookie')!.split(';')[0];
        const exited = new Promise<void>((r) => (child.exitCode !== null ? r() : child.once('exit', () => r())));
        const proc: ServerProcess = {
            child,
            url,
            mqttPort,
            amqpPort,
            cookie,
            async api(method, target, body, json) {
                const res = await fetch(`${url}${target}`, {
                    method,
                    headers: json ? { cookie, 'content-type': 'application/json' } : { cookie },
                    body: !body
                        ? undefined
                        : json
                          ? JSON.stringify(body)
                          : new URLSearchParams(Object.entries(body).map(([k, v]) => [k, String(v)])),
                });
                return (await res.json()) as { code: number; msg?: string; data: Record<string, unknown> };
            },
            async stop() {
                if (child.exitCode === null) child.kill('SIGTERM');
                await exited;
            },
            output: () => output,
        };
        procs.push(proc);
        return proc;
    }

    async function close() {
        await Promise.all(procs.map((p) => p.stop()));
        for (const d of new Set(dirs)) rmSync(d, { recursive: true, force: true });
        if (created) await admin(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    }

    return { start, close, database };
}
