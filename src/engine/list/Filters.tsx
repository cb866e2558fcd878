import { useEffect, useMemo, useState } from 'react';
import FilterListIcon from '@mui/icons-material/FilterList';
import SearchIcon from '@mui/icons-material/Search';
import {
    Box,
    Button,
    Chip,
    InputAdornment,
    MenuItem,
    Tab,
    Tabs,
    TextField,
    ToggleButton,
    ToggleButtonGroup,
    Typography,
} from '@mui/material';
import { ActionForm } from '../actions/FormAction';
import { useCall } from '../calls';
import type { FilterSpec, Row, Scope } from '../vocabulary';
import { DateRangeFilter } from '../dates';
import { SearchableSelect } from './moreFilters';

type Values = Record<string, unknown>;

interface FiltersProps {
    filters: FilterSpec[];
    values: Values;
    onChange: (source: string, value: string) => void;
    /** Several filters at once (a dialog filter's fields). */
    onChangeMany?: (values: Record<string, string>) => void;
    scope: Scope;
    /** A required select's starting value once its choices are known (its first; null when it has none). */
    onDefault?: (source: string, value: string | null) => void;
}

interface Option {
    id: string;
    name: string;
    depth: number;
}

/** Choices of a select or tree filter: static, or rows of a call (a tree flattened, children indented). */
function useOptions(filter: FilterSpec, scope: Scope): Option[] {
    return useOptionState(filter, scope).options;
}

/** The choices, and whether they are known yet (static, or the call answered). */
function useOptionState(filter: FilterSpec, scope: Scope): { options: Option[]; loaded: boolean } {
    const from = filter.choicesFrom;
    const { data, isError } = useCall<unknown>(from, scope, { staleTime: 60_000 });
    const loaded = !!filter.choices || !from || data !== undefined || isError;
    // Stable between renders: a searchable select resets its typed text when its chosen option changes identity.
    const options = useMemo(() => optionsOf(filter, data), [filter, data]);
    return { options, loaded };
}

function optionsOf(filter: FilterSpec, data: unknown): Option[] {
    const from = filter.choicesFrom;
    if (filter.choices) return filter.choices.map((c) => ({ id: String(c.id), name: c.name, depth: 0 }));
    if (!from || !data) return [];
    const rows = Array.isArray(data) ? (data as Row[]) : [];
    const value = from.optionValue ?? 'id';
    const text = from.optionText ?? 'name';
    const children = from.childrenField ?? 'children';
    const out: Option[] = [];
    const walk = (list: Row[], depth: number) => {
        for (const row of list) {
            out.push({ id: String(row[value]), name: String(row[text] ?? row[value]), depth });
            const kids = row[children];
            if (filter.input === 'tree' && Array.isArray(kids)) walk(kids as Row[], depth + 1);
        }
    };
    walk(rows, 0);
    return out;
}

/** The search box: the list asks again once typing pauses (400 ms), or at once on Enter. */
function SearchBox({ filter, value, onChange }: { filter: FilterSpec; value: string; onChange: (v: string) => void }) {
    const [text, setText] = useState(value);
    useEffect(() => setText(value), [value]);
    const commit = () => text.trim() !== value && onChange(text.trim());
    useEffect(() => {
        if (text.trim() === value) return;
        const timer = setTimeout(() => onChange(text.trim()), 400);
        return () => clearTimeout(timer);
    }, [text, value, onChange]);
    return (
        <TextField
            size="small"
            margin="none"
            placeholder={`请输入${filter.label}`}
            value={text}
            onChange={(e) => setText(e.target.value)}
            onKeyDown={(e) => e.key === 'Enter' && commit()}
            onBlur={commit}
            sx={{ width: 240 }}
            slotProps={{
                htmlInput: { 'aria-label': filter.label, maxLength: 64 },
                input: {
                    endAdornment: (
                        <InputAdornment position="end">
                            <SearchIcon fontSize="small" aria-hidden />
                        </InputAdornment>
                    ),
                },
            }}
        />
    );
}

