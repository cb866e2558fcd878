import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { eq, sql } from 'drizzle-orm';
import { createApp } from '../../server/app';
import { loadConfig } from '../../server/config';
import { openDatabase, type Db } from '../../server/db/client';
import { createMaintenance } from '../../server/db/maintenance';
import { categories, products, projects, scenes, users } from '../../server/db/schema';
import { seedDatabase } from '../../server/seed';
import { createSession } from '../../server/sso/sessions';
import { ensureAdmin } from '../../server/sso/users';
import type { BenchGroup, Figure } from './run';

const DEVICES = 1_000_000;
const PRODUCTS = 10;
const SAMPLES = 100;
const IMPORT_ROWS = 100_000;

function percentile(sorted: number[], p: number): number {
    const i = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
    return Math.round(sorted[i] * 100) / 100;
}

const mb = (bytes: number) => Math.round((bytes / 1024 / 1024) * 10) / 10;

/** Peak RSS while `work` runs: sampled on a timer and at every point the work yields. */
async function withPeakRss<T>(work: (sample: () => void) => Promise<T>) {
    const before = process.memoryUsage().rss;
    let peak = before;
    const sample = () => {
        peak = Math.max(peak, process.memoryUsage().rss);
    };
    const timer = setInterval(sample, 10);
    try {
        const result = await work(sample);
        sample();
        return { result, before, peak };
    } finally {
        clearInterval(timer);
    }
}

/** A million devices over ten products, in one INSERT ... SELECT (the counter triggers run once, on the statement). */
export async function fill(db: Db): Promise<{ productKeys: string[]; productIds: number[] }> {
    const [leaf] = await db.select().from(categories).where(eq(categories.level, 3)).limit(1);
    const [scene] = await db.select().from(scenes).limit(1);
    await db.insert(projects).values({ code: 'BENCH01', name: '压测项目', classId: scene.id });
    const rows = await db
        .insert(products)
        .values(
            Array.from({ length: PRODUCTS }, (_, i) => ({
                productKey: `BenchKey${String(i).padStart(3, '0')}`,
                productName: `压测产品_${i}`,
                nodeType: 0,
                categoryId: leaf.id,
                networkType: 5,
                dataType: 0,
            })),
        )
        .returning({ id: products.id, productKey: products.productKey });
    const first = rows[0].id;
    // Statuses 40% online, 30% offline, 25% inactive, 5% disabled; one device in 100 bound to the project.
    await db.execute(sql`
        INSERT INTO devices (product_id, device_name, status, enabled, remark, project_id, username, client_id, secret,
                             longitude, latitude, create_time, last_time, status_time)
        SELECT ${first} + g % ${PRODUCTS}, name, st, st <> 'DISABLE', '压测设备 ' || (g % 1000),
               CASE WHEN g % 100 = 0 THEN (SELECT id FROM projects WHERE code = 'BENCH01') END,
               name || '&BenchKey', 'BenchKey.' || name, md5(g::text),
               121 + (g % 1000) / 1000.0, 31 + (g % 997) / 1000.0,
               now() - make_interval(secs => ${DEVICES} - g),
               CASE WHEN st = 'INACTIVE' THEN NULL ELSE now() END, now()
        FROM (SELECT g, 'dev' || lpad(g::text, 8, '0') AS name,
                     CASE WHEN g % 20 < 8 THEN 'ONLINE' WHEN g % 20 < 14 THEN 'OFFLINE'
                          WHEN g % 20 < 19 THEN 'INACTIVE' ELSE 'DISABLE' END AS st
              FROM generate_series(1, ${DEVICES}) AS g) s`);
    return { productKeys: rows.map((r) => r.productKey), productIds: rows.map((r) => r.id) };
}

async function countersExact(db: Db): Promise<boolean> {
    const result = await db.execute(sql`
        SELECT count(*)::int AS wrong FROM (
            SELECT product_id, status, count(*) AS n FROM devices GROUP BY 1, 2
        ) real FULL JOIN device_counts c USING (product_id, status)
        WHERE coalesce(real.n, 0) <> coalesce(c.total, 0)`);
    return Number((result as unknown as { rows: Array<{ wrong: number }> }).rows[0].wrong) === 0;
}

function importCsv(rows: number): string {
    const lines = ['\uFEFFdeviceName,remark,longitude,latitude,addr'];
    for (let i = 0; i < rows; i++) {
        lines.push(`imp${String(i).padStart(8, '0')},导入设备 ${i},121.${i % 1000},31.${i % 997},上海市浦东新区`);
    }
    return lines.join('\r\n') + '\r\n';
}

