import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { eq, sql } from 'drizzle-orm';
import { openDatabase, type Db } from '../../server/db/client';
import { categories, products } from '../../server/db/schema';
import { seedDatabase } from '../../server/seed';
import { ensureAdmin } from '../../server/sso/users';
import type { BenchGroup, Figure } from './run';
import { compiled } from './compiled';
import { cpuMsOf, threadCpuMs } from './procStat';

const ROOT = path.resolve(import.meta.dirname, '../..');
/** The issue measured 800,000; loading that takes minutes here, so 100,000 unless API_BENCH_DEVICES says. */
const DEVICES = Number(process.env.API_BENCH_DEVICES ?? 100_000);
const CLIENTS = Number(process.env.API_BENCH_CLIENTS ?? 200);
const SECONDS = Number(process.env.API_BENCH_SECONDS ?? 20);
/** Seconds of load before the figures are kept (API_BENCH_WARMUP): the server's JIT compiles its hot code meanwhile. */
const WARMUP_SECONDS = Number(process.env.API_BENCH_WARMUP ?? 3);
const PRODUCTS = 10;
const PASSWORD = 'Bench_123456';

function freePort(): Promise<number> {
    return new Promise((resolve, reject) => {
        const probe = createServer();
        probe.once('error', reject);
        probe.listen(0, '127.0.0.1', () => {
            const { port } = probe.address() as { port: number };
            probe.close(() => resolve(port));
        });
    });
}

/** DEVICES devices over ten products in one INSERT ... SELECT, on top of the demo seed (projects and groups). */
async function fill(db: Db): Promise<string[]> {
    const [leaf] = await db.select().from(categories).where(eq(categories.level, 3)).limit(1);
    const rows = await db
        .insert(products)
        .values(
            Array.from({ length: PRODUCTS }, (_, i) => ({
                productKey: `ApiBench${String(i).padStart(2, '0')}`,
                productName: `接口压测产品_${i}`,
                nodeType: 0,
                categoryId: leaf.id,
                networkType: 5,
                dataType: 0,
            })),
        )
        .returning({ id: products.id, productKey: products.productKey });
    await db.execute(sql`
        INSERT INTO devices (product_id, device_name, status, enabled, username, client_id, secret, longitude, latitude)
        SELECT ${rows[0].id} + g % ${PRODUCTS}, 'api' || lpad(g::text, 7, '0'),
               -- no ONLINE: a start marks those OFFLINE (markLeftOnline), work the first session's start would do alone
               (ARRAY['OFFLINE', 'INACTIVE'])[1 + g % 2], true,
               'api' || g || '&ApiBench', 'ApiBench.api' || g, md5(g::text),
               CASE WHEN g % 2 = 0 THEN 100 + (g % 3000) / 100.0 END, CASE WHEN g % 2 = 0 THEN 25 + (g % 2000) / 100.0 END
        FROM generate_series(1, ${DEVICES}) AS g`);
    await db.execute(sql`VACUUM (ANALYZE)`);
    return rows.map((r) => r.productKey);
}

