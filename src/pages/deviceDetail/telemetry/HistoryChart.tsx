import { Box, CircularProgress, Typography } from '@mui/material';
import { LineChart } from '@mui/x-charts/LineChart';
import { useQuery } from '@tanstack/react-query';
import dayjs from 'dayjs';
import { TELEMETRY, toNumber, usePlatform, type HistoryPage, type HistoryPoint } from './api';
import { LoadError } from './parts';

/** The chart reads the newest points of the window 50 at a time (the largest page the call allows), at most this many pages. */
export const CHART_PAGES = 10;
const CHART_PAGE_SIZE = 50;

interface HistoryChartProps {
    base: { deviceId: number; identifier: string; startTime: number; endTime: number };
    label: string;
    range: 'hour' | 'day';
}

interface ChartData {
    points: Array<{ time: Date; value: number }>;
    total: number;
}

/** A numeric property's values over the chosen window, oldest to newest. */
export function HistoryChart({ base, label, range }: HistoryChartProps) {
    const platform = usePlatform();
    const query = useQuery({
        queryKey: [TELEMETRY, 'propertyHistoryChart', base],
        queryFn: async (): Promise<ChartData> => {
            const read = async (pageNumber: number) =>
                (
                    await platform.invoke<HistoryPage>(TELEMETRY, 'propertyHistory', {
                        ...base,
                        pageNumber,
                        pageSize: CHART_PAGE_SIZE,
                        asc: false,
                    })
                ).data;
            const first = await read(1);
            const pages = Math.min(CHART_PAGES, Math.ceil(first.total / CHART_PAGE_SIZE));
            const rest = await Promise.all(Array.from({ length: Math.max(0, pages - 1) }, (_, i) => read(i + 2)));
            const newestFirst: HistoryPoint[] = [first, ...rest].flatMap((p) => p.list);
            const points = newestFirst
                .map((p) => ({ time: dayjs(p.timestamp).toDate(), value: toNumber(p.value) }))
                .filter((p): p is { time: Date; value: number } => p.value !== null && !Number.isNaN(p.time.getTime()))
                .reverse();
            return { points, total: first.total };
        },
        retry: false,
        refetchOnWindowFocus: false,
    });

    const format = (d: Date) => dayjs(d).format(range === 'hour' ? 'HH:mm' : 'MM-DD HH:mm');
    return (
        <Box sx={{ mb: 2 }} data-testid="property-history-chart" aria-label={`${label}历史曲线`} role="figure">
            {query.error ? (
                <LoadError title="曲线加载失败" error={query.error} onRetry={() => void query.refetch()} />
            ) : query.isPending ? (
                <Box sx={{ height: 260, display: 'flex', alignItems: 'center', justifyContent: 'center' }}>
                    <CircularProgress size={28} aria-label="曲线加载中" />
                </Box>
            ) : query.data.points.length === 0 ? (
                <Box sx={{ height: 120, display: 'flex', alignItems: 'center', justifyContent: 'center' }}>
                    <Typography color="text.secondary">所选时间范围内暂无数据，无法绘制曲线</Typography>
                </Box>
            ) : (
                <>
                    <LineChart
                        height={260}
                        margin={{ left: 8, right: 24, top: 16, bottom: 8 }}
                        xAxis={[
                            {
                                scaleType: 'time',
                                // CJK fonts measure taller than the default 25px axis allows: labels would be dropped.
                                height: 32,
                                data: query.data.points.map((p) => p.time),
                                valueFormatter: (d: Date, context) =>
                                    context.location === 'tooltip' ? dayjs(d).format('YYYY-MM-DD HH:mm:ss') : format(d),
                            },
                        ]}
                        series={[
                            {
                                data: query.data.points.map((p) => p.value),
                                label,
                                showMark: query.data.points.length <= 60,
                                curve: 'linear',
                            },
                        ]}
                        hideLegend
                    />
                    {query.data.total > query.data.points.length ? (
                        <Typography variant="caption" color="text.secondary">
                            共 {query.data.total} 条记录，曲线显示最近的 {query.data.points.length} 条
                        </Typography>
                    ) : null}
                </>
            )}
        </Box>
    );
}
