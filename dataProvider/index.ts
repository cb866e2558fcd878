/**
 * Maps react-admin verbs to the platform's calls, as each resource definition's `api` block declares them
 * (dataProvider/types.ts). Paths sit under the console prefix (VITE_API_PREFIX). Defaults, per verb:
 *
 * getList          => api.getList (or api.custom[meta.call]): paging [pageName, sizeName] = 1-based page and perPage, filters renamed
 *                     (`filters`), sort only when `sort` is declared. Rows from `read` (default data.records, else
 *                     data.list, else data when it is an array), total from `total` (default data.total, else the
 *                     row count).
 * getOne           => api.getOne with { [idField]: id }; record from `read` (default data).
 * getMany          => api.getMany with { [idField]: ids }; else one getOne per id in parallel; else getList
 *                     filtered to the ids.
 * getManyReference => api.getManyReference with the filters plus { [target]: id }; else getList with the target
 *                     as one more filter.
 * create           => api.create with the form data; the answer's record, or the sent data plus the new id when
 *                     the answer carries only an id.
 * update           => api.update with the data plus { [idField]: id }; the answer's record, else the sent data.
 * updateMany       => api.updateMany with { [idField]: ids, ...data }; else one update per id in parallel.
 * delete           => api.delete with { [idField]: id }; the answer's record, else previousData.
 * deleteMany       => api.deleteMany with { [idField]: ids }; else one delete per id in parallel.
 * invoke           => api.custom[call] with the params given; { data: read (default data), body: envelope }.
 * url              => prefix + path + query of a custom call or verb, for links the browser follows itself.
 *
 * GET and DELETE carry params in the query, POST and PUT as a form (urlencoded, multipart when a File is there)
 * unless `body` says otherwise; `{param}` path segments are filled from the params. Arrays of plain values travel
 * as repeated keys (`arrays` changes that), objects and arrays of objects as JSON strings, Dates as
 * 'YYYY-MM-DD HH:mm:ss'. react-admin's `id` is a copy of the row's `idField`; the copy is not sent back.
 * A resource without an `api` block is served by ra-data-simple-rest under `${prefix}/api`.
 */
import { HttpError, type DataProvider, type Identifier } from 'ra-core';
import { send, type HttpOptions } from './http';
import { parseEnvelope, readPath } from './envelope';
import { buildRequest, isObject, outgoing, renameFilters, toRecord } from './request';
import { createSimpleRestProvider } from './simpleRest';
import type { ApiCall, ApiMapping, ApiResource, InvokeOptions, PlatformDataProviderMethods } from './types';

export type {
    ApiCall,
    ApiMapping,
    ApiResource,
    InvokeOptions,
    InvokeResult,
    PlatformDataProviderMethods,
} from './types';
export { DEFAULT_TIMEOUT, NETWORK_MESSAGE, TIMEOUT_MESSAGE, readAuthorization } from './http';
export { SYSTEM_ERROR, errorMessage, isSuccess, parseEnvelope, readPath, successRules } from './envelope';

export interface DataProviderOptions {
    /** Console prefix every path sits under (default VITE_API_PREFIX, else ''). */
    prefix?: string;
    /** Request timeout in ms (default 60,000). */
    timeout?: number;
    fetch?: typeof fetch;
    /** Base URL of the plain-REST fallback (default `${prefix}/api`). */
    simpleRestUrl?: string;
}

export type PlatformDataProvider = DataProvider & PlatformDataProviderMethods;

type Verb = Exclude<keyof ApiMapping, 'success' | 'idField' | 'custom'>;
type Params = Record<string, unknown>;
type Row = Record<string, unknown>;

const failureKey: Partial<Record<Verb, 'createFailed' | 'updateFailed' | 'deleteFailed'>> = {
    create: 'createFailed',
    update: 'updateFailed',
    updateMany: 'updateFailed',
    delete: 'deleteFailed',
    deleteMany: 'deleteFailed',
};

function defaultPrefix(): string {
    return (import.meta.env?.VITE_API_PREFIX as string | undefined) ?? '';
}

