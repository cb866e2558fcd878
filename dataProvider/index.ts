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
 *
 * Where each step lives: verbRequests.ts (the params per verb), call.ts (one call over the wire and its envelope),
 * answers.ts (rows, total and record read from an answer), verbs.ts (the single verbs, invoke, url), bulk.ts (the
 * verbs over many ids and their fallbacks), state.ts (the definitions by name).
 */
import type { DataProvider } from 'ra-core';
import type { HttpOptions } from './http';
import { createSimpleRestProvider } from './simpleRest';
import { apiOf, indexResources, type Params, type ProviderState } from './state';
import { create, getList, getManyReference, getOne, invoke, remove, update, urlOf } from './verbs';
import { deleteMany, getMany, updateMany } from './bulk';
import type { ApiResource, InvokeOptions, PlatformDataProviderMethods } from './types';

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

type VerbImpl = (state: ProviderState, resource: string, params: Params) => Promise<unknown>;

/** The react-admin verbs, by the name react-admin calls them. */
const verbs: Record<string, VerbImpl> = {
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

function defaultPrefix(): string {
    return (import.meta.env?.VITE_API_PREFIX as string | undefined) ?? '';
}

export function createDataProvider(
    resources: ApiResource[] | Promise<ApiResource[]>,
    options: DataProviderOptions = {},
): PlatformDataProvider {
    const state: ProviderState = {
        prefix: (options.prefix ?? defaultPrefix()).replace(/\/$/, ''),
        http: { timeout: options.timeout, fetch: options.fetch } satisfies HttpOptions,
        byName: new Map(),
    };
    // The definitions may still be on their way (the console loads its registry beside the first screen): every
    // call waits for them, so a call made during the first paint is answered as it would be later.
    const ready: Promise<void> | undefined = Array.isArray(resources)
        ? (indexResources(state, resources), undefined)
        : resources.then((list) => indexResources(state, list));
    const rest = createSimpleRestProvider(options.simpleRestUrl ?? `${state.prefix}/api`, state.http);

    const provider: Record<string, unknown> = {
        // react-admin passes react-query's signal only when the provider says it honours it.
        supportAbortSignal: true,
        async invoke(resource: string, name: string, params: Params = {}, opts: InvokeOptions = {}) {
            if (ready) await ready;
            return invoke(state, resource, name, params, opts);
        },
        url: (resource: string, name: string, params: Params = {}) => urlOf(state, resource, name, params),
    };
    for (const [verb, impl] of Object.entries(verbs)) {
        const direct = (resource: string, params: Params): Promise<unknown> =>
            apiOf(state, resource)
                ? impl(state, resource, params)
                : (rest[verb as keyof DataProvider] as (r: string, p: Params) => Promise<unknown>)(resource, params);
        provider[verb] = ready
            ? (resource: string, params: Params) => ready.then(() => direct(resource, params))
            : direct;
    }
    // The verbs are written against plain records; react-admin's generic signatures are satisfied at this seam.
    return provider as unknown as PlatformDataProvider;
}

export default createDataProvider;
