import type { HttpOptions } from './http';
import type { ApiCall, ApiMapping, ApiResource } from './types';

export type Verb = Exclude<keyof ApiMapping, 'success' | 'idField' | 'custom'>;
export type Params = Record<string, unknown>;
export type Row = Record<string, unknown>;

/** What every verb reads: where paths sit, how requests travel, and the resource definitions by name. */
export interface ProviderState {
    prefix: string;
    http: HttpOptions;
    byName: Map<string, ApiResource>;
}

export function indexResources(state: ProviderState, list: ApiResource[]): void {
    state.byName = new Map(list.map((r) => [r.name, r]));
}

export function apiOf(state: ProviderState, resource: string): ApiMapping | undefined {
    return state.byName.get(resource)?.api;
}

export function idFieldOf(state: ProviderState, resource: string): string {
    return apiOf(state, resource)?.idField ?? state.byName.get(resource)?.idField ?? 'id';
}

export function declared(state: ProviderState, resource: string, verb: Verb): ApiCall | undefined {
    return apiOf(state, resource)?.[verb];
}

export function missing(resource: string, verb: string): Error {
    return new Error(`资源 ${resource} 未声明 ${verb} 接口`);
}

const failureKey: Partial<Record<Verb, 'createFailed' | 'updateFailed' | 'deleteFailed'>> = {
    create: 'createFailed',
    update: 'updateFailed',
    updateMany: 'updateFailed',
    delete: 'deleteFailed',
    deleteMany: 'deleteFailed',
};

/** The resource's message for a failed write of this verb, shown when the server's failure carries none. */
export function failureOf(state: ProviderState, resource: string, verb: Verb): string | undefined {
    const key = failureKey[verb];
    return key && state.byName.get(resource)?.messages?.[key];
}
