import { Box, FormHelperText, FormLabel, ToggleButton, ToggleButtonGroup } from '@mui/material';
import { useInput } from 'react-admin';
import { useFieldChoices } from '../choices';
import type { EngineInputProps } from './fieldView';

export type ToggleInputProps = EngineInputProps;

/**
 * A row of toggle buttons, one chosen (input 'toggle'): a short list of choices seen at once, such as scenes.
 * Choosing the chosen one again keeps it (one is always chosen once a choice is made).
 */
export function ToggleInput({ source, label, field, isRequired, helperText, disabled, onChange }: ToggleInputProps) {
    const { field: input, fieldState } = useInput({ source, defaultValue: field.defaultValue });
    const { choices } = useFieldChoices(field, undefined);
    const error = fieldState.error?.message;
    return (
        <Box sx={{ display: 'flex', flexDirection: 'column', gap: 0.5, my: 0.75 }}>
            <FormLabel required={isRequired} sx={{ fontSize: 14 }}>
                {label}
            </FormLabel>
            <ToggleButtonGroup
                size="small"
                exclusive
                value={input.value ?? ''}
                disabled={disabled}
                aria-label={label}
                onChange={(_, next: unknown) => {
                    if (next === null || next === undefined) return;
                    input.onChange(next);
                    onChange?.();
                }}
                sx={{ flexWrap: 'wrap' }}
            >
                {(choices ?? []).map((c) => (
                    <ToggleButton key={String(c.id)} value={c.id} sx={{ px: 1.5 }}>
                        {c.name}
                    </ToggleButton>
                ))}
            </ToggleButtonGroup>
            {error || helperText ? <FormHelperText error={!!error}>{error ?? helperText}</FormHelperText> : null}
        </Box>
    );
}