const group: BenchGroup = {
    name: 'devices',
    async run() {
        const dir = mkdtempSync(path.join(os.tmpdir(), 'iot-bench-devices-'));
        const handle = await openDatabase({ pgliteDir: path.join(dir, 'pgdata') });
        const figures: Figure[] = [];
        const add = (name: string, value: number, unit: string) => figures.push({ name, value, unit });
        try {
            await ensureAdmin(handle.db, 'bench_password');
            await seedDatabase(handle.db, { demo: false });
            let t = performance.now();
            const { productKeys, productIds } = await fill(handle.db);
            add('insert_1m', Math.round(performance.now() - t), 'ms');
            // What server/db/maintenance.ts does after bulk writes through the app (PGlite runs no autovacuum): a
            // database that grew by imports has had these passes; one filled by raw SQL needs one here.
            t = performance.now();
            await handle.db.execute(sql`VACUUM (ANALYZE) devices`);
            add('vacuum_analyze_1m', Math.round(performance.now() - t), 'ms');
            t = performance.now();
            add('counters_exact_after_insert', (await countersExact(handle.db)) ? 1 : 0, 'bool');
            add('counters_check', Math.round(performance.now() - t), 'ms');

            // Maintenance passes are timed on their own below, not inside the request figures.
            const maintenance = createMaintenance(handle.db, { threshold: Number.MAX_SAFE_INTEGER });
            const app = createApp({ db: handle.db, config: loadConfig({}), maintenance });
            const [admin] = await handle.db.select().from(users).limit(1);
            const token = await createSession(handle.db, admin.id, new Date());
            const request = (target: string, init: RequestInit = {}) =>
                Promise.resolve(app.request(target, { ...init, headers: { ...init.headers, authorization: token } }));

            async function latency(name: string, target: string, samples = SAMPLES) {
                for (let i = 0; i < 5; i++) await (await request(target)).arrayBuffer();
                const times: number[] = [];
                for (let i = 0; i < samples; i++) {
                    const started = performance.now();
                    const res = await request(target);
                    const body = (await res.json()) as { code: number; msg: string };
                    times.push(performance.now() - started);
                    if (body.code !== 0) throw new Error(`${target}: ${body.msg}`);
                }
                times.sort((a, b) => a - b);
                add(`${name}_p50`, percentile(times, 50), 'ms');
                add(`${name}_p95`, percentile(times, 95), 'ms');
            }

            const pk = productKeys[3];
            await latency('list_page1', '/api/device/list?pageNumber=1&pageSize=10');
            await latency('list_page1000', '/api/device/list?pageNumber=1000&pageSize=10');
            await latency('list_product_page1', `/api/device/list?pageNumber=1&pageSize=10&productKey=${pk}`);
            await latency('list_product_page1000', `/api/device/list?pageNumber=1000&pageSize=10&productKey=${pk}`);
            await latency('list_status_online_page1', '/api/device/list?pageNumber=1&pageSize=10&status=ONLINE');
            await latency('list_by_project_page1', `/api/device/listByProject?projectId=1&pageNumber=1&pageSize=10`);
            // Substring search: scans the product's 100,000 devices (a rare name: the worst case, no early stop).
            await latency('search_in_product', `/api/device/list?productKey=${pk}&deviceName=00424243`, 20);
            await latency('search_all_products', `/api/device/list?deviceName=00424243`, 10);
            await latency('statistics', '/api/device/statistics');
            await latency('statistics_product', `/api/device/statistics?productKey=${pk}`);
            await latency('total', '/api/device/total');

            const batch: number[] = [];
            for (let i = 0; i < 3; i++) {
                t = performance.now();
                const res = await request('/api/device/BatchRegisterDevice', {
                    method: 'POST',
                    body: new URLSearchParams({ productId: String(productIds[i]), amount: '10000' }),
                });
                const body = (await res.json()) as { code: number; data: { count: number } };
                batch.push(performance.now() - t);
                if (body.data?.count !== 10_000) throw new Error(`batch: ${JSON.stringify(body)}`);
            }
            batch.sort((a, b) => a - b);
            add('batch_register_10k_median', Math.round(batch[1]), 'ms');
            add('batch_register_10k_max', Math.round(batch[2]), 'ms');

            const csv = importCsv(IMPORT_ROWS);
            add('import_file_size', mb(Buffer.byteLength(csv)), 'MB');
            t = performance.now();
            const imported = await withPeakRss(async () => {
                const form = new FormData();
                form.set('productKey', productKeys[5]);
                form.set('file', new File([csv], 'devices.csv', { type: 'text/csv' }));
                const res = await request('/api/device/import', { method: 'POST', body: form });
                return (await res.json()) as { data: { success: unknown[]; failure: unknown[] } };
            });
            add('import_100k', Math.round(performance.now() - t), 'ms');
            if (imported.result.data?.success.length !== IMPORT_ROWS) throw new Error('import did not write every row');
            add('import_100k_rss_before', mb(imported.before), 'MB');
            add('import_100k_rss_peak_growth', mb(imported.peak - imported.before), 'MB');

            add('counters_exact_after_writes', (await countersExact(handle.db)) ? 1 : 0, 'bool');
            t = performance.now();
            await handle.db.execute(sql`VACUUM (ANALYZE) devices`);
            add('vacuum_analyze_after_writes', Math.round(performance.now() - t), 'ms');

            for (const round of ['first', 'second']) {
                t = performance.now();
                const exported = await withPeakRss(async (sample) => {
                    const res = await request('/api/device/export');
                    let bytes = 0;
                    let lines = 0;
                    const reader = res.body!.getReader();
                    for (;;) {
                        const { done, value } = await reader.read();
                        if (done) break;
                        bytes += value.length;
                        for (const b of value) if (b === 10) lines++;
                        sample();
                    }
                    return { bytes, lines };
                });
                add(`export_all_${round}`, Math.round(performance.now() - t), 'ms');
                add(`export_all_${round}_rows`, exported.result.lines - 1, 'rows');
                add(`export_all_${round}_rss_growth`, mb(exported.peak - exported.before), 'MB');
                if (round === 'first') add('export_size', mb(exported.result.bytes), 'MB');
            }
            return figures;
        } finally {
            await handle.close();
            rmSync(dir, { recursive: true, force: true });
        }
    },
};

export default group;
