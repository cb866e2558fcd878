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

export interface Column<T> {
    key: string;
    label: string;
    render: (row: T) => ReactNode;
    width?: number | string;
    /** Keep the cell on one line (times, codes, actions). */
    nowrap?: boolean;
}

export interface Paging {
    page: number;
    perPage: number;
    total: number;
    options: number[];
    onPage: (page: number) => void;
    onPerPage: (perPage: number) => void;
}

interface SimpleTableProps<T> {
    /** Accessible name of the table. */
    label: string;
    columns: Array<Column<T>>;
    rows: T[] | undefined;
    rowKey: (row: T) => string | number;
    loading?: boolean;
    error?: unknown;
    onRetry?: () => void;
    empty: ReactNode;
    paging?: Paging;
    /** A fixed body height that scrolls (the staff table's 175). */
    maxHeight?: number;
}

/** Empty state of a table: an icon and a sentence saying what is missing (and, optionally, what to do). */
export function EmptyRows({ text, hint }: { text: string; hint?: ReactNode }) {
    return (
        <Box sx={{ textAlign: 'center', py: 3, color: 'text.secondary' }}>
            <InboxIcon sx={{ fontSize: 40, opacity: 0.4 }} />
            <Typography variant="body2">{text}</Typography>
            {hint ? (
                <Typography variant="caption" component="div" sx={{ mt: 0.5 }}>
                    {hint}
                </Typography>
            ) : null}
        </Box>
    );
}

/**
 * A plain table for the overview's lists, which are custom calls rather than react-admin resources: loading bar,
 * error with retry, empty state, optional pager. Cells render values as text (React escapes them).
 */
export function SimpleTable<T>({
    label,
    columns,
    rows,
    rowKey,
    loading,
    error,
    onRetry,
    empty,
    paging,
    maxHeight,
}: SimpleTableProps<T>) {
    if (error && !rows) {
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
                {`${label}加载失败：${(error instanceof Error && error.message) || '查询失败'}`}
            </Alert>
        );
    }
    return (
        <Box>
            <Box sx={{ height: 4 }}>{loading ? <LinearProgress aria-label={`${label}加载中`} /> : null}</Box>
            <TableContainer sx={maxHeight ? { height: maxHeight, overflowY: 'auto' } : undefined}>
                <Table size="small" aria-label={label} stickyHeader={!!maxHeight}>
                    <TableHead>
                        <TableRow>
                            {columns.map((c) => (
                                <TableCell
                                    key={c.key}
                                    sx={{ fontWeight: 600, whiteSpace: 'nowrap', width: c.width }}
                                    scope="col"
                                >
                                    {c.label}
                                </TableCell>
                            ))}
                        </TableRow>
                    </TableHead>
                    <TableBody>
                        {(rows ?? []).map((row) => (
                            <TableRow key={rowKey(row)} hover>
                                {columns.map((c) => (
                                    <TableCell
                                        key={c.key}
                                        sx={c.nowrap ? { whiteSpace: 'nowrap' } : { wordBreak: 'break-word' }}
                                    >
                                        {c.render(row)}
                                    </TableCell>
                                ))}
                            </TableRow>
                        ))}
                        {rows && rows.length === 0 ? (
                            <TableRow>
                                <TableCell colSpan={columns.length} sx={{ borderBottom: 'none' }}>
                                    {empty}
                                </TableCell>
                            </TableRow>
                        ) : null}
                    </TableBody>
                </Table>
            </TableContainer>
            {paging && paging.total > 0 ? (
                <TablePagination
                    component="div"
                    count={paging.total}
                    page={paging.page - 1}
                    rowsPerPage={paging.perPage}
                    rowsPerPageOptions={paging.options}
                    onPageChange={(_, next) => paging.onPage(next + 1)}
                    onRowsPerPageChange={(e) => paging.onPerPage(Number(e.target.value))}
                    labelRowsPerPage="每页行数:"
                    labelDisplayedRows={({ from, to, count }) => `${from}-${to} 共 ${count} 条`}
                    getItemAriaLabel={(type) =>
                        ({ first: '第一页', last: '最后一页', next: '下一页', previous: '上一页' })[type]
                    }
                />
            ) : null}
        </Box>
    );
}
