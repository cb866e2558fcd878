/**
 * A list over any call (src/engine/vocabulary.ts ListSpec): the generated list of a resource, a list nested in a
 * detail tab, several lists on one page. Paging, page size and filters live in the URL under the list's prefix;
 * the call is the resource's getList or any custom call (`source`), with params from the scope (route, record).
 */
import { useCallback, useEffect, useMemo, useState, type ReactNode } from 'react';
import { useSearchParams } from 'react-router-dom';
import InboxIcon from '@mui/icons-material/Inbox';
import RefreshIcon from '@mui/icons-material/Refresh';
import {
    Alert,
    Box,
    Button,
    Card,
    LinearProgress,
    Table,
    TableCell,
    TableHead,
    TableRow,
    Typography,
} from '@mui/material';
import {
    Datagrid,
    ListContextProvider,
    ResourceContextProvider,
    useListContext,
    useList,
    useRecordContext,
    type ListControllerResult,
} from 'react-admin';
import { useNavigate } from 'react-router-dom';
import { ActionBar } from '../actions';
import { of } from '../actions/shared';
import { callResource, useCall } from '../calls';
import { DefinitionProvider, definitionOf, referencePath, rowsDefinition, useOptionalDefinition } from '../context';
import { renderField } from '../fields';
import { useScope } from '../scope';
import type { FieldDefinition, ResourceDefinition } from '../types';
import { prefixed, useUrlListController } from '../useUrlList';
import type { Action, ListSpec, Row, Scope } from '../vocabulary';
import { Counters } from './Counters';
import { Filters } from './Filters';
import { Pager } from './Pager';

export { Counters, readAt } from './Counters';
export { Pager, type PagerProps } from './Pager';

export interface DataListProps {
    spec: ListSpec;
    /** Resource whose fields name the columns and whose calls the list runs (default: the definition in context). */
    resource?: string;
    /** The table's accessible name when the list's title is shown by the section around it. */
    label?: string;
}

const VERB_CALLS = new Set(['getList', undefined]);

/** Columns: a field of the definition by name, or a pair bringing its own definition. */
export function resolveColumns(
    columns: ListSpec['columns'],
    definition: ResourceDefinition | undefined,
): Array<[string, FieldDefinition]> {
    return columns.map((c): [string, FieldDefinition] => {
        if (typeof c !== 'string') return c;
        const field = definition?.fields[c];
        if (!field) throw new Error(`列 ${c} 未在资源 ${definition?.name ?? ''} 的定义中声明`);
        return [c, field];
    });
}

function EmptyState({
    spec,
    scope,
    text,
    filtered,
    columns,
}: {
    spec: ListSpec;
    scope: Scope;
    text?: string;
    filtered?: boolean;
    columns?: Array<[string, FieldDefinition]>;
}) {
    // Nothing matches the filters: said as such, without the action that fills an empty list.
    if (filtered && spec.empty?.filtered)
        return <EmptyState spec={{ ...spec, empty: { text: spec.empty.filtered } }} scope={scope} />;
    const hint = spec.empty?.hint ? of(spec.empty.hint, scope) : undefined;
    const body = (
        <Box sx={{ textAlign: 'center', py: 6, color: 'text.secondary', width: '100%' }}>
            <InboxIcon sx={{ fontSize: 56, opacity: 0.4 }} aria-hidden />
            <Typography variant="body1" sx={{ mt: 1, mb: spec.empty?.action && !hint ? 2 : 0 }}>
                {text ?? (spec.empty?.text ? of(spec.empty.text, scope) : '暂无数据')}
            </Typography>
            {hint ? (
                <Typography variant="body2" sx={{ mt: 0.5, mb: spec.empty?.action ? 2 : 0 }}>
                    {hint}
                </Typography>
            ) : null}
            {spec.empty?.action ? (
                <Box sx={{ display: 'flex', justifyContent: 'center' }}>
                    <ActionBar actions={[{ variant: 'contained', ...spec.empty.action }]} scope={scope} />
                </Box>
            ) : null}
        </Box>
    );
    if (!spec.empty?.columns || !columns) return body;
    return (
        <Box sx={{ width: '100%' }}>
            <Table size={spec.dense ? 'small' : 'medium'}>
                <TableHead>
                    <TableRow>
                        {columns.map(([source, field]) => (
                            <TableCell key={source} sx={{ fontWeight: 600, whiteSpace: 'nowrap' }}>
                                {field.label}
                            </TableCell>
                        ))}
                    </TableRow>
                </TableHead>
            </Table>
            {body}
        </Box>
    );
}

