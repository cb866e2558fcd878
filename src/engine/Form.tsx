import { useMemo, useState, type ReactElement } from 'react';
import { yupResolver } from '@hookform/resolvers/yup';
import { Box, Button } from '@mui/material';
import type { Resolver } from 'react-hook-form';
import { useFormState } from 'react-hook-form';
import {
    Create,
    CreateBase,
    Edit,
    EditBase,
    Form,
    SaveButton,
    SimpleForm,
    Toolbar,
    useNotify,
    useRedirect,
    useSaveContext,
} from 'react-admin';
import { EngineDialog } from './actions/EngineDialog';
import { fieldsFor, resourcePath, useDefinition } from './context';
import { FormInput } from './inputs';
import { UploadProgress, holdsFile } from './UploadProgress';
import type { FormValues, ResourceDefinition } from './types';
import type { DialogWidth, Row } from './vocabulary';
import { dialogOptions } from './list/fromDefinition';

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

type View = 'create' | 'edit';

/**
 * A generated form holding a file (input 'file') says how far it has travelled while it saves: the save's
 * `meta.onProgress` reaches the data provider, which sends the request by XHR and reports the share sent.
 */
function useFileProgress(definition: ResourceDefinition, view: View) {
    const withFile = holdsFile(fieldsFor(definition, view));
    const [sent, setSent] = useState(0);
    return {
        withFile,
        sent,
        /** mutationOptions for CreateBase / EditBase: the notifications, then the bar back to 0. */
        options: <T extends { onSuccess: () => void; onError: (e: unknown) => void }>(notifications: T) =>
            withFile
                ? {
                      ...notifications,
                      meta: { onProgress: setSent },
                      onSuccess: () => {
                          setSent(0);
                          notifications.onSuccess();
                      },
                      onError: (error: unknown) => {
                          setSent(0);
                          notifications.onError(error);
                      },
                  }
                : notifications,
    };
}

/** The upload bar under a generated form with a file, while it saves. */
function SavingProgress({ progress }: { progress?: { withFile: boolean; sent: number } }) {
    const saving = useSaveContext()?.saving ?? false;
    const { isSubmitting } = useFormState();
    if (!progress?.withFile || !(saving || isSubmitting)) return null;
    return <UploadProgress fraction={progress.sent} />;
}

/** The schema, resolver and starting values of the generated form for a view. */
function useFormSetup(definition: ResourceDefinition, view: View) {
    const schema = view === 'edit' ? (definition.editSchema ?? definition.schema) : definition.schema;
    const resolver = useMemo(() => (schema ? (yupResolver(schema) as Resolver) : undefined), [schema]);
    const defaultValues = useMemo(
        (): FormValues | undefined =>
            view === 'create'
                ? Object.fromEntries(
                      Object.entries(definition.fields)
                          .filter(([, f]) => f.defaultValue !== undefined)
                          .map(([source, f]) => [source, f.defaultValue]),
                  )
                : undefined,
        [definition, view],
    );
    return { resolver, defaultValues };
}

/** One input per field the view shows, each seeing its `perView[view]` (locked in edit, another limit). */
function ViewInputs({ definition, view }: { definition: ResourceDefinition; view: View }) {
    return (
        <>
            {fieldsFor(definition, view).map(([source, field]) => (
                <FormInput key={source} source={source} field={field} mode={view} />
            ))}
        </>
    );
}

/** The generated form: one input per field shown in the view, validated by the definition's yup schema. */
export function ResourceForm({
    view,
    toolbar,
    progress,
}: {
    view: View;
    toolbar?: ReactElement;
    progress?: { withFile: boolean; sent: number };
}) {
    const definition = useDefinition();
    const { resolver, defaultValues } = useFormSetup(definition, view);
    return (
        // noValidate: the schema's Chinese messages speak, not the browser's own bubbles for `required` inputs.
        <SimpleForm resolver={resolver} defaultValues={defaultValues} toolbar={toolbar ?? <FormToolbar />} noValidate>
            <ViewInputs definition={definition} view={view} />
            <SavingProgress progress={progress} />
        </SimpleForm>
    );
}

/**
 * The generated form inside the engine's dialog, saved by the CreateBase / EditBase around it: the content
 * scrolls and 取消 / 确定 stay on screen.
 */
