import { Alert, Box, Button, Card, CardContent, Typography } from '@mui/material';
import { BarChart } from '@mui/x-charts/BarChart';
import { LineChart } from '@mui/x-charts/LineChart';
import { CountPie } from '../../components/charts/CountPie';
import { useCall } from '../calls';
import { readAt } from '../list/Counters';
import type { ChartSpec, Row, Scope } from '../vocabulary';

const rowsOf = (answer: unknown, path?: string): Row[] => {
    const value = path ? readAt(answer, path) : answer;
    return Array.isArray(value) ? (value as Row[]) : [];
};

/** A chart over a call's rows: a pie of counts (names and colours for coded slices), or lines / bars by x. */
export default function ChartSection({ title, chart, scope }: { title?: string; chart: ChartSpec; scope: Scope }) {
    const { data, isPending, isError, isFetching, error, refetch } = useCall<unknown>(chart.call, scope);
    const rows = rowsOf(data, chart.rows);
    const height = chart.height ?? 200;
    if (isError && data === undefined) {
        return (
            <Alert
                severity="error"
                sx={{ height: '100%', boxSizing: 'border-box' }}
                action={
                    <Button color="inherit" size="small" disabled={isFetching} onClick={() => void refetch()}>
                        重试
                    </Button>
                }
            >
                {title}加载失败：{(error as Error)?.message || '系统错误'}
            </Alert>
        );
    }
    if (chart.kind === 'pie') {
        const name = chart.name ?? 'name';
        const value = chart.value ?? 'value';
        const answer = chart.rows ? readAt(data, chart.rows) : data;
        const slices = isPending
            ? undefined
            : chart.slices
              ? chart.slices.map((s) => {
                    const from = Array.isArray(answer)
                        ? (answer as Row[]).find((row) => String(row[name]) === s.key)?.[value]
                        : (answer as Row | undefined)?.[s.key];
                    return { id: s.key, label: s.label, value: Number(from) || 0, color: s.color };
                })
              : rows.map((row) => {
                    const key = String(row[name]);
                    return {
                        id: key,
                        label: chart.names?.[key] ?? key,
                        value: Number(row[value]) || 0,
                        color: chart.colors?.[key],
                    };
                });
        return <CountPie title={title ?? ''} slices={slices} empty={chart.empty} height={height} />;
    }
    const x = chart.x ?? 'x';
    const series = (chart.series ?? []).map((s) => ({
        data: rows.map((row) => (row[s.field] === null || row[s.field] === undefined ? null : Number(row[s.field]))),
        label: s.label,
        color: s.color,
    }));
    const empty = !isPending && rows.length === 0;
    return (
        <Card variant="outlined" component="section" aria-label={title}>
            <CardContent>
                {title ? (
                    <Typography variant="subtitle1" component="h2" sx={{ fontWeight: 600 }} gutterBottom>
                        {title}
                    </Typography>
                ) : null}
                {isError ? (
                    <Alert severity="error">加载失败：{(error as Error)?.message || '查询失败'}</Alert>
                ) : empty ? (
                    <Box sx={{ height, display: 'grid', placeItems: 'center', color: 'text.secondary' }}>
                        {chart.empty ?? '暂无数据'}
                    </Box>
                ) : chart.kind === 'bar' ? (
                    <BarChart
                        height={height}
                        loading={isPending}
                        xAxis={[{ scaleType: 'band', data: rows.map((row) => String(row[x])) }]}
                        series={series}
                    />
                ) : (
                    <LineChart
                        height={height}
                        loading={isPending}
                        xAxis={[{ scaleType: 'point', data: rows.map((row) => String(row[x])) }]}
                        series={series}
                    />
                )}
            </CardContent>
        </Card>
    );
}
