import { Alert, Box, Button, Card, CardContent, Typography } from '@mui/material';
import { BarChart } from '@mui/x-charts/BarChart';
import { LineChart } from '@mui/x-charts/LineChart';
import { useMemo } from 'react';
import { useSearchParams } from 'react-router-dom';
import { CountPie } from '../../components/charts/CountPie';
import { useCall } from '../calls';
import { readAt } from '../list/Counters';
import { Filters } from '../list/Filters';
import type { CallRef, ChartSpec, Row, Scope } from '../vocabulary';

const rowsOf = (answer: unknown, path?: string): Row[] => {
    const value = path ? readAt(answer, path) : answer;
    return Array.isArray(value) ? (value as Row[]) : [];
};

/** A chart's controls (`filters`): their values from the URL (or their defaults), and how to set one. */
function useChartFilters(chart: ChartSpec) {
    const [search, setSearch] = useSearchParams();
    const filters = useMemo(() => chart.filters ?? [], [chart.filters]);
    const values: Record<string, string> = {};
    for (const f of filters) values[f.source] = search.get(f.param ?? f.source) ?? f.defaultValue ?? '';
    const set = (source: string, value: string) => {
        const f = filters.find((one) => one.source === source)!;
        setSearch(
            (now) => {
                const next = new URLSearchParams(now);
                const param = f.param ?? f.source;
                if (value === '' || value === f.defaultValue) next.delete(param);
                else next.set(param, value);
                return next;
            },
            { replace: true },
        );
    };
    return { filters, values, set };
}

/** A chart over a call's rows: a pie of counts (names and colours for coded slices), or lines / bars by x. */
export default function ChartSection({ title, chart, scope }: { title?: string; chart: ChartSpec; scope: Scope }) {
    const controls = useChartFilters(chart);
    const sent = Object.fromEntries(Object.entries(controls.values).filter(([, v]) => v !== ''));
    const key = JSON.stringify(sent);
    const call: CallRef = useMemo(
        () =>
            key === '{}'
                ? chart.call
                : {
                      ...chart.call,
                      params: (s: Scope) => ({
                          ...(chart.call.params ? chart.call.params(s) : {}),
                          ...(JSON.parse(key) as Row),
                      }),
                  },
        [chart.call, key],
    );
    const none = chart.noData?.(scope) ?? false;
    const answer = useCall<unknown>(call, scope, { enabled: !none });
    const { data, isError, isFetching, error, refetch } = answer;
    const isPending = answer.isPending && !none;
    const rows = none ? [] : rowsOf(data, chart.rows);
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
        id: s.field,
        data: rows.map((row) => (row[s.field] === null || row[s.field] === undefined ? null : Number(row[s.field]))),
        label: s.label,
        color: s.color,
        // A mark on each of a minute's 60 points hides the line under circles: marks only on short series.
        showMark: rows.length <= 24,
    }));
    const empty = !isPending && rows.length === 0;
    const summary = rows.length ? chart.summary?.(rows) : undefined;
    const yAxis = chart.yRange ? [{ min: chart.yRange[0], max: chart.yRange[1] }] : undefined;
    return (
        <Card variant="outlined" component="section" aria-label={title}>
            <CardContent>
                {title || summary || controls.filters.length ? (
                    <Box sx={{ display: 'flex', alignItems: 'center', flexWrap: 'wrap', gap: 1, mb: 1 }}>
                        {title ? (
                            <Typography variant="subtitle1" component="h2" sx={{ fontWeight: 600 }}>
                                {title}
                            </Typography>
                        ) : null}
                        {summary ? (
                            <Typography variant="body2" color="text.secondary" data-testid="chart-summary">
                                {summary}
                            </Typography>
                        ) : null}
                        <Box sx={{ flex: 1 }} />
                        <Filters
                            filters={controls.filters}
                            values={controls.values}
                            onChange={controls.set}
                            scope={scope}
                        />
                    </Box>
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
                        yAxis={yAxis}
                        xAxis={[{ scaleType: 'band', data: rows.map((row) => String(row[x])), height: 32 }]}
                        series={series}
                    />
                ) : (
                    <LineChart
                        height={height}
                        loading={isPending}
                        yAxis={yAxis}
                        // Room at the right and below, so the first and last dates keep their labels.
                        margin={{ left: 8, right: 24, top: 24, bottom: 8 }}
                        xAxis={[{ scaleType: 'point', data: rows.map((row) => String(row[x])), height: 32 }]}
                        series={series}
                        sx={Object.fromEntries(
                            (chart.series ?? [])
                                .filter((s) => s.dashed)
                                .map((s) => [
                                    `& .MuiLineElement-root[data-series="${s.field}"]`,
                                    { strokeDasharray: '6 4' },
                                ]),
                        )}
                    />
                )}
            </CardContent>
        </Card>
    );
}
