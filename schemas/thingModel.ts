import * as yup from 'yup';

/**
 * Thing model (物模型) in the shape Alibaba Cloud IoT's TSL uses, which devices and tools already speak:
 * properties, events and services, each with an identifier, a name and a data type with specs.
 */

export const FUNCTION_TYPES = ['property', 'event', 'service'] as const;
export type FunctionType = (typeof FUNCTION_TYPES)[number];

export const DATA_TYPE_NAMES = ['int', 'float', 'double', 'text', 'bool', 'enum', 'date', 'struct', 'array'] as const;
export type DataTypeName = (typeof DATA_TYPE_NAMES)[number];

export const DATA_TYPE_LABELS: Record<DataTypeName, string> = {
    int: 'int32 (整数型)',
    float: 'float (单精度浮点型)',
    double: 'double (双精度浮点型)',
    text: 'text (字符串)',
    bool: 'bool (布尔型)',
    enum: 'enum (枚举型)',
    date: 'date (时间型)',
    struct: 'struct (结构体)',
    array: 'array (数组)',
};

export const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
const FUNCTION_NAME = /^[\u4e00-\u9fa5A-Za-z0-9][\u4e00-\u9fa5A-Za-z0-9_\-./ ]*$/;

export interface DataType {
    type: DataTypeName;
    specs?: Record<string, unknown> | Array<Record<string, unknown>>;
}

function isNum(v: unknown): boolean {
    return v !== '' && v !== null && v !== undefined && !Number.isNaN(Number(v));
}

/** Specs checked per data type; messages say what to fix. */
export const dataTypeSchema: yup.ObjectSchema<DataType> = yup
    .object({
        type: yup
            .mixed<DataTypeName>()
            .oneOf([...DATA_TYPE_NAMES], '请选择数据类型')
            .required('请选择数据类型'),
        specs: yup.mixed<NonNullable<DataType['specs']>>(),
    })
    .test('specs', function (dt) {
        const specs = (dt?.specs ?? {}) as Record<string, unknown>;
        const fail = (message: string) =>
            this.createError({ path: `${this.path ? this.path + '.' : ''}specs`, message });
        switch (dt?.type) {
            case 'int':
            case 'float':
            case 'double': {
                if (!isNum(specs.min)) return fail('请输入最小值');
                if (!isNum(specs.max)) return fail('请输入最大值');
                if (Number(specs.min) >= Number(specs.max)) return fail('最小值必须小于最大值');
                if (dt.type === 'int' && (!Number.isInteger(Number(specs.min)) || !Number.isInteger(Number(specs.max))))
                    return fail('整数型的取值范围必须是整数');
                if (specs.step !== undefined && specs.step !== '' && !(Number(specs.step) > 0))
                    return fail('步长必须大于0');
                if (isNum(specs.step) && Number(specs.step) > Number(specs.max) - Number(specs.min))
                    return fail('步长不能超过取值范围');
                return true;
            }
            case 'text': {
                const n = Number(specs.length);
                if (!Number.isInteger(n) || n < 1 || n > 10240) return fail('数据长度须为1~10240的整数');
                return true;
            }
            case 'bool': {
                if (!String(specs['0'] ?? '').trim() || !String(specs['1'] ?? '').trim())
                    return fail('请输入布尔值0和1的含义');
                return true;
            }
            case 'enum': {
                const keys = Object.keys(specs);
                if (keys.length === 0) return fail('请至少添加一个枚举项');
                if (keys.some((k) => !/^-?\d+$/.test(k))) return fail('枚举值必须是整数');
                if (keys.some((k) => !String(specs[k] ?? '').trim())) return fail('请输入枚举项的描述');
                return true;
            }
            case 'struct': {
                const members = Array.isArray(dt.specs) ? dt.specs : [];
                if (members.length === 0) return fail('请至少添加一个结构体参数');
                const ids = members.map((m) => String(m.identifier ?? ''));
                if (ids.some((id) => !IDENTIFIER.test(id)))
                    return fail('参数标识符只能包含字母、数字和下划线，且不能以数字开头');
                if (new Set(ids).size !== ids.length) return fail('参数标识符不能重复');
                if (members.some((m) => (m.dataType as DataType | undefined)?.type === 'struct'))
                    return fail('结构体参数不能再嵌套结构体');
                return true;
            }
            case 'array': {
                const size = Number(specs.size);
                const item = (specs.item as { type?: string } | undefined)?.type;
                if (!Number.isInteger(size) || size < 1 || size > 512) return fail('元素个数须为1~512的整数');
                if (!item || !['int', 'float', 'double', 'text', 'struct'].includes(item))
                    return fail('请选择元素类型');
                return true;
            }
            default:
                return true;
        }
    });

const param = yup.object({
    identifier: yup.string().required('请输入参数标识符').matches(IDENTIFIER, {
        message: '参数标识符只能包含字母、数字和下划线，且不能以数字开头',
        excludeEmptyString: true,
    }),
    name: yup.string().required('请输入参数名称').max(30, '参数名称不得超过30个字符'),
    dataType: dataTypeSchema.required(),
});

export const thingFunctionSchema = yup.object({
    id: yup.number().optional(),
    productId: yup.number().required('缺少产品ID'),
    type: yup
        .mixed<FunctionType>()
        .oneOf([...FUNCTION_TYPES], '请选择功能类型')
        .required('请选择功能类型'),
    name: yup.string().trim().required('请输入功能名称').max(30, '功能名称不得超过30个字符').matches(FUNCTION_NAME, {
        message: '功能名称支持中文、英文字母、数字、下划线、中划线和点号，且须以中文、字母或数字开头',
        excludeEmptyString: true,
    }),
    identifier: yup.string().trim().required('请输入标识符').max(50, '标识符不得超过50个字符').matches(IDENTIFIER, {
        message: '标识符只能包含字母、数字和下划线，且不能以数字开头',
        excludeEmptyString: true,
    }),
    /** property: rw (读写) or r (只读) */
    accessMode: yup
        .string()
        .oneOf(['rw', 'r'])
        .when('type', { is: 'property', then: (s) => s.required('请选择读写类型') }),
    dataType: dataTypeSchema
        .optional()
        .default(undefined)
        .when('type', { is: 'property', then: (s) => s.required('请选择数据类型') }),
    /** event: info, alert or error */
    eventType: yup
        .string()
        .oneOf(['info', 'alert', 'error'])
        .when('type', { is: 'event', then: (s) => s.required('请选择事件类型') }),
    /** service: sync or async */
    callType: yup
        .string()
        .oneOf(['sync', 'async'])
        .when('type', { is: 'service', then: (s) => s.required('请选择调用方式') }),
    /** event output params and service input params */
    inputData: yup.array(param).optional(),
    outputData: yup.array(param).optional(),
    required: yup.boolean().optional(),
    description: yup.string().max(100, '描述不得超过100个字符').optional(),
});

export type ThingFunctionInput = yup.InferType<typeof thingFunctionSchema>;

/** A whole thing model as exported and imported (JSON). */
export interface ThingModel {
    schema?: string;
    profile?: { productKey?: string };
    properties: Array<Record<string, unknown>>;
    events: Array<Record<string, unknown>>;
    services: Array<Record<string, unknown>>;
}

/** One event / service param or struct member (identifier, name, data type), for forms that edit one alone. */
export const thingParamSchema = param;
