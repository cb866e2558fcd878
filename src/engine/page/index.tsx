/**
 * A declared screen (PageSpec): the record loaded from the route, a header (title, status chip, fields, actions),
 * tabs kept in the URL, sections. The dashboard and overviews are pages without a record or tabs.
 */
import { useMemo, type ReactNode } from 'react';
import {
    Alert,
    AlertTitle,
    Box,
    Breadcrumbs,
    Button,
    Card,
    CardContent,
    Chip,
    LinearProgress,
    Link as MuiLink,
    Tab,
    Tabs,
    Typography,
} from '@mui/material';
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
import { ParamsBar } from './ParamsBar';
import { FieldGrid, Sections } from './Sections';
import { useTab } from './tabs';

export { Sections, FieldGrid } from './Sections';

/** The page's own calls (`load`), answered by name into `scope.data`; they wait for the record their params read. */
function useLoads(page: PageSpec, scope: Scope, ready = true) {
    const dataProvider = useDataProvider<PlatformDataProvider>();
    const definition = useOptionalDefinition();
    const entries = Object.entries(page.load ?? {});
    const answers = useQueries({
        queries: entries.map(([, ref]) => ({
            queryKey: callKey(callResource(ref, definition?.name), ref, callParams(ref, scope)),
            queryFn: ({ signal }: { signal: AbortSignal }) =>
                runCall(dataProvider, ref, scope, definition?.name, { signal }),
            enabled: ready,
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
        <Card variant="outlined" component="section" aria-label={title}>
            <CardContent sx={{ display: 'flex', flexDirection: 'column', gap: 1.5 }}>
                <Box sx={{ display: 'flex', alignItems: 'center', gap: 1.5, flexWrap: 'wrap' }}>
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

/** 产品管理 / 产品详情: the list the page belongs to, then the page. */
function Crumbs({ page, scope }: { page: PageSpec; scope: Scope }) {
    if (!page.back) return null;
    return (
        <Breadcrumbs aria-label="breadcrumb">
            <MuiLink component={Link} to={of(page.back.to, scope)} underline="hover" color="inherit">
                {page.back.label}
            </MuiLink>
            <Typography color="text.primary">{page.crumb ?? of(page.title, scope)}</Typography>
        </Breadcrumbs>
    );
}

function BackLink({ page, scope }: { page: PageSpec; scope: Scope }) {
    if (!page.back) return null;
    return (
        <MuiLink component={Link} to={of(page.back.to, scope)}>
            返回{page.back.label}
        </MuiLink>
    );
}

const isNotFound = (error: unknown) =>
    (error as { status?: number } | undefined)?.status === 404 ||
    /不存在/.test(error instanceof Error ? error.message : '');

/** The record is missing (no id, a bad id, or the platform says it does not exist), or failed to load. */
function Trouble({
    page,
    scope,
    missing,
    error,
    retry,
}: {
    page: PageSpec;
    scope: Scope;
    missing?: string;
    error?: unknown;
    retry: () => void;
}) {
    const definition = useOptionalDefinition();
    const gone = missing !== undefined || isNotFound(error);
    const text = missing ?? (gone && page.record?.notFound ? of(page.record.notFound, scope) : undefined);
    return (
        <Box sx={{ p: { xs: 1, md: 2 }, display: 'flex', flexDirection: 'column', gap: 2 }}>
            <Crumbs page={page} scope={scope} />
            {gone ? (
                <Alert severity="warning">
                    <AlertTitle>{page.record?.notFoundTitle ?? `${definition?.label ?? ''}不存在`}</AlertTitle>
                    {text ?? '该记录不存在或已被删除'}。 <BackLink page={page} scope={scope} />
                </Alert>
            ) : (
                <Alert
                    severity="error"
                    action={
                        <Button color="inherit" size="small" onClick={retry}>
                            重试
                        </Button>
                    }
                >
                    <AlertTitle>{of(page.title, scope)}加载失败</AlertTitle>
                    {(error as Error)?.message || '系统错误'}。 <BackLink page={page} scope={scope} />
                </Alert>
            )}
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
                        sx={{
                            borderBottom: 1,
                            borderColor: 'divider',
                            mb: 2,
                            '& .MuiTab-root': { textTransform: 'none' },
                        }}
                    >
                        {tabs.map((t) => (
                            <Tab key={t.key} value={t.key} label={t.label} />
                        ))}
                    </Tabs>
                    {current ? (
                        <Box role="tabpanel" aria-label={current.label}>
                            <Sections key={current.key} sections={current.sections} />
                        </Box>
                    ) : null}
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
    const missing = page.record?.missing?.(base);
    const record = useCall<unknown>(page.record, base, { enabled: missing === undefined, retry: false });
    const mapped = useMemo(
        (): Row => (page.record?.map ? page.record.map(record.data) : ((record.data as Row) ?? {})),
        [page.record, record.data],
    );
    const withRecord = useMemo(() => ({ ...base, record: mapped }), [base, mapped]);
    const data = useLoads(page, withRecord, !page.record || record.isSuccess);
    const scope = useMemo(() => ({ ...withRecord, data }), [withRecord, data]);
    const value = useMemo(() => ({ record: scope.record, data: scope.data, page: scope.record }), [scope]);

    const title = of(page.title, scope);
    if (page.record && (missing !== undefined || record.isError)) {
        return (
            <Trouble
                page={page}
                scope={scope}
                missing={missing}
                error={record.error}
                retry={() => void record.refetch()}
            />
        );
    }
    if (page.record && record.isPending) {
        return (
            <Box sx={{ p: 2 }}>
                <Title title={title} />
                {page.record.loading ? (
                    <Typography color="text.secondary" sx={{ mb: 1 }}>
                        {page.record.loading}
                    </Typography>
                ) : null}
                <LinearProgress aria-label="加载中" />
            </Box>
        );
    }
    return (
        <ScopeProvider value={value}>
            <Title title={title} />
            <Box sx={{ p: { xs: 1, md: 2 }, display: 'flex', flexDirection: 'column', gap: 2, minWidth: 0 }}>
                <Crumbs page={page} scope={scope} />
                {page.header ? (
                    <Header page={page} scope={scope} />
                ) : (
                    <Typography variant="h5" component="h1" sx={{ fontWeight: 600 }}>
                        {title}
                    </Typography>
                )}
                {page.params?.length ? <ParamsBar params={page.params} scope={scope} /> : null}
                <Body page={page} scope={scope} />
            </Box>
        </ScopeProvider>
    );
}
