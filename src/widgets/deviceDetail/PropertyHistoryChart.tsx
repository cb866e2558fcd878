import { Alert, Box, Button, CircularProgress, Typography } from '@mui/material';
import { LineChart } from '@mui/x-charts/LineChart';
import { useQuery } from '@tanstack/react-query';
import dayjs from 'dayjs';
import { useDataProvider } from 'react-admin';
import type { PlatformDataProvider } from '../../engine/choices';
import type { WidgetProps } from '../registry';

/** The chart reads the newest points of the window 50 at a time (the largest page the call allows), at most this many pages. */
export const CHART_PAGES = 10;
const CHART_PAGE_SIZE = 50;

interface HistoryPage {
    list: Array<{ timestamp: string; value: unknown }>;
    total: number;
}

interface ChartProps extends WidgetProps {
    deviceId: number | string;
    identifier: string;
    /** 'hour' or 'day': the window the device detail's propertyHistory call asks for. */
    range: 'hour' | 'day';
    /** The series name: the property's name and unit. */
    label: string;
}

const toNumber = (value: unknown): number | null => {
    if (value === null || value === undefined || value === '') return null;
    const n = typeof value === 'number' ? value : Number(value);
    return Number.isFinite(n) ? n : null;
};

/** 属性历史's line: a numeric property's values over the last hour or 24 hours, oldest to newest. */
export default function PropertyHistoryChart({ deviceId, identifier, range, label }: ChartProps) {
    const dataProvider = useDataProvider<PlatformDataProvider>();
    const query = useQuery({
        queryKey: ['deviceDetail', 'propertyHistoryChart', deviceId, identifier, range],
        queryFn: async () => {
            // The call reads the page's rows for lists; the chart wants the rows and their total (the envelope's data).
            const read = async (pageNumber: number) =>
                (
                    (
                        await dataProvider.invoke('deviceDetail', 'propertyHistory', {
                            deviceId,
                            identifier,
                            range,
                            pageNumber,
                            pageSize: CHART_PAGE_SIZE,
                            asc: false,
                        })
                    ).body as { data: HistoryPage }
                ).data;
            const first = await read(1);
            const pages = Math.min(CHART_PAGES, Math.ceil(first.total / CHART_PAGE_SIZE));
            const rest = await Promise.all(Array.from({ length: Math.max(0, pages - 1) }, (_, i) => read(i + 2)));
            const points = [first, ...rest]
                .flatMap((p) => p.list)
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
        <Box data-testid="property-history-chart" aria-label={`${label}历史曲线`} role="figure">
            {query.error ? (
                <Alert
                    severity="error"
                    action={
                        <Button color="inherit" size="small" onClick={() => void query.refetch()}>
                            重试
                        </Button>
                    }
                >
                    曲线加载失败：{(query.error as Error).message || '查询失败'}
                </Alert>
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
                    <Typography variant="caption" color="text.secondary">
                        {query.data.total > query.data.points.length
                            ? `曲线显示 ${query.data.total} 条记录中最近的 ${query.data.points.length} 条；`
                            : ''}
                        图表按时间顺序绘制最近 {CHART_PAGES * CHART_PAGE_SIZE}{' '}
                        个以内的数据点，表格列出所选范围内的全部记录。
                    </Typography>
                </>
            )}
        </Box>
    );
}
