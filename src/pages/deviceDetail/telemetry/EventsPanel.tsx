import { useState } from 'react';
import RefreshIcon from '@mui/icons-material/Refresh';
import {
    Box,
    Button,
    LinearProgress,
    Table,
    TableBody,
    TableCell,
    TableContainer,
    TableHead,
    TableRow,
    ToggleButton,
    ToggleButtonGroup,
} from '@mui/material';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { EVENTS_PAGE_SIZE, TELEMETRY, usePlatform, type EventsPage } from './api';
import { DataText, EmptyState, LoadError, Pager, TabToolbar } from './parts';

/** SPEC.md "Device detail time range": hour, day, week, month; default hour. */
export const TIME_TYPES = [
    { id: 'hour', label: '1小时' },
    { id: 'day', label: '1天' },
    { id: 'week', label: '1周' },
    { id: 'month', label: '1个月' },
] as const;
type TimeType = (typeof TIME_TYPES)[number]['id'];

/**
 * The device's event messages within the last hour / day / week / month, newest first, 50 a page
 * (GET /api/device/events with timeType and nextPage).
 */
export function EventsPanel({ deviceId }: { deviceId: number }) {
    const platform = usePlatform();
    const [timeType, setTimeType] = useState<TimeType>('hour');
    const [page, setPage] = useState(0);
    const query = useQuery({
        queryKey: [TELEMETRY, 'events', deviceId, timeType, page],
        queryFn: async () =>
            (
                await platform.invoke<EventsPage>(TELEMETRY, 'events', {
                    deviceId,
                    timeType,
                    nextPage: page + 1,
                    pageSize: EVENTS_PAGE_SIZE,
                })
            ).data,
        placeholderData: keepPreviousData,
        retry: false,
        refetchOnWindowFocus: false,
    });
    const rows = query.data?.resultList ?? [];
    const label = TIME_TYPES.find((t) => t.id === timeType)!.label;

    return (
        <Box>
            <TabToolbar>
                <ToggleButtonGroup
                    size="small"
                    exclusive
                    value={timeType}
                    onChange={(_, next: TimeType | null) => {
                        if (!next) return;
                        setTimeType(next);
                        setPage(0);
                    }}
                    aria-label="时间范围"
                    sx={{ mr: 'auto' }}
                >
                    {TIME_TYPES.map((t) => (
                        <ToggleButton key={t.id} value={t.id} sx={{ px: 2 }}>
                            {t.label}
                        </ToggleButton>
                    ))}
                </ToggleButtonGroup>
                <Button
                    size="small"
                    variant="outlined"
                    startIcon={<RefreshIcon />}
                    disabled={query.isFetching}
                    onClick={() => void query.refetch()}
                    aria-label="刷新事件"
                >
                    {query.isFetching ? '刷新中…' : '刷新'}
                </Button>
            </TabToolbar>
            {query.isFetching ? <LinearProgress aria-label="加载中" sx={{ height: 2 }} /> : <Box sx={{ height: 2 }} />}
            <TableContainer>
                <Table size="small" aria-label="事件" sx={{ minWidth: 720 }}>
                    <TableHead>
                        <TableRow sx={{ '& th': { whiteSpace: 'nowrap', fontWeight: 600 } }}>
                            <TableCell sx={{ width: 180 }}>时间</TableCell>
                            <TableCell sx={{ width: 140 }}>标识符</TableCell>
                            <TableCell>方法</TableCell>
                            <TableCell>数据</TableCell>
                        </TableRow>
                    </TableHead>
                    <TableBody>
                        {rows.map((row) => (
                            <TableRow key={row.id} hover>
                                <TableCell sx={{ whiteSpace: 'nowrap', verticalAlign: 'top' }}>{row.time}</TableCell>
                                <TableCell sx={{ fontFamily: 'monospace', verticalAlign: 'top' }}>
                                    {row.identifier || '-'}
                                </TableCell>
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
            {query.error ? (
                <LoadError title="事件加载失败" error={query.error} onRetry={() => void query.refetch()} />
            ) : query.data && rows.length === 0 ? (
                <EmptyState text="暂无数据" hint={`最近${label}内设备没有上报事件，可切换更长的时间范围`} />
            ) : null}
            {query.data && query.data.totalCount > 0 ? (
                <Pager
                    total={query.data.totalCount}
                    page={page}
                    pageSize={EVENTS_PAGE_SIZE}
                    pageSizes={[EVENTS_PAGE_SIZE]}
                    onPage={setPage}
                />
            ) : null}
        </Box>
    );
}
