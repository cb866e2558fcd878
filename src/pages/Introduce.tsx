import type { ComponentType } from 'react';
import ArrowForward from '@mui/icons-material/ArrowForward';
import HistoryIcon from '@mui/icons-material/History';
import Inventory2Icon from '@mui/icons-material/Inventory2';
import { Box, Card, CardActionArea, CardContent, Typography } from '@mui/material';
import { Link } from 'react-router-dom';
import { Title } from 'react-admin';

interface Entry {
    title: string;
    to: string;
    text: string;
    icon: ComponentType<{ color?: 'primary'; sx?: object }>;
}

/** The families that exist so far; the dashboard of counts, charts and map replaces this page later. */
const ENTRIES: Entry[] = [
    {
        title: '产品管理',
        to: '/product',
        text: '创建产品，定义物模型，查看通信 Topic，进入设备管理。',
        icon: Inventory2Icon,
    },
    {
        title: '产品更新日志',
        to: '/productLog',
        text: '记录并查看平台产品能力的更新。',
        icon: HistoryIcon,
    },
];

/** /introduce: where the console lands after sign-on. */
export function Introduce() {
    return (
        <Box sx={{ py: 2 }}>
            <Title title="概览" />
            <Typography variant="h5" component="h1" sx={{ fontWeight: 600 }} gutterBottom>
                欢迎使用物联网设备接入管理平台
            </Typography>
            <Typography variant="body1" color="text.secondary" sx={{ maxWidth: 760, mb: 3 }}>
                在这里为设备建立产品与物模型，让设备通过 MQTT 安全接入，并管理设备、分组、规则与数据订阅。
                从下面的入口开始。
            </Typography>
            <Box sx={{ display: 'grid', gap: 2, gridTemplateColumns: 'repeat(auto-fill, minmax(260px, 1fr))' }}>
                {ENTRIES.map(({ title, to, text, icon: Icon }) => (
                    <Card key={to}>
                        <CardActionArea component={Link} to={to} sx={{ height: '100%' }}>
                            <CardContent>
                                <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, mb: 1 }}>
                                    <Icon color="primary" />
                                    <Typography variant="h6" component="h2" sx={{ flex: 1 }}>
                                        {title}
                                    </Typography>
                                    <ArrowForward fontSize="small" color="action" />
                                </Box>
                                <Typography variant="body2" color="text.secondary">
                                    {text}
                                </Typography>
                            </CardContent>
                        </CardActionArea>
                    </Card>
                ))}
            </Box>
        </Box>
    );
}

export default Introduce;
