import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { eq, sql } from 'drizzle-orm';
import { createApp } from '../../server/app';
import { loadConfig } from '../../server/config';
import { openDatabase } from '../../server/db/client';
import { categories, users } from '../../server/db/schema';
import { seedDatabase } from '../../server/seed';
import { createSession } from '../../server/sso/sessions';
import { ensureAdmin } from '../../server/sso/users';
import { compiled } from './compiled';
import type { BenchGroup, Figure } from './run';

const ROOT = path.resolve(import.meta.dirname, '../..');
const PRODUCTS = 100_000;
const SAMPLES = 200;

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

/** Milliseconds from spawning `server/index.ts`, bundled as `npm start` runs it, until it answers the sign-on page. */
async function timeToFirstAnswer(dataDir: string): Promise<number> {
    const port = await freePort();
    const { DATABASE_URL: _ignored, ...env } = process.env;
    const entry = await compiled('server/index.ts');
    const started = performance.now();
    const child = spawn(process.execPath, [entry], {
        cwd: ROOT,
        env: { ...env, DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', ADMIN_PASSWORD: 'bench_password' },
        stdio: 'ignore',
    });
    const exited = new Promise((resolve) => child.on('exit', resolve));
    try {
        for (;;) {
            if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`);
            if (performance.now() - started > 120_000) throw new Error('server did not answer within 120 s');
            const ok = await fetch(`http://127.0.0.1:${port}/sso/login`)
                .then((r) => r.status === 200)
                .catch(() => false);
            if (ok) return Math.round(performance.now() - started);
            await new Promise((r) => setTimeout(r, 25));
        }
    } finally {
        child.kill('SIGTERM');
        await exited;
    }
}

function percentile(sorted: number[], p: number): number {
    const i = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
    return Math.round(sorted[i] * 100) / 100;
}

async function latencies(fetchOnce: () => Promise<Response>): Promise<{ p50: number; p95: number }> {
    for (let i = 0; i < 10; i++) await (await fetchOnce()).arrayBuffer();
    const times: number[] = [];
    for (let i = 0; i < SAMPLES; i++) {
        const t = performance.now();
        const res = await fetchOnce();
        await res.arrayBuffer();
        times.push(performance.now() - t);
        if (res.status !== 200) throw new Error(`answer ${res.status}`);
    }
    times.sort((a, b) => a - b);
    return { p50: percentile(times, 50), p95: percentile(times, 95) };
}

/** Product list through the whole app (auth, query, envelope) over an in-memory PGlite with 100,000 products. */
async function productList(): Promise<Figure[]> {
    const handle = await openDatabase();
    try {
        await ensureAdmin(handle.db, 'bench_password');
        await seedDatabase(handle.db, { demo: false });
        const [leaf] = await handle.db.select().from(categories).where(eq(categories.level, 3)).limit(1);
        const insertStart = performance.now();
        await handle.db.execute(sql`
            INSERT INTO products (product_key, product_name, node_type, gateway_type, category_id, network_type, data_type, create_time)
            SELECT 'K' || lpad(g::text, 10, '0'), '智能设备_' || g, g % 2, 0, ${leaf.id}, 5, 0,
                   now() - make_interval(secs => g)
            FROM generate_series(1, ${PRODUCTS}) AS g`);
        await handle.db.execute(sql`ANALYZE products`);
        const insertMs = Math.round(performance.now() - insertStart);

        const app = createApp({ db: handle.db, config: loadConfig({}) });
        const [admin] = await handle.db.select().from(users).limit(1);
        const token = await createSession(handle.db, admin.id, new Date());
        const get = (q: string) => () =>
            Promise.resolve(app.request(`/api/product?${q}`, { headers: { authorization: token } }));

        const page1 = await latencies(get('pageNumber=1&pageSize=10'));
        const search = await latencies(get(`pageNumber=1&pageSize=10&productName=${encodeURIComponent('设备_4242')}`));
        const last = await latencies(get(`pageNumber=${PRODUCTS / 10}&pageSize=10`));
        return [
            { name: 'products_insert_100k', value: insertMs, unit: 'ms' },
            { name: 'product_list_page1_p50', value: page1.p50, unit: 'ms' },
            { name: 'product_list_page1_p95', value: page1.p95, unit: 'ms' },
            { name: 'product_list_search_p50', value: search.p50, unit: 'ms' },
            { name: 'product_list_search_p95', value: search.p95, unit: 'ms' },
            { name: 'product_list_last_page_p50', value: last.p50, unit: 'ms' },
            { name: 'product_list_last_page_p95', value: last.p95, unit: 'ms' },
        ];
    } finally {
        await handle.close();
    }
}

const group: BenchGroup = {
    name: 'server',
    async run() {
        const dataDir = mkdtempSync(path.join(os.tmpdir(), 'iot-bench-'));
        try {
            const cold = await timeToFirstAnswer(dataDir);
            const warm = await timeToFirstAnswer(dataDir);
            return [
                { name: 'cold_start_empty_data_dir', value: cold, unit: 'ms' },
                { name: 'start_existing_data_dir', value: warm, unit: 'ms' },
                ...(await productList()),
            ];
        } finally {
            rmSync(dataDir, { recursive: true, force: true });
        }
    },
};

export default group;
