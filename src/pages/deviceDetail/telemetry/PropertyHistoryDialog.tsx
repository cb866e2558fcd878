import { useMemo, useState } from 'react';
import CloseIcon from '@mui/icons-material/Close';
import RefreshIcon from '@mui/icons-material/Refresh';
import {
    Box,
    Button,
    Dialog,
    DialogContent,
    DialogTitle,
    IconButton,
    LinearProgress,
    Table,
    TableBody,
    TableCell,
    TableContainer,
    TableHead,
    TableRow,
    ToggleButton,
    ToggleButtonGroup,
    Typography,
} from '@mui/material';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import {
    HISTORY_PAGE_SIZES,
    TELEMETRY,
    asText,
    isNumericType,
    usePlatform,
    type HistoryPage,
    type PropertyRow,
} from './api';
import { EmptyState, LoadError, Pager } from './parts';
import { HistoryChart, CHART_PAGES } from './HistoryChart';

/** SPEC.md: property history covers the last hour or the last 24 hours. */
export const HISTORY_RANGES = [
    { id: 'hour', label: '1小时', ms: 60 * 60 * 1000 },
    { id: 'day', label: '24小时', ms: 24 * 60 * 60 * 1000 },
] as const;
type RangeId = (typeof HISTORY_RANGES)[number]['id'];

interface PropertyHistoryDialogProps {
    deviceId: number;
    property: PropertyRow | null;
    onClose: () => void;
}

/** The window [now - range, now], fixed when the range is chosen or refreshed so paging reads one window. */
function windowOf(range: RangeId, now = Date.now()) {
    const ms = HISTORY_RANGES.find((r) => r.id === range)!.ms;
    return { startTime: now - ms, endTime: now };
}

/**
 * A property's history (GET /api/device/propertyHistory): range 1小时 / 24小时, a line chart for numeric types,
 * and a table of time and value paged 10 / 20 / 50 with newest or oldest first.
 */
export function PropertyHistoryDialog({ deviceId, property, onClose }: PropertyHistoryDialogProps) {
    return (
        <Dialog open={!!property} onClose={onClose} fullWidth maxWidth="md" aria-labelledby="property-history-title">
            {property ? <HistoryContent deviceId={deviceId} property={property} onClose={onClose} /> : null}
        </Dialog>
    );
}

