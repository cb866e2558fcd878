import { afterEach, describe, expect, it, vi } from 'vitest';
import { createDataProvider } from '../../dataProvider';
import { fakeFetch, sentParams, type SentRequest } from './fakeFetch';
import { all } from './dataProvider.fixtures';

const path = (req: SentRequest) => new URL(req.url, 'http://x').pathname;

function setup(handler?: Parameters<typeof fakeFetch>[0]) {
    const f = fakeFetch(handler);
    return { ...f, dp: createDataProvider(all, { prefix: '/console', fetch: f.fetch }) };
}

afterEach(() => vi.unstubAllGlobals());

describe('create', () => {
    it('posts a urlencoded form and answers the saved record with its id', async () => {
        const { dp, last } = setup(() => ({
            body: { code: 200, data: { productId: 9, productKey: 'a1B2c3D4e5F', productName: '智能灯' } },
        }));
        const { data } = await dp.create('products', {
            data: { productName: '智能灯', nodeType: 0, remark: undefined },
        });
        expect(last().method).toBe('POST');
        expect(path(last())).toBe('/console/api/product/save');
        expect(last().body).toBeInstanceOf(URLSearchParams);
        expect(String(last().body)).toBe(`productName=${encodeURIComponent('智能灯')}&nodeType=0`);
        expect(data).toMatchObject({ id: 9, productId: 9, productKey: 'a1B2c3D4e5F', nodeType: 0 });
    });

    it('answers the sent data with the new id when the answer carries only an id', async () => {
        const { dp } = setup(() => ({ body: { code: 200, data: 42 } }));
        const { data } = await dp.create('products', { data: { productName: '智能灯' } });
        expect(data).toEqual({ productName: '智能灯', productId: 42, id: 42 });
    });

    it('sends multipart FormData when a value is a File', async () => {
        const { dp, last } = setup(() => ({ body: { code: '000000', data: { id: 3 } } }));
        const file = new File(['log'], 'a.txt');
        await dp.create('productLogs', { data: { log: '更新', attachment: file } });
        expect(last().body).toBeInstanceOf(FormData);
        const form = last().body as FormData;
        expect(form.get('log')).toBe('更新');
        expect((form.get('attachment') as File).name).toBe('a.txt');
    });

    it('sends a JSON body with its content type when the call says json', async () => {
        const { dp, last } = setup(() => ({ body: { code: 200, data: { id: 5, identifier: 'temp' } } }));
        const fn = {
            productId: 1,
            type: 'property',
            identifier: 'temp',
            dataType: { type: 'int', specs: { min: 0, max: 9 } },
        };
        const { data } = await dp.create('thingFunctions', { data: fn });
        expect(last().headers.get('Content-Type')).toBe('application/json');
        expect(JSON.parse(String(last().body))).toEqual(fn);
        expect(data.id).toBe(5);
    });

    it("shows the resource's failure message when the server gives none", async () => {
        const { dp } = setup(() => ({ body: { code: 500 } }));
        await expect(dp.create('products', { data: { productName: 'x' } })).rejects.toMatchObject({
            message: '系统错误',
        });
        const named = setup(() => ({ body: { code: 400, msg: '产品名称已存在' } }));
        await expect(named.dp.create('products', { data: {} })).rejects.toMatchObject({ message: '产品名称已存在' });
    });
});

describe('update', () => {
    it('builds params through the definition and leaves the copied id out by default', async () => {
        const { dp, last } = setup(() => ({ body: { code: 200, data: null } }));
        const previousData = { id: 5, productId: 5, productName: '旧名称', remark: '' };
        const { data } = await dp.update('products', {
            id: 5,
            data: { ...previousData, productName: '新名称' },
            previousData,
        });
        expect(sentParams(last())).toEqual({ productId: '5', productName: '新名称', remark: '' });
        expect(data).toMatchObject({ id: 5, productName: '新名称' });
    });

    it('uses a per-call success rule and failure message (legacy device edit: returnCode 0)', async () => {
        const ok = setup(() => ({ body: { returnCode: 0, data: { deviceId: 'd1', remark: '新' } } }));
        const prev = { id: 'd1', deviceId: 'd1', remark: '旧' };
        const { data } = await ok.dp.update('devices', {
            id: 'd1',
            data: { ...prev, remark: '新' },
            previousData: prev,
        });
        expect(sentParams(ok.last())).toEqual({ deviceId: 'd1', remark: '新' });
        expect(data).toEqual({ id: 'd1', deviceId: 'd1', remark: '新' });

        const failed = setup(() => ({ body: { returnCode: 1 } }));
        await expect(failed.dp.update('devices', { id: 'd1', data: prev, previousData: prev })).rejects.toMatchObject({
            message: '系统错误',
        });
    });
});

