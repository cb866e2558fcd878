import { useId } from 'react';
import { Controller, useForm } from 'react-hook-form';
import { Button, Dialog, DialogActions, DialogContent, DialogTitle, Stack, TextField } from '@mui/material';
import { thingParamSchema } from '../../../schemas/thingModel';
import { emptyParam, formDataTypeError, thingResolver, toParam, type ParamForm } from './form';
import type { Unit } from './model';
import { DataTypeEditor } from './DataTypeEditor';

export interface ParamDialogProps {
    title: string;
    initial?: ParamForm;
    /** Identifiers of the list's other params: one list cannot hold the same twice. */
    otherIdentifiers: string[];
    units: Unit[];
    nested?: boolean;
    onClose: () => void;
    onSave: (param: ParamForm) => void;
}

/** Edits one param; validated with the same param schema the server applies to each param. */
export function ParamDialog({ title, initial, otherIdentifiers, units, nested, onClose, onSave }: ParamDialogProps) {
    const titleId = useId();
    const { control, handleSubmit } = useForm<ParamForm>({
        defaultValues: initial ?? emptyParam(),
        resolver: thingResolver<ParamForm>(
            thingParamSchema,
            (v) => toParam(v) as unknown as Record<string, unknown>,
            (v) => {
                const extra: Array<[string, string]> = [];
                if (otherIdentifiers.includes(v.identifier.trim())) extra.push(['identifier', '参数标识符不能重复']);
                const dt = formDataTypeError(v.dataType);
                if (dt) extra.push(['dataType.specs', dt]);
                return extra;
            },
        ),
    });

    return (
        <Dialog open onClose={onClose} maxWidth="sm" fullWidth aria-labelledby={titleId}>
            <DialogTitle id={titleId}>{title}</DialogTitle>
            <DialogContent>
                <Stack spacing={2} sx={{ pt: 1 }}>
                    <Controller
                        name="name"
                        control={control}
                        render={({ field, fieldState }) => (
                            <TextField
                                {...field}
                                required
                                label="参数名称"
                                size="small"
                                error={!!fieldState.error}
                                helperText={fieldState.error?.message}
                                slotProps={{ htmlInput: { maxLength: 30 } }}
                            />
                        )}
                    />
                    <Controller
                        name="identifier"
                        control={control}
                        render={({ field, fieldState }) => (
                            <TextField
                                {...field}
                                required
                                label="标识符"
                                size="small"
                                error={!!fieldState.error}
                                helperText={fieldState.error?.message}
                            />
                        )}
                    />
                    <Controller
                        name="dataType"
                        control={control}
                        render={({ field, formState }) => {
                            const errors = formState.errors.dataType as
                                { type?: { message?: string }; specs?: { message?: string } } | undefined;
                            return (
                                <DataTypeEditor
                                    value={field.value}
                                    onChange={field.onChange}
                                    units={units}
                                    nested={nested}
                                    typeError={errors?.type?.message}
                                    specsError={errors?.specs?.message}
                                />
                            );
                        }}
                    />
                </Stack>
            </DialogContent>
            <DialogActions>
                <Button onClick={onClose}>取消</Button>
                <Button variant="contained" onClick={handleSubmit((values) => onSave(values))}>
                    确定
                </Button>
            </DialogActions>
        </Dialog>
    );
}
