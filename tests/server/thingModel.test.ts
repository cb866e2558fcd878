import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATA_TYPE_NAMES } from '../../schemas/thingModel';
import { createTestServer, type TestServer } from '../../server/testing';
import { call, form, json, productForm, propertyFunction, rowCounts } from './support';

interface Fn {
    id: number;
    productId: number;
    type: string;
    identifier: string;
    name: string;
    accessMode: string | null;
    dataType: unknown;
    eventType: string | null;
    outputData: unknown;
    standard: boolean;
}
interface Model {
    properties: Array<Record<string, unknown>>;
    events: Array<Record<string, unknown>>;
    services: Array<Record<string, unknown>>;
    profile?: { productKey?: string };
}

let s: TestServer;

beforeAll(async () => {
    s = await createTestServer();
});
afterAll(() => s?.close());

async function newProduct(name: string): Promise<{ productId: number; productKey: string }> {
    return (await call(s, 'POST', '/api/product/save', form(productForm({ productName: name })))).body.data as {
        productId: number;
        productKey: string;
    };
}
const exportModel = async (productId: number) =>
    (await call(s, 'GET', `/api/function/export?productId=${productId}`)).body.data as Model;
const functions = async (productId: number, query = '') =>
    (await call(s, 'GET', `/api/function/list?productId=${productId}${query}`)).body.data as {
        records: Fn[];
        total: number;
    };