function ResourceFormDialog({
    view,
    open,
    onClose,
    title,
    base,
    progress,
    width,
}: {
    width?: DialogWidth;
    view: View;
    open: boolean;
    onClose: () => void;
    title: string;
    base: (form: ReactElement) => ReactElement;
    progress?: { withFile: boolean; sent: number };
}) {
    const definition = useDefinition();
    const { resolver, defaultValues } = useFormSetup(definition, view);
    return (
        <EngineDialog
            open={open}
            onClose={onClose}
            title={title}
            width={width}
            actions={
                <>
                    <Button onClick={onClose}>取消</Button>
                    <FormSaveButton label="确定" />
                </>
            }
            wrap={(inner) =>
                base(
                    <Form resolver={resolver} defaultValues={defaultValues} noValidate>
                        {inner}
                    </Form>,
                )
            }
        >
            <Box sx={{ display: 'flex', flexDirection: 'column' }}>
                <ViewInputs definition={definition} view={view} />
                <SavingProgress progress={progress} />
            </Box>
        </EngineDialog>
    );
}

export function GeneratedCreate() {
    const definition = useDefinition();
    const redirect = useRedirect();
    const path = resourcePath(definition);
    const progress = useFileProgress(definition, 'create');
    const mutationOptions = progress.options(useSaveNotifications(definition, 'create', () => redirect('list', path)));
    return (
        <Create title={definition.list?.createTitle ?? `新建${definition.label}`} mutationOptions={mutationOptions}>
            <ResourceForm view="create" progress={progress} />
        </Create>
    );
}

export function GeneratedEdit() {
    const definition = useDefinition();
    const redirect = useRedirect();
    const path = resourcePath(definition);
    const progress = useFileProgress(definition, 'edit');
    const mutationOptions = progress.options(useSaveNotifications(definition, 'update', () => redirect('list', path)));
    // Pessimistic, so the server's rejection reaches the form instead of being undone after the fact.
    return (
        <Edit title={`编辑${definition.label}`} mutationMode="pessimistic" mutationOptions={mutationOptions}>
            <ResourceForm view="edit" progress={progress} />
        </Edit>
    );
}

/** The create form in a dialog over the list (list.createInDialog). */
export function CreateDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
    const definition = useDefinition();
    const progress = useFileProgress(definition, 'create');
    const mutationOptions = progress.options(useSaveNotifications(definition, 'create', onClose));
    const title = definition.list?.createTitle ?? definition.list?.createLabel ?? `新建${definition.label}`;
    return (
        <ResourceFormDialog
            progress={progress}
            view="create"
            width={dialogOptions(definition.list?.createInDialog)?.width}
            open={open}
            onClose={onClose}
            title={title}
            base={(form) => (
                <CreateBase resource={resourcePath(definition)} redirect={false} mutationOptions={mutationOptions}>
                    {form}
                </CreateBase>
            )}
        />
    );
}

/**
 * Edit a record in a dialog over the list (list.editInDialog): the fields shown in 'edit' with their
 * `perView.edit`, editSchema (else schema), saved by dataProvider.update. Pessimistic, so the server's refusal
 * keeps the dialog open with its message. The row shows at once while the record is read again.
 */
export function EditDialog({ open, onClose, record }: { open: boolean; onClose: () => void; record: Row }) {
    const definition = useDefinition();
    const progress = useFileProgress(definition, 'edit');
    const mutationOptions = progress.options(useSaveNotifications(definition, 'update', onClose));
    const id = (record[definition.idField ?? 'id'] ?? record.id) as string | number;
    return (
        <ResourceFormDialog
            progress={progress}
            view="edit"
            width={dialogOptions(definition.list?.editInDialog)?.width}
            open={open}
            onClose={onClose}
            title={`编辑${definition.label}`}
            base={(form) => (
                <EditBase
                    resource={resourcePath(definition)}
                    id={id}
                    redirect={false}
                    mutationMode="pessimistic"
                    mutationOptions={mutationOptions}
                    queryOptions={{ placeholderData: { ...record, id } }}
                >
                    {form}
                </EditBase>
            )}
        />
    );
}
