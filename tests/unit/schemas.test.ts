import { describe, expect, it } from 'vitest';
import { ValidationError, type AnyObjectSchema } from 'yup';
import { productCreateSchema, productUpdateSchema } from '../../schemas/product';
import { productLogSchema } from '../../schemas/productLog';
import { dataTypeSchema, thingFunctionSchema } from '../../schemas/thingModel';

/** Every message per path, so a test names the exact Chinese text a person sees. */
async function errorsOf(schema: AnyObjectSchema, value: unknown): Promise<Record<string, string[]>> {
    try {
        await schema.validate(value, { abortEarly: false });
        return {};
    } catch (e) {
        if (!(e instanceof ValidationError)) throw e;
        const out: Record<string, string[]> = {};
        for (const inner of e.inner.length ? e.inner : [e]) (out[inner.path ?? ''] ??= []).push(inner.message);
        return out;
    }
}

const zh = (n: number) => '灯'.repeat(n);

describe('product', () => {
    const valid = { productName: '智能灯', categoryId: 3, nodeType: 0, gatewayType: 0, networkType: 5, dataType: 0 };
    const nameErrors = async (productName: unknown) =>
        (await errorsOf(productCreateSchema, { ...valid, productName })).productName;

    it('accepts a valid product', async () => {
        expect(await errorsOf(productCreateSchema, valid)).toEqual({});
    });

    it('requires the product name', async () => {
        expect(await nameErrors('')).toEqual(['产品名称不能为空']);
        expect(await nameErrors('   ')).toEqual(['产品名称不能为空']);
        expect(await nameErrors(undefined)).toEqual(['产品名称不能为空']);
    });

    it('measures 4~30 with a Chinese character counted as 2', async () => {
        const tooShortOrLong = ['长度限制4~30，中文算2位'];
        expect(await nameErrors('智能灯')).toBeUndefined(); // 6
        expect(await nameErrors('灯')).toEqual(tooShortOrLong); // 2
        expect(await nameErrors('灯a')).toEqual(tooShortOrLong); // 3
        expect(await nameErrors('灯ab')).toBeUndefined(); // 4
        expect(await nameErrors('abc')).toEqual(tooShortOrLong);
        expect(await nameErrors('abcd')).toBeUndefined();
        expect(await nameErrors(zh(15))).toBeUndefined(); // 30
        expect(await nameErrors(zh(16))).toEqual(tooShortOrLong); // 32
        expect(await nameErrors('a'.repeat(30))).toBeUndefined();
        expect(await nameErrors('a'.repeat(31))).toEqual(tooShortOrLong);
        expect(await nameErrors(`${zh(14)}ab`)).toBeUndefined(); // 30
        expect(await nameErrors(`${zh(14)}abc`)).toEqual(tooShortOrLong); // 31
    });

    it('allows only Chinese, letters, digits and underscore', async () => {
        const charset = ['支持中文、英文字母、数字和下划线'];
        expect(await nameErrors('<b>x</b>')).toEqual(charset);
        expect(await nameErrors('smart lamp')).toEqual(charset);
        expect(await nameErrors('灯-01')).toEqual(charset);
        expect(await nameErrors('Lamp_01')).toBeUndefined();
        expect(await nameErrors('  Lamp_01  ')).toBeUndefined(); // trimmed first
    });

    it('names each missing select', async () => {
        expect(await errorsOf(productCreateSchema, { productName: '智能灯', categoryId: '' })).toEqual({
            categoryId: ['请选择所属分类'],
            nodeType: ['请选择节点类型'],
            gatewayType: ['请选择是否接入网关'],
            networkType: ['请选择连网方式'],
            dataType: ['请选择数据格式'],
        });
        expect(
            await errorsOf(productCreateSchema, {
                ...valid,
                nodeType: 2,
                gatewayType: '1',
                dataType: 3,
                categoryId: 'x',
            }),
        ).toEqual({
            nodeType: ['请选择节点类型'],
            dataType: ['请选择数据格式'],
            categoryId: ['请选择所属分类'],
        });
    });

    it('limits the remark to 100 characters', async () => {
        expect(await errorsOf(productCreateSchema, { ...valid, remark: 'x'.repeat(100) })).toEqual({});
        expect(await errorsOf(productCreateSchema, { ...valid, remark: 'x'.repeat(101) })).toEqual({
            remark: ['描述不得超过100个字符'],
        });
    });

    it('update needs the product id and the same name rule', async () => {
        expect(await errorsOf(productUpdateSchema, { productName: '灯' })).toEqual({
            productId: ['缺少产品ID'],
            productName: ['长度限制4~30，中文算2位'],
        });
        expect(await errorsOf(productUpdateSchema, { productId: '5', productName: '智能灯' })).toEqual({});
    });
});