/** Rows of a list answer: the declared path, else the platform's usual places. */
function readRows(body: unknown, read?: string): unknown[] {
    const value = read
        ? readPath(body, read)
        : [readPath(body, 'data.records'), readPath(body, 'data.list'), readPath(body, 'data')].find(Array.isArray);
    if (value === undefined || value === null) return [];
    if (!Array.isArray(value)) throw new Error(`列表数据（${read ?? 'data.records'}）不是数组`);
    return value;
}

/** The answer's other figures beside its rows and total (count, onlineCount), for counters above a table. */
function figuresOf(data: unknown): Record<string, unknown> | undefined {
    if (!isObject(data)) return undefined;
    const entries = Object.entries(data).filter(
        ([key, value]) => key !== 'total' && (typeof value === 'number' || typeof value === 'string'),
    );
    return entries.length ? Object.fromEntries(entries) : undefined;
}

/**
 * create / update with `meta.onProgress` (a generated form holding a file): the request travels by XHR and reports
 * how much of its body has gone, 0-1.
 */
function progressOf(params: Params): InvokeOptions['onProgress'] {
    const given = (params.meta as { onProgress?: unknown } | undefined)?.onProgress;
    return typeof given === 'function' ? (given as InvokeOptions['onProgress']) : undefined;
}

