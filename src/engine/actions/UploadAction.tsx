import { Suspense, useMemo, useState, type ChangeEvent, type ReactNode } from 'react';
import { yupResolver } from '@hookform/resolvers/yup';
import { Alert, Box, Button, FormHelperText, LinearProgress, Typography } from '@mui/material';
import UploadFileIcon from '@mui/icons-material/UploadFile';
import type { Resolver } from 'react-hook-form';
import { Form, useDataProvider } from 'react-admin';
import { widgets } from '../../widgets/registry';
import { runCall } from '../calls';
import type { PlatformDataProvider } from '../choices';
import { useOptionalDefinition } from '../context';
import { FormInput } from '../inputs';
import type { FormValues } from '../types';
import type { Scope, UploadAction } from '../vocabulary';
import { EngineDialog } from './EngineDialog';
import { failureText, of, resolveInputs, useAfterSuccess, useToast } from './shared';
import { widgetFallback } from './fallback';

function sizeText(bytes: number): string {
    if (bytes >= 1024 * 1024) return `${+(bytes / 1024 / 1024).toFixed(1)}MB`;
    if (bytes >= 1024) return `${+(bytes / 1024).toFixed(1)}KB`;
    return `${bytes}B`;
}

/** A file's text; File.text() is missing in some environments, FileReader is everywhere. */
function readText(file: File): Promise<string> {
    if (typeof file.text === 'function') return file.text();
    return new Promise((resolve, reject) => {
        const reader = new FileReader();
        reader.onload = () => resolve(String(reader.result ?? ''));
        reader.onerror = () => reject(reader.error);
        reader.readAsText(file);
    });
}

/** Why a chosen file cannot be sent, checked before any byte travels; undefined when it can. */
export function fileProblem(
    file: File,
    accept?: string[],
    maxSize?: number,
    refusals: UploadAction['refusals'] = {},
): string | undefined {
    const ext = file.name.includes('.') ? file.name.split('.').pop()!.toLowerCase() : '';
    if (accept?.length && !accept.map((a) => a.toLowerCase()).includes(ext)) {
        return refusals.type ?? `只能上传 ${accept.map((a) => `.${a}`).join('、')} 格式的文件`;
    }
    if (maxSize !== undefined && file.size > maxSize) return refusals.size ?? `文件大小不能超过 ${sizeText(maxSize)}`;
    if (file.size === 0) return refusals.empty ?? '文件内容为空';
    return undefined;
}

/**
 * The chosen file: checked on choice (the action's `check`, else type, size and emptiness), and with `parse` read
 * into the value that travels instead of it. `problem` says why there is no file to send.
 */
function useChosenFile(action: UploadAction) {
    const [file, setFile] = useState<File | null>(null);
    const [problem, setProblem] = useState('');
    const [parsed, setParsed] = useState<{ value: unknown } | null>(null);

    const refuse = (why: string) => {
        setProblem(why);
        setFile(null);
    };

    const read = async (chosen: File, parse: NonNullable<UploadAction['parse']>) => {
        let text: string;
        try {
            text = await readText(chosen);
        } catch {
            refuse('无法读取文件');
            return;
        }
        const { value, error } = parse(text);
        if (error) refuse(error);
        else setParsed({ value });
    };

    const choose = (e: ChangeEvent<HTMLInputElement>) => {
        const chosen = e.target.files?.[0] ?? null;
        // The same file chosen again after a fix must fire change again.
        e.target.value = '';
        if (!chosen) return;
        const why = action.check
            ? action.check(chosen)
            : fileProblem(chosen, action.accept, action.maxSize, action.refusals);
        setProblem(why ?? '');
        setFile(why ? null : chosen);
        setParsed(null);
        if (!why && action.parse) void read(chosen, action.parse);
    };

    const dropFile = () => {
        setFile(null);
        setProblem('');
    };
    const clear = () => {
        dropFile();
        setParsed(null);
    };

    return { file, problem, setProblem, parsed, choose, dropFile, clear };
}

type Chosen = ReturnType<typeof useChosenFile>;

interface UploadDialogProps {
    action: UploadAction;
    scope: Scope;
    resource?: string;
    open: boolean;
    onClose: () => void;
    /** The action's `extra` actions, rendered by the caller (e.g. 下载模板). */
    extra?: ReactNode;
}

/**
 * Sending: the form's values plus the file (or what it parsed into) under `fileField`, with progress; then the
 * action's after-success steps and either the result widget's answer or closing. A failure is toasted and said
 * beside the file.
 */