describe('product log', () => {
    it('requires the log and limits it to 2000 characters', async () => {
        expect(await errorsOf(productLogSchema, { log: '  ' })).toEqual({ log: ['请输入产品日志'] });
        expect(await errorsOf(productLogSchema, {})).toEqual({ log: ['请输入产品日志'] });
        expect(await errorsOf(productLogSchema, { log: 'x'.repeat(2000) })).toEqual({});
        expect(await errorsOf(productLogSchema, { log: 'x'.repeat(2001) })).toEqual({
            log: ['产品日志不得超过2000个字符'],
        });
    });
});

describe('thing model data types', () => {
    const specsError = async (type: string, specs?: unknown) =>
        (await errorsOf(dataTypeSchema, { type, specs })).specs?.[0];

    it('requires a known type', async () => {
        expect((await errorsOf(dataTypeSchema, {})).type).toEqual(['请选择数据类型']);
        expect((await errorsOf(dataTypeSchema, { type: 'long' })).type).toEqual(['请选择数据类型']);
    });

    it('int, float and double need min < max, a positive step within the range; int needs integers', async () => {
        for (const type of ['int', 'float', 'double']) {
            expect(await specsError(type, {})).toBe('请输入最小值');
            expect(await specsError(type, { min: 0 })).toBe('请输入最大值');
            expect(await specsError(type, { min: '', max: 1 })).toBe('请输入最小值');
            expect(await specsError(type, { min: 5, max: 5 })).toBe('最小值必须小于最大值');
            expect(await specsError(type, { min: 0, max: 10, step: 0 })).toBe('步长必须大于0');
            expect(await specsError(type, { min: 0, max: 10, step: -1 })).toBe('步长必须大于0');
            expect(await specsError(type, { min: 0, max: 10, step: 11 })).toBe('步长不能超过取值范围');
            expect(await specsError(type, { min: '-10', max: '10', step: '10' })).toBeUndefined();
        }
        expect(await specsError('int', { min: 0.5, max: 10 })).toBe('整数型的取值范围必须是整数');
        expect(await specsError('float', { min: 0.5, max: 10 })).toBeUndefined();
    });

    it('text needs a length of 1~10240', async () => {
        const msg = '数据长度须为1~10240的整数';
        for (const length of [0, 10241, 1.5, 'abc', undefined]) expect(await specsError('text', { length })).toBe(msg);
        expect(await specsError('text', { length: 10240 })).toBeUndefined();
        expect(await specsError('text', { length: '1' })).toBeUndefined();
    });

    it('bool needs both meanings', async () => {
        expect(await specsError('bool', { 0: '关' })).toBe('请输入布尔值0和1的含义');
        expect(await specsError('bool', { 0: ' ', 1: '开' })).toBe('请输入布尔值0和1的含义');
        expect(await specsError('bool', { 0: '关', 1: '开' })).toBeUndefined();
    });

    it('enum needs integer values with descriptions', async () => {
        expect(await specsError('enum', {})).toBe('请至少添加一个枚举项');
        expect(await specsError('enum', { a: '甲' })).toBe('枚举值必须是整数');
        expect(await specsError('enum', { '1.5': '甲' })).toBe('枚举值必须是整数');
        expect(await specsError('enum', { 1: '' })).toBe('请输入枚举项的描述');
        expect(await specsError('enum', { '-1': '负', 0: '零', 1: '正' })).toBeUndefined();
    });

    it('struct needs valid, distinct, non-struct members', async () => {
        const member = (identifier: string, type = 'int') => ({ identifier, name: identifier, dataType: { type } });
        expect(await specsError('struct', [])).toBe('请至少添加一个结构体参数');
        expect(await specsError('struct', { not: 'an array' })).toBe('请至少添加一个结构体参数');
        expect(await specsError('struct', [member('1a')])).toBe(
            '参数标识符只能包含字母、数字和下划线，且不能以数字开头',
        );
        expect(await specsError('struct', [member('a'), member('a')])).toBe('参数标识符不能重复');
        expect(await specsError('struct', [member('a'), member('b', 'struct')])).toBe('结构体参数不能再嵌套结构体');
        expect(await specsError('struct', [member('a'), member('b', 'text')])).toBeUndefined();
    });

    it('array needs 1~512 elements of a known element type', async () => {
        const msg = '元素个数须为1~512的整数';
        expect(await specsError('array', { size: 0, item: { type: 'int' } })).toBe(msg);
        expect(await specsError('array', { size: 513, item: { type: 'int' } })).toBe(msg);
        expect(await specsError('array', { size: 2.5, item: { type: 'int' } })).toBe(msg);
        expect(await specsError('array', { size: 10 })).toBe('请选择元素类型');
        expect(await specsError('array', { size: 10, item: { type: 'bool' } })).toBe('请选择元素类型');
        for (const type of ['int', 'float', 'double', 'text', 'struct'])
            expect(await specsError('array', { size: 512, item: { type } })).toBeUndefined();
    });

    it('date needs no specs', async () => {
        expect(await specsError('date')).toBeUndefined();
    });
});

