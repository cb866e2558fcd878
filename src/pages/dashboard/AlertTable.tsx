import { useCallback, useEffect } from 'react';
import {
    Alert,
    Box,
    Button,
    Card,
    Chip,
    LinearProgress,
    Skeleton,
    Table,
    TableBody,
    TableCell,
    TableContainer,
    TableHead,
    TablePagination,
    TableRow,
    Typography,
} from '@mui/material';
import { useSearchParams } from 'react-router-dom';
import { ALERT_PAGE_PARAM, ALERT_PAGE_SIZE, alertPageOf, errorText, useAlertEvents, type AlertEvent } from './api';
import { ALERT_LEVELS } from './levels';

/** SPEC.md §9: the alert time is shown with its last 4 characters (the milliseconds, '.SSS') trimmed. */
export const trimAlertTime = (timestamp: string | null | undefined) =>
    timestamp && timestamp.length > 4 ? timestamp.slice(0, -4) : (timestamp ?? '');

const COLUMNS = ['告警级别', '设备名称', '告警内容', '所属项目', '告警时间', '状态'];

function LevelChip({ type }: { type: AlertEvent['type'] }) {
    const level = ALERT_LEVELS.find((l) => l.type === Number(type));
    if (!level) return <Chip size="small" label={String(type)} />;
    return (
        <Chip
            size="small"
            label={level.label}
            sx={{
                bgcolor: `${level.color}1f`,
                color: level.color,
                fontWeight: 600,
                border: `1px solid ${level.color}66`,
            }}
        />
    );
}

function StatusText({ status }: { status: AlertEvent['status'] }) {
    const handled = Number(status) === 1;
    return (
        <Box component="span" sx={{ display: 'inline-flex', alignItems: 'center', gap: 0.75, whiteSpace: 'nowrap' }}>
            <Box
                component="span"
                sx={{ width: 8, height: 8, borderRadius: '50%', bgcolor: handled ? 'success.main' : 'warning.main' }}
            />
            {handled ? '已处理' : '待处理'}
        </Box>
    );
}

/** 告警事件: the platform's alert events, newest first, 10 a page (GET /api/event/list). */
export function AlertTable() {
    const [search, setSearch] = useSearchParams();
    const page = alertPageOf(search);
    const { data, error, isPending, isFetching, isPlaceholderData, refetch } = useAlertEvents(page);
    const setPage = useCallback(
        (n: number) =>
            setSearch(
                (current) => {
                    const next = new URLSearchParams(current);
                    if (n <= 1) next.delete(ALERT_PAGE_PARAM);
                    else next.set(ALERT_PAGE_PARAM, String(n));
                    return next;
                },
                { replace: false },
            ),
        [setSearch],
    );

    // A bookmarked page past the end (alerts since removed) goes to the last page that has rows.
    const rows = data?.records;
    const total = data?.total ?? 0;
    useEffect(() => {
        if (isFetching || !rows || rows.length > 0 || page <= 1 || !total) return;
        setPage(Math.ceil(total / ALERT_PAGE_SIZE));
    }, [rows, total, isFetching, page, setPage]);

    return (
        <Card variant="outlined" component="section" aria-labelledby="dashboard-alerts">
            <Box sx={{ px: 2, pt: 1.5, pb: 1, display: 'flex', alignItems: 'baseline', gap: 1 }}>
                <Typography id="dashboard-alerts" variant="h6" component="h2" sx={{ fontSize: 17, fontWeight: 600 }}>
                    告警事件
                </Typography>
                {data ? (
                    <Typography variant="body2" color="text.secondary">
                        共 {total} 条
                    </Typography>
                ) : null}
            </Box>
            {error && !data ? (
                <Alert
                    severity="error"
                    sx={{ mx: 2, mb: 2 }}
                    action={
                        <Button color="inherit" size="small" disabled={isFetching} onClick={() => void refetch()}>
                            重试
                        </Button>
                    }
                >
                    告警事件加载失败：{errorText(error)}
                </Alert>
            ) : (
                <>
                    <Box sx={{ height: 4 }}>{isFetching && data ? <LinearProgress /> : null}</Box>
                    <TableContainer>
                        <Table size="small" aria-label="告警事件" sx={{ opacity: isPlaceholderData ? 0.6 : 1 }}>
                            <TableHead>
                                <TableRow>
                                    {COLUMNS.map((c) => (
                                        <TableCell key={c} sx={{ whiteSpace: 'nowrap', fontWeight: 600 }}>
                                            {c}
                                        </TableCell>
                                    ))}
                                </TableRow>
                            </TableHead>
                            <TableBody>
                                {isPending ? (
                                    Array.from({ length: 3 }, (_, i) => (
                                        <TableRow key={i}>
                                            <TableCell colSpan={COLUMNS.length}>
                                                <Skeleton aria-label="告警事件加载中" />
                                            </TableCell>
                                        </TableRow>
                                    ))
                                ) : rows && rows.length > 0 ? (
                                    rows.map((row) => (
                                        <TableRow key={row.id} hover>
                                            <TableCell>
                                                <LevelChip type={row.type} />
                                            </TableCell>
                                            <TableCell sx={{ maxWidth: 180, wordBreak: 'break-all' }}>
                                                {row.deviceName}
                                            </TableCell>
                                            <TableCell sx={{ maxWidth: 320, wordBreak: 'break-all' }}>
                                                {row.params || '—'}
                                            </TableCell>
                                            <TableCell sx={{ maxWidth: 160 }}>{row.projectName || '—'}</TableCell>
                                            <TableCell sx={{ whiteSpace: 'nowrap' }}>
                                                {trimAlertTime(row.timestamp)}
                                            </TableCell>
                                            <TableCell>
                                                <StatusText status={row.status} />
                                            </TableCell>
                                        </TableRow>
                                    ))
                                ) : (
                                    <TableRow>
                                        <TableCell colSpan={COLUMNS.length} sx={{ textAlign: 'center', py: 4 }}>
                                            <Typography color="text.secondary">暂无告警事件</Typography>
                                        </TableCell>
                                    </TableRow>
                                )}
                            </TableBody>
                        </Table>
                    </TableContainer>
                    {total > 0 ? (
                        <TablePagination
                            component="div"
                            count={total}
                            page={page - 1}
                            rowsPerPage={ALERT_PAGE_SIZE}
                            rowsPerPageOptions={[]}
                            onPageChange={(_, n) => setPage(n + 1)}
                            labelDisplayedRows={({ from, to, count }) => `第 ${from}-${to} 条，共 ${count} 条`}
                            getItemAriaLabel={(type) =>
                                type === 'next'
                                    ? '下一页'
                                    : type === 'previous'
                                      ? '上一页'
                                      : type === 'first'
                                        ? '第一页'
                                        : '最后一页'
                            }
                            disabled={isFetching}
                        />
                    ) : null}
                </>
            )}
        </Card>
    );
}