function spawnServer(args: string[], env: Record<string, string>): { child: ChildProcess; output: () => string } {
    const { DATABASE_URL: _ignored, ...parent } = process.env;
    const child = spawn(process.execPath, args, {
        cwd: ROOT,
        env: { ...parent, HOST: '127.0.0.1', ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
    });
    let text = '';
    child.stdout!.on('data', (d) => (text += d));
    child.stderr!.on('data', (d) => (text += d));
    return { child, output: () => text };
}

async function waitFor(url: string, child: ChildProcess, output: () => string) {
    const deadline = Date.now() + 120_000;
    for (;;) {
        if (child.exitCode !== null) throw new Error(`server exited: ${output()}`);
        if (Date.now() > deadline) throw new Error(`server did not answer: ${output()}`);
        const ok = await fetch(url)
            .then((r) => r.ok)
            .catch(() => false);
        if (ok) return;
        await new Promise((r) => setTimeout(r, 50));
    }
}

const rssOf = (pid: number) => {
    const line = readFileSync(`/proc/${pid}/status`, 'utf8')
        .split('\n')
        .find((l) => l.startsWith('VmRSS:'));
    return Math.round(Number(line?.split(/\s+/)[1] ?? 0) / 1024);
};

/**
 * The load generator's client: node:http over keep-alive connections (one per client at most), asking for gzip as a
 * browser (and fetch) does. fetch (undici's WHATWG layer) cost this process 0.13 ms of CPU per bare Hono request and
 * about 0.4 ms per request of the mix, on the same two cores as the server; this client about 0.03 ms per bare
 * request. Every server in the run is measured with it.
 */
const agent = new http.Agent({ keepAlive: true, maxSockets: CLIENTS });
function request(
    url: string,
    init: { method?: string; headers?: Record<string, string>; body?: URLSearchParams } = {},
): Promise<{ status: number; text: string }> {
    return new Promise((resolve, reject) => {
        const body = init.body?.toString();
        const headers: Record<string, string> = { 'accept-encoding': 'gzip, deflate, br', ...init.headers };
        if (body !== undefined) {
            headers['content-type'] = 'application/x-www-form-urlencoded;charset=UTF-8';
            headers['content-length'] = String(Buffer.byteLength(body));
        }
        const req = http.request(url, { method: init.method ?? 'GET', headers, agent }, (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (chunk: Buffer) => chunks.push(chunk));
            res.on('end', () => {
                try {
                    const bytes = Buffer.concat(chunks);
                    const encoding = res.headers['content-encoding'];
                    if (encoding && encoding !== 'gzip') throw new Error(`unexpected content-encoding ${encoding}`);
                    const text = (encoding ? gunzipSync(bytes) : bytes).toString('utf8');
                    resolve({ status: res.statusCode ?? 0, text });
                } catch (err) {
                    reject(err as Error);
                }
            });
            res.on('error', reject);
        });
        req.on('error', reject);
        req.end(body);
    });
}

interface Load {
    requests: number;
    errors: number;
    perSecond: number;
    p50: number;
    p99: number;
    /** The longest time no answer at all came back (every client waiting at once). */
    stall: number;
    /** Every request answered, the warm-up's included. */
    answered: number;
    /** p50 and p99 of each kind of request (when the load names them). */
    byKind: Array<{ kind: string; p50: number; p99: number }>;
}

/**
 * CLIENTS clients, each sending its next request as soon as the last is answered, for WARMUP + SECONDS; latencies
 * and answer times are kept after the warm-up.
 */
async function load(
    next: (client: number) => () => Promise<boolean>,
    kindOf?: (client: number) => string,
    /** Called once when the warm-up ends (where the kept figures start). */
    onMeasure?: () => void,
): Promise<Load> {
    const started = performance.now();
    const measureFrom = started + WARMUP_SECONDS * 1000;
    const until = measureFrom + SECONDS * 1000;
    const latencies: number[] = [];
    const answeredAt: number[] = [];
    const byKind = new Map<string, number[]>();
    let errors = 0;
    let answered = 0;
    const measureTimer = setTimeout(() => onMeasure?.(), Math.max(0, measureFrom - performance.now()));
    await Promise.all(
        Array.from({ length: CLIENTS }, async (_, client) => {
            while (performance.now() < until) {
                const t = performance.now();
                const ok = await next(client)().catch(() => false);
                const done = performance.now();
                answered++;
                if (t < measureFrom) continue;
                latencies.push(done - t);
                answeredAt.push(done);
                if (kindOf) {
                    const kind = kindOf(client);
                    if (!byKind.has(kind)) byKind.set(kind, []);
                    byKind.get(kind)!.push(done - t);
                }
                if (!ok) errors++;
            }
        }),
    );
    clearTimeout(measureTimer);
    latencies.sort((a, b) => a - b);
    answeredAt.sort((a, b) => a - b);
    let stall = 0;
    for (let i = 1; i < answeredAt.length; i++) stall = Math.max(stall, answeredAt[i] - answeredAt[i - 1]);
    const quantile = (sorted: number[], p: number) =>
        Math.round(sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)]);
    const at = (p: number) => quantile(latencies, p);
    const seconds = (answeredAt[answeredAt.length - 1] - measureFrom) / 1000;
    return {
        requests: latencies.length,
        errors,
        perSecond: Math.round(latencies.length / seconds),
        p50: at(0.5),
        p99: at(0.99),
        stall: Math.round(stall),
        answered,
        byKind: [...byKind].map(([kind, times]) => {
            times.sort((a, b) => a - b);
            return { kind, p50: quantile(times, 0.5), p99: quantile(times, 0.99) };
        }),
    };
}

