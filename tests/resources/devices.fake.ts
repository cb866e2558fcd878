import { http, HttpResponse, type HttpHandler } from 'msw';
import { ok, shellHandlers } from './helpers';

/** The device family's envelopes (docs/platform-api.md: code 0 on success, code 1 with the message otherwise). */
export const ok0 = (data: unknown) => HttpResponse.json({ code: 0, msg: 'success', data });
export const fail0 = (msg: string, status = 400) => HttpResponse.json({ code: 1, msg }, { status });

export interface FakeProduct {
    productId: number;
    productKey: string;
    productName: string;
    nodeType: number;
}

export interface FakeDevice {
    deviceId: number;
    deviceName: string;
    productId: number;
    productKey: string;
    productName: string;
    nodeType: number;
    status: string;
    remark: string;
    projectId: number | null;
    projectName: string | null;
    createTime: string;
    lastTime: string | null;
}

export const PRODUCTS: FakeProduct[] = [
    { productId: 1, productKey: 'pkLamp00001', productName: '智能路灯', nodeType: 0 },
    { productId: 2, productKey: 'pkGate00002', productName: '工业网关', nodeType: 1 },
];

export const PROJECTS = [
    { id: 11, code: 'P2024001', projectName: '智慧园区示范项目', sceneName: '智慧办公' },
    { id: 12, code: 'P2024002', projectName: '城市照明改造项目', sceneName: '智慧城市' },
    { id: 13, code: 'P2024004', projectName: '工厂能耗监测项目', sceneName: '工业互联网' },
];

export function device(i: number, over: Partial<FakeDevice> = {}): FakeDevice {
    const product = over.productId === 2 ? PRODUCTS[1] : PRODUCTS[0];
    return {
        deviceId: i,
        deviceName: `dev_${String(i).padStart(3, '0')}`,
        productId: product.productId,
        productKey: product.productKey,
        productName: product.productName,
        nodeType: product.nodeType,
        status: 'INACTIVE',
        remark: '',
        projectId: null,
        projectName: null,
        createTime: `2025-03-01 10:00:${String(i % 60).padStart(2, '0')}`,
        lastTime: null,
        ...over,
    };
}

/** What the fake platform received, for asserting the requests' params. */
export interface Calls {
    list: URLSearchParams[];
    statistics: URLSearchParams[];
    save: URLSearchParams[];
    saveDevice: URLSearchParams[];
    batch: URLSearchParams[];
    remove: URLSearchParams[];
    update: URLSearchParams[];
    bind: URLSearchParams[];
    unbind: URLSearchParams[];
    removeFromProject: URLSearchParams[];
}

export function emptyCalls(): Calls {
    return {
        list: [],
        statistics: [],
        save: [],
        saveDevice: [],
        batch: [],
        remove: [],
        update: [],
        bind: [],
        unbind: [],
        removeFromProject: [],
    };
}

const form = async (request: Request) => new URLSearchParams(await request.text());

/**
 * An in-memory device family that follows the contract (newest first, productKey filter, paging), so the screens
 * can be driven through whole flows; a test overrides single paths with mswServer.use for odd answers.
 */