function HistoryContent({
    deviceId,
    property,
    onClose,
}: {
    deviceId: number;
    property: PropertyRow;
    onClose: () => void;
}) {
    const platform = usePlatform();
    const [range, setRange] = useState<RangeId>('hour');
    const [window, setWindow] = useState(() => windowOf('hour'));
    const [page, setPage] = useState(0);
    const [pageSize, setPageSize] = useState(HISTORY_PAGE_SIZES[0]);
    const [asc, setAsc] = useState(false);
    const numeric = isNumericType(property.dataTypeName);
    const unit = property.unit ? ` ${property.unit}` : '';

    const base = useMemo(
        () => ({ deviceId, identifier: property.identifier, ...window }),
        [deviceId, property.identifier, window],
    );
    const table = useQuery({
        queryKey: [TELEMETRY, 'propertyHistory', base, page, pageSize, asc],
        queryFn: async () =>
            (
                await platform.invoke<HistoryPage>(TELEMETRY, 'propertyHistory', {
                    ...base,
                    pageNumber: page + 1,
                    pageSize,
                    asc,
                })
            ).data,
        placeholderData: keepPreviousData,
        retry: false,
        refetchOnWindowFocus: false,
    });

    const chooseRange = (next: RangeId | null) => {
        if (!next) return;
        setRange(next);
        setWindow(windowOf(next));
        setPage(0);
    };
    const refresh = () => {
        setWindow(windowOf(range));
        setPage(0);
    };

    const rows = table.data?.list ?? [];
    const total = table.data?.total ?? 0;
    return (
        <>
            <DialogTitle id="property-history-title" sx={{ pr: 6 }}>
                属性历史：{property.functionName}（{property.identifier}）
                <IconButton aria-label="关闭" onClick={onClose} sx={{ position: 'absolute', right: 8, top: 8 }}>
                    <CloseIcon />
                </IconButton>
            </DialogTitle>
            <DialogContent>
                <Box sx={{ display: 'flex', alignItems: 'center', gap: 2, flexWrap: 'wrap', mb: 2 }}>
                    <ToggleButtonGroup
                        size="small"
                        exclusive
                        value={range}
                        onChange={(_, next: RangeId | null) => chooseRange(next)}
                        aria-label="时间范围"
                    >
                        {HISTORY_RANGES.map((r) => (
                            <ToggleButton key={r.id} value={r.id} sx={{ px: 2 }}>
                                {r.label}
                            </ToggleButton>
                        ))}
                    </ToggleButtonGroup>
                    <ToggleButtonGroup
                        size="small"
                        exclusive
                        value={asc ? 'asc' : 'desc'}
                        onChange={(_, next: string | null) => {
                            if (!next) return;
                            setAsc(next === 'asc');
                            setPage(0);
                        }}
                        aria-label="排序"
                    >
                        <ToggleButton value="desc" sx={{ px: 2 }}>
                            时间降序
                        </ToggleButton>
                        <ToggleButton value="asc" sx={{ px: 2 }}>
                            时间升序
                        </ToggleButton>
                    </ToggleButtonGroup>
                    <Typography variant="body2" color="text.secondary" sx={{ flex: 1, minWidth: 200 }}>
                        数据类型：{property.dataTypeName || '-'}
                        {property.unit ? `，单位：${property.unit}` : ''}
                    </Typography>
                    <Button
                        size="small"
                        startIcon={<RefreshIcon />}
                        onClick={refresh}
                        disabled={table.isFetching}
                        aria-label="刷新历史数据"
                    >
                        刷新
                    </Button>
                </Box>
                {numeric ? (
                    <HistoryChart
                        base={base}
                        label={`${property.functionName}${property.unit ? `（${property.unit}）` : ''}`}
                        range={range}
                    />
                ) : null}
                {table.isFetching ? (
                    <LinearProgress aria-label="加载中" sx={{ height: 2 }} />
                ) : (
                    <Box sx={{ height: 2 }} />
                )}
                <TableContainer>
                    <Table size="small" aria-label="历史数据">
                        <TableHead>
                            <TableRow sx={{ '& th': { fontWeight: 600 } }}>
                                <TableCell sx={{ width: 200 }}>时间</TableCell>
                                <TableCell>值</TableCell>
                            </TableRow>
                        </TableHead>
                        <TableBody>
                            {rows.map((row, i) => (
                                <TableRow key={`${row.timestamp}-${i}`} hover>
                                    <TableCell sx={{ whiteSpace: 'nowrap' }}>{row.timestamp}</TableCell>
                                    <TableCell sx={{ wordBreak: 'break-all' }}>
                                        {asText(row.value)}
                                        {row.value !== null && row.value !== undefined ? unit : ''}
                                    </TableCell>
                                </TableRow>
                            ))}
                        </TableBody>
                    </Table>
                </TableContainer>
                {table.error ? (
                    <LoadError title="历史数据加载失败" error={table.error} onRetry={() => void table.refetch()} />
                ) : table.data && rows.length === 0 ? (
                    <EmptyState
                        text="暂无数据"
                        hint={`最近${HISTORY_RANGES.find((r) => r.id === range)!.label}内该属性没有上报记录`}
                    />
                ) : null}
                <Pager
                    total={total}
                    page={page}
                    pageSize={pageSize}
                    pageSizes={HISTORY_PAGE_SIZES}
                    onPage={setPage}
                    onPageSize={(size) => {
                        setPageSize(size);
                        setPage(0);
                    }}
                />
                {numeric ? (
                    <Typography variant="caption" color="text.secondary">
                        图表按时间顺序绘制最近 {CHART_PAGES * 50} 个以内的数据点；表格列出所选范围内的全部记录。
                    </Typography>
                ) : null}
            </DialogContent>
        </>
    );
}
