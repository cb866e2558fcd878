import {
    DATA_TYPE_LABELS,
    type DataType,
    type DataTypeName,
    type FunctionType,
    type ThingModel,
} from '../../../schemas/thingModel';

/** A thing-model function as the platform stores it (docs/platform-api.md "Thing model"). */
export interface ThingParam {
    identifier: string;
    name: string;
    dataType: DataType;
}

export interface ThingFunction {
    id?: number;
    productId?: number;
    type: FunctionType;
    identifier: string;
    name: string;
    accessMode?: 'rw' | 'r';
    required?: boolean;
    dataType?: DataType;
    eventType?: 'info' | 'alert' | 'error';
    callType?: 'sync' | 'async';
    inputData?: ThingParam[];
    outputData?: ThingParam[];
    description?: string;
    standard?: boolean;
    createTime?: string;
}

export interface Unit {
    symbol: string;
    name: string;
}

export type { ThingModel };

export const FUNCTION_TYPE_LABELS: Record<FunctionType, string> = { property: '属性', event: '事件', service: '服务' };
export const ACCESS_MODE_LABELS: Record<string, string> = { rw: '读写', r: '只读' };
export const EVENT_TYPE_LABELS: Record<string, string> = { info: '信息', alert: '告警', error: '故障' };
export const CALL_TYPE_LABELS: Record<string, string> = { sync: '同步', async: '异步' };

export const NUMERIC_TYPES: DataTypeName[] = ['int', 'float', 'double'];
/** Types a struct member (or a param) may have: anything but another struct. */
export const MEMBER_TYPES: DataTypeName[] = ['int', 'float', 'double', 'text', 'bool', 'enum', 'date', 'array'];
export const ARRAY_ITEM_TYPES: DataTypeName[] = ['int', 'float', 'double', 'text', 'struct'];
export const DEFAULT_TEXT_LENGTH = 255;
export const DATE_NOTE = 'UTC时间戳（毫秒）';

export function dataTypeLabel(type: string | undefined): string {
    return type && type in DATA_TYPE_LABELS ? DATA_TYPE_LABELS[type as DataTypeName] : (type ?? '-');
}

function specsObject(dataType: DataType | undefined): Record<string, unknown> {
    const specs = dataType?.specs;
    return specs && !Array.isArray(specs) ? specs : {};
}

/** The 数据定义 column: one line saying what the data type allows. */
export function describeDataType(dataType: DataType | undefined, units: Unit[] = []): string {
    if (!dataType) return '-';
    const specs = specsObject(dataType);
    switch (dataType.type) {
        case 'int':
        case 'float':
        case 'double': {
            const range = `取值范围: ${specs.min ?? ''} ~ ${specs.max ?? ''}`;
            const symbol = specs.unit ? String(specs.unit) : '';
            if (!symbol) return range;
            const name = specs.unitName ?? units.find((u) => u.symbol === symbol)?.name;
            return `${range}，单位: ${name ? `${name} / ${symbol}` : symbol}`;
        }
        case 'text':
            return `数据长度: ${specs.length ?? ''}`;
        case 'bool':
            return `布尔值: 0 - ${specs['0'] ?? ''} / 1 - ${specs['1'] ?? ''}`;
        case 'enum':
            return `枚举值: ${Object.entries(specs)
                .map(([k, v]) => `${k} - ${v}`)
                .join(', ')}`;
        case 'date':
            return `时间格式: ${DATE_NOTE}`;
        case 'struct': {
            const members = Array.isArray(dataType.specs) ? dataType.specs : [];
            return `结构体参数: ${members.map((m) => `${m.name}(${m.identifier})`).join(', ') || '-'}`;
        }
        case 'array': {
            const item = (specs.item as { type?: string } | undefined)?.type;
            return `元素类型: ${dataTypeLabel(item)}，元素个数: ${specs.size ?? ''}`;
        }
        default:
            return '-';
    }
}

function paramNames(params: ThingParam[] | undefined): string {
    return params?.length ? params.map((p) => p.name || p.identifier).join(', ') : '无';
}

/** 数据定义 of any function: the data type of a property, the params of an event or a service. */
export function describeFunction(fn: ThingFunction, units: Unit[] = []): string {
    if (fn.type === 'property') return describeDataType(fn.dataType, units);
    if (fn.type === 'event') return `输出参数: ${paramNames(fn.outputData)}`;
    return `输入参数: ${paramNames(fn.inputData)}；输出参数: ${paramNames(fn.outputData)}`;
}

/** The 读写类型 / 事件类型 / 调用方式 column. */
export function functionMode(fn: ThingFunction): string {
    if (fn.type === 'property') return ACCESS_MODE_LABELS[fn.accessMode ?? ''] ?? '-';
    if (fn.type === 'event') return EVENT_TYPE_LABELS[fn.eventType ?? ''] ?? '-';
    return CALL_TYPE_LABELS[fn.callType ?? ''] ?? '-';
}

export function functionModeTitle(fn: ThingFunction): string {
    return fn.type === 'property' ? '读写类型' : fn.type === 'event' ? '事件类型' : '调用方式';
}
