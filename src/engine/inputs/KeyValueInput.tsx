import AddIcon from '@mui/icons-material/Add';
import DeleteOutlineIcon from '@mui/icons-material/DeleteOutline';
import { Box, Button, FormHelperText, IconButton, Tooltip, Typography } from '@mui/material';
import { useState } from 'react';
import { useFieldArray, useFormContext, useFormState } from 'react-hook-form';
import { Confirm, TextInput, useDataProvider } from 'react-admin';
import { failureText, useToast } from '../actions/shared';
import { runCall, useRefresh } from '../calls';
import type { PlatformDataProvider } from '../choices';
import { useOptionalDefinition } from '../context';
import { useScope } from '../scope';
import type { FieldDefinition, Row } from '../types';

export interface KeyValueInputProps {
    source: string;
    label: string;
    field: FieldDefinition;
    isRequired?: boolean;
    helperText?: string;
    disabled?: boolean;
}

interface ErrorNode {
    message?: string;
    root?: { message?: string };
}

/** The whole list's own error (too many rows, duplicate keys said once), not one row's. */
function listError(errors: Record<string, unknown>, source: string): string | undefined {
    const node = source.split('.').reduce<unknown>((at, part) => (at as Record<string, unknown>)?.[part], errors) as
        ErrorNode | undefined;
    return node?.message ?? node?.root?.message;
}

/**
 * Key / value rows (input 'keyValue'): add and remove, at most `max`. Each row's inputs are form fields of their
 * own (`source.i.key`), so the yup schema's messages land beside the row they are about.
 */
export function KeyValueInput({ source, label, field, isRequired, helperText, disabled }: KeyValueInputProps) {
    const spec = field.keyValue!;
    const { control, getValues } = useFormContext();
    const { errors } = useFormState({ control, name: source });
    const { fields: rows, append, remove } = useFieldArray({ control, name: source });
    const removal = useSavedRowRemoval(spec.remove, remove);
    const full = spec.max !== undefined && rows.length >= spec.max;
    const message = listError(errors, source);

    return (
        <Box className={`ra-input ra-input-${source}`} sx={{ my: 1 }} role="group" aria-label={label}>
            <Typography variant="subtitle2" sx={{ mb: 0.5 }}>
                {label}
                {isRequired ? ' *' : ''}
            </Typography>
            {rows.length === 0 ? (
                <Typography variant="body2" color="text.secondary" sx={{ py: 1 }}>
                    暂无{label}
                </Typography>
            ) : null}
            {rows.map((row, index) => (
                <Box
                    key={row.id}
                    sx={{ display: 'grid', gridTemplateColumns: '1fr 1fr 40px', gap: 1, alignItems: 'start' }}
                    data-testid={`${source}-row`}
                >
                    <TextInput
                        source={`${source}.${index}.key`}
                        label={spec.keyLabel}
                        readOnly={disabled}
                        size="small"
                        fullWidth
                    />
                    <TextInput
                        source={`${source}.${index}.value`}
                        label={spec.valueLabel}
                        readOnly={disabled}
                        size="small"
                        fullWidth
                    />
                    <Tooltip title="删除">
                        <span>
                            <IconButton
                                aria-label={`删除第${index + 1}行`}
                                onClick={() => {
                                    const value = getValues(`${source}.${index}`) as Row;
                                    if (spec.remove?.when(value)) removal.ask(index, value);
                                    else remove(index);
                                }}
                                disabled={disabled}
                                sx={{ mt: 1 }}
                            >
                                <DeleteOutlineIcon fontSize="small" />
                            </IconButton>
                        </span>
                    </Tooltip>
                </Box>
            ))}
            <Button
                size="small"
                startIcon={<AddIcon />}
                onClick={() => append({ key: '', value: '' })}
                disabled={disabled || full}
            >
                {spec.addLabel ?? '添加'}
            </Button>
            {full ? (
                <Typography variant="caption" color="text.secondary" sx={{ ml: 1 }}>
                    最多 {spec.max} 个
                </Typography>
            ) : null}
            <FormHelperText error={!!message}>{message ?? helperText ?? ' '}</FormHelperText>
            {removal.dialog}
        </Box>
    );
}

type Removal = NonNullable<NonNullable<FieldDefinition['keyValue']>['remove']>;

/** A saved row is deleted on the platform at once, after its confirmation; the row leaves the form when that succeeds. */
function useSavedRowRemoval(spec: Removal | undefined, remove: (index: number) => void) {
    const scope = useScope();
    const definition = useOptionalDefinition();
    const dataProvider = useDataProvider<PlatformDataProvider>();
    const refresh = useRefresh();
    const toast = useToast();
    const [asking, setAsking] = useState<{ index: number; row: Row } | null>(null);
    const [busy, setBusy] = useState(false);
    const run = async () => {
        if (!spec || !asking) return;
        setBusy(true);
        try {
            await runCall(dataProvider, spec.call, { ...scope, values: asking.row }, definition?.name);
            toast(spec.success ?? '删除成功');
            remove(asking.index);
            void refresh(undefined, spec.call.resource ?? definition?.name);
        } catch (error) {
            toast(failureText(error, spec.failure), 'error');
        } finally {
            setBusy(false);
            setAsking(null);
        }
    };
    const dialog = spec ? (
        <Confirm
            isOpen={!!asking}
            loading={busy}
            title="提示"
            content={asking ? spec.confirm(asking.row) : ''}
            confirm="删除"
            cancel="取消"
            onConfirm={() => void run()}
            onClose={() => (busy ? undefined : setAsking(null))}
        />
    ) : null;
    return { ask: (index: number, row: Row) => setAsking({ index, row }), dialog };
}