describe('thing model functions', () => {
    it('creates, reads, updates and deletes a function; fields of other types are null', async () => {
        const { productId } = await newProduct('物模型_CRUD');
        const saved = (
            await call(
                s,
                'POST',
                '/api/function/save',
                json({ ...propertyFunction(productId, { identifier: 'Temp' }), eventType: 'alert' }),
            )
        ).body.data as Fn;
        expect(saved).toMatchObject({
            productId,
            type: 'property',
            identifier: 'Temp',
            accessMode: 'r',
            eventType: null,
            standard: false,
        });
        expect((await call(s, 'GET', `/api/function/get?id=${saved.id}`)).body.data).toEqual(saved);

        const changed = (
            await call(
                s,
                'POST',
                '/api/function/save',
                json({
                    id: saved.id,
                    productId,
                    type: 'event',
                    identifier: 'Temp',
                    name: '温度告警',
                    eventType: 'alert',
                }),
            )
        ).body.data as Fn;
        expect(changed).toMatchObject({
            id: saved.id,
            type: 'event',
            accessMode: null,
            dataType: null,
            outputData: [],
        });

        expect((await call(s, 'DELETE', `/api/function/delete?id=${saved.id}`)).body).toEqual({
            code: 200,
            msg: 'success',
            data: null,
        });
        expect((await call(s, 'GET', `/api/function/get?id=${saved.id}`)).body).toEqual({
            code: 404,
            msg: '功能不存在',
        });
        expect((await call(s, 'DELETE', `/api/function/delete?id=${saved.id}`)).status).toBe(404);
    });

    it('keeps identifiers unique per product, not across products', async () => {
        const a = await newProduct('物模型_唯一A');
        const b = await newProduct('物模型_唯一B');
        const first = await call(
            s,
            'POST',
            '/api/function/save',
            json(propertyFunction(a.productId, { identifier: 'Same' })),
        );
        expect(first.status).toBe(200);
        expect(
            (await call(s, 'POST', '/api/function/save', json(propertyFunction(b.productId, { identifier: 'Same' }))))
                .status,
        ).toBe(200);
        const other = await call(
            s,
            'POST',
            '/api/function/save',
            json(propertyFunction(a.productId, { identifier: 'Other' })),
        );
        const rename = await call(
            s,
            'POST',
            '/api/function/save',
            json(propertyFunction(a.productId, { id: (other.body.data as Fn).id, identifier: 'Same' })),
        );
        expect(rename.body).toEqual({ code: 409, msg: '标识符已存在' });
        // Saving a function under its own identifier is no clash.
        const self = await call(
            s,
            'POST',
            '/api/function/save',
            json(propertyFunction(a.productId, { id: (first.body.data as Fn).id, identifier: 'Same', name: '改名' })),
        );
        expect(self.status).toBe(200);
    });

    it('lists by type with paging, and refuses an unknown type or product', async () => {
        const { productId } = await newProduct('物模型_列表');
        for (let i = 0; i < 4; i++)
            await call(s, 'POST', '/api/function/save', json(propertyFunction(productId, { identifier: `p${i}` })));
        await call(
            s,
            'POST',
            '/api/function/save',
            json({ productId, type: 'event', identifier: 'e1', name: '事件', eventType: 'info' }),
        );
        expect((await functions(productId)).total).toBe(5);
        const page = await functions(productId, '&type=property&pageNumber=2&pageSize=3');
        expect(page.total).toBe(4);
        expect(page.records.map((r) => r.identifier)).toEqual(['p3']);
        expect((await functions(productId, '&type=event')).records.map((r) => r.identifier)).toEqual(['e1']);
        expect((await call(s, 'GET', `/api/function/list?productId=${productId}&type=x`)).body).toEqual({
            code: 400,
            msg: '请选择功能类型',
        });
        expect((await call(s, 'GET', '/api/function/list?productId=999999')).status).toBe(404);
    });

    it('answers data types, units and the standard functions of a category and its ancestors', async () => {
        const types = (await call(s, 'GET', '/api/function/data-types')).body.data as Array<{ value: string }>;
        expect(types.map((t) => t.value)).toEqual([...DATA_TYPE_NAMES]);
        const units = (await call(s, 'GET', '/api/function/units')).body.data as Array<{ symbol: string }>;
        expect(units.map((u) => u.symbol)).toEqual(
            expect.arrayContaining(['°C', '%RH', 'lux', 'V', 'A', 'W', 'kWh', 'm', 'km/h', 'Pa']),
        );
        const tree = (await call(s, 'GET', '/api/product/list-category')).body.data as Array<{
            id: number;
            name: string;
            children?: Array<{ id: number; name: string; children?: Array<{ id: number; name: string }> }>;
        }>;
        const env = tree.find((c) => c.name === '智慧城市')!.children!.find((c) => c.name === '环境监测')!;
        const air = env.children!.find((c) => c.name === '空气质量监测')!;
        const std = (await call(s, 'GET', `/api/function/standard?categoryId=${air.id}`)).body.data as Array<{
            identifier: string;
            standard: boolean;
        }>;
        // Its own functions and the ones of 环境监测 above it.
        expect(std.map((f) => f.identifier)).toEqual(
            expect.arrayContaining(['PM25', 'CO2', 'Temperature', 'Humidity']),
        );
        expect(std.every((f) => f.standard)).toBe(true);
        expect((await call(s, 'GET', '/api/function/standard?categoryId=999999')).status).toBe(404);
        // A standard function is a valid function as it is.
        const { productId } = await newProduct('物模型_标准');
        for (const f of std) {
            expect((await call(s, 'POST', '/api/function/save', json({ ...f, productId }))).status).toBe(200);
        }
        expect((await functions(productId)).records.every((f) => f.standard)).toBe(true);
    });
});

