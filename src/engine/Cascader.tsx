import { useEffect, useState } from 'react';
import { Box, FormHelperText, LinearProgress, MenuItem, TextField } from '@mui/material';
import { useInput } from 'react-admin';
import { pathTo, useFieldChoices } from './choices';
import type { Choice, FieldDefinition, FormValues } from './types';

export interface CascaderInputProps {
    source: string;
    label: string;
    field: FieldDefinition;
    values?: FormValues;
    isRequired?: boolean;
    helperText?: string;
    onChange?: (...event: unknown[]) => void;
}

/** The options of each level along the chosen path: roots, then the children of each chosen node that has any. */
function levelsAlong(tree: Choice[], path: Array<Choice['id']>): Choice[][] {
    const levels: Choice[][] = [tree];
    for (const id of path) {
        const node = levels[levels.length - 1].find((c) => String(c.id) === String(id));
        if (!node?.children?.length) break;
        levels.push(node.children);
    }
    return levels;
}

/**
 * A tree of choices as chained selects, one per level (MUI has no cascader). The form value is the id of the
 * last level chosen; the path is rebuilt from the tree when the value comes from elsewhere (edit, reset).
 */
export function CascaderInput({ source, label, field, values, isRequired, helperText, onChange }: CascaderInputProps) {
    const { field: input, fieldState, id } = useInput({ source, isRequired, onChange });
    const { choices, isPending, error } = useFieldChoices(field, values);
    const [path, setPath] = useState<Array<Choice['id']>>([]);

    useEffect(() => {
        const last = path[path.length - 1];
        const empty = input.value === undefined || input.value === null || input.value === '';
        if (empty && path.length > 0) setPath([]);
        else if (!empty && String(last) !== String(input.value)) setPath(pathTo(choices, input.value));
    }, [choices, input.value, path]);

    // Read before any early return: react-hook-form re-renders an input for errors only if it read them.
    const message = fieldState.error?.message ?? error?.message;
    if (isPending) return <LinearProgress sx={{ my: 2, width: 200 }} />;

    const choose = (level: number, value: string) => {
        const options = levelsAlong(choices ?? [], path)[level] ?? [];
        const chosen = options.find((c) => String(c.id) === value);
        if (!chosen) return;
        setPath([...path.slice(0, level), chosen.id]);
        input.onChange(chosen.id);
    };

    return (
        <Box className={`ra-input ra-input-${source}`} sx={{ mt: 1, mb: 0.5 }} data-testid={`cascader-${source}`}>
            <Box sx={{ display: 'flex', flexWrap: 'wrap', gap: 1 }}>
                {levelsAlong(choices ?? [], path).map((options, level) => (
                    <TextField
                        key={level}
                        id={level === 0 ? id : `${id}-${level}`}
                        select
                        size="small"
                        label={level === 0 ? label : undefined}
                        required={level === 0 && isRequired}
                        error={!!fieldState.error}
                        value={path[level] === undefined ? '' : String(path[level])}
                        onChange={(e) => choose(level, e.target.value)}
                        onBlur={input.onBlur}
                        sx={{ minWidth: 180 }}
                        slotProps={{
                            inputLabel: { shrink: true },
                            select: {
                                displayEmpty: true,
                                renderValue: (v) =>
                                    v === '' ? (
                                        <Box component="span" sx={{ color: 'text.disabled' }}>
                                            请选择
                                        </Box>
                                    ) : (
                                        options.find((c) => String(c.id) === v)?.name
                                    ),
                            },
                        }}
                    >
                        {options.map((c) => (
                            <MenuItem key={String(c.id)} value={String(c.id)}>
                                {c.name}
                            </MenuItem>
                        ))}
                    </TextField>
                ))}
            </Box>
            <FormHelperText error={!!message} sx={{ mx: 1.75, minHeight: '1.25em' }}>
                {message ?? helperText ?? ' '}
            </FormHelperText>
        </Box>
    );
}