/** The 操作 column: the row's actions with the row as the scope's record. */
function RowActionsCell({ actions, scope }: { actions: Action[]; scope: Scope; label?: string }) {
    const record = useRecordContext<Row>();
    const rowScope = useMemo(() => ({ ...scope, record: record ?? {} }), [scope, record]);
    if (!record) return null;
    return <ActionBar actions={actions} scope={rowScope} size="small" />;
}

/** Bulk actions clear the selection once they succeed (the rows they acted on are done). */
function clearingSelection(actions: Action[], clear: () => void): Action[] {
    return actions.map((action) =>
        action.kind === 'call' || action.kind === 'form'
            ? {
                  ...action,
                  then: (answer, scope) => {
                      clear();
                      return action.then?.(answer, scope);
                  },
              }
            : action,
    );
}

/** Above the rows while some are selected: how many, the bulk actions over them, and 取消选择. */
function SelectionBar({ actions, scope }: { actions: Action[]; scope: Scope }) {
    const { selectedIds, onUnselectItems, onSelect, data, isFetching } = useListContext<Row & { id: string }>();
    const selected = useMemo(() => (data ?? []).filter((row) => selectedIds.includes(row.id)), [data, selectedIds]);
    // Rows gone from the list (removed by a bulk action, or another page shown) leave the selection.
    useEffect(() => {
        if (isFetching || !data || selected.length === selectedIds.length) return;
        onSelect(selected.map((row) => row.id));
    }, [isFetching, data, selected, selectedIds, onSelect]);
    const bulkScope = useMemo(() => ({ ...scope, selected }), [scope, selected]);
    if (!selectedIds?.length) return null;
    return (
        <Box
            role="status"
            sx={{
                display: 'flex',
                alignItems: 'center',
                flexWrap: 'wrap',
                gap: 1,
                px: 2,
                py: 0.75,
                bgcolor: 'action.selected',
            }}
        >
            <Typography variant="body2">已选择 {selectedIds.length} 项</Typography>
            <ActionBar actions={actions} scope={bulkScope} size="small" />
            <Button size="small" onClick={() => onUnselectItems()}>
                取消选择
            </Button>
        </Box>
    );
}

/** Datagrid needs a bulk-actions element to show checkboxes; the bar above carries the buttons. */
const SelectionOnly = () => <></>;

function ErrorState({ list, subject }: { list: ListControllerResult; subject?: string }) {
    return (
        <Alert
            severity="error"
            action={
                <Button color="inherit" size="small" onClick={() => void list.refetch()}>
                    重试
                </Button>
            }
        >
            {subject ?? ''}加载失败：{(list.error as Error)?.message || '查询失败'}
        </Alert>
    );
}

function ListBody({
    spec,
    list,
    scope,
    definition,
    label,
    filtered,
}: {
    label?: string;
    filtered?: boolean;
    spec: ListSpec;
    list: ListControllerResult;
    scope: Scope;
    definition: ResourceDefinition | undefined;
}) {
    const columns = resolveColumns(spec.columns, definition);
    const bulk = spec.bulkActions ?? [];
    // In the toolbar (bulkInToolbar) the bar above the rows only counts the selection.
    const barActions = spec.bulkInToolbar ? [] : bulk;
    const paging = spec.paging !== false;
    return (
        <>
            {list.isFetching && !list.isPending ? (
                <LinearProgress sx={{ height: 2, mb: '-2px' }} aria-label="加载中" />
            ) : null}
            <Datagrid
                bulkActionButtons={bulk.length ? <SelectionOnly /> : false}
                bulkActionsToolbar={bulk.length ? <SelectionBar actions={barActions} scope={scope} /> : undefined}
                rowClick={false}
                size={spec.dense ? 'small' : 'medium'}
                aria-label={label}
                empty={<EmptyState spec={spec} scope={scope} filtered={filtered} columns={columns} />}
                sx={{
                    '& .RaDatagrid-headerCell': { fontWeight: 600, whiteSpace: 'nowrap' },
                    ...(spec.compactCells
                        ? { '& .MuiTableCell-root:not(.MuiTableCell-paddingCheckbox)': { px: 1 } }
                        : {}),
                }}
            >
                {columns.map(([source, field]) => renderField(source, field, 'cell'))}
                {spec.rowActions?.length ? (
                    <RowActionsCell label="操作" actions={spec.rowActions} scope={scope} />
                ) : null}
            </Datagrid>
            {paging && list.total ? (
                <Pager
                    page={list.page}
                    perPage={list.perPage}
                    total={list.total}
                    onPage={list.setPage}
                    onPerPage={spec.perPageOptions?.length ? list.setPerPage : undefined}
                    perPageOptions={spec.perPageOptions}
                    jumper={spec.jumper}
                />
            ) : null}
        </>
    );
}

