import { useState } from 'react';
import SearchIcon from '@mui/icons-material/Search';
import {
    Alert,
    Box,
    Checkbox,
    Chip,
    CircularProgress,
    FormHelperText,
    InputAdornment,
    MenuItem,
    Pagination,
    Radio,
    Table,
    TableBody,
    TableCell,
    TableContainer,
    TableHead,
    TableRow,
    TextField,
    Typography,
} from '@mui/material';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useWatch } from 'react-hook-form';
import { RecordContextProvider, useDataProvider, useInput } from 'react-admin';
import { callResource, useCall } from '../calls';
import type { PlatformDataProvider } from '../choices';
import { rowsDefinition, useOptionalDefinition } from '../context';
import { renderField } from '../fields';
import { useScope } from '../scope';
import type { FieldDefinition, FilterSpec, FormValues, ResourceDefinition, Row, Scope } from '../types';
import { failureText, rowsOf, type EngineInputProps } from './fieldView';

export type PickerInputProps = EngineInputProps;

type Id = string | number;

function FilterBox({ spec, scope, onApply }: { spec: FilterSpec; scope: Scope; onApply: (value: string) => void }) {
    const [text, setText] = useState(spec.defaultValue ?? '');
    const loaded = useCall<unknown>(spec.choicesFrom, scope, { staleTime: 60_000 });
    if (spec.input === 'select') {
        const value = spec.choicesFrom?.optionValue ?? 'id';
        const name = spec.choicesFrom?.optionText ?? 'name';
        const choices = spec.choicesFrom
            ? rowsOf(loaded.data).map((r) => ({ id: r[value] as Id, name: String(r[name] ?? r[value]) }))
            : (spec.choices ?? []);
        return (
            <TextField
                select
                size="small"
                label={spec.label}
                required={!!spec.required}
                value={text}
                onChange={(e) => {
                    setText(e.target.value);
                    onApply(e.target.value);
                }}
                sx={{ minWidth: 200 }}
                error={!!loaded.error}
                helperText={loaded.error ? `加载失败：${failureText(loaded.error)}` : undefined}
            >
                {spec.allLabel === false ? null : <MenuItem value="">{spec.allLabel ?? '全部'}</MenuItem>}
                {choices.map((c) => (
                    <MenuItem key={String(c.id)} value={String(c.id)}>
                        {c.name}
                    </MenuItem>
                ))}
            </TextField>
        );
    }
    return (
        <TextField
            size="small"
            label={spec.label}
            value={text}
            placeholder="回车搜索"
            onChange={(e) => setText(e.target.value)}
            onKeyDown={(e) => {
                if (e.key === 'Enter') {
                    e.preventDefault();
                    onApply(text.trim());
                }
            }}
            slotProps={{
                input: {
                    endAdornment: (
                        <InputAdornment position="end">
                            <SearchIcon fontSize="small" />
                        </InputAdornment>
                    ),
                },
            }}
        />
    );
}

type PickerSpec = NonNullable<FieldDefinition['picker']>;

/** The filters' starting values: those with a `defaultValue`. */
function startingFilters(spec: PickerSpec): Record<string, string> {
    return Object.fromEntries(
        (spec.filters ?? []).filter((f) => f.defaultValue).map((f) => [f.source, f.defaultValue!]),
    );
}

/**
 * One page of the picker's rows through the data provider's getList, the call's own params under the filters
 * that have a value. A required filter without its value: nothing is asked for yet, and `waiting` is its text
 * saying what to choose first.
 */
function usePickerRows(
    spec: PickerSpec,
    scope: Scope,
    resource: string,
    filters: Record<string, string>,
    page: number,
) {
    const dataProvider = useDataProvider<PlatformDataProvider>();
    const perPage = spec.perPage ?? 10;
    const own = spec.source.params ? spec.source.params(scope) : {};
    const filter: Row = { ...own, ...Object.fromEntries(Object.entries(filters).filter(([, v]) => v !== '')) };
    const waiting = (spec.filters ?? []).find((f) => f.required && !filters[f.source])?.required;
    const rowsQuery = useQuery({
        queryKey: [resource, 'picker', spec.source.call, filter, page, perPage],
        queryFn: ({ signal }) =>
            dataProvider.getList(resource, {
                pagination: { page, perPage },
                sort: { field: '', order: 'ASC' },
                filter,
                signal,
                ...(spec.source.call === 'getList' ? {} : { meta: { call: spec.source.call, params: filter } }),
            }),
        placeholderData: keepPreviousData,
        enabled: !waiting,
    });
    const rows = (rowsQuery.data?.data ?? []) as Row[];
    const total = rowsQuery.data?.total ?? 0;
    return { rowsQuery, rows, total, pages: Math.max(1, Math.ceil(total / perPage)), waiting };
}

const sameId = (a: Id, b: Id) => String(a) === String(b);

