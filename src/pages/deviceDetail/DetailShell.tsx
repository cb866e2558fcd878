import type { ReactNode } from 'react';
import { Link as RouterLink } from 'react-router-dom';
import { Title } from 'react-admin';
import {
    Alert,
    AlertTitle,
    Box,
    Breadcrumbs,
    Button,
    Card,
    CardContent,
    LinearProgress,
    Link,
    Stack,
    Tab,
    Tabs,
    Typography,
} from '@mui/material';
import { DeviceHeader } from './DeviceHeader';
import type { DeviceDetailAnswer } from './types';
import { errorText, isNotFound, type DeviceQuery } from './useDevice';

export interface TabSpec<T extends string = string> {
    value: T;
    label: string;
}

interface DetailShellProps<T extends string> {
    /** Where the breadcrumb leads back to, and its text. */
    back: { to: string; label: string };
    query: DeviceQuery;
    /** Shown instead of loading when the route itself cannot name a device. */
    invalid?: string;
    tabs: Array<TabSpec<T>>;
    tab: T;
    onTab: (tab: T) => void;
    children: (answer: DeviceDetailAnswer) => ReactNode;
}

/**
 * The frame of every device detail screen: breadcrumb, loading, a clear page when the device does not exist,
 * the header (device name, product, ProductKey) and a horizontal menu whose choice lives in the URL.
 */
export function DetailShell<T extends string>({
    back,
    query,
    invalid,
    tabs,
    tab,
    onTab,
    children,
}: DetailShellProps<T>) {
    const { data, isPending, error, reload } = query;
    return (
        <Box sx={{ p: { xs: 1, md: 2 }, minWidth: 0 }}>
            <Title title="设备详情" />
            <Breadcrumbs aria-label="breadcrumb" sx={{ mb: 2 }}>
                <Link component={RouterLink} to={back.to} underline="hover" color="inherit">
                    {back.label}
                </Link>
                <Typography color="text.primary">设备详情</Typography>
            </Breadcrumbs>
            {invalid ? (
                <NotFound text={invalid} back={back} />
            ) : error ? (
                isNotFound(error) ? (
                    <NotFound text={errorText(error)} back={back} />
                ) : (
                    <Alert
                        severity="error"
                        action={
                            <Button color="inherit" size="small" onClick={reload}>
                                重试
                            </Button>
                        }
                    >
                        <AlertTitle>设备详情加载失败</AlertTitle>
                        {errorText(error)}。请检查网络后重试，或
                        <Link component={RouterLink} to={back.to}>
                            返回{back.label}
                        </Link>
                    </Alert>
                )
            ) : isPending || !data ? (
                <Card variant="outlined">
                    <CardContent>
                        <Typography color="text.secondary" sx={{ mb: 1 }}>
                            设备信息加载中…
                        </Typography>
                        <LinearProgress aria-label="加载中" />
                    </CardContent>
                </Card>
            ) : (
                <Card variant="outlined">
                    <CardContent>
                        <DeviceHeader device={data.device} product={data.product} />
                        <Tabs
                            value={tab}
                            onChange={(_, next: T) => onTab(next)}
                            aria-label="设备详情"
                            variant="scrollable"
                            allowScrollButtonsMobile
                            sx={{
                                borderBottom: 1,
                                borderColor: 'divider',
                                mb: 2,
                                '& .MuiTab-root': { textTransform: 'none' },
                            }}
                        >
                            {tabs.map((t) => (
                                <Tab key={t.value} value={t.value} label={t.label} />
                            ))}
                        </Tabs>
                        <Box role="tabpanel" aria-label={tabs.find((t) => t.value === tab)?.label}>
                            {children(data)}
                        </Box>
                    </CardContent>
                </Card>
            )}
        </Box>
    );
}

function NotFound({ text, back }: { text: string; back: { to: string; label: string } }) {
    return (
        <Alert severity="warning">
            <AlertTitle>设备不存在</AlertTitle>
            <Stack spacing={0.5}>
                <span>{text === '设备不存在' ? '该设备不存在或已被删除。' : `${text}，该设备不存在或已被删除。`}</span>
                <Link component={RouterLink} to={back.to}>
                    返回{back.label}
                </Link>
            </Stack>
        </Alert>
    );
}
