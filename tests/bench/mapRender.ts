import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { serve } from '@hono/node-server';
import { eq, sql } from 'drizzle-orm';
import { chromium } from 'playwright-core';
import { build } from 'vite';
import { createApp } from '../../server/app';
import { loadConfig } from '../../server/config';
import { openDatabase, type Db } from '../../server/db/client';
import { categories, products, users } from '../../server/db/schema';
import { seedDatabase } from '../../server/seed';
import { createSession } from '../../server/sso/sessions';
import { ensureAdmin } from '../../server/sso/users';
import type { BenchGroup, Figure } from './run';

const DEVICES = 100_000;
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** [lng, lat, weight]: devices gather around these cities, 0.6° / 0.45° standard spread (as the map harness). */
const CITIES: Array<[number, number, number]> = [
    [116.4, 39.9, 10],
    [121.47, 31.23, 10],
    [113.26, 23.13, 8],
    [114.06, 22.54, 8],
    [104.07, 30.67, 6],
    [106.55, 29.56, 6],
    [120.16, 30.27, 6],
    [118.8, 32.06, 5],
    [114.3, 30.59, 5],
    [108.94, 34.34, 5],
    [117.2, 39.13, 4],
    [113.62, 34.75, 4],
    [112.94, 28.23, 4],
    [126.64, 45.76, 3],
    [123.43, 41.8, 3],
    [87.62, 43.82, 2],
    [91.11, 29.65, 1],
    [102.71, 25.04, 3],
    [110.35, 20.02, 2],
    [103.83, 36.06, 2],
];

/** 100,000 located devices over five products, in one INSERT ... SELECT (deterministic: setseed). */
async function fill(db: Db): Promise<void> {
    const [leaf] = await db.select().from(categories).where(eq(categories.level, 3)).limit(1);
    const rows = await db
        .insert(products)
        .values(
            Array.from({ length: 5 }, (_, i) => ({
                productKey: `MapBench${String(i).padStart(3, '0')}`,
                productName: `地图压测产品_${i}`,
                nodeType: 0,
                categoryId: leaf.id,
                networkType: 5,
                dataType: 0,
            })),
        )
        .returning({ id: products.id });
    const first = rows[0].id;
    // One row per weight unit, so a uniform pick over the expanded list follows the weights.
    const cities = CITIES.flatMap(([lng, lat, w]) => Array.from({ length: w }, () => `(${lng}, ${lat})`)).join(',');
    await db.execute(sql`SELECT setseed(0.42)`);
    await db.execute(sql`
        WITH city (lng, lat) AS (VALUES ${sql.raw(cities)}),
             picked AS (SELECT array_agg(lng) AS lngs, array_agg(lat) AS lats, count(*) AS n FROM city)
        INSERT INTO devices (product_id, device_name, status, enabled, username, client_id, secret, longitude, latitude)
        SELECT ${first} + g % 5, 'map' || lpad(g::text, 7, '0'), st, st <> 'DISABLE',
               'map' || g || '&MapBench', 'MapBench.map' || g, md5(g::text),
               round((p.lngs[c] + sqrt(-2 * ln(greatest(random(), 1e-9))) * cos(2 * pi() * random()) * 0.6)::numeric, 6),
               round((p.lats[c] + sqrt(-2 * ln(greatest(random(), 1e-9))) * cos(2 * pi() * random()) * 0.45)::numeric, 6)
        FROM (SELECT g, 1 + floor(random() * (SELECT n FROM picked))::int AS c,
                     CASE WHEN g % 5 < 2 THEN 'ONLINE' WHEN g % 5 = 2 THEN 'OFFLINE'
                          WHEN g % 5 = 3 THEN 'INACTIVE' ELSE 'DISABLE' END AS st
              FROM generate_series(1, ${DEVICES}) AS g) s, picked p`);
}

const round = (n: number) => Math.round(n);
const mb = (bytes: number) => Math.round((bytes / 1024 / 1024) * 100) / 100;

interface Load {
    firstRender: number;
    countsAnswered: number;
    lonLat: { start: number; responseStart: number; end: number; encoded: number; decoded: number };
    points: number;
}

/**
 * The dashboard map's first render with 100,000 located devices in Chromium (WebGL through SwiftShader): the
 * console built into a temporary directory and served by the platform (PGlite) on a free port, /introduce opened
 * with a session, cold and then warm (assets cached). First render = the frame DeviceMap marks with
 * data-first-render: the devices source loaded and the map idle with the clusters drawn.
 */
