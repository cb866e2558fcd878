import { useMemo, type ReactNode } from 'react';
import { yupResolver } from '@hookform/resolvers/yup';
import { Box, Button, Dialog, DialogActions, DialogContent, DialogTitle } from '@mui/material';
import { useFormState, type Resolver } from 'react-hook-form';
import { Form, useNotify } from 'react-admin';
import type { AnyObjectSchema } from 'yup';
import { useOptionalDefinition } from './context';
import { FormInput } from './inputs';
import type { FieldDefinition, FormValues } from './types';

export interface FormDialogProps<T = unknown> {
    open: boolean;
    onClose: () => void;
    title: string;
    /**
     * The inputs, in order: a source names one of the definition's fields; a pair brings its own definition
     * (a field only this dialog asks for, such as a batch amount).
     */
    fields: Array<string | [string, FieldDefinition]>;
    schema?: AnyObjectSchema;
    defaultValues?: FormValues;
    /** Inputs shown with their value but not editable (the product a scoped list has already chosen). */
    locked?: string[];
    /** The call behind the dialog; a rejection's message (the server's own) is shown and the dialog stays open. */
    submit: (values: FormValues) => Promise<T>;
    /** Success toast, or a function of the answer; the dialog closes after it. */
    success?: string | ((answer: T) => string);
    onSuccess?: (answer: T, values: FormValues) => void;
    submitLabel?: string;
    /** Shown under the inputs (notes, limits). */
    children?: ReactNode;
    /** Fallback failure text when the call fails without a message. */
    failure?: string;
}

function SubmitButtons({ onClose, label }: { onClose: () => void; label: string }) {
    const { isSubmitting } = useFormState();
    return (
        <DialogActions sx={{ px: 3, pb: 2 }}>
            <Button onClick={onClose} disabled={isSubmitting}>
                取消
            </Button>
            <Button type="submit" variant="contained" disabled={isSubmitting}>
                {isSubmitting ? '提交中…' : label}
            </Button>
        </DialogActions>
    );
}

/**
 * A form for one of a resource's calls that is not react-admin's create or update (batch registration, a
 * create through another path, ...): the definition's inputs, a yup schema, and the call. The buttons stay
 * disabled while the call runs.
 */
export function FormDialog<T>({
    open,
    onClose,
    title,
    fields,
    schema,
    defaultValues,
    locked = [],
    submit,
    success,
    onSuccess,
    submitLabel = '确定',
    children,
    failure = '系统错误',
}: FormDialogProps<T>) {
    const definition = useOptionalDefinition();
    const notify = useNotify();
    const resolver = useMemo(() => (schema ? (yupResolver(schema) as Resolver) : undefined), [schema]);
    const inputs = fields.map((f): [string, FieldDefinition] => {
        if (typeof f !== 'string') return f;
        const field = definition?.fields[f];
        if (!field) throw new Error(`FormDialog: 字段 ${f} 未在资源定义中声明`);
        return [f, field];
    });
    const titleId = `form-dialog-${title}`;

    const onSubmit = async (submitted: FormValues) => {
        // react-hook-form leaves disabled inputs out of what it submits; a locked value is still part of the call.
        const values = { ...submitted };
        for (const source of locked) values[source] = defaultValues?.[source];
        let answer: T;
        try {
            answer = await submit(values);
        } catch (error) {
            const text = (error instanceof Error && error.message) || failure;
            notify(text, { type: 'error', messageArgs: { _: text } });
            return;
        }
        const text = typeof success === 'function' ? success(answer) : success;
        if (text) notify(text, { type: 'success', messageArgs: { _: text } });
        onSuccess?.(answer, values);
        onClose();
    };

    return (
        <Dialog open={open} onClose={onClose} fullWidth maxWidth="sm" aria-labelledby={titleId}>
            <DialogTitle id={titleId}>{title}</DialogTitle>
            {open ? (
                // noValidate: the schema's Chinese messages speak, not the browser's bubbles.
                <Form resolver={resolver} defaultValues={defaultValues} onSubmit={onSubmit} noValidate>
                    <DialogContent sx={{ pt: 0 }}>
                        <Box sx={{ display: 'flex', flexDirection: 'column' }}>
                            {inputs.map(([source, field]) => (
                                <FormInput
                                    key={source}
                                    source={source}
                                    field={field}
                                    disabled={locked.includes(source)}
                                />
                            ))}
                        </Box>
                        {children}
                    </DialogContent>
                    <SubmitButtons onClose={onClose} label={submitLabel} />
                </Form>
            ) : null}
        </Dialog>
    );
}
