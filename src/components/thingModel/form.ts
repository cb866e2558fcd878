import {
    thingFunctionSchema,
    thingParamSchema,
    type DataType,
    type DataTypeName,
    type FunctionType,
} from '../../../schemas/thingModel';
import { DEFAULT_TEXT_LENGTH, type ThingFunction, type ThingParam } from './model';

/**
 * Form shapes: every spec of every data type sits in one flat object, so switching the type back and forth
 * keeps what was typed, and enum items are rows (an object keyed by value cannot hold a half-typed row).
 * toDataType / fromDataType convert to and from the platform's shape, which the shared schema validates.
 */
export interface EnumItem {
    value: string;
    text: string;
}

export interface DataTypeForm {
    type: DataTypeName | '';
    min: string;
    max: string;
    step: string;
    unit: string;
    length: string;
    boolFalse: string;
    boolTrue: string;
    enumItems: EnumItem[];
    members: ParamForm[];
    itemType: DataTypeName;
    size: string;
}

export interface ParamForm {
    identifier: string;
    name: string;
    dataType: DataTypeForm;
}

export interface FunctionForm {
    id?: number;
    type: FunctionType;
    name: string;
    identifier: string;
    dataType: DataTypeForm;
    accessMode: 'rw' | 'r';
    eventType: 'info' | 'alert' | 'error';
    callType: 'sync' | 'async';
    inputData: ParamForm[];
    outputData: ParamForm[];
    description: string;
    required?: boolean;
}

export function emptyDataType(type: DataTypeName | '' = 'int'): DataTypeForm {
    return {
        type,
        min: '',
        max: '',
        step: '',
        unit: '',
        length: String(DEFAULT_TEXT_LENGTH),
        boolFalse: '',
        boolTrue: '',
        enumItems: [{ value: '', text: '' }],
        members: [],
        itemType: 'int',
        size: '10',
    };
}

export function emptyParam(type: DataTypeName = 'int'): ParamForm {
    return { identifier: '', name: '', dataType: emptyDataType(type) };
}

export function emptyFunction(type: FunctionType = 'property'): FunctionForm {
    return {
        type,
        name: '',
        identifier: '',
        dataType: emptyDataType('int'),
        accessMode: 'rw',
        eventType: 'info',
        callType: 'async',
        inputData: [],
        outputData: [],
        description: '',
    };
}

const str = (v: unknown): string => (v === undefined || v === null ? '' : String(v));
/** Numbers travel as numbers; anything not a number stays as typed so the schema names the problem. */
const num = (v: unknown): number | string | undefined => {
    const t = str(v).trim();
    if (t === '') return undefined;
    return Number.isNaN(Number(t)) ? t : Number(t);
};

export function toDataType(form: DataTypeForm): DataType {
    const type = form.type as DataTypeName;
    switch (type) {
        case 'int':
        case 'float':
        case 'double': {
            const specs: Record<string, unknown> = { min: num(form.min), max: num(form.max) };
            if (str(form.step).trim() !== '') specs.step = num(form.step);
            if (form.unit) specs.unit = form.unit;
            return { type, specs };
        }
        case 'text':
            return { type, specs: { length: num(form.length) } };
        case 'bool':
            return { type, specs: { '0': str(form.boolFalse).trim(), '1': str(form.boolTrue).trim() } };
        case 'enum':
            return {
                type,
                specs: Object.fromEntries(form.enumItems.map((i) => [str(i.value).trim(), str(i.text).trim()])),
            };
        case 'date':
            return { type, specs: {} };
        case 'struct':
            return { type, specs: form.members.map(toParam) as unknown as Array<Record<string, unknown>> };
        case 'array': {
            const item: Record<string, unknown> = { type: form.itemType };
            if (form.itemType === 'struct') item.specs = form.members.map(toParam);
            return { type, specs: { size: num(form.size), item } };
        }
        default:
            return { type };
    }
}

export function fromDataType(dataType: DataType | undefined): DataTypeForm {
    const form = emptyDataType(dataType?.type ?? 'int');
    if (!dataType) return form;
    const specs = (dataType.specs ?? {}) as Record<string, unknown>;
    switch (dataType.type) {
        case 'int':
        case 'float':
        case 'double':
            return {
                ...form,
                min: str(specs.min),
                max: str(specs.max),
                step: str(specs.step),
                unit: str(specs.unit),
            };
        case 'text':
            return { ...form, length: str(specs.length) };
        case 'bool':
            return { ...form, boolFalse: str(specs['0']), boolTrue: str(specs['1']) };
        case 'enum':
            return { ...form, enumItems: Object.entries(specs).map(([value, text]) => ({ value, text: str(text) })) };
        case 'struct':
            return { ...form, members: (Array.isArray(dataType.specs) ? dataType.specs : []).map(fromParamLoose) };
        case 'array': {
            const item = (specs.item ?? {}) as { type?: DataTypeName; specs?: unknown };
            return {
                ...form,
                size: str(specs.size),
                itemType: item.type ?? 'int',
                members: Array.isArray(item.specs) ? item.specs.map(fromParamLoose) : [],
            };
        }
        default:
            return form;
    }
}

