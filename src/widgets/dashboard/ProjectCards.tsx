import AddIcon from '@mui/icons-material/Add';
import FolderSpecialIcon from '@mui/icons-material/FolderSpecial';
import { Alert, Box, Button, Card, CardActionArea, CardContent, Chip, Skeleton, Typography } from '@mui/material';
import { Link } from 'react-router-dom';
import { useCan } from '../../engine/rights';
import { errorText, PROJECT_CARDS, useProjects, type ProjectCard } from './api';

const GRID = {
    display: 'grid',
    gap: 2,
    gridTemplateColumns: 'repeat(auto-fill, minmax(220px, 1fr))',
} as const;

function ProjectItem({ project }: { project: ProjectCard }) {
    const name = project.projectName ?? project.name ?? '';
    return (
        <Card variant="outlined" sx={{ height: '100%' }}>
            <CardActionArea
                component={Link}
                to={`/programOverview/${project.id}`}
                sx={{ height: '100%', display: 'flex', alignItems: 'stretch' }}
                data-testid="project-card"
            >
                <CardContent sx={{ width: '100%', display: 'flex', flexDirection: 'column', gap: 1 }}>
                    <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, minWidth: 0 }}>
                        <FolderSpecialIcon color="primary" fontSize="small" sx={{ flex: 'none' }} />
                        <Typography variant="subtitle1" component="h3" noWrap title={name} sx={{ fontWeight: 600 }}>
                            {name}
                        </Typography>
                    </Box>
                    <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, flexWrap: 'wrap' }}>
                        {project.sceneName ? <Chip size="small" label={project.sceneName} variant="outlined" /> : null}
                        <Typography variant="body2" color="text.secondary">
                            设备 {project.deviceCount ?? 0} 台
                        </Typography>
                    </Box>
                </CardContent>
            </CardActionArea>
        </Card>
    );
}

/**
 * 我的项目: a card per project (to its overview) and, for a user who may create projects (project.create), a 新建项目
 * card to the project list.
 */
export function ProjectCards() {
    const { data, error, isPending, isFetching, refetch } = useProjects();
    const can = useCan();
    const total = data?.total ?? 0;
    return (
        <Box component="section" aria-labelledby="dashboard-projects">
            <Box sx={{ display: 'flex', alignItems: 'baseline', gap: 1, mb: 1.5 }}>
                <Typography id="dashboard-projects" variant="h6" component="h2" sx={{ fontSize: 17, fontWeight: 600 }}>
                    我的项目
                </Typography>
                {data ? (
                    <Typography variant="body2" color="text.secondary">
                        共 {total} 个
                    </Typography>
                ) : null}
                {total > PROJECT_CARDS ? (
                    <Button component={Link} to="/programList" size="small" sx={{ ml: 'auto' }}>
                        查看全部
                    </Button>
                ) : null}
            </Box>
            {error && !data ? (
                <Alert
                    severity="error"
                    action={
                        <Button color="inherit" size="small" disabled={isFetching} onClick={() => void refetch()}>
                            重试
                        </Button>
                    }
                >
                    项目加载失败：{errorText(error)}
                </Alert>
            ) : (
                <Box sx={GRID}>
                    {isPending
                        ? Array.from({ length: 3 }, (_, i) => (
                              <Skeleton key={i} variant="rounded" height={92} aria-label="项目加载中" />
                          ))
                        : (data?.records ?? []).map((p) => <ProjectItem key={p.id} project={p} />)}
                    {can('project.create') ? (
                        <Card variant="outlined" sx={{ borderStyle: 'dashed', minHeight: 92 }}>
                            <CardActionArea
                                component={Link}
                                to="/programList"
                                sx={{
                                    height: '100%',
                                    display: 'flex',
                                    alignItems: 'center',
                                    justifyContent: 'center',
                                    gap: 1,
                                    color: 'primary.main',
                                }}
                            >
                                <AddIcon />
                                <Typography component="span">新建项目</Typography>
                            </CardActionArea>
                        </Card>
                    ) : null}
                </Box>
            )}
        </Box>
    );
}
