import { eq, inArray, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deviceLatest, devices, products, thingFunctions } from '../../server/db/schema';
import { createTestServer, type TestServer } from '../../server/testing';
import { createDevice } from './devicesSupport';
import { call, form, json, productForm, propertyFunction, rowCounts } from './support';

interface Product {
    productId: number;
    productName: string;
    productKey: string;
    nodeType: number;
    gatewayType: number;
    networkType: number;
    networkName: string | null;
    categoryName: string | null;
    projectName: string | null;
    createTime: string;
}
interface Page {
    records: Product[];
    total: number;
}

let s: TestServer;

beforeAll(async () => {
    // No demo content: the list holds exactly what these tests create.
    s = await createTestServer({ seed: false });
});
afterAll(() => s?.close());

const list = async (query: string) => (await call(s, 'GET', `/api/product?${query}`)).body.data as Page;
const create = async (overrides: Record<string, string | number> = {}) =>
    (await call(s, 'POST', '/api/product/save', form(productForm(overrides)))).body.data as Product;

describe('products', () => {
    it('starts empty without demo data, but with the category tree and networks', async () => {
        expect(await list('')).toEqual({ records: [], total: 0 });
        const tree = (await call(s, 'GET', '/api/product/list-category')).body.data as Array<{
            children?: Array<{ children?: unknown[] }>;
        }>;
        expect(tree.length).toBeGreaterThan(0);
        expect(tree[0].children?.[0].children?.length).toBeGreaterThan(0);
        const networks = (await call(s, 'GET', '/api/product/list-network?type=0')).body.data as Array<{ id: number }>;
        expect(networks.map((n) => n.id)).toContain(5);
        const protocols = (await call(s, 'GET', '/api/product/list-network?type=1')).body.data as Array<{ id: number }>;
        expect(protocols.map((n) => n.id)).not.toContain(5);
        expect((await call(s, 'GET', '/api/product/list-network?type=2')).status).toBe(400);
    });

    it('creates with a fresh 11-character productKey and answers the whole product', async () => {
        const a = await create({ productName: '创建测试_A', projectCode: '' });
        const b = await create({ productName: '创建测试_B' });
        expect(a.productKey).toMatch(/^[A-Za-z0-9]{11}$/);
        expect(a.productKey).not.toBe(b.productKey);
        expect(a).toMatchObject({
            productName: '创建测试_A',
            categoryName: '路灯照明',
            networkName: '以太网',
            projectName: null,
        });
        expect(a.createTime).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    });

    it('stores a gateway with gatewayType 0, and takes a gateway protocol for a device behind a gateway', async () => {
        const gateway = await create({ productName: '网关测试_G', nodeType: 1, gatewayType: 1, networkType: 5 });
        expect(gateway.gatewayType).toBe(0);
        const sub = await create({ productName: '子设备测试_S', nodeType: 0, gatewayType: 1, networkType: 11 });
        expect(sub).toMatchObject({ gatewayType: 1, networkType: 11, networkName: 'Modbus' });
    });

    it('pages newest first with pageNumber / pageSize and answers the total', async () => {
        for (let i = 0; i < 7; i++) await create({ productName: `分页测试_${i}` });
        const all = await list('productName=分页测试&pageSize=100');
        expect(all.total).toBe(7);
        expect(all.records.map((r) => r.productName)).toEqual([6, 5, 4, 3, 2, 1, 0].map((i) => `分页测试_${i}`));
        const page2 = await list('productName=分页测试&pageNumber=2&pageSize=3');
        expect(page2.total).toBe(7);
        expect(page2.records.map((r) => r.productName)).toEqual(['分页测试_3', '分页测试_2', '分页测试_1']);
        const page3 = await list('productName=分页测试&pageNumber=3&pageSize=3');
        expect(page3.records.map((r) => r.productName)).toEqual(['分页测试_0']);
        expect((await list('productName=分页测试&pageNumber=9&pageSize=3')).records).toEqual([]);
        expect((await list('productName=分页测试')).records).toHaveLength(7);
    });

    it('refuses malformed paging', async () => {
        for (const q of ['pageNumber=0', 'pageNumber=abc', 'pageSize=-1', 'pageSize=1001', 'pageNumber=1.5']) {
            const answer = await call(s, 'GET', `/api/product?${q}`);
            expect(answer.status, q).toBe(400);
        }
    });

    it('searches names as a case-insensitive literal substring (% and _ are not wildcards)', async () => {
        await create({ productName: 'Search_x1' });
        await create({ productName: 'SearchAx2' });
        expect((await list('productName=search_')).records.map((r) => r.productName)).toEqual(['Search_x1']);
        expect((await list('productName=SEARCH')).total).toBe(2);
        expect((await list(`productName=${encodeURIComponent('%')}`)).total).toBe(0);
        expect((await list('productName=%20%20')).total).toBeGreaterThan(0); // blank search = no filter
    });

    it('updates name and remark, and keeps names unique', async () => {
        const p = await create({ productName: '改名前_01' });
        const updated = await call(
            s,
            'POST',
            '/api/product/update',
            form({ productId: p.productId, productName: '改名后_01', remark: '新描述' }),
        );
        expect(updated.body.data).toMatchObject({
            productId: p.productId,
            productName: '改名后_01',
            remark: '新描述',
            productKey: p.productKey,
        });
        // Its own name is not a clash.
        const same = await call(
            s,
            'POST',
            '/api/product/update',
            form({ productId: p.productId, productName: '改名后_01' }),
        );
        expect(same.status).toBe(200);
    });

    it('answers detail and list-product', async () => {
        const p = await create({ productName: '详情测试_D' });
        expect((await call(s, 'GET', `/api/product/detail?productId=${p.productId}`)).body.data).toEqual(p);
        const options = (await call(s, 'GET', '/api/product/list-product')).body.data as {
            list: Array<{ productId: number }>;
        };
        expect(options.list[0]).toEqual({
            productId: p.productId,
            productKey: p.productKey,
            productName: '详情测试_D',
            nodeType: 0,
        });
        expect((await call(s, 'GET', '/api/product/detail?productId=999999')).body).toEqual({
            code: 404,
            msg: '产品不存在',
        });
        expect((await call(s, 'GET', '/api/product/detail')).body).toEqual({ code: 400, msg: '缺少产品ID' });
    });

    it('list-product?orderBy=active puts the products whose devices reported last first (the message log opens there)', async () => {
        const quiet = await create({ productName: '活跃测试_静' });
        const reported = await create({ productName: '活跃测试_早' });
        const busy = await create({ productName: '活跃测试_忙' });
        const newest = await create({ productName: '活跃测试_新' });
        const at = (minutesAgo: number) => new Date(Date.now() - minutesAgo * 60_000);
        for (const [p, minutesAgo] of [
            [reported, 30],
            [busy, 1],
        ] as const) {
            const device = await createDevice(s, p.productKey);
            await s.db.insert(deviceLatest).values({ deviceId: device.deviceId, props: {}, ts: at(minutesAgo) });
        }
        const names = async (query: string) =>
            (
                (await call(s, 'GET', `/api/product/list-product${query}`)).body.data as {
                    list: Array<{ productName: string }>;
                }
            ).list
                .map((p) => p.productName)
                .filter((n) => n.startsWith('活跃测试_'));
        // The reporting ones by their last report, then the silent ones newest first.
        expect(await names('?orderBy=active')).toEqual(['活跃测试_忙', '活跃测试_早', '活跃测试_新', '活跃测试_静']);
        // Without it: newest first, as before.
        expect(await names('')).toEqual(['活跃测试_新', '活跃测试_忙', '活跃测试_早', '活跃测试_静']);
        expect((await call(s, 'GET', '/api/product/list-product?orderBy=name')).body).toEqual({
            code: 400,
            msg: 'orderBy 只能是 active',
        });
        expect(quiet.productId).toBeLessThan(newest.productId);
        // The devices go again: a later test deletes every product.
        await s.db.delete(devices).where(inArray(devices.productId, [reported.productId, busy.productId]));
    });

    it('deletes a product with its thing model, and answers 404 产品不存在 for an unknown id', async () => {
        const p = await create({ productName: '删除测试_X' });
        await call(s, 'POST', '/api/function/save', json(propertyFunction(p.productId)));
        const deleted = await call(s, 'DELETE', `/api/product?productId=${p.productId}`);
        expect(deleted.body).toEqual({ code: 200, msg: 'success', data: null });
        expect(await s.db.select().from(thingFunctions).where(eq(thingFunctions.productId, p.productId))).toEqual([]);
        const before = await rowCounts(s.db);
        const again = await call(s, 'DELETE', `/api/product?productId=${p.productId}`);
        expect(again.status).toBe(404);
        expect(again.body).toEqual({ code: 404, msg: '产品不存在' });
        expect((await call(s, 'DELETE', '/api/product?productId=abc')).status).toBe(400);
        expect(await rowCounts(s.db)).toEqual(before);
    });

    it('keeps the unfiltered total (a trigger-kept count) equal to the rows', async () => {
        const [{ n }] = await s.db.select({ n: sql<number>`count(*)::int` }).from(products);
        expect((await list('')).total).toBe(Number(n));
        expect(Number(n)).toBeGreaterThan(10);
        await s.db.delete(products);
        expect((await list('')).total).toBe(0);
    });

    it('lets exactly one of several simultaneous creates with one name through', async () => {
        const answers = await Promise.all(
            Array.from({ length: 5 }, () =>
                call(s, 'POST', '/api/product/save', form(productForm({ productName: '并发同名_1' }))),
            ),
        );
        expect(answers.map((a) => a.status).sort()).toEqual([200, 409, 409, 409, 409]);
        expect((await list('productName=并发同名_1')).total).toBe(1);
    });
});