/**
 * `npm run bench -- api`: the issue's mix (90% reads across products, device pages, device detail, dashboard
 * counts, projects and groups, the menu; 10% device create + delete) from CLIENTS concurrent clients against one
 * `server/index.ts` process over DEVICES devices, and the same clients against a bare Hono endpoint in its own
 * process on this machine, in the same run. The load generator shares the machine's cores with the server.
 */
const group: BenchGroup = {
    name: 'api',
    async run() {
        const figures: Figure[] = [];
        const add = (name: string, value: number, unit: string) => figures.push({ name, value, unit });
        const add4 = (prefix: string, r: Load) => {
            add(`${prefix}_requests_per_second`, r.perSecond, 'req/s');
            add(`${prefix}_p50`, r.p50, 'ms');
            add(`${prefix}_p99`, r.p99, 'ms');
            add(`${prefix}_largest_stall`, r.stall, 'ms');
            add(`${prefix}_errors`, r.errors, 'requests');
        };
        add('devices', DEVICES, 'devices');
        add('clients', CLIENTS, 'clients');

        // The anchor: a bare Hono endpoint in a process of its own.
        const barePort = await freePort();
        const bare = spawnServer(
            [
                '--input-type=module',
                '-e',
                `import { Hono } from 'hono'; import { serve } from '@hono/node-server';
                 const app = new Hono(); app.get('/ping', (c) => c.json({ code: 200, msg: 'success', data: null }));
                 serve({ fetch: app.fetch, port: ${barePort}, hostname: '127.0.0.1' });`,
            ],
            {},
        );
        try {
            const url = `http://127.0.0.1:${barePort}/ping`;
            await waitFor(url, bare.child, bare.output);
            const clientBefore = process.cpuUsage();
            const bareLoad = await load(() => () => request(url).then((r) => r.status === 200));
            const client = process.cpuUsage(clientBefore);
            add4('bare_hono', bareLoad);
            const perRequest = (client.user + client.system) / 1000 / bareLoad.answered;
            add('bare_hono_client_cpu_per_request', Math.round(perRequest * 100) / 100, 'ms');
        } finally {
            bare.child.kill('SIGTERM');
        }

        const dataDir = mkdtempSync(path.join(os.tmpdir(), 'iot-bench-api-'));
        let server: ReturnType<typeof spawnServer> | undefined;
        try {
            let t = performance.now();
            const handle = await openDatabase({ pgliteDir: path.join(dataDir, 'pgdata') });
            await ensureAdmin(handle.db, PASSWORD);
            await seedDatabase(handle.db, { demo: true });
            const productKeys = await fill(handle.db);
            await handle.close();
            add('fill', Math.round(performance.now() - t), 'ms');

            // One server at a time on the same data: the database on the main thread (PGLITE_WORKER=0), then in a
            // worker thread (the default, figures prefixed worker_).
            const session = async (prefix: string, env: Record<string, string>) => {
                const port = await freePort();
                const base = `http://127.0.0.1:${port}`;
                // API_PROFILE=DIR: the server's CPU profiles (one .cpuprofile per thread: main, the database's worker,
                // written when it stops) under DIR/<session>/, with mix.json: the mix's start and end on the profiles'
                // clock (µs), to read the mix alone; and statements.json, the database thread's time per statement
                // (tests/bench/statements.ts reads it).
                const profileDir = process.env.API_PROFILE && path.resolve(process.env.API_PROFILE, prefix || 'main_');
                if (profileDir) mkdirSync(profileDir, { recursive: true });
                const profile = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
                const micros = () => Number(process.hrtime.bigint() / 1000n);
                // The server bundled as `npm start` runs it (compiled.ts), not through tsx.
                // API_BENCH_NODE_ARGS: node options for the server alone (e.g. --trace-gc, with API_BENCH_LOG=FILE).
                const nodeArgs = (process.env.API_BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
                server = spawnServer([...nodeArgs, ...profile, await compiled('server/index.ts')], {
                    ...env,
                    ...(profileDir ? { PGLITE_STATS: path.join(profileDir, 'statements.json') } : {}),
                    DATA_DIR: dataDir,
                    PORT: String(port),
                    ADMIN_PASSWORD: PASSWORD,
                    PUBLIC_DIR: path.join(os.tmpdir(), 'no-console-build'),
                });
                t = performance.now();
                await waitFor(`${base}/sso/login`, server.child, server.output);
                add(`${prefix}start_with_devices`, Math.round(performance.now() - t), 'ms');
                const login = await fetch(`${base}/sso/login`, {
                    method: 'POST',
                    body: new URLSearchParams({ username: 'admin', password: PASSWORD }),
                    redirect: 'manual',
                });
                const cookie = login.headers.get('set-cookie')?.split(';')[0];
                if (!cookie) throw new Error(`sign-in failed: ${login.status}`);
                const headers = { cookie, origin: base };
                const get = (target: string) => () =>
                    request(`${base}${target}`, { headers }).then((r) => {
                        const body = JSON.parse(r.text) as { code?: number; returnCode?: string };
                        return r.status === 200 && (body.code === 200 || body.code === 0 || body.returnCode === '1111');
                    });
                const newest = (await (
                    await fetch(`${base}/api/device/list?pageNumber=1&pageSize=1`, { headers })
                ).json()) as {
                    data: { records: Array<{ deviceId: number }> };
                };
                const firstDevice = newest.data.records[0].deviceId;
                let serial = 0;
                const createDelete = () => async () => {
                    const body = new URLSearchParams({
                        productKey: productKeys[serial % PRODUCTS],
                        deviceName: `ld_${serial++}`,
                    });
                    const saved = JSON.parse(
                        (await request(`${base}/api/device/save`, { method: 'POST', headers, body })).text,
                    ) as {
                        code: number;
                        data?: { deviceId: number };
                    };
                    if (saved.code !== 0 || !saved.data) return false;
                    const removed = await request(`${base}/api/device?deviceId=${saved.data.deviceId}`, {
                        method: 'DELETE',
                        headers,
                    });
                    return removed.status === 200 && (JSON.parse(removed.text) as { code: number }).code === 0;
                };
                const reads: Array<(client: number) => () => Promise<boolean>> = [
                    () => get('/api/product?pageNumber=1&pageSize=10'),
                    (c) => get(`/api/device/list?pageNumber=${1 + (c % 50)}&pageSize=10`),
                    (c) =>
                        get(
                            `/api/device/list?pageNumber=${1 + (c % 20)}&pageSize=10&productKey=${productKeys[c % PRODUCTS]}`,
                        ),
                    (c) => get(`/api/device/detail?deviceId=${firstDevice - (c % 1000)}`),
                    () => get('/api/dashboard/count'),
                    () => get('/api/device/total'),
                    () => get('/api/project/list?page=1&size=10'),
                    () => get('/api/group/list?pageNumber=1&pageSize=10'),
                    () => get('/api/menu'),
                ];
                // One client alone, each call 20 times (the median): what a request costs without a queue.
                const names = ['product', 'device_page', 'device_page_product', 'device_detail', 'dashboard_count'];
                names.push('device_total', 'project_list', 'group_list', 'menu');
                for (const [i, read] of reads.entries()) {
                    const times: number[] = [];
                    for (let k = 0; k < 20; k++) {
                        const t0 = performance.now();
                        if (!(await read(k)())) throw new Error(`${names[i]} failed`);
                        times.push(performance.now() - t0);
                    }
                    times.sort((a, b) => a - b);
                    add(`${prefix}single_client_${names[i]}`, Math.round(times[10] * 10) / 10, 'ms');
                }
                const times: number[] = [];
                for (let k = 0; k < 20; k++) {
                    const t0 = performance.now();
                    if (!(await createDelete()())) throw new Error('create+delete failed');
                    times.push(performance.now() - t0);
                }
                add(
                    `${prefix}single_client_create_delete`,
                    Math.round(times.sort((a, b) => a - b)[10] * 10) / 10,
                    'ms',
                );

                let n = 0;
                const kinds: string[] = [];
                const mix = (client: number) => {
                    n++;
                    kinds[client] = n % 10 === 0 ? 'create_delete' : names[n % reads.length];
                    if (n % 10 === 0) return createDelete();
                    return reads[n % reads.length](client);
                };
                const rssBefore = rssOf(server.child.pid!);
                const cpuBefore = cpuMsOf(server.child.pid!);
                const threadsBefore = threadCpuMs(server.child.pid!);
                const clientBefore = process.cpuUsage();
                const mixFrom = micros();
                let steadyCpu = 0;
                const mixed = await load(
                    mix,
                    (client) => kinds[client],
                    () => (steadyCpu = cpuMsOf(server!.child.pid!)),
                );
                // The measured part alone (after the warm-up, while the JIT compiles hot code on V8's threads).
                const steadyPerRequest = (cpuMsOf(server.child.pid!) - steadyCpu) / mixed.requests;
                const client = process.cpuUsage(clientBefore);
                const threadsAfter = threadCpuMs(server.child.pid!);
                if (profileDir)
                    writeFileSync(path.join(profileDir, 'mix.json'), JSON.stringify({ from: mixFrom, to: micros() }));
                add4(`${prefix}mix`, mixed);
                for (const { kind, p50, p99 } of mixed.byKind) {
                    add(`${prefix}mix_${kind}_p50`, p50, 'ms');
                    add(`${prefix}mix_${kind}_p99`, p99, 'ms');
                }
                // Less distorted by other work on the machine than requests per second: the server's own CPU time.
                const perRequest = (cpuMsOf(server.child.pid!) - cpuBefore) / mixed.answered;
                add(`${prefix}mix_server_cpu_per_request`, Math.round(perRequest * 100) / 100, 'ms');
                add(`${prefix}mix_measured_server_cpu_per_request`, Math.round(steadyPerRequest * 100) / 100, 'ms');
                // Per thread: the main thread (HTTP), the busiest other one (the database's worker when there is one),
                // and the rest (GC, libuv); and this process's own (the load generator's) CPU.
                const spent = [...threadsAfter].map(([tid, ms]) => ({ tid, ms: ms - (threadsBefore.get(tid) ?? 0) }));
                const mainMs = spent.find((t) => t.tid === String(server!.child.pid))?.ms ?? 0;
                const others = spent.filter((t) => t.tid !== String(server!.child.pid)).sort((a, b) => b.ms - a.ms);
                const per = (ms: number) => Math.round((ms / mixed.answered) * 100) / 100;
                if (process.env.API_BENCH_LOG) writeFileSync(process.env.API_BENCH_LOG, server.output());
                if (process.env.API_BENCH_THREADS)
                    for (const t of spent)
                        console.log(
                            `thread ${t.tid} ${readFileSync(`/proc/${server.child.pid}/task/${t.tid}/comm`, 'utf8').trim()}: ${per(t.ms)} ms/request`,
                        );
                add(`${prefix}mix_main_thread_cpu_per_request`, per(mainMs), 'ms');
                add(`${prefix}mix_busiest_other_thread_cpu_per_request`, per(others[0]?.ms ?? 0), 'ms');
                add(
                    `${prefix}mix_other_threads_cpu_per_request`,
                    per(others.slice(1).reduce((n, t) => n + t.ms, 0)),
                    'ms',
                );
                add(`${prefix}mix_client_cpu_per_request`, per((client.user + client.system) / 1000), 'ms');
                add(`${prefix}server_rss_before`, rssBefore, 'MB');
                add(`${prefix}server_rss_after`, rssOf(server.child.pid!), 'MB');
                const menuCpuBefore = cpuMsOf(server.child.pid!);
                const menuOnly = await load(() => get('/api/menu'));
                add4(`${prefix}menu_only`, menuOnly);
                const menuPerRequest = (cpuMsOf(server.child.pid!) - menuCpuBefore) / menuOnly.answered;
                add(`${prefix}menu_only_server_cpu_per_request`, Math.round(menuPerRequest * 1000) / 1000, 'ms');
                server.child.kill('SIGTERM');
                await new Promise((r) => server!.child.once('exit', r));
                server = undefined;
            };
            // API_BENCH_SESSIONS=worker (or main): only that session.
            const sessions = (process.env.API_BENCH_SESSIONS ?? 'main,worker').split(',');
            if (sessions.includes('main')) await session('', { PGLITE_WORKER: '0' });
            if (sessions.includes('worker')) await session('worker_', { PGLITE_WORKER: '1' });
            return figures;
        } finally {
            server?.child.kill('SIGTERM');
            if (server) await new Promise((r) => server!.child.once('exit', r));
            rmSync(dataDir, { recursive: true, force: true });
        }
    },
};

export default group;