export function toParam(form: ParamForm): ThingParam {
    return {
        identifier: str(form.identifier).trim(),
        name: str(form.name).trim(),
        dataType: toDataType(form.dataType ?? emptyDataType()),
    };
}

export function fromParam(param: ThingParam): ParamForm {
    return { identifier: str(param.identifier), name: str(param.name), dataType: fromDataType(param.dataType) };
}

function fromParamLoose(raw: Record<string, unknown>): ParamForm {
    return fromParam(raw as unknown as ThingParam);
}

/** Only the fields that belong to the function's type travel, so a type switch leaves nothing behind. */
export function toFunction(form: FunctionForm, productId: number): ThingFunction {
    const fn: ThingFunction = {
        productId,
        type: form.type,
        name: str(form.name).trim(),
        identifier: str(form.identifier).trim(),
        description: str(form.description).trim(),
    };
    if (form.id !== undefined) fn.id = form.id;
    if (form.required !== undefined) fn.required = form.required;
    if (form.type === 'property') {
        fn.dataType = toDataType(form.dataType);
        fn.accessMode = form.accessMode;
    } else if (form.type === 'event') {
        fn.eventType = form.eventType;
        fn.outputData = (form.outputData ?? []).map(toParam);
    } else {
        fn.callType = form.callType;
        fn.inputData = (form.inputData ?? []).map(toParam);
        fn.outputData = (form.outputData ?? []).map(toParam);
    }
    return fn;
}

export function fromFunction(fn: ThingFunction): FunctionForm {
    return {
        ...emptyFunction(fn.type),
        id: fn.id,
        name: str(fn.name),
        identifier: str(fn.identifier),
        dataType: fromDataType(fn.dataType),
        accessMode: fn.accessMode ?? 'rw',
        eventType: fn.eventType ?? 'info',
        callType: fn.callType ?? 'async',
        inputData: (fn.inputData ?? []).map(fromParam),
        outputData: (fn.outputData ?? []).map(fromParam),
        description: str(fn.description),
        required: fn.required,
    };
}

/** Checks the shared schema cannot express on the platform's shape (an object cannot hold duplicate keys). */
export function formDataTypeError(form: DataTypeForm): string | undefined {
    if (form.type === 'enum') {
        const values = form.enumItems.map((i) => str(i.value).trim());
        if (new Set(values).size !== values.length) return '枚举值不能重复';
    }
    if (form.type === 'array' && form.itemType === 'struct' && form.members.length === 0)
        return '请至少添加一个结构体参数';
    return undefined;
}

/**
 * The form schemas: the form's values are converted to the platform's shape, which the shared schema validates (so
 * messages and paths are the server's: the converted object keeps the form's field names), then the form-only
 * checks run on what was typed. A form validated by one of these submits the platform's shape.
 */
export const functionFormSchema = thingFunctionSchema
    .transform((value: unknown, original: unknown) =>
        isForm(original)
            ? toFunction(original as FunctionForm, Number((original as { productId?: unknown }).productId))
            : value,
    )
    .test('form', function () {
        const form = this.originalValue as FunctionForm | undefined;
        const problem = form?.type === 'property' && form.dataType ? formDataTypeError(form.dataType) : undefined;
        return problem ? this.createError({ path: 'dataType.specs', message: problem }) : true;
    });

/** One param (an event's or a service's, a struct member); `others` are the identifiers of the list's others. */
export function paramFormSchema(others: string[]) {
    return thingParamSchema
        .transform((value: unknown, original: unknown) => (isForm(original) ? toParam(original as ParamForm) : value))
        .test('form', function () {
            const form = this.originalValue as ParamForm | undefined;
            if (others.includes(str(form?.identifier).trim()))
                return this.createError({ path: 'identifier', message: '参数标识符不能重复' });
            const problem = form?.dataType ? formDataTypeError(form.dataType) : undefined;
            return problem ? this.createError({ path: 'dataType.specs', message: problem }) : true;
        });
}

/** A value still in the form's shape (its data type flat, with enum rows), not yet the platform's. */
function isForm(value: unknown): boolean {
    const dataType = (value as { dataType?: unknown } | undefined)?.dataType;
    return !!dataType && typeof dataType === 'object' && 'enumItems' in dataType;
}
