import { useEffect, useMemo, useState } from 'react';
import {
    Alert,
    Box,
    Button,
    Card,
    CardContent,
    InputAdornment,
    LinearProgress,
    List,
    ListItemButton,
    ListItemText,
    TextField,
    Typography,
} from '@mui/material';
import SearchIcon from '@mui/icons-material/Search';
import MarkdownIt from 'markdown-it';
import { useSearchParams } from 'react-router-dom';
import type { Section } from '../vocabulary';

type MarkdownSpec = Extract<Section, { kind: 'markdown' }>;

export interface Heading {
    id: string;
    level: number;
    text: string;
}

/** One heading's stretch of the document: its heading and the plain text under it (for search). */
interface Part {
    heading: Heading;
    text: string;
}

// Names and samples in the documents are text: raw HTML is shown as typed, never interpreted.
const md = new MarkdownIt({ html: false, linkify: true, typographer: false });

/**
 * The document's HTML with ids on its h2 / h3 (h-1, h-2, … in order, so links to them stay stable while text
 * changes), its headings for the table of contents and its parts for search. A fence's info string keeps only its
 * language (```js test → js): the rest is for the sample test.
 */
export function renderMarkdown(source: string): { html: string; headings: Heading[]; parts: Part[] } {
    const tokens = md.parse(source, {});
    const headings: Heading[] = [];
    const parts: Part[] = [];
    let current: Part | undefined;
    tokens.forEach((token, i) => {
        if (token.type === 'heading_open' && (token.tag === 'h2' || token.tag === 'h3')) {
            const heading: Heading = {
                id: `h-${headings.length + 1}`,
                level: token.tag === 'h2' ? 2 : 3,
                text: tokens[i + 1]?.content ?? '',
            };
            token.attrSet('id', heading.id);
            headings.push(heading);
            current = { heading, text: '' };
            parts.push(current);
        } else if (token.type === 'fence') {
            token.info = token.info.trim().split(/\s+/)[0] ?? '';
            if (current) current.text += `\n${token.content}`;
        } else if (token.type === 'inline' && current && tokens[i - 1]?.type !== 'heading_open') {
            current.text += `\n${token.content}`;
        }
    });
    return { html: md.renderer.render(tokens, md.options, {}), headings, parts };
}

/** Up to 60 characters around the first occurrence of `q` in `text`. */
function snippet(text: string, q: string): string {
    const flat = text.replace(/\s+/g, ' ');
    const at = flat.toLowerCase().indexOf(q.toLowerCase());
    const start = Math.max(0, at - 20);
    return `${start > 0 ? '…' : ''}${flat.slice(start, at + q.length + 40)}${at + q.length + 40 < flat.length ? '…' : ''}`;
}

/** The document's text, loaded when the section shows; `retry` loads it again after a failure. */
function useMarkdownSource(section: MarkdownSpec) {
    const [source, setSource] = useState<string | undefined>();
    const [failed, setFailed] = useState<string | undefined>();
    const [attempt, setAttempt] = useState(0);

    useEffect(() => {
        let live = true;
        setFailed(undefined);
        section
            .load()
            .then((loaded) => {
                if (live) setSource(typeof loaded === 'string' ? loaded : loaded.default);
            })
            .catch((err: unknown) => {
                if (live) setFailed((err as Error)?.message || '系统错误');
            });
        return () => {
            live = false;
        };
    }, [section, attempt]);

    return { source, failed, retry: () => setAttempt((n) => n + 1) };
}

type Doc = ReturnType<typeof renderMarkdown>;

/** The parts whose heading or text holds `q` (any case); undefined when there is no search. */
export function searchHits(doc: Doc | undefined, q: string): Part[] | undefined {
    const needle = q.trim().toLowerCase();
    if (!doc || !needle) return undefined;
    return doc.parts.filter(
        (p) => p.heading.text.toLowerCase().includes(needle) || p.text.toLowerCase().includes(needle),
    );
}

/** The search box's text and the search in the URL (`?q=`), replaced as the user types. */
function useDocSearch(doc: Doc | undefined) {
    const [search, setSearch] = useSearchParams();
    const q = search.get('q') ?? '';
    const [typed, setTyped] = useState(q);
    const setQuery = (value: string) => {
        setTyped(value);
        setSearch(
            (now) => {
                const next = new URLSearchParams(now);
                if (value.trim()) next.set('q', value.trim());
                else next.delete('q');
                return next;
            },
            { replace: true },
        );
    };
    const hits = useMemo(() => searchHits(doc, q), [doc, q]);
    return { q, typed, setQuery, hits };
}

/** A chosen heading: into the hash (so the link can be kept) and scrolled to. */
function goToHeading(id: string) {
    window.history.replaceState(window.history.state, '', `${window.location.pathname}${window.location.search}#${id}`);
    document.getElementById(id)?.scrollIntoView?.({ behavior: 'smooth', block: 'start' });
}

/**
 * `markdown`: a document loaded lazily (its text is not in the first screen's code), with a table of contents
 * beside it and a search box; the search lives in the URL (`?q=`), a chosen heading in the hash (#h-3).
 */
