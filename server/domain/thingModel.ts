import { asc, eq } from 'drizzle-orm';
import { ValidationError } from 'yup';
import {
    thingFunctionSchema,
    type FunctionType,
    type ThingFunctionInput,
    type ThingModel,
} from '../../schemas/thingModel';
import type { Db, Tx } from '../db/client';
import { products, thingFunctions } from '../db/schema';
import { badRequest, notFound } from '../http/errors';
import { formatTime } from '../http/time';

/** Alibaba Cloud IoT's TSL schema address, kept in exports so existing tools recognise the file. */
export const TSL_SCHEMA = 'https://iotx-tsl.oss-ap-southeast-1.aliyuncs.com/schema.json';

export const FUNCTION_TYPE_LABELS: Record<FunctionType, string> = { property: '属性', event: '事件', service: '服务' };

type FunctionRow = typeof thingFunctions.$inferSelect;

export function toThingFunction(row: FunctionRow, timeZone: string) {
    return {
        id: row.id,
        productId: row.productId,
        type: row.type as FunctionType,
        identifier: row.identifier,
        name: row.name,
        accessMode: row.accessMode,
        required: row.required,
        dataType: row.dataType,
        eventType: row.eventType,
        callType: row.callType,
        inputData: row.inputData,
        outputData: row.outputData,
        description: row.description,
        standard: row.standard,
        createTime: formatTime(row.createTime, timeZone),
    };
}

/** The columns of a validated function; fields that do not belong to its type are stored as null. */
export function functionValues(input: ThingFunctionInput, standard: boolean) {
    const t = input.type;
    return {
        productId: input.productId,
        type: t,
        identifier: input.identifier,
        name: input.name,
        accessMode: t === 'property' ? (input.accessMode ?? null) : null,
        required: input.required ?? false,
        dataType: t === 'property' ? (input.dataType ?? null) : null,
        eventType: t === 'event' ? (input.eventType ?? null) : null,
        callType: t === 'service' ? (input.callType ?? null) : null,
        inputData: t === 'service' ? (input.inputData ?? []) : null,
        outputData: t === 'property' ? null : (input.outputData ?? []),
        description: input.description || null,
        standard,
    };
}

export async function requireProductKey(db: Db | Tx, productId: number): Promise<string> {
    const [product] = await db
        .select({ productKey: products.productKey })
        .from(products)
        .where(eq(products.id, productId));
    if (!product) throw notFound('产品不存在');
    return product.productKey;
}

/** The product's whole thing model as a TSL document (export, GetThingModel). */
export async function exportThingModel(db: Db, productId: number): Promise<ThingModel> {
    const productKey = await requireProductKey(db, productId);
    const rows = await db
        .select()
        .from(thingFunctions)
        .where(eq(thingFunctions.productId, productId))
        .orderBy(asc(thingFunctions.id));
    const model: ThingModel = { schema: TSL_SCHEMA, profile: { productKey }, properties: [], events: [], services: [] };
    for (const f of rows) {
        const common = { identifier: f.identifier, name: f.name, required: f.required, desc: f.description ?? '' };
        if (f.type === 'property') {
            model.properties.push({ ...common, accessMode: f.accessMode, dataType: f.dataType });
        } else if (f.type === 'event') {
            model.events.push({
                ...common,
                type: f.eventType,
                method: `thing.event.${f.identifier}.post`,
                outputData: f.outputData ?? [],
            });
        } else {
            model.services.push({
                ...common,
                callType: f.callType,
                method: `thing.service.${f.identifier}`,
                inputData: f.inputData ?? [],
                outputData: f.outputData ?? [],
            });
        }
    }
    return model;
}

function asList(value: unknown, what: string): Array<Record<string, unknown>> {
    if (value === undefined || value === null) return [];
    if (!Array.isArray(value) || value.some((v) => !v || typeof v !== 'object' || Array.isArray(v))) {
        throw badRequest(`物模型格式不正确：${what} 必须是对象数组`);
    }
    return value as Array<Record<string, unknown>>;
}

/** A TSL entry back into the shape thingFunctionSchema validates. */
function fromTsl(type: FunctionType, entry: Record<string, unknown>, productId: number): Record<string, unknown> {
    const base = {
        productId,
        type,
        identifier: entry.identifier,
        name: entry.name,
        required: typeof entry.required === 'boolean' ? entry.required : undefined,
        description: entry.desc ?? entry.description ?? undefined,
    };
    if (type === 'property') return { ...base, accessMode: entry.accessMode, dataType: entry.dataType };
    if (type === 'event') return { ...base, eventType: entry.type ?? entry.eventType, outputData: entry.outputData };
    return { ...base, callType: entry.callType, inputData: entry.inputData, outputData: entry.outputData };
}

/**
 * Every function of an imported TSL document, validated before anything is written. A failure names
 * the function: 属性「温度」：请输入最小值.
 */
export async function parseThingModel(productId: number, model: unknown): Promise<ThingFunctionInput[]> {
    if (!model || typeof model !== 'object' || Array.isArray(model)) throw badRequest('物模型格式不正确');
    const doc = model as Record<string, unknown>;
    const entries: Array<[FunctionType, Record<string, unknown>]> = [
        ...asList(doc.properties, 'properties').map((e) => ['property', e] as [FunctionType, typeof e]),
        ...asList(doc.events, 'events').map((e) => ['event', e] as [FunctionType, typeof e]),
        ...asList(doc.services, 'services').map((e) => ['service', e] as [FunctionType, typeof e]),
    ];
    const seen = new Set<string>();
    const out: ThingFunctionInput[] = [];
    for (const [index, [type, entry]] of entries.entries()) {
        const label = `${FUNCTION_TYPE_LABELS[type]}「${String(entry.name ?? entry.identifier ?? `#${index + 1}`)}」`;
        let input: ThingFunctionInput;
        try {
            input = await thingFunctionSchema.validate(fromTsl(type, entry, productId), {
                abortEarly: true,
                stripUnknown: true,
            });
        } catch (err) {
            if (err instanceof ValidationError) throw badRequest(`${label}：${err.errors[0]}`);
            throw err;
        }
        if (seen.has(input.identifier)) throw badRequest(`${label}：标识符已存在`);
        seen.add(input.identifier);
        out.push(input);
    }
    return out;
}
