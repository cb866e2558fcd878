import {
    Box,
    Chip,
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
import { CALL_TYPE_LABELS } from '../../../components/thingModel/model';
import { METHOD_SERVICES, RUN_STATUS_SIZE, TELEMETRY, usePlatform, type Paged, type ServiceFunction } from './api';
import { EmptyState, LoadError, TabToolbar } from './parts';
import { ReportedMessages } from './ReportedMessages';

interface ServicesPanelProps {
    productId: number;
    productKey: string;
    deviceName: string;
}

/** The product's services (name, identifier, call type) and the device's latest service call records. */
export function ServicesPanel({ productId, productKey, deviceName }: ServicesPanelProps) {
    const platform = usePlatform();
    const services = useQuery({
        queryKey: [TELEMETRY, 'services', productId],
        queryFn: async () => (await platform.invoke<Paged<ServiceFunction>>(TELEMETRY, 'services', { productId })).data,
        retry: false,
        refetchOnWindowFocus: false,
    });
    const rows = services.data?.records ?? [];

    return (
        <Box sx={{ display: 'flex', flexDirection: 'column', gap: 3 }}>
            <Box>
                <TabToolbar title="服务列表" />
                {services.isPending ? <LinearProgress aria-label="加载中" sx={{ height: 2 }} /> : null}
                <TableContainer>
                    <Table size="small" aria-label="服务列表" sx={{ minWidth: 560 }}>
                        <TableHead>
                            <TableRow sx={{ '& th': { whiteSpace: 'nowrap', fontWeight: 600 } }}>
                                <TableCell>服务名称</TableCell>
                                <TableCell>标识符</TableCell>
                                <TableCell>调用方式</TableCell>
                                <TableCell>描述</TableCell>
                            </TableRow>
                        </TableHead>
                        <TableBody>
                            {rows.map((s) => (
                                <TableRow key={s.id} hover>
                                    <TableCell>{s.name}</TableCell>
                                    <TableCell sx={{ fontFamily: 'monospace' }}>{s.identifier}</TableCell>
                                    <TableCell>
                                        <Chip
                                            size="small"
                                            variant="outlined"
                                            label={CALL_TYPE_LABELS[s.callType ?? ''] ?? '-'}
                                        />
                                    </TableCell>
                                    <TableCell sx={{ color: 'text.secondary', wordBreak: 'break-all' }}>
                                        {s.description || '-'}
                                    </TableCell>
                                </TableRow>
                            ))}
                        </TableBody>
                    </Table>
                </TableContainer>
                {services.error ? (
                    <LoadError
                        title="服务列表加载失败"
                        error={services.error}
                        onRetry={() => void services.refetch()}
                    />
                ) : services.data && rows.length === 0 ? (
                    <EmptyState text="该产品未定义服务" hint="在产品详情的“功能定义”中添加服务" />
                ) : null}
                {services.data && services.data.total > rows.length ? (
                    <Typography variant="body2" color="text.secondary" sx={{ mt: 1 }}>
                        共 {services.data.total} 个服务，此处列出前 {rows.length} 个
                    </Typography>
                ) : null}
            </Box>
            <Box>
                <ReportedMessages
                    productKey={productKey}
                    deviceName={deviceName}
                    method={METHOD_SERVICES}
                    size={RUN_STATUS_SIZE}
                    title="服务调用记录"
                    empty="暂无服务调用记录"
                />
            </Box>
        </Box>
    );
}