describe('delete and the bulk verbs', () => {
    it('deletes with the id in the query and answers previousData when the answer has none', async () => {
        const { dp, last } = setup(() => ({ body: { code: 200, data: null } }));
        const previousData = { id: 5, productId: 5, productName: '智能灯' };
        const { data } = await dp.delete('products', { id: 5, previousData });
        expect(last().method).toBe('DELETE');
        expect(last().url).toBe('/console/api/product?productId=5');
        expect(last().body).toBeUndefined();
        expect(data).toEqual(previousData);
    });

    it('shows the failure envelope message, else the resource delete message', async () => {
        const { dp } = setup(() => ({ body: { code: 400 } }));
        await expect(dp.delete('products', { id: 1 })).rejects.toMatchObject({ message: '删除失败' });
        const groups = setup(() => ({ body: { returnCode: '9999', returnMessage: '该分组下有子分组' } }));
        await expect(groups.dp.delete('groups', { id: 1 })).rejects.toMatchObject({ message: '该分组下有子分组' });
    });

    it('runs a declared bulk delete once, with the ids per the call array rule', async () => {
        const { dp, calls } = setup(() => ({ body: { code: 0 } }));
        const { data } = await dp.deleteMany('devices', { ids: ['d1', 'd2'] });
        expect(calls).toHaveLength(1);
        expect(String(calls[0].body)).toBe('deviceId=d1%2Cd2');
        expect(data).toEqual(['d1', 'd2']);
    });

    it('falls back to one delete per id for deleteMany', async () => {
        const { dp, calls } = setup(() => ({ body: { returnCode: '1111' } }));
        const { data } = await dp.deleteMany('groups', { ids: [1, 2] });
        expect(calls.map((c) => c.url)).toEqual([
            '/console/api/group/delete?groupId=1',
            '/console/api/group/delete?groupId=2',
        ]);
        expect(data).toEqual([1, 2]);
    });

    it('fails deleteMany when one of the single deletes fails', async () => {
        const { dp } = setup((req) => ({
            body: req.url.endsWith('=2') ? { returnCode: '9999', returnMessage: '删除失败' } : { returnCode: '1111' },
        }));
        await expect(dp.deleteMany('groups', { ids: [1, 2] })).rejects.toMatchObject({ message: '删除失败' });
    });

    it('runs a declared bulk update with the ids and data as JSON', async () => {
        const { dp, last } = setup(() => ({ body: { code: 0 } }));
        const { data } = await dp.updateMany('devices', { ids: ['a', 'b'], data: { action: 'disable' } });
        expect(last().method).toBe('PUT');
        expect(JSON.parse(String(last().body))).toEqual({ action: 'disable', deviceId: ['a', 'b'] });
        expect(data).toEqual(['a', 'b']);
    });

    it('falls back to one update per id for updateMany', async () => {
        const { dp, calls } = setup(() => ({ body: { returnCode: '1111' } }));
        await dp.updateMany('groups', { ids: [1, 2], data: { remark: 'r' } });
        expect(calls.map((c) => sentParams(c))).toEqual([
            { groupId: '1', remark: 'r' },
            { groupId: '2', remark: 'r' },
        ]);
    });
});

