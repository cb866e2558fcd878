import type { ReactNode } from 'react';
import { Box, Chip, MenuItem, Paper, Skeleton, TextField, Typography } from '@mui/material';
import type { ProductOption } from './hooks';
import { useDeviceStatistics } from './hooks';

export const ALL_PRODUCTS = '全部产品';

interface ProductFilterProps {
    products: ProductOption[] | undefined;
    /** The chosen product's productKey or productId (per `by`), '' for all. */
    value: string;
    by: 'productKey' | 'productId';
    onChange: (value: string) => void;
    loading?: boolean;
}

/** The product filter of the device screens, with '全部产品' first. */
export function ProductFilter({ products, value, by, onChange, loading }: ProductFilterProps) {
    const known = !value || (products ?? []).some((p) => String(p[by]) === value);
    return (
        <TextField
            select
            size="small"
            label="产品"
            value={known ? value : ''}
            onChange={(e) => onChange(e.target.value)}
            sx={{ width: 280, maxWidth: '100%' }}
            disabled={loading}
            slotProps={{ select: { displayEmpty: true }, inputLabel: { shrink: true } }}
        >
            <MenuItem value="">{ALL_PRODUCTS}</MenuItem>
            {(products ?? []).map((p) => (
                <MenuItem key={p.productId} value={String(p[by])}>
                    {p.productName}
                </MenuItem>
            ))}
        </TextField>
    );
}

type Count = 'total' | 'online' | 'inactive';

const COUNTS: Record<Count, { label: string; color: 'primary' | 'success' | 'default'; key: string }> = {
    total: { label: '设备总数', color: 'primary', key: 'total' },
    online: { label: '在线', color: 'success', key: 'onlineTotal' },
    inactive: { label: '未激活', color: 'default', key: 'inActiveTotal' },
};

/** Counts of the devices under the current product filter (GET /api/device/statistics). */
export function DeviceCounts({
    productKey,
    show,
    enabled = true,
}: {
    productKey: string | undefined;
    show: Count[];
    enabled?: boolean;
}) {
    const { data, isPending, error } = useDeviceStatistics(productKey, enabled);
    return (
        <Box sx={{ display: 'flex', gap: 1.5, flexWrap: 'wrap' }} role="group" aria-label="设备统计">
            {show.map((c) => {
                const { label, color, key } = COUNTS[c];
                const value = data ? (data as unknown as Record<string, number>)[key] : undefined;
                return (
                    <Paper key={c} variant="outlined" sx={{ px: 2, py: 1, minWidth: 120 }} data-testid={`count-${c}`}>
                        <Typography variant="caption" color="text.secondary" component="div">
                            {c === 'total' ? label : <Chip size="small" color={color} label={label} />}
                        </Typography>
                        <Typography variant="h6" component="div">
                            {isPending && enabled ? (
                                <Skeleton width={40} />
                            ) : error ? (
                                '-'
                            ) : (
                                (value ?? 0).toLocaleString('zh-CN')
                            )}
                        </Typography>
                    </Paper>
                );
            })}
        </Box>
    );
}

/** The filter and button row above a device table. */
export function ToolbarRow({ children }: { children: ReactNode }) {
    return <Box sx={{ display: 'flex', gap: 1, flexWrap: 'wrap', alignItems: 'center', mb: 2 }}>{children}</Box>;
}
