import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { serve, type ServerType } from '@hono/node-server';
import { Hono } from 'hono';
import type { Browser, Page } from 'playwright-core';
import { build } from 'vite';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createGeoRouter } from '../../server/geo/router';
import { DEVICE_MAP_ZOOM } from '../../src/components/map/deviceLayers';
import { fail } from '../../server/http/envelope';
import { ApiError } from '../../server/http/errors';
import { requireSession } from '../../server/sso/auth';
import { createTestServer, type TestServer } from '../../server/testing';
import { haveChromium, launchBrowser, OUTPUT_DIR, screenshot } from './support';

const HARNESS = 'src/components/map/harness/map-harness.html';

interface HarnessWindow {
    __harness: {
        map?: import('maplibre-gl').Map;
        points?: Array<{ id: number | string; lng?: number | null; lat?: number | null }>;
        confirmed?: { adcode: string; province: string; address: string };
        firstRender?: {
            sinceNavigation: number;
            sincePoints: number;
            styleLoaded: number;
            devicesLoaded: number;
            points: number;
        };
    };
}

/**
 * The map components in Chromium (WebGL through SwiftShader): the harness page (src/components/map/harness) built
 * with the project's Vite config, served by the platform server with /api/geo mounted, behind a real session.
 */
describe.skipIf(!haveChromium)('maps in Chromium', () => {
    let outDir: string;
    let platform: TestServer;
    let http: ServerType;
    let url: string;
    let browser: Browser;
    let page: Page;
    const errors: string[] = [];
    const foreign: string[] = [];
    const timings: Record<string, unknown> = {};

    beforeAll(async () => {
        outDir = mkdtempSync(path.join(tmpdir(), 'iot-map-harness-'));
        await build({
            configFile: path.resolve('vite.config.ts'),
            logLevel: 'warn',
            build: { outDir, emptyOutDir: true, rolldownOptions: { input: path.resolve(HARNESS) } },
        });
        // The server serves files from its public directory only once an index.html is there.
        copyFileSync(path.join(outDir, HARNESS), path.join(outDir, 'index.html'));
        platform = await createTestServer({ seed: false, config: { publicDir: outDir } });
        const app = await withGeo(platform);
        http = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' });
        await new Promise<void>((resolve) => http.once('listening', () => resolve()));
        url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;

        browser = await launchBrowser({ webgl: true });
        const context = await browser.newContext({ viewport: { width: 1280, height: 860 }, locale: 'zh-CN' });
        // The session the SSO sign-in would set (tests/e2e/products.test.ts signs in through the form).
        await context.addCookies([{ name: 'Authorization', value: platform.token, url }]);
        page = await context.newPage();
        page.on('pageerror', (e) => errors.push(String(e)));
        page.on('request', (r) => {
            if (!r.url().startsWith(url) && !/^(data|blob):/.test(r.url())) foreign.push(r.url());
        });
    });

    afterEach(async ({ task }) => {
        if (task.result?.state === 'fail' && page) await screenshot(page, `map-failed-${task.name.slice(0, 40)}`);
    });

    afterAll(async () => {
        if (Object.keys(timings).length) {
            mkdirSync(OUTPUT_DIR, { recursive: true });
            writeFileSync(path.join(OUTPUT_DIR, 'map-timings.json'), JSON.stringify(timings, null, 2));
        }
        await browser?.close();
        await new Promise((r) => (http ? http.close(r) : r(undefined)));
        await platform?.close();
        if (outDir) rmSync(outDir, { recursive: true, force: true });
    });

    const harnessUrl = (query: string) => `${url}/${HARNESS}?${query}`;
    /** Runs `fn(window)` in the page (the function travels as source text). */
    const evalMap = <T>(fn: (w: HarnessWindow) => T): Promise<T> => page.evaluate(`(${fn.toString()})(window)`);
    /** Until the device map has drawn everything it is going to (tiles, labels, their fade-in). */
    const idle = () =>
        evalMap(
            (w) =>
                new Promise<boolean>((resolve) => {
                    const map = w.__harness.map!;
                    map.once('idle', () => setTimeout(() => resolve(true), 400));
                    map.triggerRepaint();
                }),
        );

    it('picks a point near Shanghai, shows its district and adcode, and confirms it', async () => {
        await page.goto(harnessUrl('view=picker'));
        await page.click('button:has-text("打开地图选点")');
        const dialog = page.locator('[role=dialog]');
        await dialog.locator('.maplibregl-canvas').waitFor();
        const confirm = dialog.locator('button:has-text("确认位置")');
        expect(await confirm.isDisabled()).toBe(true);
        // The picker listens for clicks once the map has loaded, and shows it with a crosshair cursor.
        await dialog.locator('.maplibregl-canvas[style*="crosshair"]').waitFor({ timeout: 60_000 });
        // Time for the outlines to draw before the screenshot (the picker does not expose its map).
        await screenshot(page, 'map-01-picker-open', { settleMs: 1500 });

        const box = (await dialog.locator('[data-testid=map-picker-map]').boundingBox())!;
        // West of the centre (121.6, 31.2), across the river: 黄浦区, the old town of Shanghai.
        await page.mouse.click(box.x + box.width / 2 - 330, box.y + box.height / 2 - 40);
        const status = dialog.locator('[data-testid=map-picker-status]');
        await expect.poll(() => status.innerText(), { timeout: 15_000 }).toMatch(/行政区划代码 31\d{4}/);
        expect(await status.innerText()).toContain('上海市黄浦区');
        expect(await status.innerText()).toContain('310101');
        expect(await confirm.isDisabled()).toBe(false);
        await screenshot(page, 'map-02-picker-picked');

        await confirm.click();
        await dialog.waitFor({ state: 'detached' });
        const confirmed = await evalMap((w) => w.__harness.confirmed);
        expect(confirmed?.adcode).toMatch(/^31\d{4}$/);
        expect(confirmed?.province).toBe('上海市');
        expect(await page.locator('[data-testid=confirmed]').innerText()).toContain(confirmed!.adcode);
    });

    it('finds 浦东新区 by search and picks its centre', async () => {
        await page.click('button:has-text("打开地图选点")');
        const dialog = page.locator('[role=dialog]');
        await dialog.locator('.maplibregl-canvas').waitFor();
        await dialog.locator('input[aria-label=搜索地名]').fill('浦东');
        await dialog.locator('input[aria-label=搜索地名]').press('Enter');
        await dialog.locator('[aria-label=搜索结果] >> text=浦东新区').first().click();
        const status = dialog.locator('[data-testid=map-picker-status]');
        await expect.poll(() => status.innerText(), { timeout: 15_000 }).toContain('上海市浦东新区');
        expect(await status.innerText()).toContain('310115');
        await screenshot(page, 'map-03-picker-search', { settleMs: 1200 });
        await dialog.locator('button:has-text("取消")').click();
    });

    for (const n of [2_000, 100_000]) {
        it(`clusters ${n.toLocaleString('en')} devices and zooms into a clicked cluster`, async () => {
            await page.goto(harnessUrl(`view=devices&n=${n}`));
            await page.waitForFunction(() => !!(window as unknown as HarnessWindow).__harness.firstRender, null, {
                timeout: 60_000,
            });
            const first = await evalMap((w) => w.__harness.firstRender!);
            timings[`devices-${n}`] = {
                firstIdleSinceNavigationMs: Math.round(first.sinceNavigation),
                firstIdleSincePointsMs: Math.round(first.sincePoints),
                basemapLoadedMs: Math.round(first.styleLoaded),
                devicesIndexedMs: Math.round(first.devicesLoaded),
            };
            console.log(`[map] ${n} devices: first render ${Math.round(first.sinceNavigation)} ms after navigation`);
            await screenshot(page, `map-04-devices-${n}`);

            const before = await evalMap((w) => {
                const map = w.__harness.map!;
                const clusters = map.queryRenderedFeatures({ layers: ['device-clusters'] });
                // The biggest cluster near the middle of the view (away from the controls).
                const c = clusters
                    .map((f) => ({
                        f,
                        p: map.project((f.geometry as unknown as { coordinates: [number, number] }).coordinates),
                    }))
                    .filter(({ p }) => p.x > 80 && p.x < 1100 && p.y > 60 && p.y < 580)
                    .sort((a, b) => Number(b.f.properties.point_count) - Number(a.f.properties.point_count))[0];
                return { zoom: map.getZoom(), clusters: clusters.length, x: c?.p.x, y: c?.p.y };
            });
            expect(before.zoom).toBeCloseTo(DEVICE_MAP_ZOOM, 5);
            // Frames drawn while the map animates a zoom over one second (SwiftShader draws in software).
            (timings[`devices-${n}`] as Record<string, unknown>).framesPerSecondWhileZooming = await evalMap(
                (w) =>
                    new Promise<number>((resolve) => {
                        const map = w.__harness.map!;
                        let frames = 0;
                        const count = () => frames++;
                        map.on('render', count);
                        const started = performance.now();
                        map.once('moveend', () => {
                            map.off('render', count);
                            map.jumpTo({ zoom: 4 });
                            resolve(Math.round((frames * 1000) / (performance.now() - started)));
                        });
                        map.easeTo({ zoom: 5, duration: 1000 });
                    }),
            );
            await idle();
            expect(before.clusters).toBeGreaterThan(3);
            const canvas = (await page.locator('[data-testid=device-map] canvas').boundingBox())!;
            await page.mouse.click(canvas.x + before.x!, canvas.y + before.y!);
            await expect
                .poll(() => evalMap((w) => w.__harness.map!.getZoom()), { timeout: 10_000 })
                .toBeGreaterThan(DEVICE_MAP_ZOOM + 0.5);
            await idle();
            await screenshot(page, `map-05-devices-${n}-zoomed`);
        });
    }

    it('reports a clicked device', async () => {
        await page.goto(harnessUrl('view=devices&n=2000'));
        await page.waitForFunction(() => !!(window as unknown as HarnessWindow).__harness.firstRender);
        // Close in on one device, past the zoom where clusters form, and click it.
        const target = await evalMap((w) => {
            const p = w.__harness.points![0];
            w.__harness.map!.jumpTo({ center: [p.lng!, p.lat!], zoom: 17 });
            return { id: p.id };
        });
        await page.waitForFunction(() => {
            const map = (window as unknown as HarnessWindow).__harness.map!;
            return map.loaded() && map.queryRenderedFeatures({ layers: ['device-points'] }).length > 0;
        });
        const box = (await page.locator('[data-testid=device-map] canvas').boundingBox())!;
        await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
        // Hovering names the device and its status.
        await expect
            .poll(() => page.locator('.maplibregl-popup').innerText())
            .toMatch(new RegExp(`^设备${target.id}（(在线|离线|未激活|已禁用)）$`));
        await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
        await expect.poll(() => page.locator('[data-testid=clicked]').innerText()).toBe(`已点击设备 ${target.id}`);
        await screenshot(page, 'map-06-device-clicked');
    });

    it('says 暂无数据 when no device has a location', async () => {
        await page.goto(harnessUrl('view=devices&n=0'));
        await page.locator('text=暂无数据').waitFor();
        await page.waitForFunction(() => !!(window as unknown as HarnessWindow).__harness.firstRender);
        await screenshot(page, 'map-07-devices-empty');
    });

    it('fetched nothing from outside the platform server and raised no page errors', () => {
        expect(foreign).toEqual([]);
        expect(errors).toEqual([]);
    });
});

/** The platform app with /api/geo in front of it, unless app.ts mounts it already. */
async function withGeo(platform: TestServer) {
    const probe = await platform.fetch('/api/geo/config');
    if (probe.status === 200) return platform.app;
    const services = { db: platform.db, config: platform.config, now: () => new Date() };
    const app = new Hono();
    app.onError((err, c) => (err instanceof ApiError ? fail(c, err.status, err.message) : fail(c, 500, '系统错误')));
    app.use('/api/geo/*', requireSession(services));
    app.route('/api/geo', createGeoRouter({ config: platform.config }));
    app.all('*', (c) => platform.app.fetch(c.req.raw));
    return app;
}
