import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { get as httpGet } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { serve } from '@hono/node-server';
import { eq, sql } from 'drizzle-orm';
import { chromium } from 'playwright-core';
import { build } from 'vite';
import type { Browser } from 'playwright-core';
import { createApp } from '../../server/app';
import { loadConfig } from '../../server/config';
import { openDatabase, type Db } from '../../server/db/client';
import { categories, products, users } from '../../server/db/schema';
import { deviceClusterIndex } from '../../server/domain/deviceClusters';
import { seedDatabase } from '../../server/seed';
import { createSession } from '../../server/sso/sessions';
import { ensureAdmin } from '../../server/sso/users';
import type { BenchGroup, Figure } from './run';

/** Located devices per round; MAP_BENCH_SIZES=100000 for a shorter run. */
const SIZES = (process.env.MAP_BENCH_SIZES ?? '100000,1000000').split(',').map(Number);
const HARNESS = 'src/components/map/harness/map-harness.html';
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/**
 * MAP_BENCH_ANCHOR=<a checkout of an earlier commit> (e.g. `git worktree add --detach /tmp/anchor main` with
 * node_modules linked): its console and harness are built too and measured in the same run (anchor_* figures).
 */
const ANCHOR = process.env.MAP_BENCH_ANCHOR;
/** MAP_BENCH_REPEAT=n: the dashboard rounds (and the anchor's) n times over, interleaved; later ones named *_r2, ... */
const REPEAT = Math.max(1, Number(process.env.MAP_BENCH_REPEAT ?? 1));
/** MAP_BENCH_SHOTS=<dir>: a picture of the dashboard's map once idle after its first render, per dashboard round. */
const SHOTS_DIR = process.env.MAP_BENCH_SHOTS;
/** MAP_BENCH_TRACE=<dir>: a Chromium performance trace of each dashboard round, written there (chrome://tracing). */
const TRACE_DIR = process.env.MAP_BENCH_TRACE;

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

