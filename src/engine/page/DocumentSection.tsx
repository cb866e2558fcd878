import { Alert, Box, Button, LinearProgress, Typography } from '@mui/material';
import InboxIcon from '@mui/icons-material/Inbox';
import RefreshIcon from '@mui/icons-material/Refresh';
import { RecordContextProvider } from 'react-admin';
import { of } from '../actions/shared';
import { useCall } from '../calls';
import { useOptionalDefinition } from '../context';
import { readAt, resolveColumns } from '../list';
import type { Row, Scope, Section } from '../vocabulary';
import { Block, FieldGrid } from './Sections';

type DocumentSpec = Extract<Section, { kind: 'document' }>;

/** A JSON value as the person reads it: indented, `{}` for an empty object, 无 when absent. */
export function prettyJson(value: unknown): string {
    if (value === undefined || value === null) return '无';
    return JSON.stringify(value, null, 2);
}

/** One labelled JSON part: a scrollable, monospaced block. */
function JsonBlock({ label, value }: { label: string; value: unknown }) {
    const id = `json-${label}`;
    return (
        <Box sx={{ minWidth: 0, display: 'flex', flexDirection: 'column', gap: 0.5 }}>
            <Typography variant="body2" color="text.secondary" id={id}>
                {label}
            </Typography>
            <Box
                component="pre"
                aria-labelledby={id}
                sx={{
                    m: 0,
                    p: 1.5,
                    flex: 1,
                    minHeight: 64,
                    maxHeight: 320,
                    overflow: 'auto',
                    bgcolor: 'action.hover',
                    border: 1,
                    borderColor: 'divider',
                    borderRadius: 1,
                    fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace',
                    fontSize: 13,
                    whiteSpace: 'pre-wrap',
                    wordBreak: 'break-all',
                }}
            >
                {prettyJson(value)}
            </Box>
        </Box>
    );
}

/** `empty`'s text and hint in place of the document. */
function Empty({ spec, scope }: { spec: NonNullable<DocumentSpec['empty']>; scope: Scope }) {
    const hint = spec.hint ? of(spec.hint, scope) : undefined;
    return (
        <Box sx={{ textAlign: 'center', py: 5, color: 'text.secondary' }} role="status">
            <InboxIcon sx={{ fontSize: 56, opacity: 0.4 }} aria-hidden />
            <Typography variant="body1" sx={{ mt: 1 }}>
                {of(spec.text, scope)}
            </Typography>
            {hint ? (
                <Typography variant="body2" sx={{ mt: 0.5, maxWidth: 560, mx: 'auto' }}>
                    {hint}
                </Typography>
            ) : null}
        </Box>
    );
}

/** `document`: a record from its own call, its fields and JSON parts; loading, failure with 重试, and empty said. */
export default function DocumentSection({ section, scope }: { section: DocumentSpec; scope: Scope }) {
    const definition = useOptionalDefinition();
    const { data, isPending, isError, error, isFetching, refetch } = useCall<unknown>(section.source, scope);
    const answer = (data && typeof data === 'object' ? data : {}) as Row;
    const inner: Scope = { ...scope, data: { ...scope.data, document: answer } };
    let body;
    if (isPending) body = <LinearProgress aria-label={`${section.title ?? ''}加载中`} />;
    else if (isError && data === undefined)
        body = (
            <Alert
                severity="error"
                action={
                    <Button color="inherit" size="small" disabled={isFetching} onClick={() => void refetch()}>
                        重试
                    </Button>
                }
            >
                {section.title ?? ''}加载失败：{(error as Error)?.message || '系统错误'}
            </Alert>
        );
    else if (section.empty?.when(answer)) body = <Empty spec={section.empty} scope={inner} />;
    else
        body = (
            <>
                {section.fields?.length ? (
                    <RecordContextProvider value={answer}>
                        <FieldGrid fields={resolveColumns(section.fields, definition)} />
                    </RecordContextProvider>
                ) : null}
                <Box sx={{ display: 'grid', gap: 2, gridTemplateColumns: 'repeat(auto-fit, minmax(280px, 1fr))' }}>
                    {section.json.map((part) => (
                        <JsonBlock key={part.path} label={part.label} value={readAt(answer, part.path)} />
                    ))}
                </Box>
            </>
        );
    const again = section.refresh ? (
        <Button
            size="small"
            startIcon={<RefreshIcon />}
            disabled={isFetching}
            onClick={() => void refetch()}
            aria-label={section.refresh}
        >
            {section.refresh}
        </Button>
    ) : null;
    return (
        <Block title={section.title} actions={isPending ? undefined : section.actions} scope={inner} extra={again}>
            {body}
        </Block>
    );
}
