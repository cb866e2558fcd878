import { useQuery, useQueryClient, type UseQueryOptions } from '@tanstack/react-query';
import { useCallback } from 'react';
import { useDataProvider } from 'react-admin';
import type { PlatformDataProvider } from './choices';
import { referencePath, useOptionalDefinition } from './context';
import type { CallRef, Refresh, Scope } from './vocabulary';

const VERBS = new Set(['getList', 'getOne', 'getMany', 'create', 'update', 'delete', 'deleteMany', 'updateMany']);

/** The resource a call belongs to, by the name react-admin knows it (its path), so query keys agree. */
export function callResource(ref: CallRef, current: string | undefined): string {
    const name = ref.resource ?? current;
    if (!name) throw new Error(`调用 ${ref.call} 未指明资源`);
    return referencePath(name);
}

/** The call's name: chosen by `by(scope)` when it says one, else `call`. */
export function callName(ref: CallRef, scope: Scope): string {
    return ref.by?.(scope) || ref.call;
}

/** The params a call is given: its `params(scope)`, else the record, then the form values. */
export function callParams(ref: CallRef, scope: Scope): Record<string, unknown> {
    return ref.params ? ref.params(scope) : { ...scope.record, ...scope.values };
}

/**
 * Runs a CallRef: a custom call through `invoke`, a verb through react-admin's verb (create / update with the
 * params as data and the record as previous data; delete by the record's id). Answers the call's data.
 */
export async function runCall(
    dataProvider: PlatformDataProvider,
    ref: CallRef,
    scope: Scope,
    current: string | undefined,
    opts: { onProgress?: (fraction: number) => void; signal?: AbortSignal } = {},
): Promise<unknown> {
    if (ref.each) return runEach(dataProvider, ref, scope, current, opts);
    const resource = callResource(ref, current);
    const params = callParams(ref, scope);
    const call = callName(ref, scope);
    if (!VERBS.has(call)) return (await dataProvider.invoke(resource, call, params, opts)).data;
    const record = scope.record;
    switch (call) {
        case 'create':
            return (await dataProvider.create(resource, { data: params, meta: { onProgress: opts.onProgress } })).data;
        case 'update':
            return (
                await dataProvider.update(resource, {
                    id: record.id as string,
                    data: params,
                    previousData: record as { id: string },
                    meta: { onProgress: opts.onProgress },
                })
            ).data;
        case 'delete':
            return (
                await dataProvider.delete(resource, {
                    id: (params.id ?? record.id) as string,
                    previousData: record as { id: string },
                })
            ).data;
        case 'getOne':
            return (await dataProvider.getOne(resource, { id: (params.id ?? record.id) as string, meta: params })).data;
        default:
            throw new Error(`动作不能直接调用 ${call}`);
    }
}

/**
 * A call run once per params object of `each`, in order. Every one is tried; when some fail, the error says which
 * (each failure's own message, one per line) and carries `done`, the answers of those that succeeded.
 */
async function runEach(
    dataProvider: PlatformDataProvider,
    ref: CallRef,
    scope: Scope,
    current: string | undefined,
    opts: { signal?: AbortSignal },
): Promise<unknown[]> {
    const { each, eachName, ...one } = ref;
    const done: unknown[] = [];
    const failed: string[] = [];
    for (const params of each!(scope)) {
        try {
            done.push(await runCall(dataProvider, { ...one, params: () => params }, scope, current, opts));
        } catch (error) {
            const message = error instanceof Error && error.message ? error.message : '操作失败';
            failed.push(eachName ? `${eachName(params)}：${message}` : message);
        }
    }
    if (failed.length) throw Object.assign(new Error(failed.join('\n')), { done });
    return done;
}

/** react-query key of a call: under its resource, so refreshing the resource reloads it. */
export function callKey(resource: string, ref: CallRef, params: Record<string, unknown>, name = ref.call) {
    return [resource, 'call', name, params] as const;
}

/** The answer of a call for the scope, cached per params. */
export function useCall<T = unknown>(
    ref: CallRef | undefined,
    scope: Scope,
    options: Partial<UseQueryOptions<T>> = {},
) {
    const dataProvider = useDataProvider<PlatformDataProvider>();
    const definition = useOptionalDefinition();
    const resource = ref ? callResource(ref, definition?.name) : '';
    const params = ref ? callParams(ref, scope) : {};
    return useQuery<T>({
        queryKey: ref ? callKey(resource, ref, params, callName(ref, scope)) : ['no-call'],
        queryFn: ({ signal }) => runCall(dataProvider, ref!, scope, definition?.name, { signal }) as Promise<T>,
        retry: (count: number, error: Error & { status?: number }) =>
            count < 2 && !(error?.status !== undefined && error.status >= 400 && error.status < 500),
        ...(ref?.every ? { refetchInterval: ref.every * 1000 } : {}),
        ...options,
        // Without a call nothing runs, whatever `options.enabled` says: every call-less user shares the key
        // 'no-call', so one that ran (a page without a record) would hand its failure to the others (a form section
        // without `load`).
        enabled: !!ref && options.enabled !== false,
    });
}

/** Reload what an action changed: the named resources (lists, records, calls), or everything for 'page'. */
export function useRefresh() {
    const queryClient = useQueryClient();
    const definition = useOptionalDefinition();
    return useCallback(
        async (refresh: Refresh | undefined, fallback?: string) => {
            const names = refresh ?? [fallback ?? definition?.name].filter((n): n is string => !!n);
            if (names.includes('page')) return queryClient.invalidateQueries();
            await Promise.all(names.map((name) => queryClient.invalidateQueries({ queryKey: [referencePath(name)] })));
        },
        [queryClient, definition?.name],
    );
}
