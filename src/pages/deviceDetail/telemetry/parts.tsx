import type { ReactNode } from 'react';
import InboxIcon from '@mui/icons-material/Inbox';
import {
    Alert,
    Box,
    Button,
    LinearProgress,
    Table,
    TableBody,
    TableCell,
    TableContainer,
    TableHead,
    TablePagination,
    TableRow,
    Typography,
} from '@mui/material';
import { asText, errorText, type MessageRecord } from './api';

/** The '暂无数据' state of a table, with what to do next when there is something to say. */
export function EmptyState({ text = '暂无数据', hint }: { text?: string; hint?: ReactNode }) {
    return (
        <Box sx={{ textAlign: 'center', py: 5, color: 'text.secondary' }} role="status">
            <InboxIcon sx={{ fontSize: 48, opacity: 0.4 }} />
            <Typography variant="body1" sx={{ mt: 1 }}>
                {text}
            </Typography>
            {hint ? (
                <Typography variant="body2" sx={{ mt: 0.5 }}>
                    {hint}
                </Typography>
            ) : null}
        </Box>
    );
}

/** A failed load: the server's message and a retry. */
export function LoadError({ title, error, onRetry }: { title: string; error: unknown; onRetry?: () => void }) {
    return (
        <Alert
            severity="error"
            action={
                onRetry ? (
                    <Button color="inherit" size="small" onClick={onRetry}>
                        重试
                    </Button>
                ) : undefined
            }
        >
            {title}：{errorText(error)}
        </Alert>
    );
}

/** A JSON payload as preformatted text (never markup). */
export function DataText({ value }: { value: unknown }) {
    return (
        <Box
            component="pre"
            sx={{
                m: 0,
                fontFamily: 'monospace',
                fontSize: 12,
                whiteSpace: 'pre-wrap',
                wordBreak: 'break-all',
                maxHeight: 160,
                overflow: 'auto',
            }}
        >
            {asText(value)}
        </Box>
    );
}

interface MessageTableProps {
    label: string;
    rows: MessageRecord[] | undefined;
    loading: boolean;
    empty?: ReactNode;
    /** Shown in place of the rows when the load failed. */
    error?: ReactNode;
}

/** Messages a device reported: 时间 / 方法 / 数据 (run status, event manage, service calls, events). */
export function MessageTable({ label, rows, loading, empty, error }: MessageTableProps) {
    return (
        <Box>
            {loading ? <LinearProgress aria-label="加载中" sx={{ height: 2 }} /> : <Box sx={{ height: 2 }} />}
            <TableContainer>
                <Table size="small" aria-label={label} sx={{ minWidth: 640 }}>
                    <TableHead>
                        <TableRow sx={{ '& th': { whiteSpace: 'nowrap', fontWeight: 600 } }}>
                            <TableCell sx={{ width: 180 }}>时间</TableCell>
                            <TableCell sx={{ width: 240 }}>方法</TableCell>
                            <TableCell>数据</TableCell>
                        </TableRow>
                    </TableHead>
                    <TableBody>
                        {(rows ?? []).map((row) => (
                            <TableRow key={row.id} hover>
                                <TableCell sx={{ whiteSpace: 'nowrap', verticalAlign: 'top' }}>{row.time}</TableCell>
                                <TableCell sx={{ fontFamily: 'monospace', verticalAlign: 'top', whiteSpace: 'nowrap' }}>
                                    {row.method}
                                </TableCell>
                                <TableCell sx={{ verticalAlign: 'top' }}>
                                    <DataText value={row.data} />
                                </TableCell>
                            </TableRow>
                        ))}
                    </TableBody>
                </Table>
            </TableContainer>
            {error ? (
                <Box sx={{ mt: 1 }}>{error}</Box>
            ) : !loading && rows && rows.length === 0 ? (
                (empty ?? <EmptyState />)
            ) : null}
        </Box>
    );
}

/** A toolbar line above a table: a title on the left, actions on the right (a child with mr: 'auto' goes left). */
export function TabToolbar({ title, children }: { title?: ReactNode; children?: ReactNode }) {
    return (
        <Box
            sx={{ display: 'flex', alignItems: 'center', justifyContent: 'flex-end', gap: 1, flexWrap: 'wrap', mb: 1 }}
        >
            {title ? (
                <Typography variant="subtitle1" component="h3" sx={{ fontWeight: 600, mr: 'auto' }}>
                    {title}
                </Typography>
            ) : null}
            {children}
        </Box>
    );
}

const PAGER_LABELS: Record<string, string> = { first: '第一页', last: '最后一页', next: '下一页', previous: '上一页' };

interface PagerProps {
    total: number;
    /** 0-based page. */
    page: number;
    pageSize: number;
    pageSizes: number[];
    onPage: (page: number) => void;
    onPageSize?: (size: number) => void;
}

/** MUI's pager in Chinese: 每页条数, 第 a-b 条，共 n 条, 上一页 / 下一页. */
export function Pager({ total, page, pageSize, pageSizes, onPage, onPageSize }: PagerProps) {
    const last = Math.max(0, Math.ceil(total / pageSize) - 1);
    return (
        <TablePagination
            component="div"
            count={total}
            page={Math.min(page, last)}
            rowsPerPage={pageSize}
            rowsPerPageOptions={pageSizes.length > 1 ? pageSizes : []}
            onPageChange={(_, next) => onPage(next)}
            onRowsPerPageChange={(e) => onPageSize?.(Number(e.target.value))}
            labelRowsPerPage="每页条数"
            labelDisplayedRows={({ from, to, count }) => `第 ${from}-${to} 条，共 ${count} 条`}
            getItemAriaLabel={(type) => PAGER_LABELS[type] ?? type}
        />
    );
}
