import { lazy, Suspense, useMemo, type ReactNode } from 'react';
import {
    Alert,
    Box,
    Card,
    CardContent,
    FormControlLabel,
    LinearProgress,
    Radio,
    RadioGroup,
    Tab,
    Tabs,
    Typography,
} from '@mui/material';
import InboxIcon from '@mui/icons-material/Inbox';
import { RecordContextProvider, useRecordContext } from 'react-admin';
import { useSearchParams } from 'react-router-dom';
import { widgets } from '../../widgets/registry';
import { ActionBar } from '../actions';
import { of } from '../actions/shared';
import { widgetFallback } from '../actions/fallback';
import { useCall } from '../calls';
import { useOptionalDefinition } from '../context';
import { renderField } from '../fields';
import { Counters, DataList, resolveColumns } from '../list';
import { useScope } from '../scope';
import type { FieldDefinition } from '../types';
import type { Action, Row, Scope, Section } from '../vocabulary';
import { FormSection } from './FormSection';
import {
    loadChartSection,
    loadDocumentSection,
    loadMarkdownSection,
    loadStreamSection,
    loadTimeGridSection,
} from './loaders';

const ChartSection = lazy(loadChartSection);
const StreamSection = lazy(loadStreamSection);
const MarkdownSection = lazy(loadMarkdownSection);
const DocumentSection = lazy(loadDocumentSection);
const TimeGridSection = lazy(loadTimeGridSection);

const CELL = { px: 2, py: 1.25, m: 0, borderBottom: 1, borderRight: 1, borderColor: 'divider', minWidth: 0 };

/** One label and value; a field whose label depends on the record (formLabel) says it per record. */
function FieldRow({ source, field }: { source: string; field: FieldDefinition }) {
    const record = useRecordContext<Row>() ?? {};
    const label = field.formLabel?.(record) ?? field.label;
    return (
        <>
            <Box component="dt" sx={{ ...CELL, bgcolor: 'action.hover', color: 'text.secondary' }}>
                {label}
            </Box>
            <Box component="dd" aria-label={label} sx={{ ...CELL, wordBreak: 'break-all' }}>
                {renderField(source, field)}
            </Box>
        </>
    );
}

/** Label and value cells of a record, `columns` pairs to a row. */
export function FieldGrid({ fields, columns = 2 }: { fields: Array<[string, FieldDefinition]>; columns?: 1 | 2 | 3 }) {
    return (
        <Box
            component="dl"
            sx={{
                display: 'grid',
                gridTemplateColumns: {
                    xs: 'minmax(96px, auto) 1fr',
                    md: `repeat(${columns}, minmax(120px, auto) 1fr)`,
                },
                borderTop: 1,
                borderLeft: 1,
                borderColor: 'divider',
                m: 0,
            }}
        >
            {fields.map(([source, field]) => (
                <FieldRow key={source} source={source} field={field} />
            ))}
        </Box>
    );
}

/** A titled block: the section's title and actions on one line, the body below. */
export function Block({
    title,
    actions,
    scope,
    extra,
    children,
}: {
    title?: string;
    actions?: Action[];
    scope: Scope;
    /** Beside the actions (a section's own 刷新). */
    extra?: ReactNode;
    children: ReactNode;
}) {
    return (
        <Card variant="outlined" component="section" aria-label={title}>
            <CardContent sx={{ display: 'flex', flexDirection: 'column', gap: 1.5 }}>
                {title || actions?.length || extra ? (
                    <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, flexWrap: 'wrap' }}>
                        {title ? (
                            <Typography variant="subtitle1" component="h2" sx={{ fontWeight: 600, flex: 1 }}>
                                {title}
                            </Typography>
                        ) : (
                            <Box sx={{ flex: 1 }} />
                        )}
                        {extra}
                        {actions?.length ? <ActionBar actions={actions} scope={scope} /> : null}
                    </Box>
                ) : null}
                {children}
            </CardContent>
        </Card>
    );
}

function WidgetSection({ section, scope }: { section: Extract<Section, { kind: 'widget' }>; scope: Scope }) {
    const Widget = widgets[section.widget];
    if (!Widget) throw new Error(`未注册的组件 ${section.widget}`);
    const props = section.props?.(scope) ?? {};
    const body = (
        <Suspense fallback={widgetFallback}>
            <Widget scope={scope} {...props} />
        </Suspense>
    );
    if (!section.title && !section.actions?.length) return body;
    return (
        <Block title={section.title} actions={section.actions} scope={scope}>
            {body}
        </Block>
    );
}

