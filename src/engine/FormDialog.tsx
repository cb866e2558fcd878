import type { ReactNode } from 'react';
import type { AnyObjectSchema } from 'yup';
import { ActionForm } from './actions/FormAction';
import { useToast } from './actions/shared';
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
    /** 'edit' applies the fields' `perView.edit`. */
    mode?: 'create' | 'edit';
}

/**
 * A form for a call given as a function (the form action's dialog, for screens that are not definitions yet):
 * the definition's inputs, a yup schema, and the call. The buttons stay disabled while the call runs.
 */
export function FormDialog<T>({
    submit,
    success,
    onSuccess,
    locked,
    failure = '系统错误',
    ...rest
}: FormDialogProps<T>) {
    const toast = useToast();
    const onSubmit = async (values: FormValues) => {
        let answer: T;
        try {
            answer = await submit(values);
        } catch (error) {
            // The caller's call already chose its words (the provider's per-call failure): keep them.
            throw new Error((error instanceof Error && error.message) || failure);
        }
        const text = typeof success === 'function' ? success(answer) : success;
        if (text) toast(text);
        onSuccess?.(answer, values);
    };
    return <ActionForm {...rest} disabled={locked} failure={failure} onSubmit={onSubmit} />;
}