/** The row above a list: its title, what sits beside it (filters), then, at the right, its actions. */
function ListHeader({ title, children, end }: { title?: string; children?: ReactNode; end?: ReactNode }) {
    return (
        <Box sx={{ display: 'flex', alignItems: 'center', flexWrap: 'wrap', gap: 1.5 }}>
            {title ? (
                <Typography variant="subtitle1" component="h3" sx={{ fontWeight: 600 }}>
                    {title}
                </Typography>
            ) : null}
            {children}
            <Box sx={{ flex: 1 }} />
            {end}
        </Box>
    );
}

/** The table's card, inside the list's resource and list contexts; `height` makes it scroll within. */
function TableCard({
    resource,
    list,
    height,
    children,
}: {
    resource: string;
    list: ListControllerResult;
    height?: number;
    children: ReactNode;
}) {
    return (
        <ResourceContextProvider value={referencePath(resource)}>
            <ListContextProvider value={list}>
                <Card
                    variant="outlined"
                    sx={{ overflowX: 'auto', ...(height ? { maxHeight: height, overflowY: 'auto' } : {}) }}
                >
                    {children}
                </Card>
            </ListContextProvider>
        </ResourceContextProvider>
    );
}

/** The list itself: filters and toolbar, counters, the table (loading, empty, error states), the pager. */
export function DataList(props: DataListProps): ReactNode {
    const own = useOptionalDefinition();
    // A list of another resource (`spec.resource`) renders inside that resource's definition: its fields and actions.
    const other = props.spec.resource ? definitionOf(props.spec.resource) : undefined;
    const inner = props.spec.rows ? <RowsList {...props} /> : <PagedList {...props} />;
    if (other && other !== own) return <DefinitionProvider value={other}>{inner}</DefinitionProvider>;
    return inner;
}

/** `rows`: rows computed in the browser from the scope, or from the source call's whole answer; all shown. */
function RowsList({ spec, resource: given, label }: DataListProps): ReactNode {
    const own = useOptionalDefinition();
    const sourceName = spec.source?.resource ?? given ?? own?.name;
    const resource = callResource({ call: 'getList', resource: sourceName }, own?.name);
    const definition = rowsDefinition(spec, sourceName, own);
    const scope = useScope();
    const answer = useCall<unknown>(spec.source ? { resource: sourceName, ...spec.source } : undefined, scope);
    const computed = useMemo(
        () => (spec.source && answer.data === undefined ? undefined : spec.rows!(scope, answer.data)),
        [spec, scope, answer.data],
    );
    const rowId = spec.rowId;
    const data = useMemo(
        () =>
            (computed ?? []).map((row, i) => {
                const shaped = spec.map ? spec.map(row, scope) : row;
                return { ...shaped, id: (rowId ? row[rowId] : (row.id ?? i)) as string };
            }),
        [computed, rowId, spec, scope],
    );
    const list = useList({
        data,
        isPending: computed === undefined && !answer.error,
        perPage: Math.max(1, data.length),
    });
    if (spec.when && !spec.when(scope)) return null;
    const hasTop = !!spec.toolbar?.length || !!spec.title;
    const failed = { error: answer.error, refetch: answer.refetch } as unknown as ListControllerResult;
    return (
        <Box sx={{ display: 'flex', flexDirection: 'column', gap: 1.5 }}>
            {hasTop ? (
                <ListHeader
                    title={spec.title}
                    end={spec.toolbar?.length ? <ActionBar actions={spec.toolbar} scope={scope} /> : null}
                />
            ) : null}
            {answer.error ? (
                <ErrorState list={failed} />
            ) : (
                <TableCard resource={resource} list={list} height={spec.height}>
                    {list.isPending ? <LinearProgress sx={{ height: 2 }} aria-label="加载中" /> : null}
                    <ListBody
                        spec={{ ...spec, paging: false }}
                        list={list}
                        scope={scope}
                        definition={definition}
                        label={label ?? spec.title ?? spec.label}
                    />
                </TableCard>
            )}
        </Box>
    );
}

type FilterSpecs = NonNullable<ListSpec['filters']>;

