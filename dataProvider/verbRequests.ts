import { outgoing, renameFilters } from './request';
import type { InvokeOptions } from './types';
import type { ApiCall } from './types';
import type { Params, Row } from './state';

/**
 * One verb's request before its call is known: `defaults` are the params sent when the call declares no
 * `params(input)`, `input` is what such a function receives.
 */
export interface VerbRequest {
    defaults: Params;
    input: Params;
    signal?: AbortSignal;
    onProgress?: InvokeOptions['onProgress'];
}

export const withoutSignal = ({ signal: _signal, ...p }: Params): Params => p;

const signalOf = (params: Params) => params.signal as AbortSignal | undefined;

/** The params a call sends: its own `params(input)`, else the verb's defaults. */
export function paramsFor(call: ApiCall, request: VerbRequest): Params {
    return call.params ? call.params(request.input) : request.defaults;
}

/** react-admin's 1-based page and perPage, and the sort when the call names its params. */
export function withPagingAndSort(call: ApiCall, base: Params, params: Params): Params {
    const out = { ...base };
    const pagination = params.pagination as { page: number; perPage: number } | undefined;
    if (call.paging && pagination) {
        out[call.paging[0]] = pagination.page;
        out[call.paging[1]] = pagination.perPage;
    }
    const sort = params.sort as { field?: string; order?: string } | undefined;
    if (call.sort && sort?.field) {
        out[call.sort[0]] = sort.field;
        out[call.sort[1]] = sort.order;
    }
    return out;
}

/** getList and a declared getManyReference: the call's params or the renamed filter, then paging and sort. */
export function listRequest(call: ApiCall, filter: Params, params: Params): { params: Params; input: Params } {
    const input = { ...filter, ...withoutSignal(params) };
    const base = call.params ? call.params(input) : renameFilters(filter, call.filters);
    return { params: withPagingAndSort(call, base, params), input };
}

export function getOneRequest(idField: string, params: Params): VerbRequest {
    return { defaults: { [idField]: params.id }, input: withoutSignal(params), signal: signalOf(params) };
}

export function getManyRequest(idField: string, params: Params): VerbRequest {
    return { defaults: { [idField]: params.ids ?? [] }, input: withoutSignal(params), signal: signalOf(params) };
}

/**
 * create / update with `meta.onProgress` (a generated form holding a file): the request travels by XHR and reports
 * how much of its body has gone, 0-1.
 */
export function progressOf(params: Params): InvokeOptions['onProgress'] {
    const given = (params.meta as { onProgress?: unknown } | undefined)?.onProgress;
    return typeof given === 'function' ? (given as InvokeOptions['onProgress']) : undefined;
}

export function createRequest(idField: string, params: Params): VerbRequest {
    const sent = (params.data ?? {}) as Row;
    return {
        defaults: outgoing(sent, idField),
        input: { ...sent, ...params, record: sent },
        onProgress: progressOf(params),
    };
}

export function updateRequest(idField: string, params: Params): VerbRequest {
    const previous = (params.previousData ?? {}) as Row;
    const data = (params.data ?? {}) as Row;
    return {
        defaults: { ...outgoing(data, idField), [idField]: params.id },
        input: { ...previous, ...data, ...params, record: { ...previous, ...data } },
        onProgress: progressOf(params),
    };
}

export function updateManyRequest(idField: string, params: Params): VerbRequest {
    const data = outgoing(params.data, idField);
    return { defaults: { ...data, [idField]: params.ids ?? [] }, input: { ...data, ...params } };
}

export function deleteRequest(idField: string, params: Params): VerbRequest {
    const previous = params.previousData as Row | undefined;
    return { defaults: { [idField]: params.id }, input: { ...previous, ...params, record: previous } };
}

export function deleteManyRequest(idField: string, params: Params): VerbRequest {
    return { defaults: { [idField]: params.ids ?? [] }, input: withoutSignal(params) };
}
