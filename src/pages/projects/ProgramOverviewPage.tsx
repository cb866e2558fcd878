import { lazy, Suspense } from 'react';
import ArrowBackIcon from '@mui/icons-material/ArrowBack';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, Box, Button, Card, CardContent, Chip, CircularProgress, Grid, Typography } from '@mui/material';
import { Link, useParams } from 'react-router-dom';
import { Title } from 'react-admin';
import { PROGRAM_LIST, PROJECTS, errorText, usePlatform, type ProjectRow } from './api';
import { AlertTable, RuleTable } from './OverviewTables';
import { ProjectDevices } from './ProjectDevices';
import { StaffSection } from './StaffSection';

// The charts (x-charts) load after the header and tables, so the page shows its data first.
const OverviewPies = lazy(() => import('./OverviewCharts').then((m) => ({ default: m.OverviewPies })));
const HealthChart = lazy(() => import('./OverviewCharts').then((m) => ({ default: m.HealthChart })));

const NOT_FOUND = '项目不存在';

function BackButton() {
    return (
        <Button component={Link} to="/programList" startIcon={<ArrowBackIcon />} size="small">
            返回项目列表
        </Button>
    );
}

function ChartFallback({ height }: { height: number }) {
    return (
        <Box sx={{ height, display: 'flex', alignItems: 'center', justifyContent: 'center' }}>
            <CircularProgress size={28} aria-label="图表加载中" />
        </Box>
    );
}

function Stat({ label, value, testId }: { label: string; value: number | undefined; testId: string }) {
    return (
        <Box sx={{ minWidth: 72 }}>
            <Typography variant="caption" color="text.secondary" component="div">
                {label}
            </Typography>
            <Typography variant="h6" component="div" data-testid={testId}>
                {value ?? 0}
            </Typography>
        </Box>
    );
}

function Header({ project }: { project: ProjectRow }) {
    return (
        <Card variant="outlined">
            <CardContent>
                <BackButton />
                <Box sx={{ display: 'flex', alignItems: 'center', gap: 1.5, flexWrap: 'wrap', mt: 1 }}>
                    <Typography variant="h5" component="h1" sx={{ wordBreak: 'break-word' }}>
                        {project.name}
                    </Typography>
                    <Chip size="small" color="primary" variant="outlined" label={project.sceneName} />
                    <Typography variant="body2" color="text.secondary">
                        项目编号：{project.code}
                    </Typography>
                    <Typography variant="body2" color="text.secondary">
                        创建时间：{project.createTime}
                    </Typography>
                </Box>
                {project.remark ? (
                    <Typography variant="body2" color="text.secondary" sx={{ mt: 0.5, wordBreak: 'break-word' }}>
                        {project.remark}
                    </Typography>
                ) : null}
                <Box sx={{ display: 'flex', gap: 3, flexWrap: 'wrap', mt: 2 }}>
                    <Stat label="产品数" value={project.productCount} testId="stat-products" />
                    <Stat label="设备数" value={project.deviceCount} testId="stat-devices" />
                    <Stat label="在线" value={project.onlineCount} testId="stat-online" />
                    <Stat label="离线" value={project.offlineCount} testId="stat-offline" />
                    <Stat label="未激活" value={project.inactiveCount} testId="stat-inactive" />
                    <Stat label="待处理告警" value={project.warn} testId="stat-warn" />
                </Box>
            </CardContent>
        </Card>
    );
}

/**
 * /programOverview/{id} (SPEC.md "Projects"): the project's header and counts, three pies, health over time, alert
 * events, rule engine, staff and devices. An unknown project says 项目不存在 with the way back.
 */
export default function ProgramOverviewPage() {
    const { id } = useParams();
    const projectId = Number(id);
    const valid = Number.isInteger(projectId) && projectId > 0;
    const platform = usePlatform();
    const queryClient = useQueryClient();
    const project = useQuery({
        queryKey: [PROGRAM_LIST, 'getOne', { id: String(projectId) }],
        queryFn: async () => (await platform.getOne<ProjectRow>(PROGRAM_LIST, { id: projectId })).data,
        enabled: valid,
        retry: (count, error: Error & { status?: number }) =>
            count < 2 && !(error?.status !== undefined && error.status >= 400 && error.status < 500),
    });
    // After a device leaves the project: its counts and pies change.
    const refreshCounts = () => {
        void queryClient.invalidateQueries({ queryKey: [PROGRAM_LIST, 'getOne', { id: String(projectId) }] });
        void queryClient.invalidateQueries({ queryKey: [PROJECTS, 'overview', projectId] });
        void queryClient.invalidateQueries({ queryKey: ['devices'] });
    };

    const status = (project.error as (Error & { status?: number }) | null)?.status;
    if (!valid || status === 404) {
        return (
            <Box sx={{ p: { xs: 1, md: 2 } }}>
                <Title title={NOT_FOUND} />
                <Card variant="outlined">
                    <CardContent>
                        <Typography variant="h6" component="h1" gutterBottom>
                            {NOT_FOUND}
                        </Typography>
                        <Typography variant="body2" color="text.secondary" sx={{ mb: 2 }}>
                            该项目可能已被删除，或链接有误。
                        </Typography>
                        <Button component={Link} to="/programList" variant="contained">
                            返回项目列表
                        </Button>
                    </CardContent>
                </Card>
            </Box>
        );
    }
    if (project.error) {
        return (
            <Box sx={{ p: { xs: 1, md: 2 } }}>
                <Title title="项目概览" />
                <BackButton />
                <Alert
                    severity="error"
                    sx={{ mt: 1 }}
                    action={
                        <Button color="inherit" size="small" onClick={() => void project.refetch()}>
                            重试
                        </Button>
                    }
                >
                    项目加载失败：{errorText(project.error, '查询失败')}
                </Alert>
            </Box>
        );
    }
    if (!project.data) {
        return (
            <Box sx={{ p: 4, display: 'flex', justifyContent: 'center' }}>
                <Title title="项目概览" />
                <CircularProgress aria-label="项目加载中" />
            </Box>
        );
    }

    const data = project.data;
    return (
        // Sections keep their height (a flex column would shrink the header card to its first line).
        <Box sx={{ p: { xs: 1, md: 2 }, display: 'flex', flexDirection: 'column', gap: 2, '& > *': { flexShrink: 0 } }}>
            <Title title={`项目概览 - ${data.name}`} />
            <Header project={data} />
            <Suspense fallback={<ChartFallback height={260} />}>
                <OverviewPies projectId={data.id} />
            </Suspense>
            <Grid container spacing={2}>
                <Grid size={{ xs: 12, lg: 6 }}>
                    <Suspense fallback={<ChartFallback height={280} />}>
                        <HealthChart projectId={data.id} />
                    </Suspense>
                </Grid>
                <Grid size={{ xs: 12, lg: 6 }}>
                    <StaffSection projectCode={data.code} />
                </Grid>
                <Grid size={{ xs: 12, lg: 6 }}>
                    <AlertTable projectId={data.id} />
                </Grid>
                <Grid size={{ xs: 12, lg: 6 }}>
                    <RuleTable />
                </Grid>
            </Grid>
            <ProjectDevices project={data} onChanged={refreshCounts} />
        </Box>
    );
}