/**
 * The chosen ids and the changes to them. With `keepRows` the form holds the chosen rows themselves, else their
 * ids. A row `disabled` or `taken` says so is shown checked and cannot be chosen.
 */
export function pickerSelection(spec: PickerSpec, held: unknown[], rows: Row[], scope: Scope) {
    const idOf = (row: Row) => (row[spec.rowId] ?? row.id) as Id;
    const chosen: Id[] = spec.keepRows ? (held as Row[]).map(idOf) : (held as Id[]);
    const isChosen = (id: Id) => chosen.some((c) => sameId(c, id));
    const why = (row: Row) => spec.disabled?.(row, scope) || false;
    const takenOf = (row: Row) => spec.taken?.(row, scope);
    /** The form's value for these ids. */
    const valueOf = (next: Id[]): unknown[] => {
        if (!spec.keepRows) return next;
        const known = [...(held as Row[]), ...rows];
        return next.map((id) => known.find((r) => sameId(idOf(r), id)));
    };
    const toggled = (id: Id): Id[] => {
        if (spec.single) return isChosen(id) ? [] : [id];
        return isChosen(id) ? chosen.filter((c) => !sameId(c, id)) : [...chosen, id];
    };
    const pageIds = rows.filter((r) => !why(r) && !takenOf(r)).map(idOf);
    const allOnPage = pageIds.length > 0 && pageIds.every(isChosen);
    const someOnPage = pageIds.some(isChosen);
    const pageToggled = (): Id[] =>
        allOnPage
            ? chosen.filter((c) => !pageIds.some((p) => sameId(p, c)))
            : [...chosen, ...pageIds.filter((p) => !isChosen(p))];
    return { idOf, chosen, isChosen, why, takenOf, valueOf, toggled, allOnPage, someOnPage, pageToggled };
}

type Selection = ReturnType<typeof pickerSelection>;

/**
 * A picker's columns: a named one takes the field of the resource the rows belong to (`rowsOf`, else the source
 * call's resource, else the form's own), or just its name as label; a pair brings its own definition.
 */
function pickerColumns(spec: PickerSpec, definition: ResourceDefinition | undefined): [string, FieldDefinition][] {
    const rows = rowsDefinition(spec, spec.source.resource, definition);
    return spec.columns.map((c): [string, FieldDefinition] =>
        typeof c === 'string' ? [c, rows?.fields[c] ?? { label: c }] : c,
    );
}

/**
 * Rows of a paged call with checkboxes (input 'picker'): the value is the chosen rows' ids, held by the form, so
 * the selection survives paging and searching. The call runs through the data provider's getList: the
 * resource's own list for 'getList', else the named custom call (`meta.call`) with the same paging.
 */
export function PickerInput({ source, label, field, isRequired, helperText, disabled, onChange }: PickerInputProps) {
    const spec = field.picker!;
    const values = useWatch() as FormValues;
    const scope: Scope = { ...useScope(), values };
    const definition = useOptionalDefinition();
    const { field: input, fieldState } = useInput({ source, isRequired, onChange, defaultValue: [] });
    const [page, setPage] = useState(1);
    const [filters, setFilters] = useState<Record<string, string>>(() => startingFilters(spec));
    const resource = callResource(spec.source, definition?.name);
    const { rowsQuery, rows, total, pages, waiting } = usePickerRows(spec, scope, resource, filters, page);
    const held: unknown[] = Array.isArray(input.value) ? (input.value as unknown[]) : [];
    const selection = pickerSelection(spec, held, rows, scope);
    const set = (next: Id[]) => {
        input.onChange(selection.valueOf(next));
        input.onBlur();
    };
    const columns = pickerColumns(spec, definition);
    const message = fieldState.error?.message;
    const count = selection.chosen.length;

    return (
        <Box className={`ra-input ra-input-${source}`} sx={{ my: 1 }} role="group" aria-label={label}>
            <Typography variant="subtitle2" sx={{ mb: 1 }}>
                {label}
                {isRequired ? ' *' : ''}
            </Typography>
            {spec.filters?.length ? (
                <Box sx={{ display: 'flex', gap: 2, flexWrap: 'wrap', mb: 1 }}>
                    {spec.filters.map((f) => (
                        <FilterBox
                            key={f.source}
                            spec={f}
                            scope={scope}
                            onApply={(v) => {
                                setFilters((current) => ({ ...current, [f.source]: v }));
                                setPage(1);
                            }}
                        />
                    ))}
                </Box>
            ) : null}
            {waiting ? (
                <Typography color="text.secondary" sx={{ py: 4, textAlign: 'center' }}>
                    {waiting}
                </Typography>
            ) : rowsQuery.error ? (
                <Alert severity="error">加载失败：{failureText(rowsQuery.error)}</Alert>
            ) : rowsQuery.isPending ? (
                <Box sx={{ py: 4, textAlign: 'center' }} role="status">
                    <CircularProgress size={20} aria-label="加载中" />
                </Box>
            ) : rows.length === 0 ? (
                <Typography color="text.secondary" sx={{ py: 4, textAlign: 'center' }}>
                    {spec.empty ?? '暂无可选的数据'}
                </Typography>
            ) : (
                <PickerTable
                    spec={spec}
                    label={label}
                    rows={rows}
                    columns={columns}
                    selection={selection}
                    set={set}
                    disabled={disabled}
                    dimmed={rowsQuery.isPlaceholderData}
                />
            )}
            <Box sx={{ display: 'flex', alignItems: 'center', gap: 2, mt: 1, flexWrap: 'wrap' }}>
                <Typography variant="body2" color="text.secondary" sx={{ flex: 1 }} aria-live="polite">
                    {spec.selectedText ? spec.selectedText(count) : `已选 ${count} 个`}
                </Typography>
                {total > 0 && !waiting ? (
                    <>
                        <Typography variant="body2" color="text.secondary">
                            共 {total} 条
                        </Typography>
                        {pages > 1 ? (
                            <Pagination size="small" count={pages} page={page} onChange={(_, p) => setPage(p)} />
                        ) : null}
                    </>
                ) : null}
            </Box>
            <FormHelperText error={!!message}>{message ?? helperText ?? ' '}</FormHelperText>
        </Box>
    );
}

