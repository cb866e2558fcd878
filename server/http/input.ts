import type { Context } from 'hono';
import { ValidationError, type AnyObjectSchema, type InferType } from 'yup';
import { badRequest } from './errors';

/** PostgreSQL's integer columns: ids and counts beyond them are bad input, not a database fault. */
export const INT_MAX = 2_147_483_647;

/** Uploads that set their own body limit (larger than the general 10 MB) in their routes. */
export const OWN_LIMIT_PATHS = new Set(['/api/device/import', '/api/device/file/upload', '/api/ota/package/upload']);

export const FORM_UNPARSABLE = '请求体无法解析：请以 x-www-form-urlencoded 或 multipart/form-data 表单格式提交';
export const JSON_UNPARSABLE = '请求体不是有效的 JSON';

/** A value's text may not hold NUL (PostgreSQL refuses it in text); the message names the field. */
export function refuseNul(name: string, value: unknown, depth = 0): void {
    if (typeof value === 'string') {
        if (value.includes('\u0000')) throw badRequest(`参数 ${name} 含有非法字符（空字符），请删除后重试`);
    } else if (value && typeof value === 'object' && depth < 32) {
        for (const [key, inner] of Object.entries(value))
            refuseNul(Array.isArray(value) ? name : key, inner, depth + 1);
    }
}

/**
 * The request's form, parsed once (Hono caches it for later readers); a body that does not parse is bad input.
 * Every form reader of the server goes through here.
 */
export async function parseForm(
    c: Context,
    all = false,
): Promise<Record<string, string | File | Array<string | File>>> {
    let form: Record<string, string | File | Array<string | File>>;
    try {
        form = (await c.req.parseBody({ all })) as typeof form;
    } catch {
        throw badRequest(FORM_UNPARSABLE);
    }
    for (const [key, value] of Object.entries(form)) refuseNul(key, value);
    return form;
}

/** Form bodies (urlencoded or multipart) and JSON bodies alike, as plain values; files are dropped. */
export async function readBody(c: Context): Promise<Record<string, unknown>> {
    const type = c.req.header('content-type') ?? '';
    if (type.includes('application/json')) {
        let body: unknown;
        try {
            body = await c.req.json();
        } catch {
            throw badRequest(JSON_UNPARSABLE);
        }
        if (!body || typeof body !== 'object' || Array.isArray(body)) throw badRequest('请求体必须是 JSON 对象');
        refuseNul('body', body);
        return body as Record<string, unknown>;
    }
    if (type.includes('application/x-www-form-urlencoded') || type.includes('multipart/form-data')) {
        const form = await parseForm(c);
        return Object.fromEntries(Object.entries(form).filter(([, v]) => typeof v === 'string'));
    }
    return {};
}

type FieldSchema = { type?: string; tests?: Array<{ OPTIONS?: { name?: string } }>; spec?: { label?: string } };

/**
 * What yup itself would fault on rather than refuse: an object or array where the schema wants a value (its trim
 * transform throws), and integers beyond PostgreSQL's integer columns. Answered 400 naming the field.
 */
function refuseWrongShapes(schema: AnyObjectSchema, input: unknown): void {
    if (!input || typeof input !== 'object') return;
    const fields = (schema as unknown as { fields?: Record<string, FieldSchema> }).fields ?? {};
    for (const [key, field] of Object.entries(fields)) {
        const value = (input as Record<string, unknown>)[key];
        if (value === undefined || value === null) continue;
        const name = field.spec?.label ?? key;
        const scalar = field.type === 'string' || field.type === 'number' || field.type === 'boolean';
        if (scalar && typeof value === 'object') throw badRequest(`参数 ${name} 格式不正确：应为单个值`);
        if (field.type === 'number' && field.tests?.some((t) => t.OPTIONS?.name === 'integer')) {
            const n = typeof value === 'number' ? value : Number(String(value).trim());
            if (Number.isFinite(n) && Math.abs(n) > INT_MAX) throw badRequest(`参数 ${name} 超出范围`);
        }
    }
}

/** Validates with the shared yup schema, answering its first message (abortEarly) as HTTP 400. */
export async function validate<S extends AnyObjectSchema>(schema: S, input: unknown): Promise<InferType<S>> {
    refuseWrongShapes(schema, input);
    try {
        return await schema.validate(input, { abortEarly: true, stripUnknown: true });
    } catch (err) {
        if (err instanceof ValidationError) throw badRequest(err.errors[0] ?? err.message);
        throw err;
    }
}

/** A positive integer param (ids, page numbers); `message` when missing or malformed. */
export function positiveInt(raw: unknown, message: string): number {
    const s = typeof raw === 'number' ? String(raw) : typeof raw === 'string' ? raw.trim() : '';
    if (!/^\d{1,9}$/.test(s) || Number(s) < 1) throw badRequest(message);
    return Number(s);
}

export interface Paging {
    page: number;
    size: number;
    offset: number;
}

export const MAX_PAGE_SIZE = 1000;

/** 1-based page number and size under the family's names; absent means page 1 of 10. */
export function paging(pageRaw: unknown, sizeRaw: unknown): Paging {
    const page = pageRaw === undefined || pageRaw === '' ? 1 : positiveInt(pageRaw, '页码必须是正整数');
    const size = sizeRaw === undefined || sizeRaw === '' ? 10 : positiveInt(sizeRaw, '每页条数必须是正整数');
    if (size > MAX_PAGE_SIZE) throw badRequest(`每页条数不能超过${MAX_PAGE_SIZE}`);
    return { page, size, offset: (page - 1) * size };
}

export type FormValue = string | string[];

/**
 * A form (or JSON) body with repeated keys kept as arrays, for calls that send lists as `deviceId=1&deviceId=2`.
 * Files are dropped; JSON arrays of numbers become arrays of strings.
 */
export async function readListBody(c: Context): Promise<Record<string, FormValue>> {
    const type = c.req.header('content-type') ?? '';
    const out: Record<string, FormValue> = {};
    const put = (key: string, value: unknown) => {
        const name = key.endsWith('[]') ? key.slice(0, -2) : key;
        if (Array.isArray(value)) {
            const items = value.filter((v) => typeof v === 'string' || typeof v === 'number').map(String);
            out[name] = [...(typeof out[name] === 'string' ? [out[name]] : (out[name] ?? [])), ...items];
        } else if (typeof value === 'string' || typeof value === 'number') {
            const prev = out[name];
            out[name] = prev === undefined ? String(value) : [...(Array.isArray(prev) ? prev : [prev]), String(value)];
        }
    };
    if (type.includes('application/json')) {
        for (const [k, v] of Object.entries(await readBody(c))) {
            if (v && typeof v === 'object' && !Array.isArray(v))
                throw badRequest(`参数 ${k} 格式不正确：应为单个值或列表`);
            put(k, v);
        }
    } else if (type.includes('application/x-www-form-urlencoded') || type.includes('multipart/form-data')) {
        const form = await parseForm(c, true);
        for (const [k, v] of Object.entries(form)) put(k, v);
    }
    return out;
}

/**
 * Positive integer ids from repeated keys, a JSON array or one comma-joined value; `message` names the id when one
 * is malformed. Duplicates are dropped.
 */
export function idList(raw: FormValue | undefined, message: string): number[] {
    const values = raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
    const parts = values.flatMap((v) => v.split(',')).map((v) => v.trim());
    const ids = parts.filter((v) => v !== '').map((v) => positiveInt(v, message));
    return [...new Set(ids)];
}
