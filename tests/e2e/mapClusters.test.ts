import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { serve, type ServerType } from '@hono/node-server';
import { eq, sql } from 'drizzle-orm';
import type { Browser, Page } from 'playwright-core';
import { build } from 'vite';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { categories, products } from '../../server/db/schema';
import { createTestServer, type TestServer } from '../../server/testing';
import { DEVICE_MAP_ZOOM } from '../../src/components/map/deviceLayers';
import { haveChromium, launchBrowser, screenshot } from './support';

const HARNESS = 'src/components/map/harness/map-harness.html';
/** [lng, lat, devices]: Beijing, Shanghai, Guangzhou, Chengdu, Wuhan. */
const CITIES: Array<[number, number, number]> = [
    [116.4, 39.9, 900],
    [121.47, 31.23, 700],
    [113.26, 23.13, 500],
    [104.07, 30.67, 300],
    [114.3, 30.59, 200],
];
const TOTAL = CITIES.reduce((n, c) => n + c[2], 0);

/**
 * The device map with clusters from the server (the dashboard's way beyond 10,000 devices) in Chromium: the harness
 * page ?view=api&mode=server over the platform's own devices.
 */
describe.skipIf(!haveChromium)('server-clustered device map in Chromium', () => {
    let outDir: string;
    let platform: TestServer;
    let http: ServerType;
    let url: string;
    let browser: Browser;
    let page: Page;
    let productId: number;
    const errors: string[] = [];
    const asked: URL[] = [];

    beforeAll(async () => {
        outDir = mkdtempSync(path.join(tmpdir(), 'iot-map-clusters-'));
        await build({
            configFile: path.resolve('vite.config.ts'),
            logLevel: 'warn',
            build: { outDir, emptyOutDir: true, rolldownOptions: { input: path.resolve(HARNESS) } },
        });
        copyFileSync(path.join(outDir, HARNESS), path.join(outDir, 'index.html'));
        platform = await createTestServer({ seed: false, config: { publicDir: outDir } });
        const [leaf] = await platform.db.select().from(categories).where(eq(categories.level, 3)).limit(1);
        [{ id: productId }] = await platform.db
            .insert(products)
            .values({
                productKey: 'MapCluster01',
                productName: '聚合地图产品',
                nodeType: 0,
                categoryId: leaf.id,
                networkType: 5,
                dataType: 0,
            })
            .returning({ id: products.id });
        let first = 1;
        for (const [lng, lat, n] of CITIES) {
            // A grid of n devices, 0.02° apart, around the city.
            await platform.db.execute(sql`
                INSERT INTO devices (product_id, device_name, status, username, client_id, secret, longitude, latitude)
                SELECT ${productId}, 'mc' || g, 'ONLINE', 'mc' || g, 'mc' || g, 's',
                       ${lng}::float8 + ((g - ${first}::int) % 30) * 0.02, ${lat}::float8 + ((g - ${first}::int) / 30) * 0.02
                FROM generate_series(${first}::int, ${first + n - 1}::int) AS g`);
            first += n;
        }
        http = serve({ fetch: platform.app.fetch, port: 0, hostname: '127.0.0.1' });
        await new Promise<void>((resolve) => http.once('listening', () => resolve()));
        url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
        browser = await launchBrowser({ webgl: true });
        const context = await browser.newContext({ viewport: { width: 1280, height: 860 }, locale: 'zh-CN' });
        await context.addCookies([{ name: 'Authorization', value: platform.token, url }]);
        page = await context.newPage();
        page.on('pageerror', (e) => errors.push(String(e)));
        page.on('request', (r) => {
            if (r.url().includes('/api/device/queryLonLat')) asked.push(new URL(r.url()));
        });
    });

    afterEach(async ({ task }) => {
        if (task.result?.state === 'fail' && page)
            await screenshot(page, `map-clusters-failed-${task.name.slice(0, 30)}`);
    });

    afterAll(async () => {
        await browser?.close();
        await new Promise((r) => (http ? http.close(r) : r(undefined)));
        await platform?.close();
        if (outDir) rmSync(outDir, { recursive: true, force: true });
    });

    const onMap = <T>(fn: string): Promise<T> =>
        page.evaluate(`(${fn})(document.querySelector('[data-testid=device-map]').maplibreMap)`) as Promise<T>;
    const idle = () =>
        onMap(
            `(map) => new Promise((resolve) => { map.once('idle', () => setTimeout(() => resolve(true), 400)); map.triggerRepaint(); })`,
        );
    const clustersOnScreen = () =>
        onMap<Array<{ count: number; label: string; x: number; y: number }>>(`(map) =>
            map.queryRenderedFeatures({ layers: ['device-clusters'] }).map((f) => {
                const p = map.project(f.geometry.coordinates);
                const label = map.queryRenderedFeatures([p.x, p.y], { layers: ['device-cluster-count'] })[0];
                return { count: f.properties.point_count, label: String(label?.properties.point_count_abbreviated), x: p.x, y: p.y };
            })`);

    it('draws the clusters the server answers for the view, each with its count', async () => {
        await page.goto(`${url}/${HARNESS}?view=api&mode=server`);
        await page.locator('[data-state=rendered]').waitFor({ timeout: 60_000 });
        await idle();
        // Never the whole list: only the view's clusters.
        expect(asked.every((u) => u.pathname === '/api/device/queryLonLatClusters')).toBe(true);
        expect(asked[0].searchParams.get('zoom')).toBe(String(Math.floor(DEVICE_MAP_ZOOM)));
        const clusters = await clustersOnScreen();
        expect(clusters.length).toBeGreaterThanOrEqual(3);
        for (const c of clusters)
            expect(c.label).toBe(String(c.count >= 1000 ? `${Math.round(c.count / 100) / 10}k` : c.count));
        const shown = clusters.reduce((n, c) => n + c.count, 0);
        expect(shown).toBeLessThanOrEqual(TOTAL);
        expect(shown).toBeGreaterThan(TOTAL / 2);
        await screenshot(page, 'map-clusters-01-country');
    });

    it('zooms into a clicked cluster and asks the server for the new view', async () => {
        const before = asked.length;
        const clusters = (await clustersOnScreen()).filter((c) => c.x > 60 && c.x < 1100 && c.y > 60 && c.y < 560);
        const target = clusters.sort((a, b) => b.count - a.count)[0];
        const canvas = (await page.locator('[data-testid=device-map] canvas').boundingBox())!;
        await page.mouse.click(canvas.x + target.x, canvas.y + target.y);
        await expect
            .poll(() => onMap<number>('(map) => map.getZoom()'), { timeout: 10_000 })
            .toBeGreaterThan(DEVICE_MAP_ZOOM + 0.5);
        await expect.poll(() => asked.length, { timeout: 10_000 }).toBeGreaterThan(before);
        const zoom = await onMap<number>('(map) => map.getZoom()');
        expect(Number(asked[asked.length - 1].searchParams.get('zoom'))).toBe(Math.floor(zoom));
        await idle();
        await screenshot(page, 'map-clusters-02-zoomed');
    });

    it('shows devices one by one up close, and a click reports the device with its product', async () => {
        const [lng, lat] = CITIES[0];
        await onMap(`(map) => map.jumpTo({ center: [${lng}, ${lat}], zoom: 17 })`);
        await expect
            .poll(
                async () => {
                    await idle();
                    return onMap<number>(
                        `(map) => { const c = map.getCanvas(); return map.queryRenderedFeatures([c.clientWidth / 2, c.clientHeight / 2], { layers: ['device-points'] }).length; }`,
                    );
                },
                { timeout: 15_000 },
            )
            .toBe(1);
        const canvas = (await page.locator('[data-testid=device-map] canvas').boundingBox())!;
        await page.mouse.click(canvas.x + canvas.width / 2, canvas.y + canvas.height / 2);
        await expect
            .poll(() => page.locator('[data-testid=clicked]').innerText())
            .toBe(`已点击设备 1（产品 ${productId}）`);
        await screenshot(page, 'map-clusters-03-device');
    });

    it('raised no page errors', () => {
        expect(errors).toEqual([]);
    });
});
