/**
 * A filter kind beyond the search box, select and tabs (src/engine/list/Filters.tsx renders it): a select whose
 * choices are searched by typing. The time range is src/engine/dates (the pickers, loaded with the screen).
 */
import { Autocomplete, TextField } from '@mui/material';
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
