import type { ReactNode } from 'react';
import AddIcon from '@mui/icons-material/Add';
import DeleteOutlineIcon from '@mui/icons-material/DeleteOutline';
import { Box, Button, FormHelperText, IconButton, Tooltip, Typography } from '@mui/material';
import { useFieldArray, useFormContext, useFormState } from 'react-hook-form';

interface ErrorNode {
    message?: string;
    root?: { message?: string };
}

/** The whole list's own error (too many rows, duplicate keys said once), not one row's. */
export function listError(errors: Record<string, unknown>, source: string): string | undefined {
    const node = source.split('.').reduce<unknown>((at, part) => (at as Record<string, unknown>)?.[part], errors) as
        ErrorNode | undefined;
    return node?.message ?? node?.root?.message;
}

/** The form's array at `source`: its rows, add and remove, and the list's own error message. */
export function useRowArray(source: string) {
    const { control, getValues } = useFormContext();
    const { errors } = useFormState({ control, name: source });
    const { fields: rows, append, remove } = useFieldArray({ control, name: source });
    return { rows, append, remove, getValues, message: listError(errors, source) };
}

export interface RowListProps {
    source: string;
    label: string;
    isRequired?: boolean;
    helperText?: string;
    disabled?: boolean;
    /** Shown when there are no rows. */
    empty: string;
    count: number;
    max?: number;
    /** The measure word after `max` in "最多 N 个". */
    unit: string;
    addLabel?: string;
    onAdd: () => void;
    message?: string;
    /** The rows. */
    children: ReactNode;
}

/**
 * The frame of an input made of rows (keyValue, rows): its label, the empty text, the rows, 添加 (off at `max`,
 * with a note saying so) and the list's own message under them.
 */
export function RowList({
    source,
    label,
    isRequired,
    helperText,
    disabled,
    empty,
    count,
    max,
    unit,
    addLabel,
    onAdd,
    message,
    children,
}: RowListProps) {
    const full = max !== undefined && count >= max;
    return (
        <Box className={`ra-input ra-input-${source}`} sx={{ my: 1 }} role="group" aria-label={label}>
            <Typography variant="subtitle2" sx={{ mb: 0.5 }}>
                {label}
                {isRequired ? ' *' : ''}
            </Typography>
            {count === 0 ? (
                <Typography variant="body2" color="text.secondary" sx={{ py: 1 }}>
                    {empty}
                </Typography>
            ) : null}
            {children}
            <Button size="small" startIcon={<AddIcon />} onClick={onAdd} disabled={disabled || full}>
                {addLabel ?? '添加'}
            </Button>
            {full ? (
                <Typography variant="caption" color="text.secondary" sx={{ ml: 1 }}>
                    最多 {max} {unit}
                </Typography>
            ) : null}
            <FormHelperText error={!!message}>{message ?? helperText ?? ' '}</FormHelperText>
        </Box>
    );
}

/** A row's delete button, named for the row it deletes. */
export function DeleteRowButton({
    label,
    onClick,
    disabled,
}: {
    label: string;
    onClick: () => void;
    disabled?: boolean;
}) {
    return (
        <Tooltip title="删除">
            <span>
                <IconButton aria-label={label} onClick={onClick} disabled={disabled} sx={{ mt: 1 }}>
                    <DeleteOutlineIcon fontSize="small" />
                </IconButton>
            </span>
        </Tooltip>
    );
}
