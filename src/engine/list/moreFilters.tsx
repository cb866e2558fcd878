/**
 * A filter kind beyond the search box, select and tabs (src/engine/list/Filters.tsx renders it): a select whose
 * choices are searched by typing. The time range is src/engine/dates (the pickers, loaded with the screen).
 */
import { useState } from 'react';
import { Autocomplete, TextField, type AutocompleteInputChangeReason } from '@mui/material';
import type { FilterSpec } from '../vocabulary';

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
    // What the person typed, kept until they pick, clear or leave the box (null: the chosen option's name shows). A
    // value set meanwhile by the page (a required select's first choice once the choices load) does not replace it.
    const [typed, setTyped] = useState<string | null>(null);
    return (
        <Autocomplete
            size="small"
            options={options}
            value={chosen}
            onChange={(_, option) => onChange(option?.id ?? '')}
            inputValue={typed ?? chosen?.name ?? ''}
            onInputChange={(_, text, reason) => setTyped(nextTyped(typed, text, reason))}
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

/** The typed text after an input change: typing sets it, the page's own value change keeps it, anything else ends it. */
function nextTyped(typed: string | null, text: string, reason: AutocompleteInputChangeReason): string | null {
    if (reason === 'input') return text;
    if (reason === 'reset') return typed;
    return null;
}