/** An icon, a text and a hint, centred: a note section's body, and a sourced section's empty state. */
export function NoteBody({ text, hint }: { text: string; hint?: string }) {
    return (
        <Box sx={{ textAlign: 'center', py: 6, color: 'text.secondary' }} role="status">
            <InboxIcon sx={{ fontSize: 56, opacity: 0.4 }} aria-hidden />
            <Typography variant="body1" sx={{ mt: 1 }}>
                {text}
            </Typography>
            {hint ? (
                <Typography variant="body2" sx={{ mt: 0.5, maxWidth: 560, mx: 'auto' }}>
                    {hint}
                </Typography>
            ) : null}
        </Box>
    );
}

type FieldsSection = Extract<Section, { kind: 'fields' }>;

/** `fields` with a `source`: the call's answer is the record its fields and actions see; null is the empty state. */
function SourcedFields({ section, scope }: { section: FieldsSection; scope: Scope }) {
    const definition = useOptionalDefinition();
    const answer = useCall<Row | null>(section.source, scope);
    const inner = useMemo(
        () => ({ ...scope, record: answer.data ?? {}, page: scope.page ?? scope.record }),
        [scope, answer.data],
    );
    let body: ReactNode;
    if (answer.isPending) body = <LinearProgress aria-label={`${section.title ?? ''}加载中`} />;
    else if (answer.isError)
        body = <Alert severity="error">加载失败：{(answer.error as Error)?.message || '查询失败'}</Alert>;
    else if (!answer.data)
        body = (
            <NoteBody
                text={section.empty ? of(section.empty.text, scope) : '暂无数据'}
                hint={section.empty?.hint ? of(section.empty.hint, scope) : undefined}
            />
        );
    else
        body = (
            <RecordContextProvider value={answer.data}>
                <FieldGrid fields={resolveColumns(section.fields, definition)} columns={section.columns} />
            </RecordContextProvider>
        );
    return (
        <Block title={section.title} actions={answer.isPending ? undefined : section.actions} scope={inner}>
            {body}
        </Block>
    );
}

/** A message in place of content: an icon, the text and a hint, centred. */
function NoteSection({ section, scope }: { section: Extract<Section, { kind: 'note' }>; scope: Scope }) {
    return (
        <Block title={section.title} scope={scope}>
            <NoteBody text={of(section.text, scope)} hint={section.hint ? of(section.hint, scope) : undefined} />
        </Block>
    );
}

/** Tabs inside a tab: the choice lives in the query param (the first tab leaves it out), the other params stay. */
function TabsSection({ section, scope }: { section: Extract<Section, { kind: 'tabs' }>; scope: Scope }) {
    const [search, setSearch] = useSearchParams();
    const tabs = section.tabs.filter((t) => !t.when || t.when(scope));
    const named = search.get(section.param);
    const current = tabs.find((t) => t.key === named) ?? tabs[0];
    if (!current) return null;
    const choose = (key: string) =>
        setSearch((now) => {
            const next = new URLSearchParams(now);
            if (key === tabs[0].key) next.delete(section.param);
            else next.set(section.param, key);
            return next;
        });
    return (
        <Box>
            <Tabs
                value={current.key}
                onChange={(_, key: string) => choose(key)}
                aria-label={section.label}
                variant="scrollable"
                allowScrollButtonsMobile
                sx={{ mb: 2, minHeight: 36, '& .MuiTab-root': { minHeight: 36, py: 0.5, textTransform: 'none' } }}
            >
                {tabs.map((t) => (
                    <Tab key={t.key} value={t.key} label={t.label} />
                ))}
            </Tabs>
            <Box role="tabpanel" aria-label={current.label}>
                <Sections key={current.key} sections={current.sections} />
            </Box>
        </Box>
    );
}

/** `switch`: a radio (or tabs) choosing one option's sections; the choice lives in the URL under `param`. */
function SwitchSection({ section }: { section: Extract<Section, { kind: 'switch' }> }) {
    const [search, setSearch] = useSearchParams();
    const chosen = section.options.find((o) => o.key === search.get(section.param)) ?? section.options[0];
    const choose = (key: string) =>
        setSearch((current) => {
            const next = new URLSearchParams(current);
            next.set(section.param, key);
            return next;
        });
    return (
        <Box sx={{ display: 'flex', flexDirection: 'column', gap: 1 }}>
            {section.input === 'tabs' ? (
                <Tabs
                    value={chosen?.key ?? false}
                    onChange={(_, key: string) => choose(key)}
                    aria-label={section.label}
                    sx={{ '& .MuiTab-root': { textTransform: 'none' } }}
                >
                    {section.options.map((o) => (
                        <Tab key={o.key} value={o.key} label={o.label} />
                    ))}
                </Tabs>
            ) : (
                <RadioGroup
                    row
                    aria-label={section.label}
                    value={chosen?.key ?? ''}
                    onChange={(e) => choose(e.target.value)}
                >
                    {section.options.map((o) => (
                        <FormControlLabel key={o.key} value={o.key} control={<Radio size="small" />} label={o.label} />
                    ))}
                </RadioGroup>
            )}
            {chosen ? <Sections key={chosen.key} sections={chosen.sections} /> : null}
        </Box>
    );
}

