import type { ApiCall, HttpMethod } from './types';
import { toForm, toQuery } from './http';

export interface PreparedRequest {
    method: HttpMethod;
    url: string;
    headers: Record<string, string>;
    body?: BodyInit;
}

export function methodAndPath(call: ApiCall): [HttpMethod, string] {
    if (call.get !== undefined) return ['GET', call.get];
    if (call.post !== undefined) return ['POST', call.post];
    if (call.put !== undefined) return ['PUT', call.put];
    if (call.delete !== undefined) return ['DELETE', call.delete];
    throw new Error('接口定义缺少 get / post / put / delete 路径');
}

const segment = (v: unknown) => encodeURIComponent(String(v));

/**
 * Turns one declared call and its params into a request. `{param}` path segments consume their param; with
 * body 'segments' the listed params (in `segments` order, else all) are appended as path segments and any others
 * go to the query. GET always carries the rest in the query; DELETE by default too; POST / PUT as a form unless
 * the call says 'json' or 'query'.
 */
export function buildRequest(
    prefix: string,
    call: ApiCall,
    params: Record<string, unknown>,
    fallback: Record<string, unknown> = {},
): PreparedRequest {
    const [method, template] = methodAndPath(call);
    const rest: Record<string, unknown> = { ...params };
    let path = template.replace(/\{(\w+)\}/g, (_, name: string) => {
        const value = name in rest ? rest[name] : fallback[name];
        delete rest[name];
        if (value === undefined || value === null || value === '') throw new Error(`路径 ${template} 缺少参数 ${name}`);
        return segment(value);
    });

    const mode = call.body ?? (method === 'GET' || method === 'DELETE' ? 'query' : 'form');
    if (mode === 'segments') {
        for (const name of call.segments ?? Object.keys(rest)) {
            const value = rest[name];
            delete rest[name];
            if (value === undefined || value === null || value === '') continue;
            path += `/${segment(value)}`;
        }
    }

    const headers: Record<string, string> = {};
    let body: BodyInit | undefined;
    let query = '';
    if (mode === 'file') {
        // The file itself is the body (the server streams it, never holding it whole); the other params and the
        // file's name travel in the query.
        const key = Object.keys(rest).find((k) => typeof Blob !== 'undefined' && rest[k] instanceof Blob);
        if (key) {
            const file = rest[key] as Blob & { name?: string };
            delete rest[key];
            if (file.name && rest.fileName === undefined) rest.fileName = file.name;
            body = file;
            headers['Content-Type'] = 'application/octet-stream';
        }
        query = toQuery(rest, call.arrays);
    } else if (mode === 'query' || mode === 'segments' || method === 'GET') {
        query = toQuery(rest, call.arrays);
    } else if (mode === 'json') {
        body = JSON.stringify(rest);
        headers['Content-Type'] = 'application/json';
    } else {
        // fetch and XHR set the urlencoded or multipart (with boundary) Content-Type from the body type.
        body = toForm(rest, call.arrays);
    }
    const url = `${prefix}${path}${query ? `?${query}` : ''}`;
    return { method, url, headers, body };
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** react-admin needs `id`: copy the platform's id field, then let the definition's transform reshape the row. */
export function toRecord(row: unknown, idField: string, transform?: ApiCall['transform']): Record<string, unknown> {
    if (!isObject(row)) return row as Record<string, unknown>;
    const withId = idField !== 'id' && row[idField] !== undefined ? { ...row, id: row[idField] } : row;
    return transform ? transform(withId) : withId;
}

/** Form data going back to the platform: without the `id` we added when the platform names its id otherwise. */
export function outgoing(data: unknown, idField: string): Record<string, unknown> {
    if (!isObject(data)) return {};
    if (idField === 'id') return { ...data };
    const { id: _id, ...rest } = data;
    return rest;
}

export function renameFilters(filter: Record<string, unknown> | undefined, names: ApiCall['filters']) {
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(filter ?? {})) out[names?.[key] ?? key] = value;
    return out;
}

export { isObject };