describe('invoke and url', () => {
    it('runs a custom call and answers data and the whole envelope', async () => {
        const envelope = { code: 200, data: { success: ['t1'], failure: [] } };
        const { dp, last } = setup(() => ({ body: envelope }));
        const result = await dp.invoke('thingFunctions', 'import', { productId: 1, thingModel: { properties: [] } });
        expect(path(last())).toBe('/console/api/function/import');
        expect(JSON.parse(String(last().body))).toEqual({ productId: 1, thingModel: { properties: [] } });
        expect(result).toEqual({ data: envelope.data, body: envelope });
    });

    it('appends segment params to the path in the declared order', async () => {
        const { dp, last } = setup(() => ({ body: { code: 0, data: {} } }));
        await dp.invoke('devices', 'info', { deviceName: 'd 1', productKey: 'pk', extra: 'x' });
        expect(last().url).toBe('/console/api/device/getInfo/pk/d%201?extra=x');
    });

    it('applies the call transform to each row', async () => {
        const { dp } = setup(() => ({ body: { code: 0, data: [{ a: 1 }] } }));
        expect((await dp.invoke('devices', 'events')).data).toEqual([{ a: 1, seen: true }]);
    });

    it('goes through XMLHttpRequest with progress when onProgress is given', async () => {
        const sent: unknown[] = [];
        class FakeXHR {
            status = 200;
            responseText = JSON.stringify({ code: 0, data: { success: [{ deviceName: 'd1' }], failure: [] } });
            upload: { onprogress?: (e: object) => void } = {};
            onload?: () => void;
            open(method: string, url: string) {
                sent.push(method, url);
            }
            setRequestHeader() {}
            getAllResponseHeaders() {
                return '';
            }
            send(body: unknown) {
                sent.push(body);
                this.upload.onprogress?.({ lengthComputable: true, loaded: 1, total: 2 });
                setTimeout(() => this.onload?.(), 0);
            }
        }
        vi.stubGlobal('XMLHttpRequest', FakeXHR);
        const { dp, calls } = setup();
        const progress: number[] = [];
        const file = new File(['deviceName\nd1'], 'devices.csv');
        const result = await dp.invoke(
            'devices',
            'import',
            { productKey: 'pk', file },
            { onProgress: (f) => progress.push(f) },
        );
        expect(calls).toHaveLength(0);
        expect(sent[0]).toBe('POST');
        expect(sent[1]).toBe('/console/api/device/import');
        expect((sent[2] as FormData).get('file')).toBeInstanceOf(File);
        expect(progress).toEqual([0.5, 1]);
        expect(result.data).toEqual({ success: [{ deviceName: 'd1' }], failure: [] });
    });

    it('refuses an undeclared call', async () => {
        const { dp } = setup();
        await expect(dp.invoke('devices', 'nope')).rejects.toThrow(/nope/);
    });

    it('builds the URL of a GET call with its query and path params', () => {
        const { dp, calls } = setup();
        expect(dp.url('thingFunctions', 'export', { productId: 3 })).toBe('/console/api/function/export?productId=3');
        expect(dp.url('devices', 'template', { productKey: 'pk1' })).toBe('/console/api/device/template/pk1');
        expect(dp.url('products', 'getList', { productName: '灯' })).toBe(
            `/console/api/product?productName=${encodeURIComponent('灯')}`,
        );
        expect(calls).toHaveLength(0);
    });
});

describe('resources without an api block', () => {
    it('go to ra-data-simple-rest under prefix/api with the Authorization header', async () => {
        vi.stubGlobal('localStorage', { getItem: (k: string) => (k === 'Authorization' ? 'tok-9' : null) });
        const { dp, calls } = setup((req) =>
            req.method === 'GET'
                ? { body: [{ id: 1, text: 'n' }], headers: { 'Content-Range': 'notes 0-0/1' } }
                : { body: { id: 1, text: 'm' } },
        );
        const result = await dp.getList('notes', {
            pagination: { page: 1, perPage: 10 },
            sort: { field: 'id', order: 'ASC' },
            filter: {},
        });
        expect(result).toEqual({ data: [{ id: 1, text: 'n' }], total: 1 });
        expect(path(calls[0])).toBe('/console/api/notes');
        expect(calls[0].headers.get('Authorization')).toBe('tok-9');
        await dp.update('notes', { id: 1, data: { text: 'm' }, previousData: { id: 1 } });
        expect(calls[1].method).toBe('PUT');
        expect(calls[1].url).toBe('/console/api/notes/1');
        expect(calls[1].headers.get('Authorization')).toBe('tok-9');
        expect(calls[1].headers.get('Content-Type')).toBe('application/json');
    });

    it('keep the timeout and throw HttpError on non-2xx', async () => {
        const { dp } = setup(() => ({ status: 500, body: { message: 'boom' } }));
        await expect(dp.getOne('notes', { id: 1 })).rejects.toMatchObject({ message: 'boom', status: 500 });
        const slow = createDataProvider(all, {
            prefix: '',
            timeout: 10,
            fetch: () => new Promise<Response>(() => undefined),
        });
        await expect(slow.getOne('notes', { id: 1 })).rejects.toMatchObject({
            message: '请求超时，请稍后重试',
            status: 408,
        });
    });

    it('also serve resource names nobody declared', async () => {
        const { dp, last } = setup(() => ({ body: { id: 2 } }));
        await dp.getOne('whatever', { id: 2 });
        expect(last().url).toBe('/console/api/whatever/2');
    });
});
