import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { eq, sql } from 'drizzle-orm';
import { http } from 'msw';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { alertEvents, apps, categories, devices, products, projects, scenes } from '../../server/db/schema';
import type { TestServer } from '../../server/testing';
import { createAuthProvider } from '../../src/auth/authProvider';
import { CLUSTER_LAYER, POINT_LAYER, SOURCE_ID } from '../../src/components/map/deviceLayers';
import { currentLocation, fail, mswServer, platformHandler, renderApp, searchParam, startPlatform } from './helpers';
import { FakeMap } from '../fakes/maplibre';

/**
 * jsdom has no WebGL: the resources project draws every map on tests/fakes/maplibre.ts, which keeps what DeviceMap
 * gives it (the devices source) and lets the test click a device. The real map, its clusters and zooming are proven in
 * Chromium (tests/e2e/dashboard.test.ts).
 */
// The dashboard's first view (north China to the south coast).
FakeMap.bounds = [100, 20, 130, 45];

/** How many features the map's devices source holds (what DeviceMap handed to maplibre). */
const mappedDevices = () =>
    (FakeMap.last?.sources.get(SOURCE_ID)?.data as { features: unknown[] } | undefined)?.features.length;

const HOUR = 3_600_000;
const BASE = Date.UTC(2025, 4, 20, 2, 0, 0);

let server: TestServer;
const seeded = {
    projectIds: [] as number[],
    located: [] as Array<{ id: number; productId: number }>,
    pending: { 1: 0, 2: 0, 3: 0 } as Record<number, number>,
    alerts: 23,
};

/** Two projects, three products over two top-level categories, seven devices, 23 alert events, three apps. */
async function seed(db: TestServer['db']) {
    const [scene] = await db.select().from(scenes).where(eq(scenes.name, '智慧城市'));
    const rows = await db
        .insert(projects)
        .values([
            { code: 'P2025901', name: '园区照明项目', classId: scene.id },
            { code: 'P2025902', name: '环境监测项目', classId: scene.id },
        ])
        .returning({ id: projects.id });
    seeded.projectIds = rows.map((r) => r.id);

    const leaves = await db.select().from(categories).where(eq(categories.level, 3));
    const topOf = async (id: number): Promise<{ id: number; name: string }> => {
        const [c] = await db.select().from(categories).where(eq(categories.id, id));
        return c.parentId ? topOf(c.parentId) : { id: c.id, name: c.name };
    };
    const first = leaves[0];
    const firstTop = await topOf(first.id);
    let other = leaves[1];
    for (const leaf of leaves) {
        if ((await topOf(leaf.id)).id !== firstTop.id) {
            other = leaf;
            break;
        }
    }
    const prods = await db
        .insert(products)
        .values([
            {
                productKey: 'DashKeyA01',
                productName: '看板产品甲',
                nodeType: 0,
                categoryId: first.id,
                networkType: 5,
                dataType: 0,
            },
            {
                productKey: 'DashKeyB02',
                productName: '看板产品乙',
                nodeType: 0,
                categoryId: first.id,
                networkType: 5,
                dataType: 0,
            },
            {
                productKey: 'DashKeyC03',
                productName: '看板产品丙',
                nodeType: 0,
                categoryId: other.id,
                networkType: 5,
                dataType: 0,
            },
        ])
        .returning({ id: products.id, productKey: products.productKey });

    const device = (i: number, product: number, status: string, located: boolean, projectId?: number) => ({
        productId: prods[product].id,
        deviceName: `dash_dev_${i}`,
        status,
        enabled: status !== 'DISABLE',
        projectId: projectId ?? null,
        username: `dash_dev_${i}&${prods[product].productKey}`,
        clientId: `${prods[product].productKey}.dash_dev_${i}`,
        secret: '0123456789abcdef0123456789abcdef',
        longitude: located ? 116.3 + i / 10 : null,
        latitude: located ? 39.8 + i / 10 : null,
    });
    const devs = await db
        .insert(devices)
        .values([
            device(1, 0, 'ONLINE', true, seeded.projectIds[0]),
            device(2, 0, 'ONLINE', true, seeded.projectIds[0]),
            device(3, 1, 'OFFLINE', true, seeded.projectIds[0]),
            device(4, 1, 'DISABLE', false),
            device(5, 2, 'INACTIVE', true),
            device(6, 2, 'INACTIVE', false),
            device(7, 2, 'ONLINE', false, seeded.projectIds[1]),
        ])
        .returning({ id: devices.id, productId: devices.productId, longitude: devices.longitude });
    seeded.located = devs.filter((d) => d.longitude !== null).map((d) => ({ id: d.id, productId: d.productId }));

    // Newest is event 23 (ts BASE + 23 h); types cycle 1, 2, 3; every third event is handled.
    const events = Array.from({ length: seeded.alerts }, (_, k) => {
        const i = k + 1;
        const type = (i % 3) + 1;
        const status = i % 3 === 0 ? 1 : 0;
        if (status === 0) seeded.pending[type]++;
        return {
            type,
            status,
            projectId: seeded.projectIds[i % 2],
            deviceId: devs[i % devs.length].id,
            deviceName: `dash_dev_${(i % devs.length) + 1}`,
            productKey: 'DashKeyA01',
            params: `告警内容${i}`,
            ts: new Date(BASE + i * HOUR + 123),
        };
    });
    await db.insert(alertEvents).values(events);
    await db.insert(apps).values([
        { name: '能耗分析', activeStatus: 1, useStatus: 1 },
        { name: '资产巡检', activeStatus: 1, useStatus: 0 },
        { name: '视频巡逻', activeStatus: 0, useStatus: 0 },
    ]);
    return { firstTop: firstTop.name, otherTop: (await topOf(other.id)).name };
}

