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
import { useOptionalDefinition } from '../context';
import { renderField } from '../fields';
import { useScope } from '../scope';
import type { FieldDefinition, FilterSpec, FormValues, Row, Scope } from '../types';
import { failureText, rowsOf } from './fieldView';

export interface PickerInputProps {
    source: string;
    label: string;
    field: FieldDefinition;
    isRequired?: boolean;
    helperText?: string;
    disabled?: boolean;
    onChange?: () => void;
}

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

/**
 * Rows of a paged call with checkboxes (input 'picker'): the value is the chosen rows' ids, held by the form, so
 * the selection survives paging and searching. The call runs through the data provider's getList: the
 * resource's own list for 'getList', else the named custom call (`meta.call`) with the same paging.
 */
export function PickerInput({ source, label, field, isRequired, helperText, disabled, onChange }: PickerInputProps) {
    const spec = field.picker!;
    const perPage = spec.perPage ?? 10;
    const values = useWatch() as FormValues;
    const scope: Scope = { ...useScope(), values };
    const definition = useOptionalDefinition();
    const dataProvider = useDataProvider<PlatformDataProvider>();
    const { field: input, fieldState } = useInput({ source, isRequired, onChange, defaultValue: [] });
    const [page, setPage] = useState(1);
    const [filters, setFilters] = useState<Record<string, string>>(() =>
        Object.fromEntries((spec.filters ?? []).filter((f) => f.defaultValue).map((f) => [f.source, f.defaultValue!])),
    );

    const resource = callResource(spec.source, definition?.name);
    const own = spec.source.params ? spec.source.params(scope) : {};
    const filter: Row = { ...own, ...Object.fromEntries(Object.entries(filters).filter(([, v]) => v !== '')) };
    // A required filter without its value: nothing is asked for yet, its text says what to choose first.
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
    const idOf = (row: Row) => (row[spec.rowId] ?? row.id) as Id;
    const nameOf = (row: Row) => String(spec.rowLabel ? (row[spec.rowLabel] ?? idOf(row)) : idOf(row));
    // keepRows: the value is the chosen rows themselves; otherwise their ids.
    const held: unknown[] = Array.isArray(input.value) ? (input.value as unknown[]) : [];
    const chosen: Id[] = spec.keepRows ? (held as Row[]).map(idOf) : (held as Id[]);
    const isChosen = (id: Id) => chosen.some((c) => String(c) === String(id));
    const total = rowsQuery.data?.total ?? 0;
    const why = (row: Row) => spec.disabled?.(row, scope) || false;
    const takenOf = (row: Row) => spec.taken?.(row, scope);

    const set = (next: Id[]) => {
        if (spec.keepRows) {
            const known = [...(held as Row[]), ...rows];
            input.onChange(next.map((id) => known.find((r) => String(idOf(r)) === String(id))));
        } else input.onChange(next);
        input.onBlur();
    };
    const toggle = (id: Id) => {
        if (spec.single) return set(isChosen(id) ? [] : [id]);
        set(isChosen(id) ? chosen.filter((c) => String(c) !== String(id)) : [...chosen, id]);
    };
    const pageIds = rows.filter((r) => !why(r) && !takenOf(r)).map(idOf);
    const allOnPage = pageIds.length > 0 && pageIds.every(isChosen);
    const someOnPage = pageIds.some(isChosen);
    const togglePage = () =>
        set(
            allOnPage
                ? chosen.filter((c) => !pageIds.some((p) => String(p) === String(c)))
                : [...chosen, ...pageIds.filter((p) => !isChosen(p))],
        );

    const columns = spec.columns.map((c): [string, FieldDefinition] =>
        typeof c === 'string' ? [c, definition?.fields[c] ?? { label: c }] : c,
    );
    const message = fieldState.error?.message;
    const pages = Math.max(1, Math.ceil(total / perPage));

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
                <TableContainer sx={{ maxHeight: 360, opacity: rowsQuery.isPlaceholderData ? 0.6 : 1 }}>
                    <Table size="small" stickyHeader aria-label={label}>
                        <TableHead>
                            <TableRow>
                                <TableCell padding="checkbox">
                                    {spec.single ? null : (
                                        <Checkbox
                                            size="small"
                                            checked={allOnPage}
                                            indeterminate={someOnPage && !allOnPage}
                                            disabled={disabled}
                                            onChange={togglePage}
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
                            {rows.map((row) => {
                                const id = idOf(row);
                                const Mark = spec.single ? Radio : Checkbox;
                                const reason = why(row);
                                const taken = takenOf(row);
                                const off = disabled || !!reason || !!taken;
                                return (
                                    <TableRow
                                        key={String(id)}
                                        hover={!off}
                                        selected={isChosen(id)}
                                        onClick={() => !off && toggle(id)}
                                        sx={{ cursor: off ? 'default' : 'pointer' }}
                                    >
                                        <TableCell padding="checkbox">
                                            <Mark
                                                size="small"
                                                checked={!!reason || !!taken || isChosen(id)}
                                                disabled={off}
                                                onClick={(e) => e.stopPropagation()}
                                                onChange={() => toggle(id)}
                                                slotProps={{ input: { 'aria-label': `选择 ${nameOf(row)}` } }}
                                            />
                                        </TableCell>
                                        <RecordContextProvider value={row}>
                                            {columns.map(([name, column], i) => (
                                                <TableCell key={name}>
                                                    {renderField(name, column, 'cell')}
                                                    {reason && i === 0 ? (
                                                        <Chip size="small" label={reason} sx={{ ml: 1, height: 20 }} />
                                                    ) : null}
                                                </TableCell>
                                            ))}
                                        </RecordContextProvider>
                                        {spec.taken ? (
                                            <TableCell sx={{ color: 'text.secondary', whiteSpace: 'nowrap' }}>
                                                {taken ?? ''}
                                            </TableCell>
                                        ) : null}
                                    </TableRow>
                                );
                            })}
                        </TableBody>
                    </Table>
                </TableContainer>
            )}
            <Box sx={{ display: 'flex', alignItems: 'center', gap: 2, mt: 1, flexWrap: 'wrap' }}>
                <Typography variant="body2" color="text.secondary" sx={{ flex: 1 }} aria-live="polite">
                    {spec.selectedText ? spec.selectedText(chosen.length) : `已选 ${chosen.length} 个`}
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
