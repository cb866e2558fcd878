import { useMemo, type ReactElement } from 'react';
import { yupResolver } from '@hookform/resolvers/yup';
import { Button, Dialog, DialogContent, DialogTitle } from '@mui/material';
import type { Resolver } from 'react-hook-form';
import { useFormState } from 'react-hook-form';
import {
    Create,
    CreateBase,
    Edit,
    SaveButton,
    SimpleForm,
    Toolbar,
    useNotify,
    useRedirect,
    useSaveContext,
} from 'react-admin';
import { fieldsFor, resourcePath, useDefinition } from './context';
import { FormInput } from './inputs';
import type { ResourceDefinition } from './types';

type Verb = 'create' | 'update';

const FALLBACK: Record<Verb, string> = { create: '系统错误', update: '系统错误' };
const SUCCESS: Record<Verb, string> = { create: '创建成功', update: '修改成功' };

/** Success and failure notifications of a save, from the definition's messages. */
export function useSaveNotifications(definition: ResourceDefinition, verb: Verb, after?: () => void) {
    const notify = useNotify();
    const messages = definition.messages ?? {};
    return {
        onSuccess: () => {
            const text = (verb === 'create' ? messages.created : messages.updated) ?? SUCCESS[verb];
            notify(text, { type: 'success', messageArgs: { _: text } });
            after?.();
        },
        onError: (error: unknown) => {
            const own = error instanceof Error && error.message ? error.message : undefined;
            const text = own ?? (verb === 'create' ? messages.createFailed : messages.updateFailed) ?? FALLBACK[verb];
            notify(text, { type: 'error', messageArgs: { _: text } });
        },
    };
}

/** Enabled while the form is untouched (so an empty submit shows the messages); disabled while it is being saved. */
export function FormSaveButton({ label = '确定' }: { label?: string }) {
    const { isSubmitting } = useFormState();
    const saving = useSaveContext()?.saving ?? false;
    return <SaveButton label={label} alwaysEnable={!(isSubmitting || saving)} />;
}

function FormToolbar({ onCancel }: { onCancel?: () => void }) {
    return (
        <Toolbar sx={{ gap: 1, justifyContent: onCancel ? 'flex-end' : 'flex-start' }}>
            {onCancel ? <Button onClick={onCancel}>取消</Button> : null}
            <FormSaveButton label={onCancel ? '确定' : '保存'} />
        </Toolbar>
    );
}

/** The generated form: one input per field shown in the view, validated by the definition's yup schema. */
export function ResourceForm({ view, toolbar }: { view: 'create' | 'edit'; toolbar?: ReactElement }) {
    const definition = useDefinition();
    const schema = view === 'edit' ? (definition.editSchema ?? definition.schema) : definition.schema;
    const resolver = useMemo(() => (schema ? (yupResolver(schema) as Resolver) : undefined), [schema]);
    const defaultValues = useMemo(
        () =>
            view === 'create'
                ? Object.fromEntries(
                      Object.entries(definition.fields)
                          .filter(([, f]) => f.defaultValue !== undefined)
                          .map(([source, f]) => [source, f.defaultValue]),
                  )
                : undefined,
        [definition, view],
    );
    return (
        // noValidate: the schema's Chinese messages speak, not the browser's own bubbles for `required` inputs.
        <SimpleForm resolver={resolver} defaultValues={defaultValues} toolbar={toolbar ?? <FormToolbar />} noValidate>
            {fieldsFor(definition, view).map(([source, field]) => (
                <FormInput key={source} source={source} field={field} />
            ))}
        </SimpleForm>
    );
}

export function GeneratedCreate() {
    const definition = useDefinition();
    const redirect = useRedirect();
    const path = resourcePath(definition);
    const mutationOptions = useSaveNotifications(definition, 'create', () => redirect('list', path));
    return (
        <Create title={definition.list?.createTitle ?? `新建${definition.label}`} mutationOptions={mutationOptions}>
            <ResourceForm view="create" />
        </Create>
    );
}

export function GeneratedEdit() {
    const definition = useDefinition();
    const redirect = useRedirect();
    const path = resourcePath(definition);
    const mutationOptions = useSaveNotifications(definition, 'update', () => redirect('list', path));
    // Pessimistic, so the server's rejection reaches the form instead of being undone after the fact.
    return (
        <Edit title={`编辑${definition.label}`} mutationMode="pessimistic" mutationOptions={mutationOptions}>
            <ResourceForm view="edit" />
        </Edit>
    );
}

/** The create form in a dialog over the list (list.createInDialog). */
export function CreateDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
    const definition = useDefinition();
    const mutationOptions = useSaveNotifications(definition, 'create', onClose);
    const title = definition.list?.createTitle ?? definition.list?.createLabel ?? `新建${definition.label}`;
    return (
        <Dialog open={open} onClose={onClose} fullWidth maxWidth="sm" aria-labelledby="engine-create-dialog-title">
            <DialogTitle id="engine-create-dialog-title">{title}</DialogTitle>
            <DialogContent sx={{ p: 0 }}>
                {open ? (
                    <CreateBase resource={resourcePath(definition)} redirect={false} mutationOptions={mutationOptions}>
                        <ResourceForm view="create" toolbar={<FormToolbar onCancel={onClose} />} />
                    </CreateBase>
                ) : null}
            </DialogContent>
        </Dialog>
    );
}
