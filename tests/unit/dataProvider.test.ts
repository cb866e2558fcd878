import { describe, expect, it } from 'vitest';
import { HttpError } from 'ra-core';
import { createDataProvider } from '../../dataProvider';
import { fakeFetch, sentParams, type SentRequest } from './fakeFetch';
import { all } from './dataProvider.fixtures';

const page = (records: unknown[], total = records.length) => ({ code: 200, msg: 'success', data: { records, total } });
const path = (req: SentRequest) => new URL(req.url, 'http://x').pathname;

function setup(handler?: Parameters<typeof fakeFetch>[0]) {
    const f = fakeFetch(handler);
    return { ...f, dp: createDataProvider(all, { prefix: '/console', fetch: f.fetch }) };
}

const list = { pagination: { page: 2, perPage: 10 }, sort: { field: 'id', order: 'ASC' as const }, filter: {} };

describe('getList', () => {
    it('sends 1-based pageNumber/pageSize and renamed filters in a GET query, reads data.records and data.total', async () => {
        const { dp, last } = setup(() => ({ body: page([{ productId: 7, productName: '智能灯' }], 31) }));
        const result = await dp.getList('products', { ...list, filter: { q: '灯' } });
        expect(last().method).toBe('GET');
        expect(path(last())).toBe('/console/api/product');
        expect(sentParams(last())).toEqual({ pageNumber: '2', pageSize: '10', productName: '灯' });
        expect(result.total).toBe(31);
        expect(result.data).toEqual([{ productId: 7, productName: '智能灯', id: 7 }]);
    });

    it('sends page/size in a form for the ms3 family and accepts code "000000"', async () => {
        const { dp, last } = setup(() => ({
            body: { code: '000000', data: { records: [{ id: 1, log: 'x' }], total: 1 } },
        }));
        const result = await dp.getList('productLogs', { ...list, pagination: { page: 1, perPage: 20 } });
        expect(last().method).toBe('POST');
        expect(path(last())).toBe('/console/ms3/productLog/find');
        expect(last().body).toBeInstanceOf(URLSearchParams);
        expect(String(last().body)).toBe('page=1&size=20');
        expect(result).toEqual({ data: [{ id: 1, log: 'x' }], total: 1 });
    });

    it('passes sort only when the call declares its param names', async () => {
        const { dp, calls } = setup(() => ({ body: page([]) }));
        await dp.getList('thingFunctions', { ...list, sort: { field: 'identifier', order: 'DESC' } });
        expect(sentParams(calls[0])).toMatchObject({ orderBy: 'identifier', order: 'DESC' });
        await dp.getList('products', { ...list, sort: { field: 'productName', order: 'DESC' } });
        expect(Object.values(sentParams(calls[1]))).not.toContain('DESC');
    });

    it('sends unlisted filter keys under their own name and leaves out empty ones', async () => {
        const { dp, last } = setup(() => ({ body: page([]) }));
        await dp.getList('products', { ...list, filter: { projectCode: 'p1', nodeType: 0, q: undefined } });
        expect(sentParams(last())).toEqual({ pageNumber: '2', pageSize: '10', projectCode: 'p1', nodeType: '0' });
    });

    it('uses the declared read and total paths, the family success rule, and the transform after the id copy', async () => {
        const { dp } = setup(() => ({
            body: { code: 0, data: { records: [{ deviceId: 'd1', status: 1 }], count: 9 } },
        }));
        const result = await dp.getList('devices', list);
        expect(result.total).toBe(9);
        expect(result.data).toEqual([{ deviceId: 'd1', id: 'd1', status: 1, online: true }]);
    });

    it('reads data.list with the row count as total when the answer is not paged', async () => {
        const { dp, last } = setup(() => ({ body: { code: 200, data: { list: [{ code: 'a' }, { code: 'b' }] } } }));
        const result = await dp.getList('projects', list);
        expect(sentParams(last())).toEqual({});
        expect(result).toEqual({
            data: [
                { code: 'a', id: 'a' },
                { code: 'b', id: 'b' },
            ],
            total: 2,
        });
    });

    it('throws the server message for a failure envelope', async () => {
        const { dp } = setup(() => ({ body: { code: 1, msg: '查询失败' } }));
        await expect(dp.getList('devices', list)).rejects.toMatchObject({ message: '查询失败', status: 200 });
    });

    it('throws HttpError 401 carrying the login URL', async () => {
        const { dp } = setup(() => ({
            status: 401,
            body: { code: 401, msg: '登录已过期，请重新登录', data: { loginUrl: '/sso/login?redirect=/api/product' } },
        }));
        const error = await dp.getList('products', list).catch((e) => e);
        expect(error).toBeInstanceOf(HttpError);
        expect(error.status).toBe(401);
        expect(error.body.data.loginUrl).toBe('/sso/login?redirect=/api/product');
    });

    it("follows react-admin's abort signal", async () => {
        let seen: AbortSignal | null | undefined;
        const { dp } = setup((req) => {
            seen = req.signal;
            return new Promise(() => undefined);
        });
        const controller = new AbortController();
        const pending = dp.getList('products', { ...list, signal: controller.signal });
        await Promise.resolve();
        controller.abort();
        await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
        expect(seen?.aborted).toBe(true);
        expect(dp.supportAbortSignal).toBe(true);
    });
});

