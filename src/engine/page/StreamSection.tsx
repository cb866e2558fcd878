import { useContext, useEffect, useRef, useState } from 'react';
import {
    Box,
    Button,
    Card,
    CardContent,
    Chip,
    Table,
    TableBody,
    TableCell,
    TableHead,
    TableRow,
    Typography,
} from '@mui/material';
import { DataProviderContext, RecordContextProvider } from 'react-admin';
import { callName, callParams, callResource } from '../calls';
import type { PlatformDataProvider } from '../choices';
import { useOptionalDefinition } from '../context';
import { renderField } from '../fields';
import { resolveColumns } from '../list';
import type { Row, Scope, Section } from '../vocabulary';

type StreamSpec = Extract<Section, { kind: 'stream' }>;
type State = 'connecting' | 'open' | 'closed';

const STATE_TEXT: Record<State, { label: string; color: 'default' | 'success' | 'warning' }> = {
    connecting: { label: '连接中', color: 'warning' },
    open: { label: '已连接', color: 'success' },
    closed: { label: '已断开，正在重连', color: 'default' },
};

/**
 * Live rows of a server-sent-event call (EventSource on the call's URL, the session cookie riding along): newest
 * first, at most `max`; 暂停 keeps the rows still while events keep counting, 清空 empties the table.
 */
export default function StreamSection({ section, scope }: { section: StreamSpec; scope: Scope }) {
    const dataProvider = useContext(DataProviderContext) as unknown as PlatformDataProvider;
    const definition = useOptionalDefinition();
    const url = dataProvider.url(
        callResource(section.source, definition?.name),
        callName(section.source, scope),
        callParams(section.source, scope),
    );
    const max = section.max ?? 200;
    const [rows, setRows] = useState<Row[]>([]);
    const [state, setState] = useState<State>('connecting');
    const [paused, setPaused] = useState(false);
    const [missed, setMissed] = useState(0);
    const pausedRef = useRef(paused);
    pausedRef.current = paused;

    useEffect(() => {
        setRows([]);
        setState('connecting');
        const source = new EventSource(url, { withCredentials: true });
        source.onopen = () => setState('open');
        source.onerror = () => setState(source.readyState === EventSource.CLOSED ? 'closed' : 'connecting');
        const onRow = (e: MessageEvent<string>) => {
            let row: Row;
            try {
                row = JSON.parse(e.data) as Row;
            } catch {
                return;
            }
            if (pausedRef.current) {
                setMissed((n) => n + 1);
                return;
            }
            setRows((list) => [row, ...list].slice(0, max));
        };
        source.addEventListener(section.event ?? 'message', onRow as EventListener);
        return () => source.close();
    }, [url, section.event, max]);

    const columns = resolveColumns(section.columns, definition);
    return (
        <Card variant="outlined" component="section" aria-label={section.title}>
            <CardContent sx={{ display: 'flex', flexDirection: 'column', gap: 1.5 }}>
                <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, flexWrap: 'wrap' }}>
                    {section.title ? (
                        <Typography variant="subtitle1" component="h2" sx={{ fontWeight: 600 }}>
                            {section.title}
                        </Typography>
                    ) : null}
                    <Chip size="small" label={STATE_TEXT[state].label} color={STATE_TEXT[state].color} />
                    <Box sx={{ flex: 1 }} />
                    <Button
                        size="small"
                        onClick={() => {
                            setPaused((p) => !p);
                            setMissed(0);
                        }}
                    >
                        {paused ? `继续${missed ? `（暂停期间 ${missed} 条）` : ''}` : '暂停'}
                    </Button>
                    <Button size="small" onClick={() => setRows([])} disabled={!rows.length}>
                        清空
                    </Button>
                </Box>
                <Box sx={{ overflowX: 'auto', maxHeight: 480 }}>
                    <Table size="small" stickyHeader aria-label={section.title}>
                        <TableHead>
                            <TableRow>
                                {columns.map(([source, field]) => (
                                    <TableCell key={source} sx={{ whiteSpace: 'nowrap' }}>
                                        {field.label}
                                    </TableCell>
                                ))}
                            </TableRow>
                        </TableHead>
                        <TableBody>
                            {rows.length === 0 ? (
                                <TableRow>
                                    <TableCell
                                        colSpan={columns.length}
                                        sx={{ color: 'text.secondary', textAlign: 'center' }}
                                    >
                                        {section.empty ?? '等待消息…'}
                                    </TableCell>
                                </TableRow>
                            ) : (
                                rows.map((row, i) => (
                                    <RecordContextProvider key={rows.length - i} value={row}>
                                        <TableRow>
                                            {columns.map(([source, field]) => (
                                                <TableCell key={source} sx={{ maxWidth: 480, wordBreak: 'break-all' }}>
                                                    {renderField(source, field, 'cell')}
                                                </TableCell>
                                            ))}
                                        </TableRow>
                                    </RecordContextProvider>
                                ))
                            )}
                        </TableBody>
                    </Table>
                </Box>
            </CardContent>
        </Card>
    );
}