describe('thing functions', () => {
    const property = {
        productId: 1,
        type: 'property',
        name: '温度',
        identifier: 'temperature',
        accessMode: 'r',
        dataType: { type: 'int', specs: { min: -40, max: 120, step: 1 } },
    };

    it('accepts a valid property, event and service', async () => {
        expect(await errorsOf(thingFunctionSchema, property)).toEqual({});
        expect(
            await errorsOf(thingFunctionSchema, {
                productId: 1,
                type: 'event',
                name: '故障上报',
                identifier: 'fault',
                eventType: 'alert',
            }),
        ).toEqual({});
        expect(
            await errorsOf(thingFunctionSchema, {
                productId: 1,
                type: 'service',
                name: '重启',
                identifier: 'reboot',
                callType: 'async',
            }),
        ).toEqual({});
    });

    it('requires each field with its own message', async () => {
        expect(await errorsOf(thingFunctionSchema, { type: 'property' })).toEqual({
            productId: ['缺少产品ID'],
            name: ['请输入功能名称'],
            identifier: ['请输入标识符'],
            accessMode: ['请选择读写类型'],
            dataType: ['请选择数据类型'],
        });
        expect((await errorsOf(thingFunctionSchema, { ...property, type: 'x' })).type).toEqual(['请选择功能类型']);
        expect((await errorsOf(thingFunctionSchema, { ...property, type: 'event' })).eventType).toEqual([
            '请选择事件类型',
        ]);
        expect((await errorsOf(thingFunctionSchema, { ...property, type: 'service' })).callType).toEqual([
            '请选择调用方式',
        ]);
    });

    it('checks name and identifier formats and lengths', async () => {
        const err = async (patch: object) => errorsOf(thingFunctionSchema, { ...property, ...patch });
        expect(await err({ name: '_温度' })).toEqual({
            name: ['功能名称支持中文、英文字母、数字、下划线、中划线和点号，且须以中文、字母或数字开头'],
        });
        expect(await err({ name: '温度 1.2-a_b/c' })).toEqual({});
        expect(await err({ name: 'x'.repeat(31) })).toEqual({ name: ['功能名称不得超过30个字符'] });
        expect(await err({ identifier: '1temp' })).toEqual({
            identifier: ['标识符只能包含字母、数字和下划线，且不能以数字开头'],
        });
        expect(await err({ identifier: 'temp-1' })).toEqual({
            identifier: ['标识符只能包含字母、数字和下划线，且不能以数字开头'],
        });
        expect(await err({ identifier: 'a'.repeat(51) })).toEqual({ identifier: ['标识符不得超过50个字符'] });
        expect(await err({ description: 'x'.repeat(101) })).toEqual({ description: ['描述不得超过100个字符'] });
    });

    it('reports a data type problem at dataType.specs', async () => {
        expect(
            await errorsOf(thingFunctionSchema, { ...property, dataType: { type: 'int', specs: { min: 9, max: 1 } } }),
        ).toEqual({
            'dataType.specs': ['最小值必须小于最大值'],
        });
    });

    it('checks event and service params', async () => {
        const event = { productId: 1, type: 'event', name: '故障', identifier: 'fault', eventType: 'error' };
        const errors = await errorsOf(thingFunctionSchema, {
            ...event,
            outputData: [
                { identifier: '', name: '', dataType: { type: 'text', specs: { length: 10 } } },
                { identifier: '2x', name: 'n'.repeat(31), dataType: { type: 'bool', specs: { 0: '否', 1: '是' } } },
            ],
        });
        // An empty identifier also fails the pattern (no excludeEmptyString there); forms show the first message.
        expect(errors['outputData[0].identifier'][0]).toBe('请输入参数标识符');
        delete errors['outputData[0].identifier'];
        expect(errors).toEqual({
            'outputData[0].name': ['请输入参数名称'],
            'outputData[1].identifier': ['参数标识符只能包含字母、数字和下划线，且不能以数字开头'],
            'outputData[1].name': ['参数名称不得超过30个字符'],
        });
    });
});
