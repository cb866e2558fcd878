// The verbs over many ids: the resource's bulk call when it declares one, else the single verb per id.
import type { Identifier } from 'ra-core';
import { readMany } from './answers';
import { runVerb } from './call';
import { declared, idFieldOf, missing, type Params, type ProviderState } from './state';
import { deleteManyRequest, getManyRequest, updateManyRequest } from './verbRequests';
import { getList, getOne, remove, update } from './verbs';

type S = ProviderState;

/** getMany: the declared call; else one getOne per id in parallel; else one large getList page kept to the ids. */
export async function getMany(state: S, resource: string, params: Params) {
    const ids = (params.ids ?? []) as Identifier[];
    const signal = params.signal as AbortSignal | undefined;
    const call = declared(state, resource, 'getMany');
    if (call) {
        const idField = idFieldOf(state, resource);
        const body = await runVerb(state, resource, 'getMany', getManyRequest(idField, params));
        return { data: readMany(body, call, idField) };
    }
    if (declared(state, resource, 'getOne')) {
        const answers = await Promise.all(ids.map((id) => getOne(state, resource, { id, meta: params.meta, signal })));
        return { data: answers.map((a) => a.data) };
    }
    if (declared(state, resource, 'getList')) {
        // Pickers often have only a list call.
        const page = { pagination: { page: 1, perPage: 1000 }, filter: {}, signal };
        const { data } = await getList(state, resource, page);
        const wanted = new Set(ids.map(String));
        return { data: data.filter((r) => wanted.has(String(r.id))) };
    }
    throw missing(resource, 'getMany');
}

/** updateMany: the declared call, else one update per id in parallel. */
export async function updateMany(state: S, resource: string, params: Params) {
    const ids = (params.ids ?? []) as Identifier[];
    if (declared(state, resource, 'updateMany')) {
        await runVerb(state, resource, 'updateMany', updateManyRequest(idFieldOf(state, resource), params));
        return { data: ids };
    }
    if (!declared(state, resource, 'update')) throw missing(resource, 'updateMany');
    await Promise.all(
        ids.map((id) => update(state, resource, { id, data: params.data, previousData: { id }, meta: params.meta })),
    );
    return { data: ids };
}

/** deleteMany: the declared call, else one delete per id in parallel. */
export async function deleteMany(state: S, resource: string, params: Params) {
    const ids = (params.ids ?? []) as Identifier[];
    if (declared(state, resource, 'deleteMany')) {
        await runVerb(state, resource, 'deleteMany', deleteManyRequest(idFieldOf(state, resource), params));
        return { data: ids };
    }
    if (!declared(state, resource, 'delete')) throw missing(resource, 'deleteMany');
    await Promise.all(ids.map((id) => remove(state, resource, { id, meta: params.meta })));
    return { data: ids };
}