interface PickerTableProps {
    spec: PickerSpec;
    label: string;
    rows: Row[];
    columns: [string, FieldDefinition][];
    selection: Selection;
    set: (next: Id[]) => void;
    disabled?: boolean;
    /** The previous page is shown while the next one loads. */
    dimmed: boolean;
}

function PickerTable({ spec, label, rows, columns, selection, set, disabled, dimmed }: PickerTableProps) {
    return (
        <TableContainer sx={{ maxHeight: 360, opacity: dimmed ? 0.6 : 1 }}>
            <Table size="small" stickyHeader aria-label={label}>
                <TableHead>
                    <TableRow>
                        <TableCell padding="checkbox">
                            {spec.single ? null : (
                                <Checkbox
                                    size="small"
                                    checked={selection.allOnPage}
                                    indeterminate={selection.someOnPage && !selection.allOnPage}
                                    disabled={disabled}
                                    onChange={() => set(selection.pageToggled())}
                                    slotProps={{ input: { 'aria-label': '选择本页全部' } }}
                                />
                            )}
                        </TableCell>
                        {columns.map(([name, column]) => (
                            <TableCell key={name}>{column.label}</TableCell>
                        ))}
                        {spec.taken ? <TableCell /> : null}
                    </TableRow>
                </TableHead>
                <TableBody>
                    {rows.map((row) => (
                        <PickerRow
                            key={String(selection.idOf(row))}
                            spec={spec}
                            row={row}
                            columns={columns}
                            selection={selection}
                            set={set}
                            disabled={disabled}
                        />
                    ))}
                </TableBody>
            </Table>
        </TableContainer>
    );
}

type PickerRowProps = Omit<PickerTableProps, 'label' | 'rows' | 'dimmed'> & { row: Row };

function PickerRow({ spec, row, columns, selection, set, disabled }: PickerRowProps) {
    const id = selection.idOf(row);
    const nameOf = String(spec.rowLabel ? (row[spec.rowLabel] ?? id) : id);
    const Mark = spec.single ? Radio : Checkbox;
    const reason = selection.why(row);
    const taken = selection.takenOf(row);
    const off = disabled || !!reason || !!taken;
    const chosen = selection.isChosen(id);
    const toggle = () => set(selection.toggled(id));
    return (
        <TableRow
            hover={!off}
            selected={chosen}
            onClick={() => !off && toggle()}
            sx={{ cursor: off ? 'default' : 'pointer' }}
        >
            <TableCell padding="checkbox">
                <Mark
                    size="small"
                    checked={!!reason || !!taken || chosen}
                    disabled={off}
                    onClick={(e) => e.stopPropagation()}
                    onChange={toggle}
                    slotProps={{ input: { 'aria-label': `选择 ${nameOf}` } }}
                />
            </TableCell>
            <RecordContextProvider value={row}>
                {columns.map(([name, column], i) => (
                    <TableCell key={name}>
                        {renderField(name, column, 'cell')}
                        {reason && i === 0 ? <Chip size="small" label={reason} sx={{ ml: 1, height: 20 }} /> : null}
                    </TableCell>
                ))}
            </RecordContextProvider>
            {spec.taken ? (
                <TableCell sx={{ color: 'text.secondary', whiteSpace: 'nowrap' }}>{taken ?? ''}</TableCell>
            ) : null}
        </TableRow>
    );
}
