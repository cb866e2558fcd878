import { lazy, Suspense, useEffect } from 'react';
import RefreshIcon from '@mui/icons-material/Refresh';
import { Box, Button, Card, CardContent, Skeleton, Typography } from '@mui/material';
import { useIsFetching } from '@tanstack/react-query';
import { useSearchParams } from 'react-router-dom';
import { Title } from 'react-admin';
import { alertPageOf, DASHBOARD, prefetchDashboard, usePrefetchDashboard } from './dashboard/api';
import { CountsRow } from './dashboard/CountsRow';

/*
 * What paints first is the counts row (this file and CountsRow, in the console's entry chunk). The charts
 * (@mui/x-charts), the project cards and alert table, and the map (maplibre-gl) are chunks of their own, fetched
 * while the counts are answered; their data is requested at once (prefetchDashboard), not after their code arrives.
 */
const DashboardPies = lazy(() => import('./dashboard/DashboardPies'));
const DashboardSections = lazy(() => import('./dashboard/DashboardSections'));
const preloadMap = () => import('../components/map/DeviceMap');

const PIES_GRID = { display: 'grid', gap: 2, gridTemplateColumns: { xs: '1fr', md: 'repeat(3, 1fr)' } } as const;

function PiesSkeleton() {
    return (
        <Box sx={PIES_GRID} aria-busy>
            {['设备状态', '设备类型', '待处理告警'].map((title) => (
                <Card key={title} variant="outlined">
                    <CardContent>
                        <Typography variant="subtitle1" component="h2" sx={{ fontWeight: 600 }} gutterBottom>
                            {title}
                        </Typography>
                        <Box sx={{ height: 200, display: 'flex', alignItems: 'center', gap: 2 }}>
                            <Skeleton variant="circular" width={130} height={130} />
                            <Box sx={{ flex: 1 }}>
                                <Skeleton width="80%" />
                                <Skeleton width="60%" />
                            </Box>
                        </Box>
                    </CardContent>
                </Card>
            ))}
        </Box>
    );
}

function SectionsSkeleton() {
    return (
        <Box sx={{ display: 'grid', gap: 2 }} aria-busy>
            <Skeleton variant="rounded" height={120} />
            <Skeleton variant="rounded" height={320} />
        </Box>
    );
}

function RefreshButton() {
    const { queryClient } = usePrefetchDashboard();
    const fetching = useIsFetching({ queryKey: [DASHBOARD] }) > 0;
    return (
        <Button
            size="small"
            startIcon={<RefreshIcon />}
            disabled={fetching}
            onClick={() => void queryClient.invalidateQueries({ queryKey: [DASHBOARD] })}
        >
            刷新
        </Button>
    );
}

/**
 * /introduce, the landing page (SPEC.md "Dashboard (introduce)"): overview counts, the device status, type and
 * pending alert pies, 我的项目, the alert events table and the device map.
 */
export function Introduce() {
    const { queryClient, dataProvider } = usePrefetchDashboard();
    const [search] = useSearchParams();
    const alertPage = alertPageOf(search);

    useEffect(() => {
        prefetchDashboard(queryClient, dataProvider, alertPage);
        void preloadMap();
        // Once, on arrival: paging the alert table asks for its own pages.
        // eslint-disable-next-line react-hooks/exhaustive-deps
    }, []);

    return (
        <Box sx={{ p: { xs: 1, md: 2 }, display: 'flex', flexDirection: 'column', gap: 2, minWidth: 0 }}>
            <Title title="概览" />
            <Box sx={{ display: 'flex', alignItems: 'center' }}>
                <Typography variant="h5" component="h1" sx={{ fontWeight: 600, flex: 1 }}>
                    概览
                </Typography>
                <RefreshButton />
            </Box>
            <CountsRow />
            <Suspense fallback={<PiesSkeleton />}>
                <DashboardPies />
            </Suspense>
            <Suspense fallback={<SectionsSkeleton />}>
                <DashboardSections />
            </Suspense>
        </Box>
    );
}

export default Introduce;