const group: BenchGroup = {
    name: 'mapRender',
    async run() {
        const dir = mkdtempSync(path.join(os.tmpdir(), 'iot-bench-map-'));
        const outDir = path.join(dir, 'dist');
        const handle = await openDatabase({ pgliteDir: path.join(dir, 'pgdata') });
        const figures: Figure[] = [];
        const add = (name: string, value: number, unit: string) => figures.push({ name, value, unit });
        let http: ReturnType<typeof serve> | undefined;
        let browser: Awaited<ReturnType<typeof chromium.launch>> | undefined;
        try {
            let t = performance.now();
            await build({ configFile: path.resolve('vite.config.ts'), logLevel: 'error', build: { outDir } });
            add('console_build', round(performance.now() - t), 'ms');

            await ensureAdmin(handle.db, 'bench_password');
            await seedDatabase(handle.db, { demo: false });
            t = performance.now();
            await fill(handle.db);
            await handle.db.execute(sql`VACUUM (ANALYZE) devices`);
            add('insert_100k_located', round(performance.now() - t), 'ms');

            const app = createApp({ db: handle.db, config: { ...loadConfig({}), publicDir: outDir } });
            const [admin] = await handle.db.select().from(users).limit(1);
            const token = await createSession(handle.db, admin.id, new Date());
            http = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' });
            await new Promise<void>((resolve) => http!.once('listening', () => resolve()));
            const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;

            browser = await chromium.launch({
                executablePath: CHROMIUM,
                headless: true,
                args: [
                    '--no-sandbox',
                    '--disable-background-networking',
                    '--disable-component-update',
                    '--no-first-run',
                    '--enable-unsafe-swiftshader',
                    '--use-angle=swiftshader',
                    '--ignore-gpu-blocklist',
                ],
            });
            const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, locale: 'zh-CN' });
            await context.addCookies([{ name: 'Authorization', value: token, url }]);
            const page = await context.newPage();
            const errors: string[] = [];
            page.on('pageerror', (e) => errors.push(String(e)));

            const load = async (): Promise<Load> => {
                await page.goto(`${url}/introduce`);
                const marker = page.locator('[data-first-render]');
                await marker.waitFor({ state: 'attached', timeout: 180_000 });
                const firstRender = Number(await marker.getAttribute('data-first-render'));
                const points = Number(await marker.getAttribute('data-points'));
                // A string, not a function: tsx would wrap a function's inner helpers in __name, unknown to the page.
                const timing = (await page.evaluate(`(() => {
                    const entries = performance.getEntriesByType('resource');
                    const find = (part) => entries.find((e) => e.name.includes(part));
                    const lonLat = find('/api/device/queryLonLatList');
                    const counts = find('/api/dashboard/count');
                    return {
                        counts: counts ? counts.responseEnd : -1,
                        lonLat: lonLat && {
                            start: lonLat.startTime,
                            responseStart: lonLat.responseStart,
                            end: lonLat.responseEnd,
                            encoded: lonLat.encodedBodySize,
                            decoded: lonLat.decodedBodySize,
                        },
                    };
                })()`)) as { counts: number; lonLat?: Load['lonLat'] };
                if (!timing.lonLat) throw new Error('the page did not ask for /api/device/queryLonLatList');
                return { firstRender, countsAnswered: timing.counts, lonLat: timing.lonLat, points };
            };

            for (const round_ of ['cold', 'warm'] as const) {
                const r = await load();
                if (r.points !== DEVICES) throw new Error(`the map holds ${r.points} points, not ${DEVICES}`);
                add(`${round_}_first_render_since_navigation`, round(r.firstRender), 'ms');
                add(`${round_}_counts_answered_since_navigation`, round(r.countsAnswered), 'ms');
                add(`${round_}_lonlat_requested_at`, round(r.lonLat.start), 'ms');
                add(`${round_}_lonlat_server_wait`, round(r.lonLat.responseStart - r.lonLat.start), 'ms');
                add(`${round_}_lonlat_total`, round(r.lonLat.end - r.lonLat.start), 'ms');
                add(`${round_}_render_after_lonlat_answer`, round(r.firstRender - r.lonLat.end), 'ms');
                if (round_ === 'cold') {
                    add('lonlat_answer_size', mb(r.lonLat.decoded), 'MB');
                    add('lonlat_transfer_size', mb(r.lonLat.encoded), 'MB');
                }
            }
            if (errors.length) throw new Error(`page errors: ${errors.join('; ')}`);
            return figures;
        } finally {
            await browser?.close();
            if (http) await new Promise((r) => http!.close(r));
            await handle.close();
            rmSync(dir, { recursive: true, force: true });
        }
    },
};

export default group;