function useUpload({ action, scope, resource, onClose }: UploadDialogProps, chosen: Chosen, hasResult: boolean) {
    const dataProvider = useDataProvider<PlatformDataProvider>();
    const after = useAfterSuccess(resource);
    const toast = useToast();
    const [progress, setProgress] = useState<number | null>(null);
    const [result, setResult] = useState<{ answer: unknown; scope: Scope } | null>(null);

    const submit = async (values: FormValues) => {
        if (!chosen.file) {
            // A file refused on choice keeps its reason.
            if (!chosen.problem) chosen.setProblem(action.refusals?.missing ?? '请选择文件');
            return;
        }
        chosen.setProblem('');
        const content = action.parse ? chosen.parsed?.value : chosen.file;
        const submitScope = { ...scope, values: { ...values, [action.fileField ?? 'file']: content } };
        setProgress(0);
        try {
            const answer = await runCall(dataProvider, action.call, submitScope, resource, { onProgress: setProgress });
            await after({ ...action, callResource: action.call.resource }, answer, submitScope);
            if (hasResult) setResult({ answer, scope: submitScope });
            else {
                chosen.clear();
                onClose();
            }
        } catch (error) {
            const text = failureText(error, action.failure);
            toast(text, 'error');
            // Said in the dialog too, beside the file it is about.
            chosen.setProblem(text);
        } finally {
            setProgress(null);
        }
    };

    return { progress, result, setResult, submit };
}

/**
 * The upload dialog: further inputs, a file chooser checked on choice, a progress bar while the file travels,
 * then either closing or the answer shown by the named result widget.
 */
export default function UploadActionDialog(props: UploadDialogProps) {
    const { action, scope, open, onClose, extra } = props;
    const definition = useOptionalDefinition();
    const Result = action.result ? widgets[action.result] : undefined;
    const chosen = useChosenFile(action);
    const { progress, result, setResult, submit } = useUpload(props, chosen, !!Result);
    const resolver = useMemo(
        () => (action.schema ? (yupResolver(action.schema) as Resolver) : undefined),
        [action.schema],
    );
    const inputs = useMemo(() => resolveInputs(action.fields ?? [], definition), [action.fields, definition]);
    const defaultValues = useMemo(() => action.defaults?.(scope), [action, scope]);
    const uploading = progress !== null;
    const note = action.note ? of(action.note, scope) : undefined;

    const close = () => {
        if (uploading) return;
        chosen.clear();
        setResult(null);
        onClose();
    };
    const again = () => {
        chosen.dropFile();
        setResult(null);
    };
    const buttons = result ? (
        <>
            {action.again ? <Button onClick={again}>{action.again}</Button> : null}
            <Button onClick={close} variant="contained">
                {action.doneLabel ?? '关闭'}
            </Button>
        </>
    ) : (
        <>
            {extra ? <Box sx={{ mr: 'auto' }}>{extra}</Box> : null}
            <Button onClick={close} disabled={uploading}>
                取消
            </Button>
            <Button type="submit" variant="contained" disabled={uploading || (!!action.parse && !chosen.parsed)}>
                {uploading ? '上传中…' : (action.submitLabel ?? '上传')}
            </Button>
        </>
    );

    return (
        <EngineDialog
            open={open}
            onClose={close}
            title={action.title ?? of(action.label, scope)}
            width={action.width}
            actions={buttons}
            wrap={(inner) => (
                <Form resolver={resolver} defaultValues={defaultValues} onSubmit={submit} noValidate>
                    {inner}
                </Form>
            )}
        >
            {result && Result ? (
                <Suspense fallback={widgetFallback}>
                    <Result scope={result.scope} answer={result.answer} onClose={close} />
                </Suspense>
            ) : (
                <Box sx={{ display: 'flex', flexDirection: 'column', gap: 1 }}>
                    {inputs.map(([source, field]) => (
                        <FormInput key={source} source={source} field={field} disabled={uploading} />
                    ))}
                    <FileChooser action={action} file={chosen.file} disabled={uploading} onChange={chosen.choose} />
                    {chosen.problem ? <FormHelperText error>{chosen.problem}</FormHelperText> : null}
                    {chosen.parsed && action.preview ? (
                        <Alert severity="warning">{action.preview(chosen.parsed.value, scope)}</Alert>
                    ) : null}
                    {uploading ? <UploadProgress progress={progress} /> : null}
                    {note ? (
                        <Typography variant="body2" color="text.secondary">
                            {note}
                        </Typography>
                    ) : null}
                </Box>
            )}
        </EngineDialog>
    );
}

interface FileChooserProps {
    action: UploadAction;
    file: File | null;
    disabled: boolean;
    onChange: (e: ChangeEvent<HTMLInputElement>) => void;
}

function FileChooser({ action, file, disabled, onChange }: FileChooserProps) {
    return (
        <Box sx={{ display: 'flex', alignItems: 'center', gap: 1.5, flexWrap: 'wrap' }}>
            <Button component="label" variant="outlined" startIcon={<UploadFileIcon />} disabled={disabled}>
                选择文件
                <input hidden type="file" accept={action.accept?.map((a) => `.${a}`).join(',')} onChange={onChange} />
            </Button>
            <Typography variant="body2" data-testid="upload-file-name" noWrap sx={{ minWidth: 0 }}>
                {file ? `${file.name}（${sizeText(file.size)}）` : '未选择文件'}
            </Typography>
        </Box>
    );
}

function UploadProgress({ progress }: { progress: number }) {
    const percent = Math.round(progress * 100);
    return (
        <Box>
            <LinearProgress variant="determinate" value={percent} aria-label="上传进度" />
            <Typography variant="caption" color="text.secondary">
                上传中 {percent}%
            </Typography>
        </Box>
    );
}