export function createDataProvider(
    resources: ApiResource[] | Promise<ApiResource[]>,
    options: DataProviderOptions = {},
): PlatformDataProvider {
    const prefix = (options.prefix ?? defaultPrefix()).replace(/\/$/, '');
    const http: HttpOptions = { timeout: options.timeout, fetch: options.fetch };
    // The definitions may still be on their way (the console loads its registry beside the first screen): every
    // call waits for them, so a call made during the first paint is answered as it would be later.
    let byName = new Map<string, ApiResource>();
    const index = (list: ApiResource[]) => {
        byName = new Map(list.map((r) => [r.name, r]));
    };
    const ready: Promise<void> | undefined = Array.isArray(resources)
        ? (index(resources), undefined)
        : resources.then(index);
    const rest = createSimpleRestProvider(options.simpleRestUrl ?? `${prefix}/api`, http);

    const apiOf = (resource: string): ApiMapping | undefined => byName.get(resource)?.api;
    const idFieldOf = (resource: string) => apiOf(resource)?.idField ?? byName.get(resource)?.idField ?? 'id';

    async function run(
        resource: string,
        call: ApiCall,
        params: Params,
        input: Params,
        extra: { signal?: AbortSignal; failure?: string; onProgress?: InvokeOptions['onProgress'] } = {},
    ) {
        const api = apiOf(resource)!;
        const request = buildRequest(prefix, call, params, input);
        const answer = await send(
            request.url,
            {
                method: request.method,
                headers: request.headers,
                body: request.body,
                signal: extra.signal,
                onProgress: extra.onProgress,
            },
            http,
        );
        return parseEnvelope(answer, call.success ?? api.success, call.failure ?? extra.failure);
    }

    /** Runs a declared verb; the request params are the call's `params(input)` or the verb's default. */
    function runVerb(
        resource: string,
        verb: Verb,
        defaults: Params,
        input: Params,
        signal?: AbortSignal,
        onProgress?: InvokeOptions['onProgress'],
    ) {
        const call = apiOf(resource)![verb]!;
        const params = call.params ? call.params(input) : defaults;
        const failure = failureKey[verb] && byName.get(resource)?.messages?.[failureKey[verb]!];
        return run(resource, call, params, input, { signal, failure, onProgress });
    }

    const declared = (resource: string, verb: Verb) => apiOf(resource)?.[verb];
    const missing = (resource: string, verb: string) => new Error(`资源 ${resource} 未声明 ${verb} 接口`);

    function listParams(call: ApiCall, base: Params, p: Params): Params {
        const out = { ...base };
        const pagination = p.pagination as { page: number; perPage: number } | undefined;
        if (call.paging && pagination) {
            out[call.paging[0]] = pagination.page;
            out[call.paging[1]] = pagination.perPage;
        }
        const sort = p.sort as { field?: string; order?: string } | undefined;
        if (call.sort && sort?.field) {
            out[call.sort[0]] = sort.field;
            out[call.sort[1]] = sort.order;
        }
        return out;
    }

    const strip = ({ signal: _signal, ...p }: Params) => p;

    /** getList and a declared getManyReference: the call's params or the renamed filter, then paging and sort. */
    async function listCall(resource: string, call: ApiCall, filter: Params, params: Params) {
        const input = { ...filter, ...strip(params) };
        const base = call.params ? call.params(input) : renameFilters(filter, call.filters);
        const body = await run(resource, call, listParams(call, base, params), input, {
            signal: params.signal as AbortSignal | undefined,
        });
        const idField = idFieldOf(resource);
        const data = readRows(body, call.read).map((row) => toRecord(row, idField, call.transform));
        const total = Number(readPath(body, call.total ?? 'data.total'));
        const result = { data, total: Number.isFinite(total) ? total : data.length };
        const figures = figuresOf(readPath(body, 'data'));
        return figures ? { ...result, meta: figures } : result;
    }

    /** getList over the resource's list call, or over a custom call named by `meta.call` (lists over any call). */
    async function getList(resource: string, params: Params) {
        const named = (params.meta as { call?: string } | undefined)?.call;
        const call = named ? apiOf(resource)?.custom?.[named] : declared(resource, 'getList');
        if (!call) throw missing(resource, named ?? 'getList');
        return listCall(resource, call, (params.filter ?? {}) as Params, params);
    }

    async function getOne(resource: string, params: Params) {
        const call = declared(resource, 'getOne');
        if (!call) throw missing(resource, 'getOne');
        const idField = idFieldOf(resource);
        const body = await runVerb(
            resource,
            'getOne',
            { [idField]: params.id },
            strip(params),
            params.signal as AbortSignal | undefined,
        );
        const row = readPath(body, call.read ?? 'data');
        if (!isObject(row)) throw new HttpError('ra.notification.item_doesnt_exist', 404, body);
        const record = toRecord(row, idField, call.transform);
        return { data: { ...record, id: record.id ?? params.id } };
    }

    async function getMany(resource: string, params: Params) {
        const ids = (params.ids ?? []) as Identifier[];
        const signal = params.signal as AbortSignal | undefined;
        const call = declared(resource, 'getMany');
        const idField = idFieldOf(resource);
        if (call) {
            const body = await runVerb(resource, 'getMany', { [idField]: ids }, strip(params), signal);
            return { data: readRows(body, call.read).map((row) => toRecord(row, idField, call.transform)) };
        }
        if (declared(resource, 'getOne')) {
            const answers = await Promise.all(ids.map((id) => getOne(resource, { id, meta: params.meta, signal })));
            return { data: answers.map((a) => a.data) };
        }
        if (declared(resource, 'getList')) {
            // Pickers often have only a list call: read one large page and keep the wanted ids.
            const { data } = await getList(resource, { pagination: { page: 1, perPage: 1000 }, filter: {}, signal });
            const wanted = new Set(ids.map(String));
            return { data: data.filter((r) => wanted.has(String(r.id))) };
        }
        throw missing(resource, 'getMany');
    }

    async function getManyReference(resource: string, params: Params) {
        const call = declared(resource, 'getManyReference');
        const filter = { ...((params.filter ?? {}) as Params), [params.target as string]: params.id };
        return call ? listCall(resource, call, filter, params) : getList(resource, { ...params, filter });
    }

    async function create(resource: string, params: Params) {
        const call = declared(resource, 'create');
        if (!call) throw missing(resource, 'create');
        const idField = idFieldOf(resource);
        const sent = (params.data ?? {}) as Row;
        const body = await runVerb(
            resource,
            'create',
            outgoing(sent, idField),
            { ...sent, ...params, record: sent },
            undefined,
            progressOf(params),
        );
        const answer = readPath(body, call.read ?? 'data');
        let row: Row = { ...sent };
        if (typeof answer === 'string' || typeof answer === 'number') row = { ...sent, [idField]: answer, id: answer };
        else if (isObject(answer)) row = { ...sent, ...answer };
        return { data: toRecord(row, idField, call.transform) };
    }

    async function update(resource: string, params: Params) {
        const call = declared(resource, 'update');
        if (!call) throw missing(resource, 'update');
        const idField = idFieldOf(resource);
        const previous = (params.previousData ?? {}) as Row;
        const data = (params.data ?? {}) as Row;
        const body = await runVerb(
            resource,
            'update',
            { ...outgoing(data, idField), [idField]: params.id },
            { ...previous, ...data, ...params, record: { ...previous, ...data } },
            undefined,
            progressOf(params),
        );
        const answer = readPath(body, call.read ?? 'data');
        const record = toRecord({ ...previous, ...data, ...(isObject(answer) ? answer : {}) }, idField, call.transform);
        return { data: { ...record, id: record.id ?? params.id } };
    }

    async function updateMany(resource: string, params: Params) {
        const ids = (params.ids ?? []) as Identifier[];
        if (declared(resource, 'updateMany')) {
            const idField = idFieldOf(resource);
            const data = outgoing(params.data, idField);
            await runVerb(resource, 'updateMany', { ...data, [idField]: ids }, { ...data, ...params });
            return { data: ids };
        }
        if (!declared(resource, 'update')) throw missing(resource, 'updateMany');
        await Promise.all(
            ids.map((id) => update(resource, { id, data: params.data, previousData: { id }, meta: params.meta })),
        );
        return { data: ids };
    }

    async function remove(resource: string, params: Params) {
        const call = declared(resource, 'delete');
        if (!call) throw missing(resource, 'delete');
        const idField = idFieldOf(resource);
        const previous = params.previousData as Row | undefined;
        const body = await runVerb(
            resource,
            'delete',
            { [idField]: params.id },
            {
                ...previous,
                ...params,
                record: previous,
            },
        );
        const answer = readPath(body, call.read ?? 'data');
        if (isObject(answer)) {
            const record = toRecord(answer, idField, call.transform);
            return { data: { ...record, id: record.id ?? params.id } };
        }
        return { data: previous ?? { id: params.id } };
    }

    async function deleteMany(resource: string, params: Params) {
        const ids = (params.ids ?? []) as Identifier[];
        if (declared(resource, 'deleteMany')) {
            await runVerb(resource, 'deleteMany', { [idFieldOf(resource)]: ids }, strip(params));
            return { data: ids };
        }
        if (!declared(resource, 'delete')) throw missing(resource, 'deleteMany');
        await Promise.all(ids.map((id) => remove(resource, { id, meta: params.meta })));
        return { data: ids };
    }

    const verbs = {
        getList,
        getOne,
        getMany,
        getManyReference,
        create,
        update,
        updateMany,
        delete: remove,
        deleteMany,
    };

    const provider: Record<string, unknown> = {
        // react-admin passes react-query's signal only when the provider says it honours it.
        supportAbortSignal: true,
        async invoke(resource: string, name: string, params: Params = {}, opts: InvokeOptions = {}) {
            if (ready) await ready;
            const call = apiOf(resource)?.custom?.[name];
            if (!call) throw missing(resource, name);
            const body = await run(resource, call, call.params ? call.params(params) : params, params, opts);
            let data = readPath(body, call.read ?? 'data');
            if (call.transform && Array.isArray(data)) data = data.map((r) => (isObject(r) ? call.transform!(r) : r));
            else if (call.transform && isObject(data)) data = call.transform(data);
            return { data, body };
        },
        url(resource: string, name: string, params: Params = {}) {
            const api = apiOf(resource);
            const call = api?.custom?.[name] ?? (api?.[name as Verb] as ApiCall | undefined);
            if (!call) throw missing(resource, name);
            const own = call.params ? call.params(params) : params;
            const asGet: ApiCall = { ...call, body: call.body === 'segments' ? 'segments' : 'query' };
            return buildRequest(prefix, asGet, own, params).url;
        },
    };
    for (const [verb, impl] of Object.entries(verbs)) {
        const direct = (resource: string, params: Params): Promise<unknown> =>
            apiOf(resource)
                ? impl(resource, params)
                : (rest[verb as keyof DataProvider] as typeof impl)(resource, params);
        provider[verb] = ready
            ? (resource: string, params: Params) => ready.then(() => direct(resource, params))
            : direct;
    }
    // The verbs are written against plain records; react-admin's generic signatures are satisfied at this seam.
    return provider as unknown as PlatformDataProvider;
}

export default createDataProvider;
