import { useId, useState } from 'react';
import { Controller, useForm, useWatch, type Control } from 'react-hook-form';
import { useCreate, useUpdate } from 'react-admin';
import {
    Alert,
    Button,
    Dialog,
    DialogActions,
    DialogContent,
    DialogTitle,
    FormControl,
    FormControlLabel,
    FormLabel,
    Radio,
    RadioGroup,
    Stack,
    TextField,
} from '@mui/material';
import { thingFunctionSchema } from '../../../schemas/thingModel';
import { emptyFunction, formDataTypeError, fromFunction, thingResolver, toFunction, type FunctionForm } from './form';
import {
    ACCESS_MODE_LABELS,
    CALL_TYPE_LABELS,
    EVENT_TYPE_LABELS,
    FUNCTION_TYPE_LABELS,
    type ThingFunction,
    type Unit,
} from './model';
import { DataTypeEditor } from './DataTypeEditor';
import { ParamList } from './ParamList';
import { errorMessage } from './api';

export interface FunctionDialogProps {
    productId: number;
    /** The function to edit; absent to add one. */
    record?: ThingFunction;
    units: Unit[];
    onClose: () => void;
    onSaved: (fn: ThingFunction) => void;
}

type NestedErrors = { message?: string; type?: { message?: string }; specs?: { message?: string } } | undefined;

/** 添加自定义功能 / 编辑功能: one property, event or service, validated with the schema the server applies. */
export function FunctionDialog({ productId, record, units, onClose, onSaved }: FunctionDialogProps) {
    const titleId = useId();
    const editing = record?.id !== undefined;
    const [serverError, setServerError] = useState<string | null>(null);
    const [create, { isPending: creating }] = useCreate<ThingFunction & { id: number }>();
    const [update, { isPending: updating }] = useUpdate<ThingFunction & { id: number }>();
    const { control, handleSubmit, setError } = useForm<FunctionForm>({
        defaultValues: record ? fromFunction(record) : emptyFunction(),
        resolver: thingResolver<FunctionForm>(
            thingFunctionSchema,
            (v) => toFunction(v, productId) as unknown as Record<string, unknown>,
            (v) => {
                const dt = v.type === 'property' ? formDataTypeError(v.dataType) : undefined;
                return dt ? [['dataType.specs', dt]] : [];
            },
        ),
    });
    const type = useWatch({ control, name: 'type' });

    const save = handleSubmit(async (values) => {
        setServerError(null);
        const data = toFunction(values, productId);
        try {
            const saved = editing
                ? await update(
                      'thingFunctions',
                      { id: record!.id!, data, previousData: record as ThingFunction & { id: number } },
                      { mutationMode: 'pessimistic', returnPromise: true },
                  )
                : await create('thingFunctions', { data }, { returnPromise: true });
            onSaved((saved as ThingFunction | undefined) ?? data);
        } catch (error) {
            const message = errorMessage(error, editing ? '修改失败' : '添加失败');
            // The function's own identifier clash belongs next to that field; anything else above the form.
            if (/^标识符/.test(message)) setError('identifier', { type: 'server', message });
            else setServerError(message);
        }
    });

    return (
        <Dialog open onClose={onClose} maxWidth="sm" fullWidth aria-labelledby={titleId}>
            <DialogTitle id={titleId}>{editing ? '编辑功能' : '添加自定义功能'}</DialogTitle>
            <DialogContent dividers>
                <Stack spacing={2}>
                    {serverError && <Alert severity="error">{serverError}</Alert>}
                    <Controller
                        name="type"
                        control={control}
                        render={({ field }) => (
                            <RadioChoice
                                label="功能类型"
                                value={field.value}
                                onChange={field.onChange}
                                choices={FUNCTION_TYPE_LABELS}
                                disabled={editing}
                            />
                        )}
                    />
                    <TextInput control={control} name="name" label="功能名称" maxLength={30} required />
                    <TextInput control={control} name="identifier" label="标识符" maxLength={50} required />
                    {type === 'property' && (
                        <>
                            <Controller
                                name="dataType"
                                control={control}
                                render={({ field, formState }) => {
                                    const errors = formState.errors.dataType as NestedErrors;
                                    return (
                                        <DataTypeEditor
                                            value={field.value}
                                            onChange={field.onChange}
                                            units={units}
                                            typeError={errors?.type?.message ?? errors?.message}
                                            specsError={errors?.specs?.message}
                                        />
                                    );
                                }}
                            />
                            <Controller
                                name="accessMode"
                                control={control}
                                render={({ field }) => (
                                    <RadioChoice
                                        label="读写类型"
                                        value={field.value}
                                        onChange={field.onChange}
                                        choices={ACCESS_MODE_LABELS}
                                    />
                                )}
                            />
                        </>
                    )}
                    {type === 'event' && (
                        <>
                            <Controller
                                name="eventType"
                                control={control}
                                render={({ field }) => (
                                    <RadioChoice
                                        label="事件类型"
                                        value={field.value}
                                        onChange={field.onChange}
                                        choices={EVENT_TYPE_LABELS}
                                    />
                                )}
                            />
                            <ParamsInput control={control} name="outputData" label="输出参数" units={units} />
                        </>
                    )}
                    {type === 'service' && (
                        <>
                            <Controller
                                name="callType"
                                control={control}
                                render={({ field }) => (
                                    <RadioChoice
                                        label="调用方式"
                                        value={field.value}
                                        onChange={field.onChange}
                                        choices={CALL_TYPE_LABELS}
                                    />
                                )}
                            />
                            <ParamsInput control={control} name="inputData" label="输入参数" units={units} />
                            <ParamsInput control={control} name="outputData" label="输出参数" units={units} />
                        </>
                    )}
                    <TextInput control={control} name="description" label="描述" maxLength={100} multiline />
                </Stack>
            </DialogContent>
            <DialogActions>
                <Button onClick={onClose}>取消</Button>
                <Button variant="contained" onClick={save} disabled={creating || updating}>
                    确定
                </Button>
            </DialogActions>
        </Dialog>
    );
}