/** Each filter's name in the URL and the call: its own, a dialog's fields, a date range's end. */
export function queryFiltersOf(filters: FilterSpecs, prefix: string): Record<string, string> {
    return Object.fromEntries([
        ...filters.filter((f) => !f.path).map((f) => [f.source, f.param ?? prefixed(prefix, f.source)]),
        // A dialog filter's fields are filters of their own, each under its name.
        ...filters.flatMap((f) => (f.dialog?.fields ?? []).map(([s]) => [s, prefixed(prefix, s)])),
        // A date range's end is a filter of its own in the URL and the call.
        ...filters.flatMap((f) => (f.to ? [[f.to, f.toParam ?? prefixed(prefix, f.to)]] : [])),
    ]);
}

/**
 * The list's filters, their names in the URL and their starting values: each `defaultValue`, and the first
 * choice of a required select (neither is written to the URL). `missing` is a required filter still without a
 * value: the list waits for it.
 */
function useListFilters(spec: ListSpec) {
    const prefix = spec.urlPrefix ?? '';
    const filters = useMemo(() => spec.filters ?? [], [spec.filters]);
    const queryFilters = useMemo(() => queryFiltersOf(filters, prefix), [filters, prefix]);
    const [firstChoices, setFirstChoices] = useState<Record<string, string | null>>({});
    const onDefault = useCallback(
        (source: string, value: string | null) =>
            setFirstChoices((now) => (now[source] === value ? now : { ...now, [source]: value })),
        [],
    );
    const defaults = useMemo(
        () => ({
            ...Object.fromEntries(
                filters.filter((f) => f.defaultValue !== undefined).map((f) => [f.source, f.defaultValue!]),
            ),
            ...Object.fromEntries(Object.entries(firstChoices).filter((e): e is [string, string] => !!e[1])),
        }),
        [filters, firstChoices],
    );
    const [search] = useSearchParams();
    const missing = filters.find((f) => f.required && !search.get(queryFilters[f.source]) && !defaults[f.source]);
    return { prefix, filters, queryFilters, firstChoices, onDefault, defaults, missing };
}

/** Whether the user narrowed the list: a filter with a value other than its default and not fixed by the call. */
export function isFiltered(
    queryFilters: Record<string, string>,
    values: Record<string, unknown> | undefined,
    defaults: Record<string, string>,
    fixed: Record<string, unknown> | undefined,
): boolean {
    return Object.keys(queryFilters).some((key) => {
        const value = values?.[key];
        return value !== undefined && value !== '' && value !== defaults[key] && !(fixed && key in fixed);
    });
}

/** The rows as shown: `id` from `rowId`, then reshaped by `map`. */
function useShownRows(list: ListControllerResult, spec: ListSpec, scope: Scope) {
    const rowId = spec.rowId;
    const rows = list.data;
    const map = spec.map;
    const data = useMemo(() => {
        const keyed = rowId && rows ? rows.map((row) => ({ ...row, id: (row as Row)[rowId] as string })) : rows;
        return map && keyed ? keyed.map((row) => ({ ...map(row, scope), id: row.id })) : keyed;
    }, [rows, rowId, map, scope]);
    const shown = useMemo(() => ({ ...list, data }) as ListControllerResult, [list, data]);
    return { data, shown };
}

/** Bulk actions that clear the selection once done, and the selected rows for actions in the toolbar. */
function useBulkSelection(list: ListControllerResult, spec: ListSpec, data: ListControllerResult['data']) {
    const { onUnselectItems } = list;
    const clear = useCallback(() => onUnselectItems(), [onUnselectItems]);
    const bulkActions = useMemo(
        () => (spec.bulkActions ? clearingSelection(spec.bulkActions, clear) : undefined),
        [spec.bulkActions, clear],
    );
    const selected = useMemo(
        () => (data ?? []).filter((row) => list.selectedIds.includes(row.id)) as Row[],
        [data, list.selectedIds],
    );
    return { bulkActions, selected };
}

