/**
 * Filter kinds beyond the search box, select and tabs (src/engine/list/Filters.tsx renders them): a time range kept
 * as two epoch-millisecond params, and a select whose choices are searched by typing.
 */
import { Autocomplete, Box, TextField } from '@mui/material';
import dayjs from 'dayjs';
import type { FilterSpec } from '../vocabulary';

const LOCAL_MINUTE = 'YYYY-MM-DDTHH:mm';

/** epoch ms text → the datetime-local input's text ('' when absent or malformed). */
export function toLocalInput(ms: string): string {
    if (!/^\d+$/.test(ms)) return '';
    return dayjs(Number(ms)).format(LOCAL_MINUTE);
}

/** The input's text → epoch ms text: a start at its minute's first millisecond, an end at its last (inclusive). */
export function fromLocalInput(text: string, end: boolean): string {
    if (!text) return '';
    const d = dayjs(text);
    if (!d.isValid()) return '';
    return String((end ? d.endOf('minute') : d.startOf('minute')).valueOf());
}

/** 'dateRange': 开始{label} and 结束{label}, each a date-and-time input; either end may stay open. */
export function DateRangeFilter({
    filter,
    from,
    to,
    onChange,
}: {
    filter: FilterSpec;
    from: string;
    to: string;
    onChange: (which: 'from' | 'to', value: string) => void;
}) {
    const start = toLocalInput(from);
    const end = toLocalInput(to);
    const input = (which: 'from' | 'to', label: string, value: string, bound: { min?: string; max?: string }) => (
        <TextField
            type="datetime-local"
            size="small"
            margin="none"
            label={label}
            value={value}
            onChange={(e) => onChange(which, fromLocalInput(e.target.value, which === 'to'))}
            sx={{ width: 210 }}
            slotProps={{ inputLabel: { shrink: true }, htmlInput: { 'aria-label': label, ...bound } }}
        />
    );
    return (
        <Box role="group" aria-label={filter.label} sx={{ display: 'flex', alignItems: 'center', gap: 1 }}>
            {input('from', `开始${filter.label}`, start, end ? { max: end } : {})}
            <Box component="span" aria-hidden sx={{ color: 'text.secondary' }}>
                至
            </Box>
            {input('to', `结束${filter.label}`, end, start ? { min: start } : {})}
        </Box>
    );
}

interface Option {
    id: string;
    name: string;
}

/** A select searched by typing: the choice's name filters the list; the value is its id. */
export function SearchableSelect({
    filter,
    value,
    options,
    allLabel,
    onChange,
}: {
    filter: FilterSpec;
    value: string;
    options: Option[];
    /** The no-filter choice's text (false: none, the value cannot be cleared). */
    allLabel: string | false;
    onChange: (value: string) => void;
}) {
    const chosen = options.find((o) => o.id === value) ?? null;
    return (
        <Autocomplete
            size="small"
            options={options}
            value={chosen}
            onChange={(_, option) => onChange(option?.id ?? '')}
            getOptionLabel={(o) => o.name}
            isOptionEqualToValue={(a, b) => a.id === b.id}
            disableClearable={allLabel === false}
            noOptionsText="无匹配项"
            openText="展开"
            closeText="收起"
            clearText="清除"
            sx={{ width: 240 }}
            renderOption={(props, option) => (
                <li {...props} key={option.id}>
                    {option.name}
                </li>
            )}
            renderInput={(params) => (
                <TextField
                    {...params}
                    margin="none"
                    label={filter.label}
                    placeholder={allLabel === false ? `请选择${filter.label}` : allLabel}
                    InputLabelProps={{ ...params.InputLabelProps, shrink: true }}
                />
            )}
        />
    );
}