let tops: { firstTop: string; otherTop: string };

beforeAll(async () => {
    server = await startPlatform(false);
    tops = await seed(server.db);
    // The lazy chunks (the charts above all) take jsdom's transform many seconds the first time: load them here, so
    // the tests' own waits measure the screen, not the transform.
    await Promise.all([
        import('../../src/engine/page'),
        import('../../src/engine/page/ChartSection'),
        import('../../src/widgets/dashboard/ProjectCards'),
        import('../../src/widgets/dashboard/LocationMap'),
        import('../../src/components/map/DeviceMap'),
    ]);
});

afterAll(async () => {
    await server?.close();
});

beforeEach(() => {
    FakeMap.last = undefined;
    // resetHandlers (setup.ts) drops the platform after each test.
    mswServer.use(platformHandler(server));
});

async function countOf(table: string): Promise<number> {
    const result = await server.db.execute(sql.raw(`SELECT count(*)::int AS n FROM ${table}`));
    return Number((result as unknown as { rows: Array<{ n: number }> }).rows[0].n);
}

/** A pie's legend as [label, count, share] rows (CountPie lists every slice beside its ring). */
async function legend(title: string): Promise<string[][]> {
    const list = await screen.findByRole('list', { name: `${title}分布` });
    return within(list)
        .getAllByRole('listitem')
        .map((li) => Array.from(li.children, (c) => c.textContent ?? '').slice(1));
}