describe('topics', () => {
    it('lists basic and thing-model topics for a product, with the device name or its placeholder', async () => {
        const p = await create({ productName: 'Topic测试_T' });
        await call(
            s,
            'POST',
            '/api/function/save',
            json({ productId: p.productId, type: 'event', identifier: 'Overheat', name: '过热', eventType: 'alert' }),
        );
        await call(
            s,
            'POST',
            '/api/function/save',
            json({ productId: p.productId, type: 'service', identifier: 'Reboot', name: '重启', callType: 'async' }),
        );
        const groups = (await call(s, 'GET', `/api/topic/list?productKey=${p.productKey}&deviceName=dev01`)).body
            .data as Array<{
            name: string;
            topics: Array<{ topic: string; permission: string }>;
        }>;
        expect(groups.map((g) => g.name)).toEqual(['基础通信Topic', '物模型通信Topic', '自定义Topic']);
        const topic = (t: string) => [...groups[0].topics, ...groups[1].topics].find((x) => x.topic === t)?.permission;
        const base = `/sys/${p.productKey}/dev01/thing`;
        expect(topic(`${base}/config/push`)).toBe('订阅');
        expect(topic(`${base}/config/get`)).toBe('发布');
        expect(topic(`${base}/config/get_reply`)).toBe('订阅');
        expect(topic(`${base}/config/push_reply`)).toBe('发布');
        expect(topic(`${base}/event/property/post`)).toBe('发布');
        expect(topic(`${base}/event/Overheat/post`)).toBe('发布');
        expect(topic(`${base}/service/Reboot`)).toBe('订阅');
        const placeholder = (await call(s, 'GET', `/api/topic/list?productKey=${p.productKey}`)).body
            .data as typeof groups;
        expect(placeholder[1].topics[0].topic).toBe(`/sys/${p.productKey}/\${deviceName}/thing/event/property/post`);
        expect((await call(s, 'GET', '/api/topic/list?productKey=nope')).status).toBe(404);
        expect((await call(s, 'GET', '/api/topic/list')).status).toBe(400);
    });
});
