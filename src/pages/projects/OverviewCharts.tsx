import { useQuery } from '@tanstack/react-query';
import {
    Alert,
    Box,
    Card,
    CardContent,
    CircularProgress,
    Grid,
    ToggleButton,
    ToggleButtonGroup,
    Typography,
} from '@mui/material';
import { LineChart } from '@mui/x-charts/LineChart';
import { CountPie, type PieSlice } from '../../components/charts/CountPie';
import { DEVICE_STATUSES } from '../../../schemas/device';
import { ALERT_LEVELS, PROJECTS, errorText, usePlatform, useQueryState } from './api';

const STATUS_COLORS: Record<string, string> = {
    ONLINE: '#2e7d32',
    OFFLINE: '#9e9e9e',
    INACTIVE: '#0288d1',
    DISABLE: '#d32f2f',
};
const TYPE_COLORS = ['#1976d2', '#9c27b0', '#ed6c02', '#2e7d32', '#0288d1', '#d81b60', '#6d4c41', '#546e7a'];
const HEALTH_RANGES = [7, 30];

function useOverview<T>(call: string, projectId: number, params: Record<string, unknown> = {}) {
    const platform = usePlatform();
    return useQuery({
        queryKey: [PROJECTS, 'overview', projectId, call, params],
        queryFn: async () => (await platform.invoke<T>(PROJECTS, call, { projectId, ...params })).data,
    });
}

/** A failed pie keeps its card and says what went wrong, so the other two still show. */
function Pie({ title, slices, error }: { title: string; slices: PieSlice[] | undefined; error: unknown }) {
    if (error) {
        return (
            <Card variant="outlined" sx={{ height: '100%' }}>
                <CardContent>
                    <Typography variant="subtitle1" component="h2" gutterBottom>
                        {title}
                    </Typography>
                    <Alert severity="error">{errorText(error, '查询失败')}</Alert>
                </CardContent>
            </Card>
        );
    }
    return <CountPie title={title} slices={slices} loading={!slices} />;
}

/** The three pies of a project (SPEC.md "Projects"): device status, device type, pending alerts by level. */
export function OverviewPies({ projectId }: { projectId: number }) {
    const status = useOverview<Array<{ status: string; amount: number }>>('deviceStatus', projectId);
    const type = useOverview<Array<{ type: string; amount: number }>>('deviceType', projectId);
    const alerts = useOverview<Array<{ type: number; amount: number }>>('alertType', projectId);

    const statusSlices = status.data?.map((row) => ({
        id: row.status,
        label: DEVICE_STATUSES.find((s) => s.id === row.status)?.name ?? row.status,
        value: Number(row.amount) || 0,
        color: STATUS_COLORS[row.status],
    }));
    const typeSlices = type.data?.map((row, i) => ({
        id: row.type,
        label: row.type,
        value: Number(row.amount) || 0,
        color: TYPE_COLORS[i % TYPE_COLORS.length],
    }));
    const alertSlices = alerts.data?.map((row) => ({
        id: row.type,
        label: ALERT_LEVELS[row.type]?.name ?? String(row.type),
        value: Number(row.amount) || 0,
        color: ALERT_LEVELS[row.type]?.color,
    }));
    return (
        <Grid container spacing={2}>
            <Grid size={{ xs: 12, md: 4 }}>
                <Pie title="设备状态" slices={statusSlices} error={status.error} />
            </Grid>
            <Grid size={{ xs: 12, md: 4 }}>
                <Pie title="设备类型" slices={typeSlices} error={type.error} />
            </Grid>
            <Grid size={{ xs: 12, md: 4 }}>
                <Pie title="待处理告警" slices={alertSlices} error={alerts.error} />
            </Grid>
        </Grid>
    );
}

/** Project health a day at a time (GET /api/overview/health): 100 less the day's alerts, weighted by level. */
export function HealthChart({ projectId }: { projectId: number }) {
    const state = useQueryState();
    const days = state.number('days', HEALTH_RANGES[0]);
    const health = useOverview<Array<{ date: string; score: number }>>('health', projectId, { days });
    const points = health.data ?? [];
    const latest = points.at(-1);
    return (
        <Card variant="outlined" sx={{ height: '100%' }}>
            <CardContent>
                <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, mb: 1, flexWrap: 'wrap' }}>
                    <Typography variant="subtitle1" component="h2">
                        健康度趋势
                    </Typography>
                    {latest ? (
                        <Typography variant="body2" color="text.secondary" data-testid="health-latest">
                            {`最近一天 ${latest.score} 分`}
                        </Typography>
                    ) : null}
                    <Box sx={{ flex: 1 }} />
                    <ToggleButtonGroup
                        size="small"
                        exclusive
                        value={days}
                        onChange={(_, next: number | null) => {
                            if (next) state.update({ days: next === HEALTH_RANGES[0] ? null : next });
                        }}
                        aria-label="时间范围"
                    >
                        {HEALTH_RANGES.map((d) => (
                            <ToggleButton key={d} value={d}>
                                {`近${d}天`}
                            </ToggleButton>
                        ))}
                    </ToggleButtonGroup>
                </Box>
                <Box sx={{ height: 220, display: 'flex', alignItems: 'center', justifyContent: 'center' }}>
                    {health.error ? (
                        <Alert severity="error">{errorText(health.error, '查询失败')}</Alert>
                    ) : !health.data ? (
                        <CircularProgress size={28} aria-label="健康度加载中" />
                    ) : points.length === 0 ? (
                        <Typography color="text.secondary">暂无数据</Typography>
                    ) : (
                        <LineChart
                            height={220}
                            margin={{ left: 8, right: 24, top: 24, bottom: 8 }}
                            xAxis={[{ scaleType: 'point', data: points.map((p) => p.date.slice(5)), height: 32 }]}
                            yAxis={[{ min: 0, max: 100, width: 40 }]}
                            series={[
                                {
                                    data: points.map((p) => p.score),
                                    label: '健康度',
                                    color: '#2e7d32',
                                    area: true,
                                    showMark: points.length <= 10,
                                },
                            ]}
                            hideLegend
                            sx={{ '& .MuiAreaElement-root': { fillOpacity: 0.12 } }}
                        />
                    )}
                </Box>
            </CardContent>
        </Card>
    );
}
