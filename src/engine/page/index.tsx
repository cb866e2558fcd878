/**
 * A declared screen (PageSpec): the record loaded from the route, a header (title, status chip, fields, actions),
 * tabs kept in the URL, sections. The dashboard and overviews are pages without a record or tabs.
 */
import { useMemo, type ReactNode } from 'react';
import ArrowBackIcon from '@mui/icons-material/ArrowBack';
import { Alert, Box, Button, Card, CardContent, Chip, LinearProgress, Tab, Tabs, Typography } from '@mui/material';
import { useQueries } from '@tanstack/react-query';
import { RecordContextProvider, Title, useDataProvider } from 'react-admin';
import { Link, useParams, useSearchParams } from 'react-router-dom';
import { ActionBar } from '../actions';
import { of } from '../actions/shared';
import { callKey, callParams, callResource, runCall, useCall } from '../calls';
import type { PlatformDataProvider } from '../choices';
import { useOptionalDefinition } from '../context';
import { resolveColumns } from '../list';
import { ScopeProvider } from '../scope';
import type { FieldDefinition } from '../types';
import type { PageSpec, Row, Scope } from '../vocabulary';
import { FieldGrid, Sections } from './Sections';
import { useTab } from './tabs';

export { Sections, FieldGrid } from './Sections';

/** The page's own calls (`load`), answered by name into `scope.data`. */
function useLoads(page: PageSpec, scope: Scope) {
    const dataProvider = useDataProvider<PlatformDataProvider>();
    const definition = useOptionalDefinition();
    const entries = Object.entries(page.load ?? {});
    const answers = useQueries({
        queries: entries.map(([, ref]) => ({
            queryKey: callKey(callResource(ref, definition?.name), ref, callParams(ref, scope)),
            queryFn: ({ signal }: { signal: AbortSignal }) =>
                runCall(dataProvider, ref, scope, definition?.name, { signal }),
        })),
    });
    const data = Object.fromEntries(entries.map(([name], i) => [name, answers[i]?.data]));
    const key = JSON.stringify(answers.map((a) => a.dataUpdatedAt));
    // eslint-disable-next-line react-hooks/exhaustive-deps
    return useMemo(() => data, [key]);
}

function statusChip(field: FieldDefinition | undefined, value: unknown) {
    if (value === undefined || value === null || value === '') return null;
    const choice = field?.choices?.find((c) => String(c.id) === String(value));
    const color = (choice as { color?: string } | undefined)?.color as
        'default' | 'success' | 'warning' | 'error' | 'info' | 'primary' | undefined;
    return <Chip size="small" label={choice?.name ?? String(value)} color={color ?? 'default'} />;
}

function Header({ page, scope }: { page: PageSpec; scope: Scope }) {
    const definition = useOptionalDefinition();
    const header = page.header;
    const title = header?.title?.(scope) ?? of(page.title, scope);
    const status = header?.status;
    const fields = header?.fields ? resolveColumns(header.fields, definition) : [];
    return (
        <Card variant="outlined">
            <CardContent sx={{ display: 'flex', flexDirection: 'column', gap: 1.5 }}>
                <Box sx={{ display: 'flex', alignItems: 'center', gap: 1.5, flexWrap: 'wrap' }}>
                    {page.back ? (
                        <Button
                            component={Link}
                            to={of(page.back.to, scope)}
                            startIcon={<ArrowBackIcon />}
                            size="small"
                            sx={{ whiteSpace: 'nowrap' }}
                        >
                            {page.back.label}
                        </Button>
                    ) : null}
                    <Typography variant="h6" component="h1" sx={{ wordBreak: 'break-word' }}>
                        {title}
                    </Typography>
                    {status ? statusChip(definition?.fields[status], scope.record[status]) : null}
                    <Box sx={{ flex: 1 }} />
                    {header?.actions?.length ? <ActionBar actions={header.actions} scope={scope} /> : null}
                </Box>
                {fields.length ? (
                    <RecordContextProvider value={scope.record}>
                        <FieldGrid fields={fields} columns={3} />
                    </RecordContextProvider>
                ) : null}
            </CardContent>
        </Card>
    );
}

function NotFound({ text, page, scope }: { text: string; page: PageSpec; scope: Scope }) {
    return (
        <Box sx={{ p: 3 }}>
            <Alert
                severity="warning"
                action={
                    page.back ? (
                        <Button component={Link} to={of(page.back.to, scope)} color="inherit" size="small">
                            {page.back.label}
                        </Button>
                    ) : undefined
                }
            >
                {text}
            </Alert>
        </Box>
    );
}

function Body({ page, scope }: { page: PageSpec; scope: Scope }) {
    const { tabs, current, choose } = useTab(page, scope);
    return (
        <>
            {page.sections?.length ? <Sections sections={page.sections} /> : null}
            {tabs.length ? (
                <Box>
                    <Tabs
                        value={current?.key ?? false}
                        onChange={(_, key: string) => choose(key)}
                        variant="scrollable"
                        allowScrollButtonsMobile
                        sx={{ borderBottom: 1, borderColor: 'divider', mb: 2 }}
                    >
                        {tabs.map((t) => (
                            <Tab key={t.key} value={t.key} label={t.label} />
                        ))}
                    </Tabs>
                    {current ? <Sections key={current.key} sections={current.sections} /> : null}
                </Box>
            ) : null}
        </>
    );
}

/** A declared screen: its record and loads into the scope, then the header, the sections and the tabs. */
export function PageView({ page }: { page: PageSpec }): ReactNode {
    const params = useParams();
    const [search] = useSearchParams();
    const route = useMemo(() => ({ ...(params as Record<string, string>) }), [params]);
    const query = useMemo(() => Object.fromEntries(search.entries()), [search]);
    const base: Scope = useMemo(() => ({ record: {}, route, query }), [route, query]);
    const record = useCall<unknown>(page.record, base);
    const mapped = useMemo(
        (): Row => (page.record?.map ? page.record.map(record.data) : ((record.data as Row) ?? {})),
        [page.record, record.data],
    );
    const withRecord = useMemo(() => ({ ...base, record: mapped }), [base, mapped]);
    const data = useLoads(page, withRecord);
    const scope = useMemo(() => ({ ...withRecord, data }), [withRecord, data]);
    const value = useMemo(() => ({ record: scope.record, data: scope.data }), [scope]);

    const title = of(page.title, scope);
    if (page.record && record.isPending) {
        return (
            <Box sx={{ p: 2 }}>
                <Title title={title} />
                <LinearProgress aria-label="加载中" />
            </Box>
        );
    }
    if (page.record && record.isError) {
        const text = page.record.notFound ?? `加载失败：${(record.error as Error)?.message || '查询失败'}`;
        return <NotFound text={text} page={page} scope={scope} />;
    }
    return (
        <ScopeProvider value={value}>
            <Title title={title} />
            <Box sx={{ p: { xs: 1, md: 2 }, display: 'flex', flexDirection: 'column', gap: 2, minWidth: 0 }}>
                {page.header || page.back ? <Header page={page} scope={scope} /> : null}
                <Body page={page} scope={scope} />
            </Box>
        </ScopeProvider>
    );
}
