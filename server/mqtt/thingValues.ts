/**
 * Checks reported values against a thing model's data types (TSL: int, float, double, text, bool, enum, date,
 * struct, array). Each check answers undefined when the value fits, or a Chinese reason naming what is wrong, so the
 * device's _reply can say which identifier to fix.
 */

export interface TslDataType {
    type: string;
    specs?: unknown;
}

type Specs = Record<string, unknown>;

const num = (v: unknown) => (v === undefined || v === null || v === '' ? undefined : Number(v));

function checkNumber(type: string, specs: Specs, value: unknown): string | undefined {
    if (typeof value !== 'number' || !Number.isFinite(value)) return '应为数字';
    if (type === 'int' && !Number.isInteger(value)) return '应为整数';
    const min = num(specs.min);
    const max = num(specs.max);
    if (min !== undefined && value < min) return `不能小于 ${min}`;
    if (max !== undefined && value > max) return `不能大于 ${max}`;
    return undefined;
}

/** undefined when `value` fits `dataType`, else why not. */
export function checkValue(dataType: TslDataType | null | undefined, value: unknown, depth = 0): string | undefined {
    if (!dataType || typeof dataType.type !== 'string') return undefined;
    const specs = (dataType.specs && !Array.isArray(dataType.specs) ? dataType.specs : {}) as Specs;
    switch (dataType.type) {
        case 'int':
        case 'float':
        case 'double':
            return checkNumber(dataType.type, specs, value);
        case 'bool':
            return value === 0 || value === 1 || value === true || value === false ? undefined : '应为 0 或 1';
        case 'enum':
            if (typeof value !== 'number' || !Number.isInteger(value)) return '应为枚举值（整数）';
            return String(value) in specs ? undefined : `不是定义的枚举值（${Object.keys(specs).join('、')}）`;
        case 'text': {
            if (typeof value !== 'string') return '应为字符串';
            if (value.includes('\u0000')) return '不能包含 NUL 字符';
            const length = num(specs.length);
            return length !== undefined && value.length > length ? `长度不能超过 ${length}` : undefined;
        }
        case 'date':
            if (typeof value === 'number' && Number.isInteger(value) && value >= 0) return undefined;
            return typeof value === 'string' && /^\d{1,16}$/.test(value) ? undefined : '应为毫秒时间戳';
        case 'struct': {
            if (typeof value !== 'object' || value === null || Array.isArray(value)) return '应为对象';
            const members = Array.isArray(dataType.specs) ? (dataType.specs as Specs[]) : [];
            const known = new Map(members.map((m) => [String(m.identifier), m.dataType as TslDataType]));
            for (const [key, v] of Object.entries(value)) {
                const member = known.get(key);
                if (!member) return `结构体成员 ${key} 未定义`;
                const why = checkValue(member, v, depth + 1);
                if (why) return `${key} ${why}`;
            }
            return undefined;
        }
        case 'array': {
            if (!Array.isArray(value)) return '应为数组';
            const size = num(specs.size);
            if (size !== undefined && value.length > size) return `元素个数不能超过 ${size}`;
            if (depth > 4) return '嵌套过深';
            const item = specs.item as TslDataType | undefined;
            for (let i = 0; i < value.length; i++) {
                const why = checkValue(item, value[i], depth + 1);
                if (why) return `第 ${i + 1} 个元素${why}`;
            }
            return undefined;
        }
        default:
            return undefined;
    }
}

/** Alink's params of a property post: `{ id: value }` or `{ id: { value, time } }`. Answers the plain values. */
export function propertyValues(params: Record<string, unknown>): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const [id, v] of Object.entries(params)) {
        const wrapped = typeof v === 'object' && v !== null && !Array.isArray(v) && 'value' in v;
        out[id] = wrapped ? (v as { value: unknown }).value : v;
    }
    return out;
}