/** `devices` located devices over five products, in one INSERT ... SELECT (deterministic: setseed). */
async function fill(db: Db, devices: number): Promise<void> {
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
              FROM generate_series(1, ${devices}) AS g) s, picked p`);
}

const round = (n: number) => Math.round(n);

/**
 * CPU time (ms, user + system) of the Chromium processes this process started, all their threads (SwiftShader's
 * included), from /proc: a page's work, which the machine's load stretches far less than its wall-clock time.
 */
function browserCpuMs(): number {
    if (process.platform !== 'linux') return NaN;
    const stats = new Map<number, { ppid: number; comm: string; ticks: number }>();
    for (const entry of readdirSync('/proc')) {
        if (!/^\d+$/.test(entry)) continue;
        try {
            const text = readFileSync(`/proc/${entry}/stat`, 'utf8');
            const close = text.lastIndexOf(')');
            const fields = text.slice(close + 2).split(' ');
            stats.set(Number(entry), {
                ppid: Number(fields[1]),
                comm: text.slice(text.indexOf('(') + 1, close),
                ticks: Number(fields[11]) + Number(fields[12]),
            });
        } catch {
            // The process ended meanwhile.
        }
    }
    const ours = new Set([process.pid]);
    for (let grew = true; grew;) {
        grew = false;
        for (const [pid, s] of stats) {
            if (!ours.has(pid) && ours.has(s.ppid)) {
                ours.add(pid);
                grew = true;
            }
        }
    }
    let ticks = 0;
    for (const pid of ours) {
        const s = stats.get(pid);
        if (s && /chrom/i.test(s.comm)) ticks += s.ticks;
    }
    return ticks * 10;
}
const kb = (bytes: number) => Math.round((bytes / 1024) * 10) / 10;

interface Render {
    firstRender: number;
    /** Devices the drawn features stand for (clusters for their counts). */
    represented: number;
    /** The map's API calls: bytes over the wire and decoded, and the slowest one's wait for the server. */
    transfer: number;
    decoded: number;
    serverWait: number;
    /** ms from navigation start to each step of the way (phases below), and the outlines' sizes. */
    phases: Record<string, number>;
    /** CPU ms the browser's processes spent from navigation to the first render (browserCpuMs). */
    browserCpu: number;
}

/**
 * Where the time of a first render goes, each as ms since navigation start: the page's own scripts, maplibre's
 * chunk and worker, the map's performance marks (src/components/map/marks.ts), the style config and the map's
 * device calls answered. The outlines are fetched by maplibre's worker, out of the page's resource timing: their
 * sizes are measured apart (outlines_*), their arrival shows in map:load.
 */
const PHASES = `(() => {
    const out = {};
    const nav = performance.getEntriesByType('navigation')[0];
    if (nav) out.dom_ready = nav.domContentLoadedEventEnd;
    const res = performance.getEntriesByType('resource');
    const last = (test) => {
        const hits = res.filter(test);
        return hits.length ? Math.max(...hits.map((e) => e.responseEnd)) : undefined;
    };
    // maplibre lands in the chunk of useBaseMap, the first module that imports it (src/components/map/maplibre.ts).
    out.maplibre_js = last((e) => /useBaseMap-[^/]*\\.js/.test(e.name));
    out.worker_js = last((e) => /worker/.test(e.name) && /\\.m?js/.test(e.name));
    out.map_js = last((e) => /DeviceMap-[^/]*\\.js/.test(e.name));
    out.style_config = last((e) => e.name.includes('/api/geo/config'));
    out.locations_call = last((e) => e.name.includes('/queryLonLatList'));
    for (const m of performance.getEntriesByType('mark')) {
        if (m.name.startsWith('map:') && !(m.name.slice(4) in out)) out[m.name.slice(4).replace(/-/g, '_')] = m.startTime;
    }
    for (const k of Object.keys(out)) if (out[k] === undefined) delete out[k];
    return out;
})()`;

/** An outline layer's bytes as the server sends them (gzip) and decoded: node's fetch would hide the first. */
function outlineBytes(url: string, token: string): Promise<{ wire: number; decoded: number }> {
    return new Promise((resolve, reject) => {
        const req = httpGet(
            url,
            { headers: { Cookie: `Authorization=${token}`, 'Accept-Encoding': 'gzip' } },
            (res) => {
                const chunks: Buffer[] = [];
                res.on('data', (c: Buffer) => chunks.push(c));
                res.on('end', () => {
                    const body = Buffer.concat(chunks);
                    const gzipped = res.headers['content-encoding'] === 'gzip';
                    resolve({ wire: body.length, decoded: gzipped ? gunzipSync(body).length : body.length });
                });
                res.on('error', reject);
            },
        );
        req.on('error', reject);
    });
}

const MAP_CALLS = ['/api/device/queryLonLatList', '/api/device/queryLonLatClusters'];

/** Opens `path` in a fresh context (nothing cached: cold) and waits for DeviceMap's first-render marker. */
async function firstRender(
    browser: Browser,
    url: string,
    token: string,
    target: string,
    tracePath?: string,
    shotPath?: string,
): Promise<Render> {
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, locale: 'zh-CN' });
    let tracing = false;
    try {
        await context.addCookies([{ name: 'Authorization', value: token, url }]);
        const page = await context.newPage();
        if (tracePath) {
            const categories = process.env.MAP_BENCH_TRACE_CATEGORIES?.split(',');
            await browser.startTracing(page, { path: tracePath, screenshots: false, categories });
            tracing = true;
        }
        const errors: string[] = [];
        page.on('pageerror', (e) => errors.push(String(e)));
        const cpuBefore = browserCpuMs();
        await page.goto(`${url}${target}`);
        const marker = page.locator('[data-first-render]');
        await marker.waitFor({ state: 'attached', timeout: 300_000 });
        const browserCpu = browserCpuMs() - cpuBefore;
        if (tracing) {
            tracing = false;
            await browser.stopTracing();
        }
        const rendered = Number(await marker.getAttribute('data-first-render'));
        const represented = Number(await marker.getAttribute('data-points'));
        // A string, not a function: tsx would wrap a function's inner helpers in __name, unknown to the page.
        const calls = (await page.evaluate(`performance.getEntriesByType('resource')
            .filter((e) => ${JSON.stringify(MAP_CALLS)}.some((p) => e.name.includes(p)))
            .map((e) => ({ encoded: e.encodedBodySize, decoded: e.decodedBodySize, wait: e.responseStart - e.startTime }))`)) as Array<{
            encoded: number;
            decoded: number;
            wait: number;
        }>;
        const phases = (await page.evaluate(PHASES)) as Record<string, number>;
        if (shotPath) {
            await page.evaluate(`new Promise((resolve) => {
                const map = document.querySelector('[data-testid=device-map]').maplibreMap;
                map.once('idle', () => setTimeout(resolve, 500));
                map.triggerRepaint();
            })`);
            await page.locator('[data-testid=device-map]').screenshot({ path: shotPath });
        }
        if (errors.length) throw new Error(`page errors: ${errors.join('; ')}`);
        if (!calls.length && !target.includes('mode=base')) throw new Error(`${target} asked for no map data`);
        return {
            firstRender: rendered,
            represented,
            transfer: calls.reduce((n, c) => n + c.encoded, 0),
            decoded: calls.reduce((n, c) => n + c.decoded, 0),
            serverWait: calls.length ? Math.max(...calls.map((c) => c.wait)) : 0,
            phases,
            browserCpu,
        };
    } finally {
        if (tracing) await browser.stopTracing();
        await context.close();
    }
}

/**
 * The device map's first render in Chromium (WebGL through SwiftShader) at each size of SIZES located devices: the
 * console and the map harness built into a temporary directory and served by the platform (PGlite) on a free port.
 * Each figure is cold (a fresh browser context, nothing cached), from navigation to the frame DeviceMap marks with
 * data-first-render (its devices source loaded and the map idle, clusters drawn):
 *   basemap_*    the offline base map alone (no devices), harness page ?view=api&mode=base
 *   whole_*      every located device fetched at once and clustered in the browser (the map before server clusters;
 *                still the dashboard's way up to 10,000 devices), harness page ?view=api&mode=whole
 *   clusters_*   the server's clusters for the view, harness page ?view=api&mode=server
 *   dashboard_*  /introduce itself (server clusters at these sizes), with its counts, pies and tables around the map
 * The cluster index is built as `npm start` does after start-up, before the pages open (its time is a figure).
 */
const group: BenchGroup = {
    name: 'mapRender',
    async run() {
        const dir = mkdtempSync(path.join(os.tmpdir(), 'iot-bench-map-'));
        const outDir = path.join(dir, 'dist');
        const figures: Figure[] = [];
        const add = (name: string, value: number, unit: string) => figures.push({ name, value, unit });
        let browser: Browser | undefined;
        try {
            let t = performance.now();
            await build({
                configFile: path.resolve('vite.config.ts'),
                logLevel: 'error',
                build: {
                    outDir,
                    rolldownOptions: { input: { main: path.resolve('index.html'), harness: path.resolve(HARNESS) } },
                },
            });
            add('console_build', round(performance.now() - t), 'ms');
            const anchorOut = path.join(dir, 'anchor');
            if (ANCHOR) {
                await build({
                    root: ANCHOR,
                    configFile: path.join(ANCHOR, 'vite.config.ts'),
                    logLevel: 'error',
                    build: {
                        outDir: anchorOut,
                        rolldownOptions: {
                            input: { main: path.join(ANCHOR, 'index.html'), harness: path.join(ANCHOR, HARNESS) },
                        },
                    },
                });
            }
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

            for (const size of SIZES) {
                const label = size >= 1_000_000 ? `${size / 1_000_000}m` : `${size / 1000}k`;
                const handle = await openDatabase({});
                const servers: Array<ReturnType<typeof serve>> = [];
                try {
                    await ensureAdmin(handle.db, 'bench_password');
                    await seedDatabase(handle.db, { demo: false });
                    t = performance.now();
                    await fill(handle.db, size);
                    await handle.db.execute(sql`VACUUM (ANALYZE) devices`);
                    add(`${label}_insert_located`, round(performance.now() - t), 'ms');
                    t = performance.now();
                    await deviceClusterIndex(handle.db).snapshot();
                    add(`${label}_cluster_index_build`, round(performance.now() - t), 'ms');

                    const [admin] = await handle.db.select().from(users).limit(1);
                    const token = await createSession(handle.db, admin.id, new Date());
                    /** The platform on a free port, serving the console built into `publicDir`. */
                    const start = async (publicDir: string) => {
                        const app = createApp({ db: handle.db, config: { ...loadConfig({}), publicDir } });
                        const http = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' });
                        servers.push(http);
                        await new Promise<void>((resolve) => http.once('listening', () => resolve()));
                        return `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
                    };
                    const url = await start(outDir);
                    if (size === SIZES[0]) {
                        for (const level of ['province', 'city'] as const) {
                            const bytes = await outlineBytes(`${url}/api/geo/outlines?level=${level}`, token);
                            add(`outlines_${level}_gzip`, kb(bytes.wire), 'KB');
                            add(`outlines_${level}_decoded`, kb(bytes.decoded), 'KB');
                        }
                    }
                    const anchorUrl = ANCHOR ? await start(anchorOut) : undefined;

                    const rounds: Array<[string, string, string]> = [
                        ['basemap', url, `/${HARNESS}?view=api&mode=base`],
                        ['whole', url, `/${HARNESS}?view=api&mode=whole`],
                        ['clusters', url, `/${HARNESS}?view=api&mode=server`],
                        ['dashboard', url, '/introduce'],
                    ];
                    if (anchorUrl) {
                        rounds.push(
                            ['anchor_clusters', anchorUrl, `/${HARNESS}?view=api&mode=server`],
                            ['anchor_dashboard', anchorUrl, '/introduce'],
                        );
                    }
                    if (process.env.MAP_BENCH_SKIP_WHOLE) rounds.splice(1, 1);
                    for (let n = 2; n <= REPEAT; n++) {
                        rounds.push(['dashboard_r' + n, url, '/introduce']);
                        if (anchorUrl) rounds.push(['anchor_dashboard_r' + n, anchorUrl, '/introduce']);
                    }
                    for (const [name, base, target] of rounds) {
                        try {
                            const trace =
                                TRACE_DIR && name.includes('dashboard')
                                    ? path.join(TRACE_DIR, `${label}_${name}.json`)
                                    : undefined;
                            const shot =
                                SHOTS_DIR && name.includes('dashboard')
                                    ? path.join(SHOTS_DIR, `${label}_${name}.png`)
                                    : undefined;
                            const r = await firstRender(browser, base, token, target, trace, shot);
                            if (name === 'whole' && r.represented !== size) {
                                throw new Error(`the map holds ${r.represented} devices, not ${size}`);
                            }
                            if (name !== 'basemap' && r.represented <= 0) throw new Error('the map drew nothing');
                            add(`${label}_${name}_cold_first_render`, round(r.firstRender), 'ms');
                            add(`${label}_${name}_server_wait`, round(r.serverWait), 'ms');
                            add(`${label}_${name}_browser_cpu`, round(r.browserCpu), 'ms');
                            add(`${label}_${name}_transfer`, kb(r.transfer), 'KB');
                            add(`${label}_${name}_decoded`, kb(r.decoded), 'KB');
                            for (const [phase, value] of Object.entries(r.phases)) {
                                const isSize = phase.endsWith('_kb');
                                add(
                                    `${label}_${name}_${isSize ? phase : `at_${phase}`}`,
                                    isSize ? value : round(value),
                                    isSize ? 'KB' : 'ms',
                                );
                            }
                        } catch (err) {
                            console.error(`mapRender ${label} ${name}: ${err instanceof Error ? err.message : err}`);
                            add(`${label}_${name}_cold_first_render`, -1, 'ms (failed)');
                        }
                    }
                } finally {
                    for (const http of servers) await new Promise((r) => http.close(r));
                    await handle.close();
                }
            }
            return figures;
        } finally {
            await browser?.close();
            rmSync(dir, { recursive: true, force: true });
        }
    },
};

export default group;
