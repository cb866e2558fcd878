import { useCallback, useEffect, useMemo } from 'react';
import { keepPreviousData } from '@tanstack/react-query';
import { useSearchParams } from 'react-router-dom';
import { useGetList, useNotify, useRecordSelection, type ListControllerResult, type SortPayload } from 'react-admin';

export interface UrlListOptions {
    /** react-admin resource name (the definition's path). */
    resource: string;
    /** Rows per page when the URL does not say. */
    perPage: number;
    /**
     * Filters kept in the query string under the screen's own names, e.g. `{ productKey: 'pk' }` for
     * /devices?pk=...; other query params (tabs, flags) are left as they are.
     */
    queryFilters?: Record<string, string>;
    /** Filters that come from elsewhere (a path segment), sent with every request. */
    filter?: Record<string, unknown>;
    /** Hold the request back until the filter is known (e.g. a path id still being resolved). */
    enabled?: boolean;
    /** Keeps this screen's selection apart from other screens of the same resource. */
    selectionKey?: string;
    /** Prefix of the page and size params (`${prefix}page`, `${prefix}perPage`), so several lists share a URL. */
    prefix?: string;
    /** Filter values used while the URL names none (a tab filter's starting tab). */
    defaults?: Record<string, string>;
    /** Passed to getList (`{ call }` reads a custom call of the resource). */
    meta?: Record<string, unknown>;
    /** Ask again every this many milliseconds (a list over a live call). */
    refetchInterval?: number;
    /** Said as a warning instead of the server's words when the call fails. */
    failure?: string;
}

const SORT: SortPayload = { field: '', order: 'ASC' };

/** A list's query-param name under its prefix: 'alert' + 'page' → alertPage; 'r_' + 'page' → r_page. */
export function prefixed(prefix: string, name: string): string {
    if (!prefix) return name;
    return /[A-Za-z0-9]$/.test(prefix) ? `${prefix}${name[0].toUpperCase()}${name.slice(1)}` : `${prefix}${name}`;
}

function positive(value: string | null, fallback: number): number {
    const n = Number(value);
    return Number.isInteger(n) && n > 0 ? n : fallback;
}

/**
 * A list controller whose page, page size and filters live in the URL under names the screen chooses, beside
 * its other query params. react-admin's own sync rewrites the whole query string (so a screen's `pk` or `tab`
 * would be lost) and restores remembered params on a bare URL, which breaks links like /devices?pk=...
 * Its result is a react-admin list context: Datagrid, Pagination and the engine's row actions work with it.
 */
export function useUrlListController(options: UrlListOptions): ListControllerResult {
    const { resource, queryFilters = {}, enabled = true, prefix = '', meta } = options;
    const pageParam = prefixed(prefix, 'page');
    const sizeParam = prefixed(prefix, 'perPage');
    const [search, setSearch] = useSearchParams();
    const page = positive(search.get(pageParam), 1);
    const perPage = positive(search.get(sizeParam), options.perPage);

    const queryNames = JSON.stringify(queryFilters);
    const defaultValues = JSON.stringify(options.defaults ?? {});
    const urlFilter = useMemo(() => {
        const names = JSON.parse(queryNames) as Record<string, string>;
        const defaults = JSON.parse(defaultValues) as Record<string, string>;
        const out: Record<string, string> = {};
        for (const [key, param] of Object.entries(names)) {
            const value = search.get(param) ?? defaults[key];
            if (value) out[key] = value;
        }
        return out;
    }, [search, queryNames, defaultValues]);
    const fixed = JSON.stringify(options.filter ?? {});
    const filter = useMemo(() => ({ ...urlFilter, ...(JSON.parse(fixed) as object) }), [urlFilter, fixed]);

    const update = useCallback(
        (changes: Record<string, string | null>) =>
            setSearch((current) => {
                const next = new URLSearchParams(current);
                for (const [key, value] of Object.entries(changes)) {
                    if (value === null || value === '') next.delete(key);
                    else next.set(key, value);
                }
                return next;
            }),
        [setSearch],
    );

    const setPage = useCallback((n: number) => update({ [pageParam]: String(n) }), [update, pageParam]);
    const setPerPage = useCallback(
        (n: number) => update({ [sizeParam]: String(n), [pageParam]: '1' }),
        [update, pageParam, sizeParam],
    );
    const setFilters = useCallback(
        (values: Record<string, unknown>) => {
            const names = JSON.parse(queryNames) as Record<string, string>;
            const changes: Record<string, string | null> = { [pageParam]: '1' };
            for (const [key, param] of Object.entries(names)) {
                const value = values?.[key];
                changes[param] = value === undefined || value === null ? null : String(value);
            }
            update(changes);
        },
        [update, queryNames, pageParam],
    );

    const notify = useNotify();
    const query = useGetList(
        resource,
        { pagination: { page, perPage }, sort: SORT, filter, meta },
        {
            enabled,
            placeholderData: keepPreviousData,
            refetchInterval: options.refetchInterval,
            // A refusal (4xx, or a failure envelope) answers the same when asked again; a network fault may not.
            retry: (count: number, error: Error & { status?: number }) =>
                count < 2 && !(error?.status !== undefined && error.status >= 400 && error.status < 500),
            // No snackbar: DataList shows the platform's message in place, with 重试 (once, not twice). A list that
            // declares its own `failure` words says them as a warning too (SPEC.md: run status toasts 未上报属性数据).
            onError: options.failure
                ? () => notify(options.failure!, { type: 'warning', messageArgs: { _: options.failure } })
                : undefined,
        },
    );
    const [selectedIds, selection] = useRecordSelection({ resource, storeKey: options.selectionKey });

    // A bookmarked page past the end (rows deleted since) goes to the last page that has rows.
    const { data, total, isFetching } = query;
    useEffect(() => {
        if (isFetching || !data || data.length > 0 || page <= 1 || !total) return;
        setPage(Math.max(1, Math.ceil(total / perPage)));
    }, [data, total, isFetching, page, perPage, setPage]);

    const noop = () => undefined;
    return {
        ...query,
        data: query.data,
        total: query.total,
        meta: query.meta,
        error: query.error,
        isPending: enabled ? query.isPending : true,
        isLoading: query.isLoading,
        isFetching: query.isFetching,
        isPlaceholderData: query.isPlaceholderData,
        refetch: query.refetch,
        resource,
        sort: SORT,
        setSort: noop,
        page,
        perPage,
        setPage,
        setPerPage,
        filter,
        filterValues: filter,
        displayedFilters: {},
        setFilters,
        showFilter: noop,
        hideFilter: noop,
        selectedIds,
        onSelect: selection.select,
        onToggleItem: selection.toggle,
        onUnselectItems: selection.clearSelection,
        onSelectAll: () => selection.select((query.data ?? []).map((r) => r.id)),
        hasNextPage: query.total !== undefined ? page * perPage < query.total : false,
        hasPreviousPage: page > 1,
        defaultTitle: '',
    } as ListControllerResult;
}
