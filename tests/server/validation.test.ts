import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestServer, type TestServer } from '../../server/testing';
import { call, form, json, productForm, propertyFunction, rowCounts } from './support';

/**
 * Every rule of schemas/product.ts, productLog.ts and thingModel.ts, sent to the server: refused with HTTP 400,
 * the family's envelope and the rule's exact Chinese message, and nothing written (row counts unchanged).
 */
let s: TestServer;
let productId: number;

beforeAll(async () => {
    s = await createTestServer();
    const created = await call(s, 'POST', '/api/product/save', form(productForm({ productName: '校验用产品' })));
    productId = (created.body.data as { productId: number }).productId;
});
afterAll(() => s?.close());

async function expectRefused(
    method: string,
    path: string,
    init: RequestInit,
    message: string,
    status = 400,
    code: number | string = status,
) {
    const before = await rowCounts(s.db);
    const answer = await call(s, method, path, init);
    expect(answer.body).toEqual({ code, msg: message });
    expect(answer.status).toBe(status);
    expect(await rowCounts(s.db)).toEqual(before);
}

const chinese = (n: number) => '测'.repeat(n);

describe('POST /api/product/save refuses each rule of productCreateSchema', () => {
    it.each<[string, Record<string, string | number>, string]>([
        ['empty name', { productName: '' }, '产品名称不能为空'],
        ['blank name', { productName: '   ' }, '产品名称不能为空'],
        ['3 characters', { productName: 'abc' }, '长度限制4~30，中文算2位'],
        ['1 Chinese character (2)', { productName: '测' }, '长度限制4~30，中文算2位'],
        ['31 characters', { productName: 'a'.repeat(31) }, '长度限制4~30，中文算2位'],
        ['16 Chinese characters (32)', { productName: chinese(16) }, '长度限制4~30，中文算2位'],
        ['markup', { productName: '<b>灯_01</b>' }, '支持中文、英文字母、数字和下划线'],
        ['SQL', { productName: "x'; DROP TABLE products;--" }, '支持中文、英文字母、数字和下划线'],
        ['a hyphen', { productName: 'lamp-01' }, '支持中文、英文字母、数字和下划线'],
        ['no category', { categoryId: '' }, '请选择所属分类'],
        ['a category that is not a number', { categoryId: 'abc' }, '请选择所属分类'],
        ['a fractional category', { categoryId: '1.5' }, '请选择所属分类'],
        ['no node type', { nodeType: '' }, '请选择节点类型'],
        ['node type 2', { nodeType: 2 }, '请选择节点类型'],
        ['no gateway type', { gatewayType: '' }, '请选择是否接入网关'],
        ['gateway type 3', { gatewayType: 3 }, '请选择是否接入网关'],
        ['no network type', { networkType: '' }, '请选择连网方式'],
        ['no data type', { dataType: '' }, '请选择数据格式'],
        ['data type 2', { dataType: 2 }, '请选择数据格式'],
        ['project code over 64', { projectCode: 'p'.repeat(65) }, '项目编码不得超过64个字符'],
        ['remark over 100', { remark: 'r'.repeat(101) }, '描述不得超过100个字符'],
        // Rules the server adds on top of the schema.
        ['a network of the wrong list (gateway access)', { gatewayType: 1, networkType: 5 }, '请选择连网方式'],
        ['an unknown network', { networkType: 99 }, '请选择连网方式'],
        ['an unknown category', { categoryId: 99999 }, '所属分类不存在'],
        ['an unknown project', { projectCode: 'NOPE' }, '所属项目不存在'],
    ])('%s', async (_name, overrides, message) => {
        await expectRefused('POST', '/api/product/save', form(productForm(overrides)), message);
    });

    it('a taken name: 409 产品名称已存在', async () => {
        await expectRefused(
            'POST',
            '/api/product/save',
            form(productForm({ productName: '校验用产品' })),
            '产品名称已存在',
            409,
        );
    });

    it('accepts the boundaries: 4 and 30 with Chinese counted as 2', async () => {
        for (const productName of ['abcd', '测_a', 'a'.repeat(30), chinese(15), `${chinese(14)}ab`]) {
            const answer = await call(s, 'POST', '/api/product/save', form(productForm({ productName })));
            expect(answer.status, productName).toBe(200);
        }
    });
});

describe('POST /api/product/update refuses each rule of productUpdateSchema', () => {
    it.each<[string, Record<string, string | number>, string, number?]>([
        ['no product id', { productId: '' }, '缺少产品ID'],
        ['empty name', { productName: '' }, '产品名称不能为空'],
        ['too short', { productName: 'ab' }, '长度限制4~30，中文算2位'],
        ['markup', { productName: '<i>abcd</i>' }, '支持中文、英文字母、数字和下划线'],
        ['remark over 100', { remark: 'x'.repeat(101) }, '描述不得超过100个字符'],
        ['an unknown product', { productId: 999999 }, '产品不存在', 404],
        ['the name of another product', { productName: '智能路灯_L1' }, '产品名称已存在', 409],
    ])('%s', async (_name, overrides, message, status = 400) => {
        const body = { productId, productName: '校验用产品', remark: '', ...overrides };
        await expectRefused('POST', '/api/product/update', form(body), message, status);
    });
});