export function deviceFamily(rows: FakeDevice[], calls: Calls = emptyCalls()): HttpHandler[] {
    let nextId = Math.max(0, ...rows.map((r) => r.deviceId)) + 1;
    const matching = (q: URLSearchParams) =>
        rows.filter((r) => !q.get('productKey') || r.productKey === q.get('productKey'));
    const add = (product: FakeProduct, deviceName: string, remark = '') => {
        const row = device(nextId++, { productId: product.productId, deviceName, remark });
        rows.unshift(row);
        return row;
    };
    return [
        ...shellHandlers(),
        http.get('*/api/product/list-product', () => ok({ list: PRODUCTS })),
        http.get('*/api/project/listAll', () => ok({ list: PROJECTS })),
        http.get('*/api/device/list', ({ request }) => {
            const q = new URL(request.url).searchParams;
            calls.list.push(q);
            const all = matching(q);
            const page = Number(q.get('pageNumber'));
            const size = Number(q.get('pageSize'));
            return ok0({
                records: all.slice((page - 1) * size, page * size),
                total: all.length,
                onlineCount: all.filter((r) => r.status === 'ONLINE').length,
            });
        }),
        http.get('*/api/device/statistics', ({ request }) => {
            const q = new URL(request.url).searchParams;
            calls.statistics.push(q);
            const all = matching(q);
            return ok0({
                total: all.length,
                onlineTotal: all.filter((r) => r.status === 'ONLINE').length,
                inActiveTotal: all.filter((r) => r.status === 'INACTIVE').length,
            });
        }),
        http.post('*/api/device/save', async ({ request }) => {
            const body = await form(request);
            calls.save.push(body);
            const product = PRODUCTS.find((p) => p.productKey === body.get('productKey'));
            if (!product) return fail0('产品不存在', 404);
            if (rows.some((r) => r.productId === product.productId && r.deviceName === body.get('deviceName'))) {
                return fail0('设备名称已存在', 409);
            }
            return ok0(add(product, body.get('deviceName') ?? '', body.get('remark') ?? ''));
        }),
        http.post('*/api/device/SaveDevice', async ({ request }) => {
            const body = await form(request);
            calls.saveDevice.push(body);
            const product = PRODUCTS.find((p) => String(p.productId) === body.get('productId'));
            if (!product) return fail0('产品不存在', 404);
            return ok0(add(product, body.get('deviceName') ?? '', body.get('remark') ?? ''));
        }),
        http.post('*/api/device/BatchRegisterDevice', async ({ request }) => {
            const body = await form(request);
            calls.batch.push(body);
            const product = PRODUCTS.find((p) => String(p.productId) === body.get('productId'))!;
            const names = Array.from({ length: Number(body.get('amount')) }, (_, i) => add(product, `auto_${i}`));
            return ok0({ count: names.length, deviceNames: names.slice(0, 100).map((r) => r.deviceName) });
        }),
        http.post('*/api/device/RemoveDevice', async ({ request }) => {
            const body = await form(request);
            calls.remove.push(body);
            const at = rows.findIndex(
                (r) => r.productKey === body.get('productKey') && r.deviceName === body.get('deviceName'),
            );
            if (at < 0) return fail0('设备不存在', 404);
            rows.splice(at, 1);
            return ok0(null);
        }),
        http.put('*/api/device/update', async ({ request }) => {
            const body = await form(request);
            calls.update.push(body);
            const row = rows.find((r) => String(r.deviceId) === body.get('deviceId'));
            if (!row) return fail0('设备不存在', 404);
            row.status = body.get('action') === 'disable' ? 'DISABLE' : row.lastTime ? 'OFFLINE' : 'INACTIVE';
            return ok0(row);
        }),
        http.post('*/api/device/bind', async ({ request }) => {
            const body = await form(request);
            calls.bind.push(body);
            const project = PROJECTS.find((p) => String(p.id) === body.get('projectId'));
            if (!project) return fail0('项目不存在', 404);
            for (const id of body.getAll('deviceId')) {
                const row = rows.find((r) => String(r.deviceId) === id)!;
                row.projectId = project.id;
                row.projectName = project.projectName;
            }
            return ok0({ count: body.getAll('deviceId').length });
        }),
        http.post('*/api/device/unbind', async ({ request }) => {
            const body = await form(request);
            calls.unbind.push(body);
            for (const id of body.getAll('deviceId')) {
                const row = rows.find((r) => String(r.deviceId) === id)!;
                row.projectId = null;
                row.projectName = null;
            }
            return ok0({ count: body.getAll('deviceId').length });
        }),
        http.get('*/api/device/removeFromProject', ({ request }) => {
            const q = new URL(request.url).searchParams;
            calls.removeFromProject.push(q);
            const row = rows.find((r) => String(r.deviceId) === q.get('deviceId'));
            if (!row) return fail0('设备不存在', 404);
            if (row.projectId === null) return fail0('未关联项目');
            row.projectId = null;
            row.projectName = null;
            return ok0(null);
        }),
    ];
}