describe('thing model import and export', () => {
    it('exports every demo product as TSL that imports back unchanged', async () => {
        const products = (await call(s, 'GET', '/api/product/list-product')).body.data as {
            list: Array<{ productId: number; productName: string }>;
        };
        let withModel = 0;
        for (const p of products.list) {
            const model = await exportModel(p.productId);
            const count = model.properties.length + model.events.length + model.services.length;
            if (count === 0) continue;
            withModel++;
            const copy = await newProduct(`导入副本_${p.productId}`);
            const imported = await call(
                s,
                'POST',
                '/api/function/import',
                json({ productId: copy.productId, thingModel: model }),
            );
            expect(imported.status, p.productName).toBe(200);
            const again = imported.body.data as Model;
            expect({ ...again, profile: undefined }).toEqual({ ...model, profile: undefined });
            expect(again.profile?.productKey).toBe(copy.productKey);
        }
        expect(withModel).toBeGreaterThanOrEqual(3);
    });

    it('GetThingModel answers the same document as export', async () => {
        const { productId } = await newProduct('物模型_获取');
        await call(s, 'POST', '/api/function/save', json(propertyFunction(productId, { identifier: 'X1' })));
        const viaProduct = await call(s, 'POST', '/api/product/GetThingModel', form({ productId }));
        expect(viaProduct.body.data).toEqual(await exportModel(productId));
        expect((await call(s, 'POST', '/api/product/GetThingModel', form({ productId: 999999 }))).status).toBe(404);
    });

    it('replaces the whole model, or writes nothing when one function fails (naming it)', async () => {
        const { productId } = await newProduct('物模型_导入');
        await call(s, 'POST', '/api/function/save', json(propertyFunction(productId, { identifier: 'Old' })));
        const good = {
            properties: [
                {
                    identifier: 'Speed',
                    name: '速度',
                    accessMode: 'r',
                    dataType: { type: 'float', specs: { min: '0', max: '200', unit: 'km/h' } },
                },
            ],
            events: [{ identifier: 'Crash', name: '碰撞', type: 'error', outputData: [] }],
            services: [{ identifier: 'Stop', name: '停车', callType: 'sync', inputData: [] }],
        };
        const before = await rowCounts(s.db);
        const refusals: Array<[unknown, string]> = [
            [
                {
                    ...good,
                    properties: [
                        ...good.properties,
                        {
                            identifier: 'Bad',
                            name: '温度',
                            accessMode: 'r',
                            dataType: { type: 'int', specs: { max: 1 } },
                        },
                    ],
                },
                '属性「温度」：请输入最小值',
            ],
            [
                { ...good, events: [...good.events, { identifier: 'Speed', name: '重复', type: 'info' }] },
                '事件「重复」：标识符已存在',
            ],
            [{ ...good, services: [{ identifier: 'Go', name: '出发' }] }, '服务「出发」：请选择调用方式'],
            [{ ...good, properties: 'nope' }, '物模型格式不正确：properties 必须是对象数组'],
            ['nope', '物模型格式不正确'],
        ];
        for (const [thingModel, msg] of refusals) {
            const answer = await call(s, 'POST', '/api/function/import', json({ productId, thingModel }));
            expect(answer.body).toEqual({ code: 400, msg });
        }
        expect(await rowCounts(s.db)).toEqual(before);
        expect((await functions(productId)).records.map((f) => f.identifier)).toEqual(['Old']);

        const imported = await call(s, 'POST', '/api/function/import', json({ productId, thingModel: good }));
        expect(imported.status).toBe(200);
        const now = await functions(productId);
        expect(now.records.map((f) => [f.type, f.identifier])).toEqual([
            ['property', 'Speed'],
            ['event', 'Crash'],
            ['service', 'Stop'],
        ]);
        expect(now.records[1].eventType).toBe('error');

        const empty = await call(
            s,
            'POST',
            '/api/function/import',
            json({ productId, thingModel: { properties: [], events: [], services: [] } }),
        );
        expect(empty.status).toBe(200);
        expect((await functions(productId)).total).toBe(0);
        expect(
            (await call(s, 'POST', '/api/function/import', json({ productId: 999999, thingModel: good }))).status,
        ).toBe(404);
    });

    it('keeps concurrent imports whole: the model is one of them, never a mix', async () => {
        const { productId } = await newProduct('物模型_并发');
        const model = (prefix: string) => ({
            properties: Array.from({ length: 20 }, (_, i) => ({
                identifier: `${prefix}${i}`,
                name: `属性${i}`,
                accessMode: 'r',
                dataType: { type: 'bool', specs: { '0': '否', '1': '是' } },
            })),
            events: [],
            services: [],
        });
        const answers = await Promise.all(
            ['a', 'b', 'c'].map((p) =>
                call(s, 'POST', '/api/function/import', json({ productId, thingModel: model(p) })),
            ),
        );
        expect(answers.every((a) => a.status === 200)).toBe(true);
        const ids = (await functions(productId, '&pageSize=100')).records.map((f) => f.identifier);
        expect(ids).toHaveLength(20);
        expect(new Set(ids.map((id) => id[0])).size).toBe(1);
    });
});