describe('POST /ms3/productLog/save refuses each rule of productLogSchema', () => {
    it.each<[string, Record<string, string>, string]>([
        ['no log', {}, '请输入产品日志'],
        ['an empty log', { log: '' }, '请输入产品日志'],
        ['a blank log', { log: '  \n ' }, '请输入产品日志'],
        ['over 2000', { log: 'x'.repeat(2001) }, '产品日志不得超过2000个字符'],
    ])('%s: ms3 envelope 999999', async (_name, body, message) => {
        await expectRefused('POST', '/ms3/productLog/save', form(body), message, 400, '999999');
    });
});

const num = (specs: Record<string, unknown>, type = 'int') => ({ dataType: { type, specs } });

describe('POST /api/function/save refuses each rule of thingFunctionSchema', () => {
    it.each<[string, Record<string, unknown>, string]>([
        ['no product id', { productId: undefined }, '缺少产品ID'],
        ['no type', { type: undefined }, '请选择功能类型'],
        ['an unknown type', { type: 'command' }, '请选择功能类型'],
        ['no name', { name: '' }, '请输入功能名称'],
        ['a name over 30', { name: 'n'.repeat(31) }, '功能名称不得超过30个字符'],
        [
            'a name with markup',
            { name: '<b>温度</b>' },
            '功能名称支持中文、英文字母、数字、下划线、中划线和点号，且须以中文、字母或数字开头',
        ],
        [
            'a name starting with an underscore',
            { name: '_温度' },
            '功能名称支持中文、英文字母、数字、下划线、中划线和点号，且须以中文、字母或数字开头',
        ],
        ['no identifier', { identifier: '' }, '请输入标识符'],
        ['an identifier over 50', { identifier: 'i'.repeat(51) }, '标识符不得超过50个字符'],
        [
            'an identifier starting with a digit',
            { identifier: '1abc' },
            '标识符只能包含字母、数字和下划线，且不能以数字开头',
        ],
        ['an identifier with SQL', { identifier: "a'--" }, '标识符只能包含字母、数字和下划线，且不能以数字开头'],
        ['a property without access mode', { accessMode: undefined }, '请选择读写类型'],
        ['a property without data type', { dataType: undefined }, '请选择数据类型'],
        ['an unknown data type', { dataType: { type: 'blob' } }, '请选择数据类型'],
        ['no minimum', num({ max: 10 }), '请输入最小值'],
        ['no maximum', num({ min: 0 }), '请输入最大值'],
        ['minimum not below maximum', num({ min: 10, max: 10 }), '最小值必须小于最大值'],
        ['an int range with fractions', num({ min: 0.5, max: 10 }), '整数型的取值范围必须是整数'],
        ['a zero step', num({ min: 0, max: 10, step: 0 }, 'float'), '步长必须大于0'],
        ['a step past the range', num({ min: 0, max: 10, step: 11 }, 'float'), '步长不能超过取值范围'],
        ['a text length of 0', { dataType: { type: 'text', specs: { length: 0 } } }, '数据长度须为1~10240的整数'],
        [
            'a text length over 10240',
            { dataType: { type: 'text', specs: { length: 10241 } } },
            '数据长度须为1~10240的整数',
        ],
        ['a bool without labels', { dataType: { type: 'bool', specs: { '0': '关' } } }, '请输入布尔值0和1的含义'],
        ['an empty enum', { dataType: { type: 'enum', specs: {} } }, '请至少添加一个枚举项'],
        ['an enum with a text key', { dataType: { type: 'enum', specs: { a: '甲' } } }, '枚举值必须是整数'],
        ['an enum item without label', { dataType: { type: 'enum', specs: { '1': ' ' } } }, '请输入枚举项的描述'],
        ['an empty struct', { dataType: { type: 'struct', specs: [] } }, '请至少添加一个结构体参数'],
        [
            'a struct member with a bad identifier',
            { dataType: { type: 'struct', specs: [{ identifier: '9x', name: 'x', dataType: { type: 'bool' } }] } },
            '参数标识符只能包含字母、数字和下划线，且不能以数字开头',
        ],
        [
            'struct members with one identifier',
            {
                dataType: {
                    type: 'struct',
                    specs: [
                        { identifier: 'a', name: 'a', dataType: { type: 'text', specs: { length: 1 } } },
                        { identifier: 'a', name: 'b', dataType: { type: 'text', specs: { length: 1 } } },
                    ],
                },
            },
            '参数标识符不能重复',
        ],
        [
            'a struct inside a struct',
            { dataType: { type: 'struct', specs: [{ identifier: 'a', name: 'a', dataType: { type: 'struct' } }] } },
            '结构体参数不能再嵌套结构体',
        ],
        [
            'an array of 0',
            { dataType: { type: 'array', specs: { size: 0, item: { type: 'int' } } } },
            '元素个数须为1~512的整数',
        ],
        [
            'an array of bool',
            { dataType: { type: 'array', specs: { size: 2, item: { type: 'bool' } } } },
            '请选择元素类型',
        ],
        ['a description over 100', { description: 'd'.repeat(101) }, '描述不得超过100个字符'],
        ['an event without event type', { type: 'event', eventType: undefined }, '请选择事件类型'],
        ['a service without call type', { type: 'service', callType: undefined }, '请选择调用方式'],
        [
            'a service param without identifier',
            {
                type: 'service',
                callType: 'sync',
                inputData: [{ identifier: '', name: 'p', dataType: { type: 'bool', specs: { '0': 'a', '1': 'b' } } }],
            },
            '请输入参数标识符',
        ],
        [
            'a service param with a bad identifier',
            {
                type: 'service',
                callType: 'sync',
                inputData: [{ identifier: 'a b', name: 'p', dataType: { type: 'date' } }],
            },
            '参数标识符只能包含字母、数字和下划线，且不能以数字开头',
        ],
        [
            'an event param without name',
            {
                type: 'event',
                eventType: 'info',
                outputData: [{ identifier: 'p', name: '', dataType: { type: 'date' } }],
            },
            '请输入参数名称',
        ],
        [
            'an event param name over 30',
            {
                type: 'event',
                eventType: 'info',
                outputData: [{ identifier: 'p', name: 'n'.repeat(31), dataType: { type: 'date' } }],
            },
            '参数名称不得超过30个字符',
        ],
        [
            'a param with a broken data type',
            {
                type: 'event',
                eventType: 'info',
                outputData: [{ identifier: 'p', name: 'p', dataType: { type: 'int', specs: { min: 1 } } }],
            },
            '请输入最大值',
        ],
    ])('%s', async (_name, overrides, message) => {
        const body = { ...propertyFunction(productId), ...overrides };
        await expectRefused('POST', '/api/function/save', json(body), message);
    });

    it('an identifier already in the product: 409 标识符已存在', async () => {
        await call(s, 'POST', '/api/function/save', json(propertyFunction(productId, { identifier: 'Taken' })));
        await expectRefused(
            'POST',
            '/api/function/save',
            json(propertyFunction(productId, { identifier: 'Taken', name: '另一个' })),
            '标识符已存在',
            409,
        );
    });

    it('an unknown product: 404 产品不存在', async () => {
        await expectRefused('POST', '/api/function/save', json(propertyFunction(999999)), '产品不存在', 404);
    });

    it('an unknown function id: 404 功能不存在', async () => {
        await expectRefused(
            'POST',
            '/api/function/save',
            json(propertyFunction(productId, { id: 999999 })),
            '功能不存在',
            404,
        );
    });

    it('a body that is not JSON', async () => {
        await expectRefused(
            'POST',
            '/api/function/save',
            { body: '{not json', headers: { 'content-type': 'application/json' } },
            '请求体不是有效的 JSON',
        );
    });
});