describe('getOne', () => {
    it("sends the platform's id name and copies it to id", async () => {
        const { dp, last } = setup(() => ({ body: { code: 200, data: { productId: 5, productName: '网关一号' } } }));
        const { data } = await dp.getOne('products', { id: 5 });
        expect(path(last())).toBe('/console/api/product/detail');
        expect(sentParams(last())).toEqual({ productId: '5' });
        expect(data).toEqual({ productId: 5, productName: '网关一号', id: 5 });
    });

    it('fills {param} path segments from the params and does not repeat them in the query', async () => {
        const { dp, last } = setup(() => ({
            body: { code: 0, data: { device: { deviceId: 'a/b', deviceName: 'd' } } },
        }));
        const { data } = await dp.getOne('devices', { id: 'a/b' });
        expect(last().url).toBe('/console/api/device/detail/a%2Fb');
        expect(data).toEqual({ deviceId: 'a/b', deviceName: 'd', id: 'a/b' });
    });

    it('says the record does not exist when the answer has no record', async () => {
        const { dp } = setup(() => ({ body: { code: 200, data: null } }));
        await expect(dp.getOne('products', { id: 1 })).rejects.toMatchObject({
            message: 'ra.notification.item_doesnt_exist',
            status: 404,
        });
    });
});

describe('getMany and getManyReference', () => {
    it('uses the declared bulk call with the array rule of the call', async () => {
        const { dp, calls } = setup(() => ({ body: { code: 0, data: [{ deviceId: 1 }, { deviceId: 2 }] } }));
        const { data } = await dp.getMany('devices', { ids: [1, 2] });
        expect(calls).toHaveLength(1);
        expect(sentParams(calls[0])).toEqual({ deviceId: '1,2' });
        expect(data.map((r) => r.id)).toEqual([1, 2]);
    });

    it('falls back to one getOne per id, in parallel', async () => {
        let inFlight = 0;
        let peak = 0;
        const { dp, calls } = setup(async (req) => {
            peak = Math.max(peak, ++inFlight);
            await new Promise((r) => setTimeout(r, 5));
            inFlight--;
            return { body: { code: 200, data: { productId: Number(sentParams(req).productId) } } };
        });
        const { data } = await dp.getMany('products', { ids: [3, 4, 5] });
        expect(calls.map((c) => sentParams(c).productId)).toEqual(['3', '4', '5']);
        expect(peak).toBe(3);
        expect(data.map((r) => r.id)).toEqual([3, 4, 5]);
    });

    it('falls back to the list when there is no getOne either', async () => {
        const { dp, calls } = setup(() => ({
            body: { code: 200, data: { list: [{ code: 'a' }, { code: 'b' }, { code: 'c' }] } },
        }));
        const { data } = await dp.getMany('projects', { ids: ['c', 'a'] });
        expect(calls).toHaveLength(1);
        expect(data.map((r) => r.id)).toEqual(['a', 'c']);
    });

    it('getManyReference uses its declared call with the target renamed like a filter', async () => {
        const { dp, last } = setup(() => ({ body: { code: 0, data: { records: [{ deviceId: 's1' }], total: 4 } } }));
        const result = await dp.getManyReference('devices', {
            target: 'gatewayId',
            id: 'g1',
            pagination: { page: 1, perPage: 5 },
            sort: { field: 'id', order: 'ASC' },
            filter: { deviceName: 'x' },
        });
        expect(path(last())).toBe('/console/api/device/sub/list');
        expect(sentParams(last())).toEqual({ gwId: 'g1', deviceName: 'x', pageNumber: '1', pageSize: '5' });
        expect(result).toEqual({ data: [{ deviceId: 's1', id: 's1' }], total: 4 });
    });

    it('getManyReference falls back to getList with the target as a filter', async () => {
        const { dp, last } = setup(() => ({ body: page([{ id: 1, identifier: 'temp' }], 1) }));
        const result = await dp.getManyReference('thingFunctions', {
            target: 'productId',
            id: 12,
            pagination: { page: 1, perPage: 10 },
            sort: { field: 'id', order: 'ASC' },
            filter: { type: 'property' },
        });
        expect(path(last())).toBe('/console/api/function/list');
        expect(sentParams(last())).toMatchObject({
            productId: '12',
            type: 'property',
            pageNumber: '1',
            pageSize: '10',
        });
        expect(result.total).toBe(1);
    });
});

describe('definitions that arrive after the provider is made (the registry chunk loads beside the first screen)', () => {
    it('holds a call made before they arrive and answers it by the declared mapping once they do', async () => {
        const f = fakeFetch(() => ({ body: page([{ productId: 7, productName: '智能灯' }], 1) }));
        let arrive!: (list: typeof all) => void;
        const dp = createDataProvider(new Promise<typeof all>((resolve) => (arrive = resolve)), {
            prefix: '/console',
            fetch: f.fetch,
        });
        const pending = dp.getList('products', list);
        const invoked = dp.invoke('products', 'nope').catch((e: Error) => e.message);
        await new Promise((resolve) => setTimeout(resolve, 10));
        expect(f.calls).toHaveLength(0);
        arrive(all);
        const result = await pending;
        expect(path(f.last())).toBe('/console/api/product');
        expect(result.data).toEqual([{ productId: 7, productName: '智能灯', id: 7 }]);
        expect(await invoked).toBe('资源 products 未声明 nope 接口');
    });
});
