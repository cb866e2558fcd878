import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { haveChromium, launchBrowser, screenshot, signIn, startServer, type RunningServer } from './support';

/**
 * Every declared screen on the seeded demo at the two laptop sizes the product promises (1440 x 900 and
 * 1280 x 720), and at 1024 px (each loaded at the widest, then narrowed): each paints its heading, leaves no request
 * failing and no script error, and nothing is wider than the window. The screenshots land in tests/e2e/output/screen-*.png to be looked at.
 */

const SIZES = [
    { width: 1440, height: 900 },
    { width: 1280, height: 720 },
    { width: 1024, height: 768 },
];

interface Row {
    [key: string]: unknown;
}

async function first(page: Page, url: string, path: string): Promise<Row> {
    const res = await page.request.get(`${url}${path}`);
    const body = (await res.json()) as { data?: { records?: Row[]; list?: Row[] } | Row[] };
    const data = body.data;
    const rows = Array.isArray(data) ? data : (data?.records ?? data?.list ?? []);
    if (!rows.length) throw new Error(`${path}: no rows in the demo data`);
    return rows[0];
}

describe.skipIf(!haveChromium)('every screen at laptop sizes', () => {
    let server: RunningServer;
    let browser: Browser;
    let plainPage: Page;
    // The dashboard (/introduce) draws its map with WebGL (SwiftShader here); every other screen is painted without,
    // as software compositing costs Chromium a third less CPU than SwiftShader's (the map has its own files).
    let mapBrowser: Browser;
    let mapPage: Page;
    const problems: string[] = [];
    const routes: Array<[string, string]> = [];

    beforeAll(async () => {
        server = await startServer();
        [browser, mapBrowser] = await Promise.all([launchBrowser(), launchBrowser({ webgl: true })]);
        [plainPage, mapPage] = await Promise.all([openPage(browser), openPage(mapBrowser)]);
        const product = await first(plainPage, server.url, '/api/product?pageNumber=1&pageSize=1');
        const device = await first(plainPage, server.url, '/api/device/list?pageNumber=1&pageSize=1');
        const project = await first(plainPage, server.url, '/api/project/list?page=1&size=1');
        const rootGroup = await first(plainPage, server.url, '/api/group/tree');
        // The demo's street lamps have logged messages (the first product may have none).
        const lamp = await first(
            plainPage,
            server.url,
            `/api/product?pageNumber=1&pageSize=1&productName=${encodeURIComponent('智能路灯')}`,
        );
        routes.push(
            ['introduce', '/introduce'],
            ['product', '/product'],
            ['productDetail', `/productDetail/view?productId=${String(product.productId)}`],
            ['productFunctions', `/productDetail/function?productId=${String(product.productId)}`],
            ['productLog', '/productLog'],
            ['deviceInstance', '/deviceInstance'],
            ['devices', '/devices'],
            ['devInstanceDetail', `/devInstanceDetail/${String(device.productId)}/${String(device.deviceId)}`],
            ['programList', '/programList'],
            ['programOverview', `/programOverview/${String(project.id)}`],
            ['groups', '/groups'],
            ['imitate', '/monitor/imitate'],
            ['groupDetail', `/groups/detail?groupId=${String(rootGroup.groupId)}`],
            ['groupDevices', `/groups/detail?groupId=${String(rootGroup.groupId)}&tab=devices`],
            ['groupChildren', `/groupDetail/${String(rootGroup.groupId)}?tab=children`],
            ['log', '/log'],
            ['logDown', '/log?tab=down'],
            ['logLamp', `/log?productKey=${String(lamp.productKey)}`],
        );
    }, 300_000);

    async function openPage(from: Browser): Promise<Page> {
        const opened = await from.newPage({ viewport: SIZES[0], locale: 'zh-CN' });
        opened.on('pageerror', (e) => problems.push(`script error: ${String(e)}`));
        opened.on('response', (r) => {
            if (r.status() >= 400) problems.push(`${r.status()} ${r.url()}`);
        });
        await signIn(opened, server.url, '/introduce');
        return opened;
    }

    afterAll(async () => {
        await mapBrowser?.close();
        await browser?.close();
        await server?.stop();
    });

    it("serves React's production build, whatever NODE_ENV the start was given", async () => {
        // The shared server was started from vitest (NODE_ENV=test) and built the console when it was stale.
        const html = await (await plainPage.request.get(`${server.url}/`)).text();
        const scripts = [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+\.js)"/g)].map((m) => m[1]);
        expect(scripts.length).toBeGreaterThan(0);
        for (const script of scripts) {
            const code = await (await plainPage.request.get(`${server.url}${script}`)).text();
            // React's development-only checks: StrictMode's legacy context warning, the missing key warning.
            expect(code, script).not.toContain('recordLegacyContextWarning');
            expect(code, script).not.toContain('unique "key" prop');
        }
    });

    it('paints each screen with its heading, no failing request, nothing wider than the window', async () => {
        expect(routes.length).toBeGreaterThan(10);
        for (const [name, route] of routes) {
            const page = route === '/introduce' ? mapPage : plainPage;
            // Loaded once at the widest size, then narrowed as a user narrows the window: the layout answers the
            // resize (media queries, the charts' and tables' resize observers) without a reload per size.
            problems.length = 0;
            await page.setViewportSize(SIZES[0]);
            await page.goto(`${server.url}${route}`);
            await page.waitForLoadState('networkidle');
            await page.locator('main h1, main h2, main [role=heading]').first().waitFor({ timeout: 15_000 });
            for (const size of SIZES) {
                await page.setViewportSize(size);
                await page.waitForFunction(() => !document.querySelector('[aria-busy=true], .MuiSkeleton-root'), null, {
                    timeout: 15_000,
                });
                await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
                const overflow = await page.evaluate(
                    () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
                );
                await screenshot(page, `screen-${name}-${size.width}x${size.height}`);
                expect.soft(overflow, `${route} at ${size.width} px is wider than the window`).toBeLessThanOrEqual(0);
                expect.soft(problems, `${route} at ${size.width} px`).toEqual([]);
            }
            // Its map idles on a software GPU for the rest of the run otherwise.
            if (page === mapPage) await mapBrowser.close();
        }
    }, 600_000);
});