function OneSection({ section, scope }: { section: Section; scope: Scope }) {
    const definition = useOptionalDefinition();
    if (section.when && !section.when(scope)) return null;
    switch (section.kind) {
        case 'fields':
            if (section.source) return <SourcedFields section={section} scope={scope} />;
            return (
                <Block title={section.title} actions={section.actions} scope={scope}>
                    <RecordContextProvider value={scope.record}>
                        <FieldGrid fields={resolveColumns(section.fields, definition)} columns={section.columns} />
                    </RecordContextProvider>
                </Block>
            );
        case 'list':
            return section.title ? (
                <Block title={section.title} scope={scope}>
                    <DataList spec={section.list} label={section.title} />
                </Block>
            ) : (
                <DataList spec={section.list} />
            );
        case 'counters':
            // Cards (figures with icons) stand on their own; plain figures sit in a titled block.
            return section.items.some((item) => item.icon) ? (
                <Counters call={section.call} items={section.items} scope={scope} title={section.title} />
            ) : (
                <Block title={section.title} scope={scope}>
                    <Counters call={section.call} items={section.items} scope={scope} title={section.title} />
                </Block>
            );
        case 'chart':
            return (
                <Suspense fallback={widgetFallback}>
                    <ChartSection title={section.title} chart={section.chart} scope={scope} />
                </Suspense>
            );
        case 'widget':
            return <WidgetSection section={section} scope={scope} />;
        case 'actions':
            return (
                <Block title={section.title} actions={section.actions} scope={scope}>
                    {section.text ? (
                        <Typography variant="body2" color="text.secondary">
                            {typeof section.text === 'function' ? section.text(scope) : section.text}
                        </Typography>
                    ) : null}
                </Block>
            );
        case 'stream':
            return (
                <Suspense fallback={widgetFallback}>
                    <StreamSection section={section} scope={scope} />
                </Suspense>
            );
        case 'markdown':
            return (
                <Suspense fallback={widgetFallback}>
                    <MarkdownSection section={section} />
                </Suspense>
            );
        case 'note':
            return <NoteSection section={section} scope={scope} />;
        case 'document':
            return (
                <Suspense fallback={widgetFallback}>
                    <DocumentSection section={section} scope={scope} />
                </Suspense>
            );
        case 'timeGrid':
            return (
                <Suspense fallback={widgetFallback}>
                    <TimeGridSection section={section} scope={scope} />
                </Suspense>
            );
        case 'tabs':
            return <TabsSection section={section} scope={scope} />;
        case 'switch':
            return <SwitchSection section={section} />;
        case 'form':
            return <FormSection section={section} scope={scope} />;
        case 'notice':
            return (
                <Alert
                    severity={section.severity ?? 'info'}
                    action={section.actions?.length ? <ActionBar actions={section.actions} scope={scope} /> : undefined}
                >
                    {of(section.text, scope)}
                </Alert>
            );
        case 'row': {
            const widths = section.widths;
            return (
                <Box
                    sx={{
                        display: 'grid',
                        gap: 2,
                        gridTemplateColumns: {
                            xs: '1fr',
                            md: widths
                                ? widths.map((w) => `${w}fr`).join(' ')
                                : `repeat(${section.sections.length}, 1fr)`,
                        },
                        alignItems: 'stretch',
                    }}
                >
                    {section.sections.map((s, i) => (
                        // The cards of one row are as tall as the tallest.
                        <Box key={i} sx={{ minWidth: 0, '& > .MuiCard-root': { height: '100%' } }}>
                            <OneSection section={s} scope={scope} />
                        </Box>
                    ))}
                </Box>
            );
        }
    }
}

/** A column of sections (a tab's body, a page without tabs), each seeing the page's scope. */
export function Sections({ sections }: { sections: Section[] }) {
    const scope = useScope();
    return (
        <Box sx={{ display: 'flex', flexDirection: 'column', gap: 2 }}>
            {sections.map((section, i) => (
                <OneSection key={i} section={section} scope={scope} />
            ))}
        </Box>
    );
}