function SelectFilter({ filter, value, onChange, scope, onDefault }: FilterProps) {
    const { options, loaded } = useOptionState(filter, scope);
    const first = loaded ? (options[0]?.id ?? null) : undefined;
    const waiting = filter.required === true && value === '';
    useEffect(() => {
        if (waiting && first !== undefined) onDefault?.(filter.source, first);
    }, [waiting, first, onDefault, filter.source]);
    const all = filter.required === true ? false : filter.allLabel === undefined ? '全部' : filter.allLabel;
    if (filter.searchable)
        return <SearchableSelect filter={filter} value={value} options={options} allLabel={all} onChange={onChange} />;
    // A value the choices do not (yet) hold is shown as empty rather than warned about by MUI.
    const known = value === '' || options.some((o) => o.id === value);
    return (
        <TextField
            select
            size="small"
            margin="none"
            label={filter.label}
            value={known ? value : ''}
            onChange={(e) => onChange(e.target.value)}
            fullWidth={false}
            sx={{ minWidth: 180 }}
            slotProps={{ select: { displayEmpty: all !== false }, inputLabel: { shrink: true } }}
        >
            {all !== false ? <MenuItem value="">{all}</MenuItem> : null}
            {options.map((o) => (
                <MenuItem key={o.id} value={o.id} sx={{ pl: 2 + o.depth * 2 }}>
                    {o.name}
                </MenuItem>
            ))}
        </TextField>
    );
}

function TabsFilter({ filter, value, onChange, scope }: FilterProps) {
    const options = useOptions(filter, scope);
    const all = filter.allLabel === undefined ? '全部' : filter.allLabel;
    const tabs = [...(all !== false ? [{ id: '', name: all, depth: 0 }] : []), ...options];
    return (
        <Tabs
            value={tabs.some((t) => t.id === value) ? value : false}
            onChange={(_, v: string) => onChange(v)}
            aria-label={filter.label}
            sx={{ '& .MuiTab-root': { textTransform: 'none' } }}
        >
            {tabs.map((t) => (
                <Tab key={t.id} value={t.id} label={t.name} sx={{ minWidth: 72 }} />
            ))}
        </Tabs>
    );
}

/** The label and a row of toggle buttons (全部 and each choice), wrapping as choices grow; says when they fail to load. */
function ButtonsFilter({ filter, value, onChange, scope }: FilterProps) {
    const options = useOptions(filter, scope);
    const { error } = useCall<unknown>(filter.choicesFrom, scope, { staleTime: 60_000 });
    const all = filter.allLabel === undefined ? '全部' : filter.allLabel;
    const buttons = [...(all !== false ? [{ id: '', name: all, depth: 0 }] : []), ...options];
    const current = value === '' && filter.defaultValue !== undefined ? filter.defaultValue : value;
    return (
        <Box sx={{ display: 'flex', alignItems: 'center', flexWrap: 'wrap', gap: 1 }}>
            <Typography variant="body2" color="text.secondary" sx={{ whiteSpace: 'nowrap' }}>
                {filter.label}：
            </Typography>
            <ToggleButtonGroup
                size="small"
                exclusive
                value={current}
                onChange={(_, next: string | null) => {
                    if (next !== null) onChange(next);
                }}
                aria-label={filter.label}
                sx={{ flexWrap: 'wrap' }}
            >
                {buttons.map((b) => (
                    <ToggleButton key={b.id} value={b.id} sx={{ py: 0.25, px: 1.5 }}>
                        {b.name}
                    </ToggleButton>
                ))}
            </ToggleButtonGroup>
            {filter.choicesFrom && error ? (
                <Typography variant="body2" color="error">
                    {filter.label}加载失败，请刷新页面重试
                </Typography>
            ) : null}
        </Box>
    );
}

interface FilterProps {
    filter: FilterSpec;
    value: string;
    onChange: (value: string) => void;
    scope: Scope;
    onDefault?: (source: string, value: string | null) => void;
    /** 'dateRange': the end's value, and how to change both ends at once (a shortcut sets both). */
    toValue?: string;
    onRangeChange?: (from: string, to: string) => void;
}