export default function MarkdownSection({ section }: { section: MarkdownSpec }) {
    const { source, failed, retry } = useMarkdownSource(section);
    const doc = useMemo(() => (source === undefined ? undefined : renderMarkdown(source)), [source]);
    const search = useDocSearch(doc);

    // A bookmarked heading (#h-3) is scrolled to once the document is there.
    useEffect(() => {
        if (!doc) return;
        const id = window.location.hash.slice(1);
        if (id) document.getElementById(id)?.scrollIntoView?.({ block: 'start' });
    }, [doc]);

    if (failed) {
        return (
            <Alert
                severity="error"
                action={
                    <Button color="inherit" size="small" onClick={retry}>
                        重试
                    </Button>
                }
            >
                {section.title ?? '文档'}加载失败：{failed}
            </Alert>
        );
    }
    if (!doc) {
        return (
            <Box role="status" aria-label="文档加载中">
                <LinearProgress />
            </Box>
        );
    }
    const toc = section.toc !== false;
    return (
        <Box
            sx={{
                display: 'grid',
                gap: 2,
                gridTemplateColumns: { xs: '1fr', md: toc ? '260px minmax(0, 1fr)' : '1fr' },
                alignItems: 'start',
            }}
        >
            {toc ? <Contents doc={doc} searchable={section.search !== false} {...search} /> : null}
            <Card variant="outlined" component="article" aria-label={section.title}>
                <CardContent
                    sx={articleSx}
                    // The HTML comes from markdown-it with raw HTML disabled: the document's text is escaped.
                    dangerouslySetInnerHTML={{ __html: doc.html }}
                />
            </Card>
        </Box>
    );
}

interface ContentsProps extends ReturnType<typeof useDocSearch> {
    doc: Doc;
    searchable: boolean;
}

/** The table of contents beside the document, with the search box over it; a search shows its hits instead. */
function Contents({ doc, searchable, q, typed, setQuery, hits }: ContentsProps) {
    return (
        <Card
            variant="outlined"
            component="nav"
            aria-label="目录"
            sx={{
                position: { md: 'sticky' },
                top: { md: 72 },
                maxHeight: { md: 'calc(100vh - 96px)' },
                overflow: 'auto',
            }}
        >
            <CardContent sx={{ display: 'flex', flexDirection: 'column', gap: 1 }}>
                {searchable ? (
                    <TextField
                        size="small"
                        placeholder="搜索本文档"
                        value={typed}
                        onChange={(e) => setQuery(e.target.value)}
                        slotProps={{
                            htmlInput: { 'aria-label': '搜索文档' },
                            input: {
                                startAdornment: (
                                    <InputAdornment position="start">
                                        <SearchIcon fontSize="small" />
                                    </InputAdornment>
                                ),
                            },
                        }}
                    />
                ) : null}
                {hits ? <SearchHits hits={hits} q={q.trim()} /> : <HeadingList headings={doc.headings} />}
            </CardContent>
        </Card>
    );
}

function SearchHits({ hits, q }: { hits: Part[]; q: string }) {
    return (
        <Box role="region" aria-label="搜索结果">
            <Typography variant="body2" color="text.secondary" sx={{ mb: 0.5 }}>
                {hits.length ? `找到 ${hits.length} 个章节` : `没有找到“${q}”`}
            </Typography>
            <List dense disablePadding>
                {hits.map((p) => (
                    <ListItemButton key={p.heading.id} onClick={() => goToHeading(p.heading.id)}>
                        <ListItemText
                            primary={p.heading.text}
                            secondary={p.text.toLowerCase().includes(q.toLowerCase()) ? snippet(p.text, q) : undefined}
                        />
                    </ListItemButton>
                ))}
            </List>
        </Box>
    );
}

function HeadingList({ headings }: { headings: Heading[] }) {
    return (
        <List dense disablePadding>
            {headings.map((h) => (
                <ListItemButton key={h.id} onClick={() => goToHeading(h.id)} sx={{ pl: h.level === 3 ? 4 : 2 }}>
                    <ListItemText
                        primary={h.text}
                        slotProps={{ primary: { variant: 'body2', fontWeight: h.level === 2 ? 600 : 400 } }}
                    />
                </ListItemButton>
            ))}
        </List>
    );
}

const articleSx = {
    px: { xs: 2, md: 4 },
    lineHeight: 1.8,
    '& h1': { fontSize: 26, mt: 0 },
    '& h2': { fontSize: 20, mt: 4, pb: 0.5, borderBottom: 1, borderColor: 'divider', scrollMarginTop: 80 },
    '& h3': { fontSize: 17, mt: 3, scrollMarginTop: 80 },
    '& pre': { bgcolor: 'grey.100', p: 1.5, borderRadius: 1, overflowX: 'auto', fontSize: 13, lineHeight: 1.5 },
    '& code': { fontFamily: 'ui-monospace, Menlo, Consolas, monospace', fontSize: '0.92em' },
    '& :not(pre) > code': { bgcolor: 'grey.100', px: 0.5, borderRadius: 0.5 },
    '& table': { borderCollapse: 'collapse', my: 1, display: 'block', overflowX: 'auto', maxWidth: '100%' },
    '& td code': { wordBreak: 'break-all' },
    '& th, & td': { border: 1, borderColor: 'divider', px: 1.5, py: 0.75, textAlign: 'left' },
    '& th': { bgcolor: 'action.hover' },
    '& blockquote': { borderLeft: 4, borderColor: 'primary.light', m: 0, pl: 2, color: 'text.secondary' },
} as const;