describe('markup and SQL are stored as data', () => {
    it('keeps a remark with <script> and SQL verbatim, and answers it verbatim', async () => {
        const remark = `<script>alert('x')</script>'; DROP TABLE products;--`;
        const created = await call(s, 'POST', '/api/product/save', form(productForm({ remark })));
        const id = (created.body.data as { productId: number }).productId;
        const detail = await call(s, 'GET', `/api/product/detail?productId=${id}`);
        expect((detail.body.data as { remark: string }).remark).toBe(remark);
        const listed = await call(s, 'GET', '/api/product?pageSize=100');
        expect(
            (listed.body.data as { records: Array<{ remark: string }> }).records.some((r) => r.remark === remark),
        ).toBe(true);
    });

    it('keeps a product log with markup verbatim', async () => {
        const log = "<img src=x onerror=alert(1)> 和 ' OR 1=1 --";
        const saved = await call(s, 'POST', '/ms3/productLog/save', form({ log }));
        expect((saved.body.data as { log: string }).log).toBe(log);
    });

    it('searches for SQL text as a literal substring', async () => {
        const answer = await call(s, 'GET', `/api/product?productName=${encodeURIComponent("' OR '1'='1")}`);
        expect(answer.body.data).toEqual({ records: [], total: 0 });
    });
});
