import { Link as RouterLink } from 'react-router-dom';
import { Box, Chip, Link, Stack, Typography } from '@mui/material';
import { DEVICE_STATUSES } from '../../../schemas/device';
import type { DeviceDetail, DeviceProduct } from './types';

export function statusOf(device: Pick<DeviceDetail, 'status'>) {
    return DEVICE_STATUSES.find((s) => s.id === device.status) ?? DEVICE_STATUSES[0];
}

/** Device name and status, the product (linked to its detail) and its ProductKey. */
export function DeviceHeader({ device, product }: { device: DeviceDetail; product: DeviceProduct }) {
    const status = statusOf(device);
    return (
        <Box sx={{ mb: 1 }}>
            <Stack direction="row" spacing={1.5} alignItems="center" sx={{ mb: 1, flexWrap: 'wrap', rowGap: 1 }}>
                <Typography variant="h5" component="h1" sx={{ wordBreak: 'break-all' }} data-testid="device-title">
                    {device.deviceName}
                </Typography>
                <Chip size="small" color={status.color} label={status.name} variant="outlined" />
            </Stack>
            <Stack direction="row" spacing={3} sx={{ flexWrap: 'wrap', rowGap: 0.5 }}>
                <Stack direction="row" spacing={0.5} alignItems="center">
                    <Typography color="text.secondary">产品：</Typography>
                    <Link component={RouterLink} to={`/productDetail/${product.productId}`} underline="hover">
                        {product.productName}
                    </Link>
                </Stack>
                <Stack direction="row" spacing={0.5} alignItems="center">
                    <Typography color="text.secondary">ProductKey：</Typography>
                    <Typography sx={{ fontFamily: 'monospace' }} data-testid="device-product-key">
                        {product.productKey}
                    </Typography>
                </Stack>
            </Stack>
        </Box>
    );
}
