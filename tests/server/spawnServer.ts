import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { serverCommand } from '../serverBundle';
import { spawnPlatform, type ServerProcess, type StartOptions } from './serverProcess';

export type { ServerProcess, StartOptions } from './serverProcess';

/**
 * Server processes of their own (server/index.ts) on one PostgreSQL database made for the test, for the tests of
 * several processes acting as one platform (mqttCluster, amqpCluster, rulesCluster). Each process takes free ports,
 * a data directory of its own and signs in as admin; `close()` stops them and drops the database.
 */

export const PG_URL = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
const ROOT = path.resolve(import.meta.dirname, '../..');

/** HAProxy, for the clusters behind docs/deployment/haproxy.cfg (clusterFailover, tests/chaos). */
export const HAPROXY = '/usr/sbin/haproxy';
const HAPROXY_CONFIG = path.resolve(ROOT, 'docs/deployment/haproxy.cfg');

/**
 * CI sets REQUIRE_SERVICES=1 (E2E_REQUIRED also counts): a test that needs PostgreSQL, Redis or HAProxy then fails
 * when one is missing instead of being skipped, so a required test never lands as skipped.
 */
export const SERVICES_REQUIRED = Boolean(process.env.REQUIRE_SERVICES || process.env.E2E_REQUIRED);

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

export function tcpReachable(serviceUrl: string, defaultPort: number): Promise<boolean> {
    const u = new URL(serviceUrl);
    return new Promise((resolve) => {
        const socket = net.connect(Number(u.port || defaultPort), u.hostname, () => (socket.end(), resolve(true)));
        socket.setTimeout(2000, () => (socket.destroy(), resolve(false)));
        socket.once('error', () => resolve(false));
    });
}

/**
 * Whether the services a file needs are here: true when all are; false (the file skips) when one is missing and
 * services are not required; throws, naming what is missing, when they are (REQUIRE_SERVICES, E2E_REQUIRED).
 */
export async function servicesAvailable(
    file: string,
    needs: { postgres?: boolean; redisUrl?: string; haproxy?: boolean },
): Promise<boolean> {
    const missing: string[] = [];
    if (needs.postgres && !(await postgresReachable())) missing.push(`PostgreSQL (${PG_URL})`);
    if (needs.redisUrl && !(await tcpReachable(needs.redisUrl, 6379))) missing.push(`Redis (${needs.redisUrl})`);
    if (needs.haproxy && !existsSync(HAPROXY)) missing.push(`haproxy (${HAPROXY}: apt-get install -y haproxy)`);
    if (!missing.length) return true;
    const message = `${file}: ${missing.join(', ')} not reachable`;
    if (SERVICES_REQUIRED) throw new Error(`${message}, and REQUIRE_SERVICES is set (CI)`);
    console.warn(`${message}: skipped`);
    return false;
}

export function freePort(): Promise<number> {
    return new Promise((resolve, reject) => {
        const s = net.createServer();
        s.once('error', reject);
        s.listen(0, '127.0.0.1', () => {
            const port = (s.address() as { port: number }).port;
            s.close(() => resolve(port));
        });
    });
}

export interface Haproxy {
    child: ChildProcess;
    http: number;
    mqtt: number;
    stats: number;
    /** Each backend server's status by `backend/server` (console/node1: UP, mqtt/node2: DOWN ...). */
    status(): Promise<Map<string, string>>;
    /** Whether the named nodes (1-based) are UP in both backends. */
    allUp(which?: number[]): Promise<boolean>;
    log(): string;
    stop(): void;
}

/**
 * HAProxy with docs/deployment/haproxy.cfg itself in front of three processes (their HTTP and MQTT ports, in order),
 * on free ports of its own.
 */
export async function startHaproxy(nodes: Array<{ http: number; mqtt: number }>): Promise<Haproxy> {
    const [http, mqtt, stats] = [await freePort(), await freePort(), await freePort()];
    const child = spawn(HAPROXY, ['-db', '-f', HAPROXY_CONFIG], {
        env: {
            ...process.env,
            LB_HTTP_BIND: `127.0.0.1:${http}`,
            LB_MQTT_BIND: `127.0.0.1:${mqtt}`,
            LB_STATS_BIND: `127.0.0.1:${stats}`,
            ...Object.fromEntries(
                nodes.flatMap((n, i) => [
                    [`NODE${i + 1}_ADDR`, '127.0.0.1'],
                    [`NODE${i + 1}_HTTP`, String(n.http)],
                    [`NODE${i + 1}_MQTT`, String(n.mqtt)],
                ]),
            ),
        },
        stdio: ['ignore', 'pipe', 'pipe'],
    });
    let log = '';
    child.stdout!.on('data', (d) => (log += String(d)));
    child.stderr!.on('data', (d) => (log += String(d)));
    async function status(): Promise<Map<string, string>> {
        const res = await fetch(`http://127.0.0.1:${stats}/stats;csv`);
        const [header, ...lines] = (await res.text()).trim().split('\n');
        const cols = header.replace(/^# /, '').split(',');
        const at = (name: string) => cols.indexOf(name);
        const out = new Map<string, string>();
        for (const line of lines) {
            const c = line.split(',');
            out.set(`${c[at('pxname')]}/${c[at('svname')]}`, c[at('status')]);
        }
        return out;
    }
    return {
        child,
        http,
        mqtt,
        stats,
        status,
        async allUp(which = nodes.map((_, i) => i + 1)) {
            const s = await status().catch(() => new Map<string, string>());
            return which.every((n) => s.get(`console/node${n}`) === 'UP' && s.get(`mqtt/node${n}`) === 'UP');
        },
        log: () => log,
        stop: () => void child.kill('SIGTERM'),
    };
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
        const proc = await spawnPlatform(
            serverCommand(),
            { DATA_DIR: dataDir, DATABASE_URL: databaseUrl(), REDIS_URL: '', SEED_DEMO: '1', ...opts.env },
            opts,
        );
        procs.push(proc);
        return proc;
    }

    async function close() {
        await Promise.all(procs.map((p) => p.stop()));
        for (const d of new Set(dirs)) rmSync(d, { recursive: true, force: true });
        if (created) await admin(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    }

    return { start, close, database, databaseUrl };
}
