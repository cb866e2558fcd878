import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { DEVICE_MAP_ZOOM } from '../../src/components/map/deviceLayers';
import { haveChromium, launchBrowser, screenshot, signIn, startServer, type RunningServer } from './support';

/**
 * Cities the imported devices gather around: inside the dashboard's first view (centred on Beijing), each about
 * 90 px or more from the others at that zoom, so that 80-px clustering keeps most of them apart.
 */
const CITIES: Array<[string, number, number]> = [
    ['北京', 116.4, 39.9],
    ['济南', 117.0, 36.65],
    ['沈阳', 123.43, 41.8],
    ['呼和浩特', 111.75, 40.84],
    ['太原', 112.55, 37.87],
];
const PER_CITY = 40;

interface Envelope<T> {
    code: number | string;
    msg: string;
    data: T;
}

/**
 * The landing dashboard in Chromium (WebGL through SwiftShader) against the real `npm start` with the demo data
 * and 240 located devices imported for this run: the counts equal what the platform answers, the pies draw, the
 * alert table pages, the map clusters the devices, a click on a cluster zooms in and a click on a device opens it.
 */
describe.skipIf(!haveChromium)('dashboard in Chromium', () => {
    let server: RunningServer;
    let browser: Browser;
    let page: Page;
    const errors: string[] = [];
    const stamp = Date.now() % 100000;

    const api = async <T>(path: string): Promise<T> => {
        const body = (await (await page.request.get(`${server.url}${path}`)).json()) as Envelope<T>;
        expect([0, 200]).toContain(Number(body.code));
        return body.data;
    };
    /** Runs `fn(map)` in the page on the dashboard map's maplibre instance (DeviceMap hangs it on its element). */
    const onMap = <T>(fn: string): Promise<T> =>
        page.evaluate(`(${fn})(document.querySelector('[data-testid=device-map]').maplibreMap)`) as Promise<T>;
    const idle = () =>
        onMap<boolean>(
            `(map) => new Promise((resolve) => { map.once('idle', () => setTimeout(() => resolve(true), 300)); map.triggerRepaint(); })`,
        );

    beforeAll(async () => {
        server = await startServer();
        browser = await launchBrowser({ webgl: true });
        page = await browser.newPage({ viewport: { width: 1440, height: 1800 }, locale: 'zh-CN' });
        page.on('pageerror', (e) => errors.push(String(e)));
        await signIn(page, server.url, '/introduce');

        // A product of this run with devices located around six northern cities, imported through the API.
        const tree = await api<Array<{ id: number; children?: unknown[] }>>('/api/product/list-category');
        let node = tree[0] as { id: number; children?: Array<{ id: number; children?: unknown[] }> };
        while (node.children?.length) node = node.children[0] as typeof node;
        const saved = await page.request.post(`${server.url}/api/product/save`, {
            form: {
                productName: `看板端到端产品_${stamp}`,
                nodeType: '0',
                gatewayType: '0',
                categoryId: String(node.id),
                networkType: '5',
                dataType: '0',
            },
        });
        const product = ((await saved.json()) as Envelope<{ productKey: string }>).data;
        const lines = ['deviceName,remark,longitude,latitude,addr'];
        CITIES.forEach(([city, lng, lat], c) => {
            for (let i = 0; i < PER_CITY; i++) {
                const dx = (((i * 37) % 41) - 20) / 60;
                const dy = (((i * 53) % 43) - 21) / 80;
                lines.push(`map_${c}_${i},${city}设备${i},${(lng + dx).toFixed(5)},${(lat + dy).toFixed(5)},${city}`);
            }
        });
        const imported = await page.request.post(`${server.url}/api/device/import`, {
            multipart: {
                productKey: product.productKey,
                file: { name: 'map.csv', mimeType: 'text/csv', buffer: Buffer.from(`\uFEFF${lines.join('\r\n')}\r\n`) },
            },
        });
        const result = (await imported.json()) as Envelope<{ success: unknown[]; failure: unknown[] }>;
        expect(result.data.failure).toEqual([]);
        expect(result.data.success).toHaveLength(CITIES.length * PER_CITY);
    });

    afterEach(async ({ task }) => {
        if (task.result?.state === 'fail' && page) await screenshot(page, `failed-dashboard-${task.name.slice(0, 40)}`);
    });

    afterAll(async () => {
        await browser?.close();
        await server?.stop();
    });

    it('shows the counts the platform answers, linking products and devices to their screens', async () => {
        await page.goto(`${server.url}/introduce`);
        await page.locator('[data-testid=count-deviceCount]').waitFor();
        const counts = await api<Record<string, number>>('/api/dashboard/count');
        for (const key of ['projectCount', 'productCount', 'deviceCount', 'appUsedCount', 'appToUseCount']) {
            const shown = await page.locator(`[data-testid=count-${key}]`).innerText();
            expect([key, Number(shown.replace(/,/g, ''))]).toEqual([key, counts[key]]);
        }
        expect(counts.deviceCount).toBeGreaterThanOrEqual(CITIES.length * PER_CITY);
        expect(await page.locator('a:has-text("产品总数")').getAttribute('href')).toBe('/product');
        expect(await page.locator('a:has-text("设备总数")').getAttribute('href')).toBe('/deviceInstance');
    });

    it('draws the three pies with the counts of the platform', async () => {
        const legend = (title: string) =>
            page
                .locator(`ul[aria-label="${title}分布"] li`)
                .evaluateAll((items) => items.map((li) => Array.from(li.children, (c) => c.textContent).slice(1, 3)));
        await page.locator('ul[aria-label="设备状态分布"]').waitFor();
        const totals = await api<Record<string, number>>('/api/device/total');
        expect(await legend('设备状态')).toEqual([
            ['在线', String(totals.onlineTotal)],
            ['离线', String(totals.offlineTotal)],
            ['未激活', String(totals.inActiveTotal)],
        ]);
        const categories = await api<{ records: Array<{ categoryName: string; total: number }> }>(
            '/api/device/getCntGroupByCate',
        );
        await page.locator('ul[aria-label="设备类型分布"]').waitFor();
        expect(await legend('设备类型')).toEqual(categories.records.map((r) => [r.categoryName, String(r.total)]));
        const levels = await api<{ list: Array<{ type: number; amount: number }> }>('/api/event/countByType');
        const pending = Object.fromEntries(levels.list.map((l) => [Number(l.type), String(l.amount)]));
        const alertLegend = page.locator('ul[aria-label="待处理告警分布"]');
        if (levels.list.some((l) => l.amount > 0)) {
            await alertLegend.waitFor();
            expect(await legend('待处理告警')).toEqual([
                ['紧急', pending[1] ?? '0'],
                ['严重', pending[2] ?? '0'],
                ['一般', pending[3] ?? '0'],
            ]);
        }
        // Each pie with counts has drawn one arc per non-empty slice.
        const arcs = await page.evaluate(() =>
            ['设备状态', '设备类型'].map(
                (title) =>
                    document
                        .querySelector(`ul[aria-label="${title}分布"]`)
                        ?.closest('.MuiCard-root')
                        ?.querySelectorAll('svg path[class*="MuiPieArc"]').length,
            ),
        );
        const nonEmpty = (values: number[]) => values.filter((v) => v > 0).length;
        expect(arcs[0]).toBe(nonEmpty([totals.onlineTotal, totals.offlineTotal, totals.inActiveTotal]));
        expect(arcs[1]).toBe(nonEmpty(categories.records.map((r) => r.total)));
    });

    it('lists the newest alert events, 10 a page, with the time trimmed', async () => {
        const events = await api<{ records: Array<{ timestamp: string; params: string }>; total: number }>(
            '/api/event/list?pageNumber=1&pageSize=10',
        );
        const rows = page.locator('table[aria-label="告警事件"] tbody tr');
        if (events.total === 0) {
            await page.locator('text=暂无告警事件').waitFor();
            return;
        }
        await expect.poll(() => rows.count()).toBe(Math.min(10, events.total));
        const firstTime = await rows.first().locator('td').nth(4).innerText();
        expect(firstTime).toBe(events.records[0].timestamp.slice(0, -4));
        expect(firstTime).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
        if (events.total > 10) {
            await page.locator('button[aria-label="下一页"]').click();
            await page.waitForURL(/alertPage=2/);
            await expect.poll(() => rows.count()).toBe(Math.min(10, events.total - 10));
            await page.locator('button[aria-label="上一页"]').click();
            await page.waitForURL((u) => new URLSearchParams(u.search).get('alertPage') === '1');
        }
    });

    it('clusters the located devices on the map, zoom 5 around Beijing, and zooms into a clicked cluster', async () => {
        const located = await api<{ total: number }>('/api/device/queryLonLatList');
        await page.locator('[data-testid=device-map] canvas').waitFor();
        await page.locator('[data-state=rendered]').waitFor({ timeout: 60_000 });
        await idle();
        expect(await page.locator('[data-testid=located-count]').innerText()).toBe(`已定位设备 ${located.total} 台`);
        const view = await onMap<{
            zoom: number;
            center: { lng: number; lat: number };
            clusters: Array<{ count: number; x: number; y: number }>;
            labels: Array<{ text: string; x: number; y: number }>;
            size: [number, number];
            points: number;
        }>(`(map) => ({
            zoom: map.getZoom(),
            center: map.getCenter(),
            clusters: map.queryRenderedFeatures({ layers: ['device-clusters'] }).map((f) => {
                const p = map.project(f.geometry.coordinates);
                return { count: f.properties.point_count, x: p.x, y: p.y };
            }),
            labels: map.queryRenderedFeatures({ layers: ['device-cluster-count'] }).map((f) => {
                const p = map.project(f.geometry.coordinates);
                return { text: f.properties.point_count_abbreviated, x: p.x, y: p.y };
            }),
            size: [map.getCanvas().clientWidth, map.getCanvas().clientHeight],
            points: map.queryRenderedFeatures({ layers: ['device-points'] }).length,
        })`);
        expect(view.zoom).toBeCloseTo(DEVICE_MAP_ZOOM, 5);
        expect(view.center.lng).toBeCloseTo(116.4, 5);
        expect(view.center.lat).toBeCloseTo(39.9, 5);
        // Five cities of 40 devices, 80-px clusters: at most two neighbours merge; every cluster shows its count.
        expect(view.clusters.length).toBeGreaterThanOrEqual(CITIES.length - 1);
        const [width, height] = view.size;
        const inside = view.clusters.filter((c) => c.x > 20 && c.x < width - 20 && c.y > 20 && c.y < height - 20);
        expect(inside.length).toBeGreaterThan(0);
        for (const c of inside) {
            const label = view.labels.find((l) => Math.abs(l.x - c.x) < 1 && Math.abs(l.y - c.y) < 1);
            expect(String(label?.text)).toBe(String(c.count));
        }
        const onScreen = view.clusters.reduce((n, c) => n + Number(c.count), 0) + view.points;
        expect(onScreen).toBeGreaterThanOrEqual(CITIES.length * PER_CITY);
        expect(onScreen).toBeLessThanOrEqual(located.total);
        await page.locator('[data-testid=device-map]').scrollIntoViewIfNeeded();
        await screenshot(page, 'dashboard');

        const canvas = (await page.locator('[data-testid=device-map] canvas').boundingBox())!;
        const target = view.clusters
            .filter((c) => c.x > 60 && c.x < canvas.width - 60 && c.y > 40 && c.y < canvas.height - 40)
            .sort((a, b) => b.count - a.count)[0];
        await page.mouse.click(canvas.x + target.x, canvas.y + target.y);
        await expect
            .poll(() => onMap<number>('(map) => map.getZoom()'), { timeout: 10_000 })
            .toBeGreaterThan(DEVICE_MAP_ZOOM + 0.5);
        await idle();
        await screenshot(page, 'dashboard-map-zoomed');
    });

    it('opens the detail of a clicked device', async () => {
        const located = await api<{
            list: Array<{
                deviceId: number;
                productId: number;
                deviceName: string;
                longitude: number;
                latitude: number;
            }>;
        }>('/api/device/queryLonLatList');
        const device = located.list.find((d) => d.deviceName === 'map_0_0')!;
        await page.locator('[data-testid=device-map]').scrollIntoViewIfNeeded();
        await onMap(`(map) => map.jumpTo({ center: [${device.longitude}, ${device.latitude}], zoom: 17 })`);
        await idle();
        const canvas = (await page.locator('[data-testid=device-map] canvas').boundingBox())!;
        const under = await onMap<Array<{ id: number }>>(
            `(map) => { const c = map.getCanvas(); return map.queryRenderedFeatures([c.clientWidth / 2, c.clientHeight / 2], { layers: ['device-points'] }).map((f) => f.properties); }`,
        );
        expect(under.map((p) => Number(p.id))).toEqual([device.deviceId]);
        await page.mouse.click(canvas.x + canvas.width / 2, canvas.y + canvas.height / 2);
        await page.waitForURL(`**/devInstanceDetail/${device.productId}/${device.deviceId}`);
    });

    it('raised no page errors', () => {
        expect(errors).toEqual([]);
    });
});