const text = (value: unknown) => (value === undefined || value === null ? '' : String(value));

/** A button opening a form of several filters; what is applied shows as a chip whose delete clears them all. */
function DialogFilter({
    filter,
    values,
    onChangeMany,
}: {
    filter: FilterSpec;
    values: Values;
    onChangeMany: (values: Record<string, string>) => void;
}) {
    const [open, setOpen] = useState(false);
    const fields = filter.dialog?.fields ?? [];
    const current = Object.fromEntries(fields.map(([source]) => [source, text(values[source])]));
    const applied = current[filter.source] !== undefined && current[filter.source] !== '';
    return (
        <>
            <Button variant="outlined" startIcon={<FilterListIcon />} onClick={() => setOpen(true)}>
                {filter.label}
            </Button>
            {applied ? (
                <Chip
                    sx={{ maxWidth: '100%' }}
                    label={filter.dialog?.chip(current)}
                    onDelete={() => onChangeMany(Object.fromEntries(fields.map(([source]) => [source, ''])))}
                    aria-label={`清除${filter.label}`}
                />
            ) : null}
            {open ? (
                <ActionForm
                    open={open}
                    onClose={() => setOpen(false)}
                    title={filter.dialog?.title ?? filter.label}
                    fields={fields}
                    schema={filter.dialog?.schema}
                    defaultValues={current}
                    width="xs"
                    onSubmit={async (submitted) =>
                        onChangeMany(Object.fromEntries(fields.map(([source]) => [source, text(submitted[source])])))
                    }
                >
                    {filter.dialog?.note ? (
                        <Typography variant="body2" color="text.secondary" sx={{ mt: 1 }}>
                            {filter.dialog.note}
                        </Typography>
                    ) : null}
                </ActionForm>
            ) : null}
        </>
    );
}

function OneFilter(props: FilterProps) {
    const { filter, value, onChange } = props;
    switch (filter.input ?? 'search') {
        case 'dateRange':
            return (
                <DateRangeFilter
                    filter={filter}
                    from={value}
                    to={props.toValue ?? ''}
                    onChange={(from, to) => props.onRangeChange?.(from, to)}
                />
            );
        case 'select':
        case 'tree':
            return <SelectFilter {...props} />;
        case 'tabs':
            return <TabsFilter {...props} />;
        case 'buttons':
            return <ButtonsFilter {...props} />;
        default:
            return <SearchBox filter={filter} value={value} onChange={onChange} />;
    }
}

/** The filters above a list, left to right as declared; their values live in the URL. */
export function Filters({ filters, values, onChange, onChangeMany, scope, onDefault }: FiltersProps) {
    if (!filters.length) return null;
    const valueOf = (source: string | undefined) =>
        source === undefined || values[source] === undefined ? '' : String(values[source]);
    return (
        <Box sx={{ display: 'flex', alignItems: 'center', flexWrap: 'wrap', gap: 1.5 }}>
            {filters.map((f) =>
                f.input === 'dialog' ? (
                    <DialogFilter
                        key={f.source}
                        filter={f}
                        values={values}
                        onChangeMany={
                            onChangeMany ?? ((many) => Object.entries(many).forEach(([k, v]) => onChange(k, v)))
                        }
                    />
                ) : (
                    <OneFilter
                        key={f.source}
                        filter={f}
                        value={valueOf(f.source)}
                        onChange={(v) => onChange(f.source, v)}
                        scope={scope}
                        onDefault={onDefault}
                        toValue={valueOf(f.to)}
                        onRangeChange={(from, to) => {
                            const both = { [f.source]: from, ...(f.to ? { [f.to]: to } : {}) };
                            if (onChangeMany) onChangeMany(both);
                            else Object.entries(both).forEach(([k, v]) => onChange(k, v));
                        }}
                    />
                ),
            )}
        </Box>
    );
}