function RadioChoice({
    label,
    value,
    onChange,
    choices,
    disabled,
}: {
    label: string;
    value: string;
    onChange: (value: string) => void;
    choices: Record<string, string>;
    disabled?: boolean;
}) {
    const labelId = useId();
    return (
        <FormControl disabled={disabled}>
            <FormLabel id={labelId} required>
                {label}
            </FormLabel>
            <RadioGroup row aria-labelledby={labelId} value={value} onChange={(e) => onChange(e.target.value)}>
                {Object.entries(choices).map(([v, text]) => (
                    <FormControlLabel key={v} value={v} control={<Radio size="small" />} label={text} />
                ))}
            </RadioGroup>
        </FormControl>
    );
}

function TextInput({
    control,
    name,
    label,
    maxLength,
    required,
    multiline,
}: {
    control: Control<FunctionForm>;
    name: 'name' | 'identifier' | 'description';
    label: string;
    maxLength: number;
    required?: boolean;
    multiline?: boolean;
}) {
    return (
        <Controller
            name={name}
            control={control}
            render={({ field, fieldState }) => (
                <TextField
                    {...field}
                    required={required}
                    label={label}
                    size="small"
                    multiline={multiline}
                    minRows={multiline ? 3 : undefined}
                    error={!!fieldState.error}
                    helperText={
                        fieldState.error?.message ?? (multiline ? `${field.value.length}/${maxLength}` : undefined)
                    }
                    slotProps={{ htmlInput: { maxLength } }}
                />
            )}
        />
    );
}

function ParamsInput({
    control,
    name,
    label,
    units,
}: {
    control: Control<FunctionForm>;
    name: 'inputData' | 'outputData';
    label: string;
    units: Unit[];
}) {
    return (
        <Controller
            name={name}
            control={control}
            render={({ field, fieldState }) => (
                <ParamList
                    label={label}
                    addLabel={`添加${label}`}
                    value={field.value}
                    onChange={field.onChange}
                    units={units}
                    // A param's own errors were shown in its dialog; here only say the list needs a look.
                    error={fieldState.error ? (fieldState.error.message ?? '请检查参数定义') : undefined}
                />
            )}
        />
    );
}
