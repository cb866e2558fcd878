import { Alert, Box, Button } from '@mui/material';
import type { UseQueryResult } from '@tanstack/react-query';
import { CountPie, type PieSlice } from '../../components/charts/CountPie';
import { errorText, useAlertsByLevel, useDeviceTotals, useDevicesByCategory } from './api';
import { categorySlices, levelSlices, statusSlices } from './levels';

function Pie<T>({
    title,
    query,
    toSlices,
    empty,
}: {
    title: string;
    query: UseQueryResult<T>;
    toSlices: (data: T) => PieSlice[];
    empty?: string;
}) {
    if (query.error && !query.data) {
        return (
            <Alert
                severity="error"
                sx={{ height: '100%', boxSizing: 'border-box' }}
                action={
                    <Button
                        color="inherit"
                        size="small"
                        disabled={query.isFetching}
                        onClick={() => void query.refetch()}
                    >
                        重试
                    </Button>
                }
            >
                {title}加载失败：{errorText(query.error)}
            </Alert>
        );
    }
    return (
        <CountPie
            title={title}
            slices={query.data ? toSlices(query.data) : undefined}
            loading={query.isPending}
            empty={empty}
        />
    );
}

/** The three pies of the dashboard (charts load in this chunk, after the counts). */
export default function DashboardPies() {
    const totals = useDeviceTotals();
    const categories = useDevicesByCategory();
    const levels = useAlertsByLevel();
    return (
        <Box
            component="section"
            aria-label="统计图表"
            sx={{ display: 'grid', gap: 2, gridTemplateColumns: { xs: '1fr', md: 'repeat(3, 1fr)' } }}
        >
            <Pie title="设备状态" query={totals} toSlices={statusSlices} empty="暂无设备" />
            <Pie title="设备类型" query={categories} toSlices={categorySlices} empty="暂无设备" />
            <Pie title="待处理告警" query={levels} toSlices={levelSlices} empty="暂无待处理告警" />
        </Box>
    );
}
