import { useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { ScopeProvider } from '../scope';
import { yupResolver } from '@hookform/resolvers/yup';
import { Box, Button, LinearProgress, Typography } from '@mui/material';
import { useFormState, useWatch, type Resolver } from 'react-hook-form';
import { Confirm, Form, useDataProvider, useRecordContext } from 'react-admin';
import type { AnyObjectSchema } from 'yup';
import { runCall, useCall, useRefresh } from '../calls';
import type { PlatformDataProvider } from '../choices';
import { useOptionalDefinition } from '../context';
import { FormInput } from '../inputs';
import { fieldForMode, type FormMode } from '../inputs/fieldView';
import type { FieldDefinition, FormValues } from '../types';
import type { DialogWidth, FormAction, Scope } from '../vocabulary';
import { UploadProgress, holdsFile } from '../UploadProgress';
import { EngineDialog } from './EngineDialog';
import { failureText, of, resolveInputs, useAfterSuccess, useToast } from './shared';

export interface ActionFormProps {
    open: boolean;
    onClose: () => void;
    title: ReactNode;
    fields: Array<string | [string, FieldDefinition]>;
    schema?: AnyObjectSchema;
    defaultValues?: FormValues;
    /** 'edit' lays each field's `perView.edit` over it (locked fields, other limits). */
    mode?: FormMode;
    /** Inputs disabled by the caller (not by their definition); their starting values are still submitted. */
    disabled?: string[];
    /**
     * The call behind the form. A rejection shows its message (the server's own, else `failure`) and the dialog
     * stays open; otherwise the dialog closes.
     */
    onSubmit: (values: FormValues, opts: { onProgress?: (fraction: number) => void }) => Promise<unknown>;
    failure?: string;
    submitLabel?: string;
    width?: DialogWidth;
    /** Under the inputs (notes, limits). */
    children?: ReactNode;
    /** Shown in the same dialog instead of the form until what it starts from has loaded. */
    pending?: ReactNode;
    /** What speaks while the person types; `schema` alone decides on submit. */
    liveSchema?: AnyObjectSchema;
    /** Submit stays disabled until this holds for the values. */
    ready?: (values: FormValues) => boolean;
    /** A failure whose message belongs to one input: that input's source; the message shows under it. */
    errorField?: (message: string) => string | undefined;
}

/** A submit refused by the action's own `guard`: already said, the dialog stays open. */
class Checked extends Error {}

function SubmitButtons({
    onClose,
    label,
    ready,
    onSaving,
}: {
    onClose: () => void;
    label: string;
    ready?: (values: FormValues) => boolean;
    onSaving?: () => void;
}) {
    const { isSubmitting } = useFormState();
    const values = useWatch() as FormValues;
    const waiting = ready ? !ready(values) : false;
    return (
        <>
            <Button onClick={onClose} disabled={isSubmitting}>
                取消
            </Button>
            <Button type="submit" variant="contained" disabled={isSubmitting || waiting} onClick={onSaving}>
                {isSubmitting ? '提交中…' : label}
            </Button>
        </>
    );
}

/** A form in the engine's dialog: the inputs, a yup schema, and the call it submits to. */
export function ActionForm({
    open,
    onClose,
    title,
    fields,
    schema,
    defaultValues,
    mode = 'create',
    disabled = [],
    onSubmit,
    failure,
    submitLabel = '确定',
    width = 'sm',
    children,
    pending,
    liveSchema,
    ready,
    errorField,
}: ActionFormProps) {
    const definition = useOptionalDefinition();
    const toast = useToast();
    // With a live schema, the save schema speaks once per click of the submit button (the resolver's next run).
    const saving = useRef(false);
    const resolver = useMemo((): Resolver | undefined => {
        const onSave = schema ? (yupResolver(schema) as Resolver) : undefined;
        if (!liveSchema) return onSave;
        const onType = yupResolver(liveSchema) as Resolver;
        return (values, context, options) => {
            const now = saving.current && onSave ? onSave : onType;
            saving.current = false;
            return now(values, context, options);
        };
    }, [schema, liveSchema]);
    const inputs = useMemo(
        () => resolveInputs(fields, definition).map(([s, f]): [string, FieldDefinition] => [s, fieldForMode(f, mode)]),
        [fields, definition, mode],
    );
    // A field's own defaultValue starts a create form; the caller's values (an edited record) come over it.
    const starting = useMemo(
        () => ({
            ...(mode === 'create'
                ? Object.fromEntries(
                      inputs.filter(([, f]) => f.defaultValue !== undefined).map(([s, f]) => [s, f.defaultValue]),
                  )
                : {}),
            ...defaultValues,
        }),
        [inputs, mode, defaultValues],
    );

    // react-admin's Form lays the surrounding record (the list row, the page's record) over its defaultValues: the
    // defaults come last here, so what `defaults` made of a record's field (rows out of JSON text, '' for null) stays.
    const around = useRecordContext();
    const [sent, setSent] = useState<number | null>(null);
    const record = useMemo(() => ({ ...around, ...starting }), [around, starting]);

    const submit = async (submitted: FormValues) => {
        // react-hook-form leaves disabled inputs out of what it submits; their values still belong to the call.
        const values = { ...submitted };
        for (const source of disabled) values[source] = starting[source];
        // A form holding a file says how far it has travelled, as the upload action does.
        const withFile = holdsFile(inputs);
        if (withFile) setSent(0);
        try {
            await onSubmit(values, withFile ? { onProgress: setSent } : {});
        } catch (error) {
            setSent(null);
            if (error instanceof Checked) return;
            const text = failureText(error, failure);
            const source = errorField?.(text);
            // react-admin's Form sets what onSubmit answers as the inputs' errors.
            if (source) return { [source]: text };
            toast(text, 'error');
            return;
        }
        setSent(null);
        onClose();
    };

    return (
        <EngineDialog
            open={open}
            onClose={onClose}
            title={title}
            width={width}
            actions={
                pending ? undefined : (
                    <SubmitButtons
                        onClose={onClose}
                        label={submitLabel}
                        ready={ready}
                        onSaving={liveSchema ? () => (saving.current = true) : undefined}
                    />
                )
            }
            // noValidate: the schema's Chinese messages speak, not the browser's bubbles.
            wrap={
                pending
                    ? undefined
                    : (inner) => (
                          <Form
                              record={record}
                              resolver={resolver}
                              defaultValues={starting}
                              onSubmit={submit}
                              noValidate
                              mode={liveSchema ? 'onTouched' : undefined}
                          >
                              {inner}
                          </Form>
                      )
            }
        >
            {pending}
            {pending ? null : (
                <>
                    <Box sx={{ display: 'flex', flexDirection: 'column' }}>
                        {inputs.map(([source, field]) => (
                            <FormInput
                                key={source}
                                source={source}
                                field={field}
                                mode={mode}
                                disabled={disabled.includes(source)}
                            />
                        ))}
                    </Box>
                    {sent !== null ? <UploadProgress fraction={sent} /> : null}
                    {children}
                </>
            )}
        </EngineDialog>
    );
}

/** A form action's dialog: defaults from the scope, the values submitted to its call as `scope.values`. */
export default function FormActionDialog({
    action,
    scope,
    resource,
    open,
    onClose,
}: {
    action: FormAction;
    scope: Scope;
    resource?: string;
    open: boolean;
    onClose: () => void;
}) {
    const dataProvider = useDataProvider<PlatformDataProvider>();
    const after = useAfterSuccess(resource);
    const loaded = useCall<unknown>(action.load, scope, { enabled: open && !!action.load, retry: false });
    // Each opening reads the answer afresh: the form starts from what the platform holds now.
    const [openedAt, setOpenedAt] = useState(0);
    useEffect(() => {
        if (open) setOpenedAt(Date.now());
    }, [open]);
    const ready = loaded.data !== undefined && openedAt > 0 && loaded.dataUpdatedAt >= openedAt;
    const defaultValues = useMemo(
        () => action.defaults?.(action.load ? { ...scope, data: { ...scope.data, load: loaded.data } } : scope),
        [action, scope, loaded.data],
    );
    const refresh = useRefresh();
    const toast = useToast();
    const [asking, setAsking] = useState<{ text: string; answer: (go: boolean) => void } | undefined>();
    const locked = useMemo(() => action.lock?.(scope) ?? [], [action, scope]);
    const note = action.note ? of(action.note, scope) : undefined;
    const title = of(action.title ?? action.label, scope);
    // The form starts from the loaded answer: it opens once the call answered (a failure is said in its place).
    const pending =
        action.load && !ready ? (
            loaded.isError ? (
                <Typography color="error">加载失败：{(loaded.error as Error)?.message || '查询失败'}</Typography>
            ) : (
                <LinearProgress aria-label="加载中" />
            )
        ) : undefined;

    const inner = useMemo(
        () => ({ record: scope.record, selected: scope.selected, page: scope.page, data: scope.data }),
        [scope.record, scope.selected, scope.page, scope.data],
    );

    const onSubmit = async (values: FormValues, opts: { onProgress?: (fraction: number) => void }) => {
        const submitScope = { ...scope, values };
        // `guard` with the values: its reason is said and the dialog stays open.
        const problem = action.guard?.(submitScope);
        if (problem) {
            toast(problem, 'warning');
            throw new Checked();
        }
        // `confirm`: asked over the form; 取消 leaves the form open with its values.
        if (action.confirm) {
            const text = of(action.confirm, submitScope);
            const go = await new Promise<boolean>((answer) => setAsking({ text, answer }));
            setAsking(undefined);
            if (!go) throw new Checked();
        }
        let answer: unknown;
        try {
            answer = await runCall(dataProvider, action.submit, submitScope, resource, opts);
        } catch (error) {
            // Some items of an `each` call went through: what they changed reloads while the dialog says the rest.
            if ((error as { done?: unknown[] }).done?.length)
                void refresh(action.refresh, action.submit.resource ?? resource);
            throw error;
        }
        await after({ ...action, callResource: action.submit.resource }, answer, submitScope);
    };

    return (
        // The inputs (a picker's params, choicesFrom) see the row or page record as `record`, as docs section 6 says.
        <ScopeProvider value={inner}>
            <ActionForm
                open={open}
                onClose={onClose}
                title={title}
                fields={action.fields}
                schema={action.schema}
                defaultValues={defaultValues}
                mode={action.mode ?? 'create'}
                disabled={locked}
                onSubmit={onSubmit}
                failure={action.failure}
                submitLabel={action.submitLabel}
                width={action.width}
                pending={pending}
                liveSchema={action.liveSchema}
                ready={action.ready}
                errorField={action.errorField}
            >
                {note ? (
                    <Typography variant="body2" color="text.secondary" sx={{ mt: 1 }}>
                        {note}
                    </Typography>
                ) : null}
            </ActionForm>
            {action.confirm ? (
                <Confirm
                    isOpen={asking !== undefined}
                    title={action.confirmTitle ?? '提示'}
                    content={asking?.text ?? ''}
                    confirm="确定"
                    cancel="取消"
                    onConfirm={() => asking?.answer(true)}
                    onClose={() => asking?.answer(false)}
                />
            ) : null}
        </ScopeProvider>
    );
}
