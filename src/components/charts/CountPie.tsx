import { Box, Card, CardContent, CircularProgress, Typography } from '@mui/material';
import { PieChart } from '@mui/x-charts/PieChart';

export interface PieSlice {
    /** Stable key of the slice (a status, a level, a category id). */
    id: string | number;
    label: string;
    value: number;
    color?: string;
}

export interface CountPieProps {
    title: string;
    slices: PieSlice[] | undefined;
    /** True while the counts load: the card keeps its size and shows a spinner. */
    loading?: boolean;
    /** What the card says when every slice is 0 (default 暂无数据). */
    empty?: string;
    height?: number;
}

/**
 * One titled donut of counts (device status, device type, pending alerts) on the dashboard and the project
 * overview. The total sits in the card title; a card with nothing to count says so instead of drawing an empty ring.
 */
export function CountPie({ title, slices, loading, empty = '暂无数据', height = 200 }: CountPieProps) {
    const total = (slices ?? []).reduce((n, s) => n + s.value, 0);
    const shown = (slices ?? []).filter((s) => s.value > 0);
    return (
        <Card variant="outlined" sx={{ height: '100%' }}>
            <CardContent>
                <Typography variant="subtitle1" component="h2" gutterBottom>
                    {title}
                    {!loading && slices ? (
                        <Typography component="span" variant="body2" color="text.secondary" sx={{ ml: 1 }}>
                            共 {total}
                        </Typography>
                    ) : null}
                </Typography>
                <Box sx={{ height, display: 'flex', alignItems: 'center', justifyContent: 'center' }}>
                    {loading || !slices ? (
                        <CircularProgress size={28} aria-label={`${title}加载中`} />
                    ) : shown.length === 0 ? (
                        <Typography color="text.secondary">{empty}</Typography>
                    ) : (
                        <PieChart
                            height={height}
                            series={[
                                {
                                    data: shown.map((s) => ({
                                        id: s.id,
                                        value: s.value,
                                        label: s.label,
                                        color: s.color,
                                    })),
                                    innerRadius: 45,
                                    paddingAngle: 1,
                                    cornerRadius: 3,
                                    highlightScope: { fade: 'global', highlight: 'item' },
                                },
                            ]}
                        />
                    )}
                </Box>
            </CardContent>
        </Card>
    );
}