describe('dashboard (/introduce)', () => {
    it('shows the overview counts of the platform, product and device counts linking to their screens', async () => {
        renderApp('/introduce');
        // The file's first screen loads its chunks and warms the platform: more than the default second.
        expect(await screen.findByTestId('count-deviceCount', undefined, { timeout: 15_000 })).toHaveTextContent('7');
        expect(screen.getByTestId('count-projectCount')).toHaveTextContent(String(await countOf('projects')));
        expect(screen.getByTestId('count-productCount')).toHaveTextContent(String(await countOf('products')));
        expect(screen.getByTestId('count-deviceCount')).toHaveTextContent(String(await countOf('devices')));
        expect(screen.getByTestId('count-appUsedCount')).toHaveTextContent('1');
        expect(screen.getByTestId('count-appToUseCount')).toHaveTextContent('1');

        expect(screen.getByRole('link', { name: /产品总数/ })).toHaveAttribute('href', '/product');
        expect(screen.getByRole('link', { name: /设备总数/ })).toHaveAttribute('href', '/deviceInstance');
        expect(screen.getByRole('link', { name: /场景项目/ })).toHaveAttribute('href', '/programList');
    });

    it('draws the device status, device type and pending alert pies with their counts', async () => {
        renderApp('/introduce');
        // A disabled device counts as offline: 3 online, 2 offline (one disabled), 2 inactive.
        expect(await legend('设备状态')).toEqual([
            ['在线', '3', '42.9%'],
            ['离线', '2', '28.6%'],
            ['未激活', '2', '28.6%'],
        ]);
        // Per top-level category: two products of one (4 devices), one of another (3 devices).
        expect(new Map((await legend('设备类型')).map(([name, n]) => [name, n]))).toEqual(
            new Map([
                [tops.firstTop, '4'],
                [tops.otherTop, '3'],
            ]),
        );
        expect((await legend('待处理告警')).map(([name, n]) => [name, n])).toEqual([
            ['紧急', String(seeded.pending[1])],
            ['严重', String(seeded.pending[2])],
            ['一般', String(seeded.pending[3])],
        ]);
        const alerts = screen.getByRole('list', { name: '待处理告警分布' });
        const pendingTotal = seeded.pending[1] + seeded.pending[2] + seeded.pending[3];
        expect(within(alerts.closest('.MuiCard-root') as HTMLElement).getByText(`共 ${pendingTotal}`)).toBeVisible();
    });

    it('lists my projects as cards to their overviews, and a 新建项目 card to the project list', async () => {
        renderApp('/introduce');
        const section = await screen.findByRole('region', { name: '我的项目' });
        const cards = await within(section).findAllByTestId('project-card');
        expect(cards).toHaveLength(2);
        const lighting = cards.find((c) => c.textContent?.includes('园区照明项目'))!;
        expect(lighting).toHaveAttribute('href', `/programOverview/${seeded.projectIds[0]}`);
        expect(lighting).toHaveTextContent('智慧城市');
        expect(lighting).toHaveTextContent('设备 3 台');
        expect(within(section).getByRole('link', { name: '新建项目' })).toHaveAttribute('href', '/programList');

        fireEvent.click(lighting);
        await waitFor(() => expect(currentLocation.pathname).toBe(`/programOverview/${seeded.projectIds[0]}`));
    });

    it('offers 新建项目 only to a user who may create projects', async () => {
        const info = (await (await server.fetch('/api/sso/getUserInfo')).json()) as { data: { rights: string[] } };
        expect(info.data.rights).toContain('project.create');
        mswServer.use(
            http.get('*/api/sso/getUserInfo', () =>
                Response.json({
                    ...info,
                    data: { ...info.data, rights: info.data.rights.filter((r) => r !== 'project.create') },
                }),
            ),
        );
        // A fresh authProvider: the app's own keeps the identity (and rights) the earlier tests read.
        renderApp('/introduce', { authProvider: createAuthProvider() });
        const section = await screen.findByRole('region', { name: '我的项目' });
        expect(await within(section).findAllByTestId('project-card')).toHaveLength(2);
        expect(within(section).queryByRole('link', { name: '新建项目' })).toBeNull();
    });

    it('pages the alert events 10 at a time, newest first, with the time trimmed and the page in the URL', async () => {
        renderApp('/introduce');
        const table = await screen.findByRole('table', { name: '告警事件' });
        await waitFor(() => expect(within(table).getAllByRole('row')).toHaveLength(11));
        const first = within(table).getAllByRole('row')[1];
        const cells = within(first)
            .getAllByRole('cell')
            .map((c) => c.textContent);
        // Event 23: type (23 % 3) + 1 = 3 一般, pending, at BASE + 23 h, shown without its milliseconds.
        const answer = (await (await server.fetch('/api/event/list?pageNumber=1&pageSize=10')).json()) as {
            data: { records: Array<{ timestamp: string }> };
        };
        const newest = answer.data.records[0].timestamp;
        expect(newest).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.123$/);
        expect(cells).toEqual(['一般', 'dash_dev_3', '告警内容23', '环境监测项目', newest.slice(0, -4), '待处理']);
        expect(screen.getByText('共 23 条')).toBeInTheDocument();

        fireEvent.click(screen.getByRole('button', { name: '下一页' }));
        await waitFor(() => expect(searchParam('alertPage')).toBe('2'));
        await waitFor(() => expect(within(table).getAllByRole('row')[1]).toHaveTextContent('告警内容13'));
        expect(within(table).getAllByRole('row')).toHaveLength(11);
        // Event 12 is handled (every third).
        expect(within(table).getAllByRole('row')[2]).toHaveTextContent(/告警内容12.*已处理$/);

        fireEvent.click(screen.getByRole('button', { name: '下一页' }));
        await waitFor(() => expect(searchParam('alertPage')).toBe('3'));
        await waitFor(() => expect(within(table).getAllByRole('row')).toHaveLength(4));
        expect(screen.getByText('共 23 条')).toBeInTheDocument();
        expect(screen.getByRole('button', { name: '下一页' })).toBeDisabled();
    });

    it('opens a bookmarked page of alerts', async () => {
        renderApp('/introduce?alertPage=3');
        const table = await screen.findByRole('table', { name: '告警事件' });
        await waitFor(() => expect(within(table).getAllByRole('row')[1]).toHaveTextContent('告警内容3'));
        expect(within(table).getAllByRole('row')).toHaveLength(4);
    });

    it('puts every located device on the map from its one first call; clicking one opens its detail', async () => {
        const asked: URL[] = [];
        mswServer.events.on('request:start', ({ request }) => {
            if (request.url.includes('/api/device/queryLonLat')) asked.push(new URL(request.url));
        });
        renderApp('/introduce');
        expect(await screen.findByTestId('located-count')).toHaveTextContent(`已定位设备 ${seeded.located.length} 台`);
        await waitFor(() => expect(mappedDevices()).toBe(seeded.located.length));
        expect(screen.queryByText('暂无数据')).toBeNull();
        // SPEC: zoom 5 (one lower on maplibre's 512-px tiles), centred on Beijing.
        expect(FakeMap.last!.options.zoom).toBe(4);
        expect(FakeMap.last!.options.center).toEqual([116.4, 39.9]);
        // Few devices: they came whole in the first answer and maplibre clusters them; nothing else was asked.
        expect(asked.map((u) => [u.pathname, u.searchParams.get('whole')])).toEqual([
            ['/api/device/queryLonLatClusters', '10000'],
        ]);
        expect(FakeMap.last!.sources.get(SOURCE_ID)?.spec).toMatchObject({ cluster: true, clusterRadius: 80 });
        mswServer.events.removeAllListeners();

        const target = seeded.located[1];
        await act(() => FakeMap.last!.fire('click', { features: [{ properties: { id: target.id } }] }, POINT_LAYER));
        await waitFor(() =>
            expect(currentLocation.pathname).toBe(`/devInstanceDetail/${target.productId}/${target.id}`),
        );
    });

    it('clusters on the server when more devices are located than travel whole: a cluster zooms in, a device opens', async () => {
        // The platform answers as it does beyond the limit: the whole map is never sent, only the view's clusters.
        const asked: URL[] = [];
        mswServer.use(
            http.get('*/api/device/queryLonLatClusters', ({ request }) => {
                const url = new URL(request.url);
                asked.push(new URL(url));
                url.searchParams.delete('whole');
                return server.app.fetch(new Request(url, { headers: { cookie: `Authorization=${server.token}` } }));
            }),
        );
        renderApp('/introduce');
        expect(await screen.findByTestId('located-count')).toHaveTextContent(`已定位设备 ${seeded.located.length} 台`);
        await waitFor(() => expect(FakeMap.last?.sources.get(SOURCE_ID)).toBeDefined());
        expect(FakeMap.last!.sources.get(SOURCE_ID)?.spec).not.toHaveProperty('cluster');
        expect(asked[0].searchParams.get('whole')).toBe('10000');
        const features = () =>
            (FakeMap.last!.sources.get(SOURCE_ID)!.data as { features: Array<{ properties: Record<string, unknown> }> })
                .features;
        const cluster = features().find((f) => f.properties.cluster);
        expect(cluster).toBeDefined();
        const map = FakeMap.last!;
        const eased: unknown[] = [];
        map.easeTo.mockImplementation((to: { zoom: number }) => {
            eased.push(to);
            map.options.zoom = to.zoom;
        });
        const at = { type: 'Point', coordinates: [116.4, 39.9] };
        await act(() =>
            map.fire('click', { features: [{ properties: cluster!.properties, geometry: at }] }, CLUSTER_LAYER),
        );
        // Where the server said the cluster splits.
        const zoom = Number(cluster!.properties.expansion_zoom);
        expect(zoom).toBeGreaterThan(4);
        expect(eased).toEqual([{ center: [116.4, 39.9], zoom: zoom + 0.01 }]);
        // The map moved: the new view is asked for, without `whole`.
        await act(() => map.fire('moveend', {}));
        await waitFor(() => expect(asked.length).toBe(2));
        expect(asked[1].searchParams.get('zoom')).toBe(String(zoom));
        expect(asked[1].searchParams.has('whole')).toBe(false);
        await waitFor(() => expect(features().some((f) => !f.properties.cluster)).toBe(true));

        const device = features().find((f) => !f.properties.cluster);
        expect(device).toBeDefined();
        const located = seeded.located.find((d) => d.id === device!.properties.id)!;
        await act(() => FakeMap.last!.fire('click', { features: [{ properties: device!.properties }] }, POINT_LAYER));
        await waitFor(() =>
            expect(currentLocation.pathname).toBe(`/devInstanceDetail/${located.productId}/${located.id}`),
        );
    });

    it('says 暂无数据 on the map when no device has a location', async () => {
        mswServer.use(
            http.get('*/api/device/queryLonLatClusters', () =>
                Response.json({
                    code: 0,
                    msg: 'success',
                    data: {
                        whole: true,
                        total: 0,
                        zoom: 4,
                        clusters: [],
                        devices: [],
                        truncated: false,
                        rebuilding: false,
                    },
                }),
            ),
        );
        renderApp('/introduce');
        expect(await screen.findByText('暂无数据')).toBeInTheDocument();
        expect(screen.getByTestId('located-count')).toHaveTextContent('已定位设备 0 台');
        await waitFor(() => expect(mappedDevices()).toBe(0));
    });

    it('says what failed and offers 重试 when the counts cannot be read', async () => {
        let calls = 0;
        mswServer.use(
            http.get('*/api/dashboard/count', () => {
                calls++;
                return fail('统计服务暂不可用');
            }),
        );
        renderApp('/introduce');
        expect(await screen.findByText('统计数据加载失败：统计服务暂不可用')).toBeInTheDocument();
        expect(calls).toBe(1);
        mswServer.use(platformHandler(server));
        fireEvent.click(screen.getByRole('button', { name: '重试' }));
        expect(await screen.findByTestId('count-deviceCount')).toHaveTextContent('7');
    });
});
