import { useState } from 'react';
import RefreshIcon from '@mui/icons-material/Refresh';
import ShowChartIcon from '@mui/icons-material/ShowChart';
import {
    Box,
    Button,
    LinearProgress,
    Table,
    TableBody,
    TableCell,
    TableContainer,
    TableHead,
    TableRow,
    Typography,
} from '@mui/material';
import { useQuery } from '@tanstack/react-query';
import { TELEMETRY, asText, isNumericType, usePlatform, type PropertyRow } from './api';
import { EmptyState, LoadError, TabToolbar } from './parts';
import { PropertyHistoryDialog } from './PropertyHistoryDialog';

/**
 * Every property of the product's thing model with the device's latest value (GET /api/device/properties), and
 * the history of one (查看数据).
 */
export function PropertiesPanel({ deviceId }: { deviceId: number }) {
    const platform = usePlatform();
    const [open, setOpen] = useState<PropertyRow | null>(null);
    const query = useQuery({
        queryKey: [TELEMETRY, 'properties', deviceId],
        queryFn: async () => (await platform.invoke<PropertyRow[]>(TELEMETRY, 'properties', { deviceId })).data ?? [],
        retry: false,
        refetchOnWindowFocus: false,
    });
    const rows = query.data ?? [];

    return (
        <Box>
            <TabToolbar>
                <Button
                    size="small"
                    variant="outlined"
                    startIcon={<RefreshIcon />}
                    disabled={query.isFetching}
                    onClick={() => void query.refetch()}
                    aria-label="刷新属性"
                >
                    {query.isFetching ? '刷新中…' : '刷新'}
                </Button>
            </TabToolbar>
            {query.isFetching ? <LinearProgress aria-label="加载中" sx={{ height: 2 }} /> : <Box sx={{ height: 2 }} />}
            <TableContainer>
                <Table size="small" aria-label="属性" sx={{ minWidth: 760 }}>
                    <TableHead>
                        <TableRow sx={{ '& th': { whiteSpace: 'nowrap', fontWeight: 600 } }}>
                            <TableCell>属性名称</TableCell>
                            <TableCell>标识符</TableCell>
                            <TableCell>数据类型</TableCell>
                            <TableCell>最新值</TableCell>
                            <TableCell>更新时间</TableCell>
                            <TableCell sx={{ width: 110 }}>操作</TableCell>
                        </TableRow>
                    </TableHead>
                    <TableBody>
                        {rows.map((p) => (
                            <TableRow key={p.functionId ?? p.identifier} hover>
                                <TableCell>{p.functionName}</TableCell>
                                <TableCell sx={{ fontFamily: 'monospace' }}>{p.identifier}</TableCell>
                                <TableCell sx={{ whiteSpace: 'nowrap' }}>{p.dataTypeName || '-'}</TableCell>
                                <TableCell sx={{ maxWidth: 320, wordBreak: 'break-all' }}>
                                    <LatestValue property={p} />
                                </TableCell>
                                <TableCell sx={{ whiteSpace: 'nowrap' }}>{p.timestamp ?? '-'}</TableCell>
                                <TableCell>
                                    <Button
                                        size="small"
                                        startIcon={isNumericType(p.dataTypeName) ? <ShowChartIcon /> : undefined}
                                        onClick={() => setOpen(p)}
                                        aria-label={`查看数据 ${p.functionName}`}
                                        sx={{ whiteSpace: 'nowrap' }}
                                    >
                                        查看数据
                                    </Button>
                                </TableCell>
                            </TableRow>
                        ))}
                    </TableBody>
                </Table>
            </TableContainer>
            {query.error ? (
                <LoadError title="属性加载失败" error={query.error} onRetry={() => void query.refetch()} />
            ) : query.data && rows.length === 0 ? (
                <EmptyState text="暂无数据" hint="该产品的物模型未定义属性，可在产品详情的“功能定义”中添加" />
            ) : null}
            <PropertyHistoryDialog deviceId={deviceId} property={open} onClose={() => setOpen(null)} />
        </Box>
    );
}

function LatestValue({ property }: { property: PropertyRow }) {
    if (property.timestamp === null || property.value === null || property.value === undefined) {
        return <Typography color="text.secondary">未上报</Typography>;
    }
    return (
        <>
            {asText(property.value)}
            {property.unit ? (
                <Typography component="span" color="text.secondary" sx={{ ml: 0.5 }}>
                    {property.unit}
                </Typography>
            ) : null}
        </>
    );
}
