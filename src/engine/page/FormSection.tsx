import { useMemo, useState } from 'react';
import { Alert, AlertTitle, Box, Button, Card, CardContent, LinearProgress, Typography } from '@mui/material';
import { useFormContext, type FieldValues } from 'react-hook-form';
import { Confirm, Form, useDataProvider } from 'react-admin';
import { ValidationError } from 'yup';
import { of, failureText, resolveInputs, useToast } from '../actions/shared';
import { runCall, useCall, useRefresh } from '../calls';
import type { PlatformDataProvider } from '../choices';
import { useOptionalDefinition } from '../context';
import { FormInput } from '../inputs';
import { useCan } from '../rights';
import type { FormValues } from '../types';
import type { FormResult, FormSection as Spec, FormSubmit, Scope } from '../vocabulary';

/**
 * The `form` section: inputs on the page, filled from `load`, and a row of buttons each submitting the values to its
 * own call after its own schema passed (its messages under the inputs). A button's confirmation is asked first; one
 * with `show` lays its answer (or the call's failure) under the form until the next run.
 */
export function FormSection({ section, scope }: { section: Spec; scope: Scope }) {
    const loaded = useCall(section.load, scope);
    const defaults = useMemo(
        () => (section.load && loaded.data === undefined ? undefined : (section.defaults?.(scope, loaded.data) ?? {})),
        // The starting values are made once per answer: typing is not undone by the scope changing around it.
        // eslint-disable-next-line react-hooks/exhaustive-deps
        [loaded.data, section],
    );
    return (
        <Card variant="outlined" component="section" aria-label={section.title}>
            <CardContent sx={{ display: 'flex', flexDirection: 'column', gap: 1.5 }}>
                {section.title ? (
                    <Typography variant="subtitle1" component="h2" sx={{ fontWeight: 600 }}>
                        {section.title}
                    </Typography>
                ) : null}
                {section.note ? (
                    <Typography variant="body2" color="text.secondary">
                        {of(section.note, scope)}
                    </Typography>
                ) : null}
                {loaded.error ? (
                    <Alert severity="error">{failureText(loaded.error, '加载失败')}</Alert>
                ) : defaults === undefined ? (
                    <LinearProgress aria-label="加载中" />
                ) : (
                    <Form defaultValues={defaults} noValidate>
                        <SectionBody section={section} scope={scope} />
                    </Form>
                )}
            </CardContent>
        </Card>
    );
}

function SectionBody({ section, scope }: { section: Spec; scope: Scope }) {
    const definition = useOptionalDefinition();
    const can = useCan();
    const inputs = useMemo(() => resolveInputs(section.fields, definition), [section.fields, definition]);
    const [result, setResult] = useState<FormResult | undefined>();
    return (
        <Box sx={{ display: 'flex', flexDirection: 'column' }}>
            {inputs.map(([source, field]) => (
                <FormInput key={source} source={source} field={field} />
            ))}
            <Box sx={{ display: 'flex', gap: 1, flexWrap: 'wrap', mt: 1 }}>
                {section.submits
                    .filter((submit) => can(submit.right))
                    .map((submit) => (
                        <SubmitButton key={submit.label} submit={submit} scope={scope} onResult={setResult} />
                    ))}
            </Box>
            {result ? (
                <Alert severity={result.severity} sx={{ mt: 2 }} role="status" aria-label={result.title}>
                    <AlertTitle>{result.title}</AlertTitle>
                    {result.body ? (
                        <Box
                            component="pre"
                            sx={{
                                m: 0,
                                whiteSpace: 'pre-wrap',
                                wordBreak: 'break-all',
                                fontFamily: 'monospace',
                                fontSize: 13,
                            }}
                        >
                            {result.body}
                        </Box>
                    ) : null}
                </Alert>
            ) : null}
        </Box>
    );
}

/** Checks the values with the submit's schema; its messages go under the inputs. Answers whether they passed. */
async function passes(
    submit: FormSubmit,
    values: FormValues,
    form: ReturnType<typeof useFormContext<FieldValues>>,
): Promise<boolean> {
    form.clearErrors();
    if (!submit.schema) return true;
    try {
        await submit.schema.validate(values, { abortEarly: false });
        return true;
    } catch (err) {
        if (!(err instanceof ValidationError)) throw err;
        for (const e of err.inner.length ? err.inner : [err])
            form.setError(e.path ?? 'root', { type: 'schema', message: e.message }, { shouldFocus: true });
        return false;
    }
}

function SubmitButton({
    submit,
    scope,
    onResult,
}: {
    submit: FormSubmit;
    scope: Scope;
    onResult: (r: FormResult | undefined) => void;
}) {
    const form = useFormContext();
    const dataProvider = useDataProvider<PlatformDataProvider>();
    const definition = useOptionalDefinition();
    const refresh = useRefresh();
    const toast = useToast();
    const [asking, setAsking] = useState(false);
    const [running, setRunning] = useState(false);

    const run = async () => {
        setAsking(false);
        const values = form.getValues() as FormValues;
        if (!(await passes(submit, values, form))) return;
        setRunning(true);
        try {
            const answer = await runCall(dataProvider, submit.call, { ...scope, values }, definition?.name);
            if (submit.show) onResult(submit.show(answer, scope));
            else toast(submit.success ?? '操作成功');
            void refresh(submit.refresh, definition?.name);
        } catch (err) {
            const text = failureText(err, submit.failure);
            if (submit.show) onResult({ severity: 'error', title: `${submit.label}失败`, body: text });
            else toast(text, 'error');
        } finally {
            setRunning(false);
        }
    };

    return (
        <>
            <Button
                variant={submit.primary ? 'contained' : 'outlined'}
                disabled={running}
                onClick={() => (submit.confirm ? setAsking(true) : void run())}
            >
                {running ? `${submit.label}中…` : submit.label}
            </Button>
            {submit.confirm ? (
                <Confirm
                    isOpen={asking}
                    title={submit.confirmTitle ?? '提示'}
                    content={of(submit.confirm, scope)}
                    confirm="确定"
                    cancel="取消"
                    onConfirm={() => void run()}
                    onClose={() => setAsking(false)}
                />
            ) : null}
        </>
    );
}
