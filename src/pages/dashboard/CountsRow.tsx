import type { ComponentType } from 'react';
import AppsIcon from '@mui/icons-material/Apps';
import DevicesOtherIcon from '@mui/icons-material/DevicesOther';
import Inventory2Icon from '@mui/icons-material/Inventory2';
import PendingActionsIcon from '@mui/icons-material/PendingActions';
import WorkspacesIcon from '@mui/icons-material/Workspaces';
import { Alert, Box, Button, Card, CardActionArea, CardContent, Skeleton, Typography } from '@mui/material';
import { Link } from 'react-router-dom';
import { errorText, useCounts, type DashboardCounts } from './api';

interface CountCard {
    key: keyof DashboardCounts;
    label: string;
    /** Where the count leads. SPEC.md names /device for products; /product is the product screen that exists. */
    to?: string;
    icon: ComponentType<{ sx?: object }>;
    color: string;
}

export const COUNT_CARDS: CountCard[] = [
    { key: 'projectCount', label: '场景项目', to: '/programList', icon: WorkspacesIcon, color: '#5470c6' },
    { key: 'productCount', label: '产品总数', to: '/product', icon: Inventory2Icon, color: '#3ba272' },
    { key: 'deviceCount', label: '设备总数', to: '/deviceInstance', icon: DevicesOtherIcon, color: '#4e9bf5' },
    { key: 'appUsedCount', label: '已用应用', icon: AppsIcon, color: '#fc8452' },
    { key: 'appToUseCount', label: '待用应用', icon: PendingActionsIcon, color: '#9a60b4' },
];

function CardBody({ card, value, failed }: { card: CountCard; value: number | undefined; failed: boolean }) {
    const Icon = card.icon;
    return (
        <CardContent sx={{ display: 'flex', alignItems: 'center', gap: 2, py: 2, '&:last-child': { pb: 2 } }}>
            <Box
                sx={{
                    width: 44,
                    height: 44,
                    flex: 'none',
                    borderRadius: '50%',
                    display: 'flex',
                    alignItems: 'center',
                    justifyContent: 'center',
                    bgcolor: `${card.color}1f`,
                    color: card.color,
                }}
            >
                <Icon />
            </Box>
            <Box sx={{ minWidth: 0 }}>
                <Typography variant="body2" color="text.secondary" noWrap>
                    {card.label}
                </Typography>
                {failed ? (
                    <Typography variant="h5" component="p" color="text.disabled" sx={{ lineHeight: 1.4 }}>
                        —
                    </Typography>
                ) : value === undefined ? (
                    <Skeleton width={56} height={36} aria-label={`${card.label}加载中`} />
                ) : (
                    <Typography
                        variant="h5"
                        component="p"
                        sx={{ fontWeight: 600, lineHeight: 1.4 }}
                        data-testid={`count-${card.key}`}
                    >
                        {value.toLocaleString('zh-CN')}
                    </Typography>
                )}
            </Box>
        </CardContent>
    );
}

/** The overview counts (GET /api/dashboard/count): the first thing the dashboard paints. */
export function CountsRow() {
    const { data, error, refetch, isFetching } = useCounts();
    return (
        <Box component="section" aria-label="概览统计">
            {error && !data ? (
                <Alert
                    severity="error"
                    sx={{ mb: 2 }}
                    action={
                        <Button color="inherit" size="small" disabled={isFetching} onClick={() => void refetch()}>
                            重试
                        </Button>
                    }
                >
                    统计数据加载失败：{errorText(error)}
                </Alert>
            ) : null}
            <Box
                sx={{
                    display: 'grid',
                    gap: 2,
                    gridTemplateColumns: { xs: 'repeat(2, 1fr)', sm: 'repeat(3, 1fr)', lg: 'repeat(5, 1fr)' },
                }}
            >
                {COUNT_CARDS.map((card) => {
                    const failed = !!error && !data;
                    const value = data?.[card.key];
                    return (
                        <Card key={card.key} variant="outlined">
                            {card.to ? (
                                <CardActionArea component={Link} to={card.to}>
                                    <CardBody card={card} value={value} failed={failed} />
                                </CardActionArea>
                            ) : (
                                <CardBody card={card} value={value} failed={failed} />
                            )}
                        </Card>
                    );
                })}
            </Box>
        </Box>
    );
}
