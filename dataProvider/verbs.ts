import { readCreated, readDeleted, readInvoked, readList, readOne, readUpdated } from './answers';
import { runCall, runVerb } from './call';
import { buildRequest } from './request';
import { apiOf, declared, idFieldOf, missing, type Params, type ProviderState, type Verb } from './state';
import type { ApiCall, InvokeOptions } from './types';
import { createRequest, deleteRequest, getOneRequest, listRequest, updateRequest } from './verbRequests';

type S = ProviderState;

async function listCall(state: S, resource: string, call: ApiCall, filter: Params, params: Params) {
    const request = listRequest(call, filter, params);
    const body = await runCall(state, resource, call, request.params, request.input, {
        signal: params.signal as AbortSignal | undefined,
    });
    return readList(body, call, idFieldOf(state, resource));
}

/** getList over the resource's list call, or over a custom call named by `meta.call` (lists over any call). */
export async function getList(state: S, resource: string, params: Params) {
    const named = (params.meta as { call?: string } | undefined)?.call;
    const call = named ? apiOf(state, resource)?.custom?.[named] : declared(state, resource, 'getList');
    if (!call) throw missing(resource, named ?? 'getList');
    return listCall(state, resource, call, (params.filter ?? {}) as Params, params);
}

export async function getOne(state: S, resource: string, params: Params) {
    const call = declared(state, resource, 'getOne');
    if (!call) throw missing(resource, 'getOne');
    const idField = idFieldOf(state, resource);
    const body = await runVerb(state, resource, 'getOne', getOneRequest(idField, params));
    return { data: readOne(body, call, idField, params.id) };
}

export async function getManyReference(state: S, resource: string, params: Params) {
    const call = declared(state, resource, 'getManyReference');
    const filter = { ...((params.filter ?? {}) as Params), [params.target as string]: params.id };
    return call ? listCall(state, resource, call, filter, params) : getList(state, resource, { ...params, filter });
}

export async function create(state: S, resource: string, params: Params) {
    const call = declared(state, resource, 'create');
    if (!call) throw missing(resource, 'create');
    const idField = idFieldOf(state, resource);
    const body = await runVerb(state, resource, 'create', createRequest(idField, params));
    return { data: readCreated(body, call, idField, (params.data ?? {}) as Params) };
}

export async function update(state: S, resource: string, params: Params) {
    const call = declared(state, resource, 'update');
    if (!call) throw missing(resource, 'update');
    const idField = idFieldOf(state, resource);
    const body = await runVerb(state, resource, 'update', updateRequest(idField, params));
    return { data: readUpdated(body, call, idField, params) };
}

export async function remove(state: S, resource: string, params: Params) {
    const call = declared(state, resource, 'delete');
    if (!call) throw missing(resource, 'delete');
    const idField = idFieldOf(state, resource);
    const body = await runVerb(state, resource, 'delete', deleteRequest(idField, params));
    return { data: readDeleted(body, call, idField, params) };
}

/** A named custom call with the params given. */
export async function invoke(state: S, resource: string, name: string, params: Params, opts: InvokeOptions) {
    const call = apiOf(state, resource)?.custom?.[name];
    if (!call) throw missing(resource, name);
    const body = await runCall(state, resource, call, call.params ? call.params(params) : params, params, opts);
    return { data: readInvoked(body, call), body };
}

/** The URL of a custom call or verb as a GET (its params in the query or as path segments). */
export function urlOf(state: S, resource: string, name: string, params: Params): string {
    const api = apiOf(state, resource);
    const call = api?.custom?.[name] ?? (api?.[name as Verb] as ApiCall | undefined);
    if (!call) throw missing(resource, name);
    const own = call.params ? call.params(params) : params;
    const asGet: ApiCall = { ...call, body: call.body === 'segments' ? 'segments' : 'query' };
    return buildRequest(state.prefix, asGet, own, params).url;
}
