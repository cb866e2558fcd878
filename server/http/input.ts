import type { Context } from 'hono';
import { ValidationError, type AnyObjectSchema, type InferType } from 'yup';
import { badRequest } from './errors';

/** Form bodies (urlencoded or multipart) and JSON bodies alike, as plain values; files are dropped. */
export async function readBody(c: Context): Promise<Record<string, unknown>> {
    const type = c.req.header('content-type') ?? '';
    if (type.includes('application/json')) {
        let body: unknown;
        try {
            body = await c.req.json();
        } catch {
            throw badRequest('请求体不是有效的 JSON');
        }
        if (!body || typeof body !== 'object' || Array.isArray(body)) throw badRequest('请求体必须是 JSON 对象');
        return body as Record<string, unknown>;
    }
    if (type.includes('application/x-www-form-urlencoded') || type.includes('multipart/form-data')) {
        const form = await c.req.parseBody();
        return Object.fromEntries(Object.entries(form).filter(([, v]) => typeof v === 'string'));
    }
    return {};
}

/** Validates with the shared yup schema, answering its first message (abortEarly) as HTTP 400. */
export async function validate<S extends AnyObjectSchema>(schema: S, input: unknown): Promise<InferType<S>> {
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
        for (const [k, v] of Object.entries(await readBody(c))) put(k, v);
    } else if (type.includes('application/x-www-form-urlencoded') || type.includes('multipart/form-data')) {
        const form = await c.req.parseBody({ all: true });
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