function PagedList({ spec, resource: given, label }: DataListProps): ReactNode {
    const own = useOptionalDefinition();
    const sourceName = spec.source?.resource ?? given ?? own?.name;
    const resource = callResource({ call: 'getList', resource: sourceName }, own?.name);
    const definition = rowsDefinition(spec, sourceName, own);
    const scope = useScope();
    const { prefix, filters, queryFilters, firstChoices, onDefault, defaults, missing } = useListFilters(spec);
    const call = spec.source?.call;
    const fixed = spec.source?.params?.(scope);
    const list = useUrlListController({
        resource,
        perPage: spec.paging === false ? 1000 : (spec.perPage ?? 10),
        queryFilters,
        defaults,
        filter: fixed,
        prefix,
        meta: VERB_CALLS.has(call) ? undefined : { call },
        selectionKey: `${resource}:${prefix}`,
        refetchInterval: spec.source?.every ? spec.source.every * 1000 : undefined,
        failure: spec.failure,
        enabled: !spec.rows && !missing,
    });
    const { data, shown } = useShownRows(list, spec, scope);
    const navigate = useNavigate();
    const { bulkActions, selected } = useBulkSelection(list, spec, data);
    if (spec.when && !spec.when(scope)) return null;

    const setFilter = (source: string, value: string) => {
        const inPath = filters.find((f) => f.source === source)?.path;
        if (inPath) navigate(inPath.to(value, scope));
        else list.setFilters({ ...list.filterValues, [source]: value }, list.displayedFilters);
    };
    // Filters kept in the path read their value from the route.
    const filterValues = {
        ...list.filterValues,
        ...Object.fromEntries(filters.filter((f) => f.path).map((f) => [f.source, scope.route[f.path!.param] ?? ''])),
    };
    const toolbar = [...(spec.toolbar ?? []), ...(spec.bulkInToolbar && bulkActions ? bulkActions : [])];
    const setFilterValues = (values: Record<string, string>) =>
        list.setFilters({ ...list.filterValues, ...values }, list.displayedFilters);
    const counters = spec.counters;
    const hasTop = filters.length > 0 || toolbar.length > 0 || !!spec.title || !!spec.refresh;
    return (
        <Box sx={{ display: 'flex', flexDirection: 'column', gap: 1.5 }}>
            {hasTop ? (
                <ListHeader
                    title={spec.title}
                    end={
                        <>
                            {toolbar.length ? (
                                <ActionBar
                                    actions={toolbar}
                                    scope={spec.bulkInToolbar ? { ...scope, selected } : scope}
                                />
                            ) : null}
                            {spec.refresh ? <RefreshButton list={list} refresh={spec.refresh} /> : null}
                        </>
                    }
                >
                    <Filters
                        filters={filters}
                        values={filterValues}
                        onChange={setFilter}
                        onChangeMany={setFilterValues}
                        scope={scope}
                        onDefault={onDefault}
                    />
                </ListHeader>
            ) : null}
            {counters ? (
                <Counters
                    call={counters.call}
                    items={counters.items}
                    title={counters.title}
                    scope={
                        counters.call
                            ? scope
                            : { ...scope, record: { ...scope.record, ...list.meta, total: list.total } }
                    }
                />
            ) : null}
            {missing ? (
                <MissingFilter
                    spec={spec}
                    scope={scope}
                    missing={missing}
                    loading={firstChoices[missing.source] === undefined}
                />
            ) : list.error && spec.failure && !list.isFetching ? (
                <Card variant="outlined">
                    <EmptyState spec={spec} scope={scope} text={spec.failure} />
                </Card>
            ) : list.error && !list.data ? (
                <ErrorState list={list} subject={spec.subject} />
            ) : (
                <TableCard resource={resource} list={shown} height={spec.height}>
                    <ListBody
                        spec={bulkActions ? { ...spec, bulkActions } : spec}
                        list={shown}
                        scope={scope}
                        definition={definition}
                        label={label ?? spec.label ?? spec.title}
                        filtered={isFiltered(queryFilters, list.filterValues, defaults, fixed)}
                    />
                </TableCard>
            )}
        </Box>
    );
}

/** `refresh`: a button that fetches the page again; a string is its accessible name. */
function RefreshButton({ list, refresh }: { list: ListControllerResult; refresh: true | string }) {
    return (
        <Button
            size="small"
            variant="outlined"
            startIcon={<RefreshIcon />}
            disabled={list.isFetching}
            onClick={() => void list.refetch()}
            aria-label={typeof refresh === 'string' ? refresh : undefined}
        >
            {list.isFetching ? '刷新中…' : '刷新'}
        </Button>
    );
}

/**
 * A required filter without a value: its own text, else (a select) a bar while its choices load, then that
 * there is nothing to choose.
 */
function MissingFilter({
    spec,
    scope,
    missing,
    loading,
}: {
    spec: ListSpec;
    scope: Scope;
    missing: FilterSpecs[number];
    loading: boolean;
}) {
    return (
        <Card variant="outlined">
            {typeof missing.required === 'string' ? (
                <EmptyState spec={{ ...spec, empty: undefined }} scope={scope} text={missing.required} />
            ) : loading ? (
                <LinearProgress sx={{ height: 2 }} aria-label="加载中" />
            ) : (
                <EmptyState spec={{ ...spec, empty: undefined }} scope={scope} text={`暂无可选的${missing.label}`} />
            )}
        </Card>
    );
}
