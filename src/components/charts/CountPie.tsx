import { Box, Card, CardContent, Skeleton, Typography } from '@mui/material';
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
    /** True while the counts load: the card keeps its size and shows a placeholder ring. */
    loading?: boolean;
    /** What the card says when every slice is 0 (default 暂无数据). */
    empty?: string;
    height?: number;
}

const PALETTE = ['#5470c6', '#91cc75', '#fac858', '#ee6666', '#73c0de', '#3ba272', '#fc8452', '#9a60b4'];

const percent = (value: number, total: number) => (total > 0 ? `${Math.round((value / total) * 1000) / 10}%` : '0%');

/**
 * One titled donut of counts (device status, device type, pending alerts) on the dashboard and the project
 * overview. The total sits in the card title and every slice is listed beside the ring with its count and share,
 * so the numbers can be read (and found by assistive technology) without hovering. A card with nothing to count
 * says so instead of drawing an empty ring.
 */
export function CountPie({ title, slices, loading, empty = '暂无数据', height = 200 }: CountPieProps) {
    const colored = (slices ?? []).map((s, i) => ({ ...s, color: s.color ?? PALETTE[i % PALETTE.length] }));
    const total = colored.reduce((n, s) => n + s.value, 0);
    const shown = colored.filter((s) => s.value > 0);
    const ring = Math.min(height, 150);
    const pending = loading || !slices;
    return (
        <Card variant="outlined" sx={{ height: '100%' }} aria-busy={pending}>
            <CardContent>
                <Typography variant="subtitle1" component="h2" sx={{ fontWeight: 600 }} gutterBottom>
                    {title}
                    {!pending ? (
                        <Typography component="span" variant="body2" color="text.secondary" sx={{ ml: 1 }}>
                            共 {total}
                        </Typography>
                    ) : null}
                </Typography>
                <Box sx={{ height, display: 'flex', alignItems: 'center', justifyContent: 'center', gap: 2 }}>
                    {pending ? (
                        <>
                            <Skeleton
                                variant="circular"
                                width={ring - 20}
                                height={ring - 20}
                                aria-label={`${title}加载中`}
                            />
                            <Box sx={{ flex: 1, maxWidth: 140 }}>
                                <Skeleton width="90%" />
                                <Skeleton width="70%" />
                                <Skeleton width="80%" />
                            </Box>
                        </>
                    ) : shown.length === 0 ? (
                        <Typography color="text.secondary">{empty}</Typography>
                    ) : (
                        <>
                            <Box sx={{ width: ring, height: ring, flex: 'none' }}>
                                <PieChart
                                    width={ring}
                                    height={ring}
                                    hideLegend
                                    margin={{ top: 4, bottom: 4, left: 4, right: 4 }}
                                    series={[
                                        {
                                            data: shown.map((s) => ({
                                                id: s.id,
                                                value: s.value,
                                                label: s.label,
                                                color: s.color,
                                            })),
                                            innerRadius: ring * 0.28,
                                            outerRadius: ring / 2 - 6,
                                            paddingAngle: shown.length > 1 ? 1 : 0,
                                            cornerRadius: 3,
                                            highlightScope: { fade: 'global', highlight: 'item' },
                                        },
                                    ]}
                                />
                            </Box>
                            <Box
                                component="ul"
                                aria-label={`${title}分布`}
                                sx={{
                                    listStyle: 'none',
                                    m: 0,
                                    p: 0,
                                    flex: 1,
                                    minWidth: 0,
                                    maxHeight: height,
                                    overflowY: 'auto',
                                }}
                            >
                                {colored.map((s) => (
                                    <Box
                                        component="li"
                                        key={s.id}
                                        data-slice={s.id}
                                        sx={{ display: 'flex', alignItems: 'center', gap: 1, py: 0.25 }}
                                    >
                                        <Box
                                            sx={{
                                                width: 10,
                                                height: 10,
                                                borderRadius: '50%',
                                                flex: 'none',
                                                bgcolor: s.color,
                                            }}
                                        />
                                        <Typography
                                            variant="body2"
                                            noWrap
                                            sx={{ flex: 1, minWidth: 0 }}
                                            title={s.label}
                                        >
                                            {s.label}
                                        </Typography>
                                        <Typography variant="body2" sx={{ fontWeight: 600 }}>
                                            {s.value}
                                        </Typography>
                                        <Typography
                                            variant="caption"
                                            color="text.secondary"
                                            sx={{ width: 40, textAlign: 'right', flex: 'none' }}
                                        >
                                            {percent(s.value, total)}
                                        </Typography>
                                    </Box>
                                ))}
                            </Box>
                        </>
                    )}
                </Box>
            </CardContent>
        </Card>
    );
}

export default CountPie;
