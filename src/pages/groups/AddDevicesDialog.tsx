import { useEffect, useState } from 'react';
import SearchIcon from '@mui/icons-material/Search';
import {
    Alert,
    Box,
    Button,
    CircularProgress,
    Dialog,
    DialogActions,
    DialogContent,
    DialogTitle,
    InputAdornment,
    MenuItem,
    TextField,
    Typography,
} from '@mui/material';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { GROUP_DEVICE_PAGE_SIZE } from '../../../schemas/group';
import {
    errorText,
    GROUPS,
    usePlatform,
    useRefreshGroups,
    useToast,
    type GroupDetail,
    type GroupDevice,
    type ProductOption,
} from './api';
import { DeviceRowsTable, toggled } from './DeviceRowsTable';
import { GroupPager } from './GroupPager';

interface AddDevicesDialogProps {
    group: GroupDetail;
    open: boolean;
    onClose: () => void;
}

/** 添加设备: pick a product, then its devices not yet in the group (GET /api/device/candidates), across pages. */
export function AddDevicesDialog({ group, open, onClose }: AddDevicesDialogProps) {
    const platform = usePlatform();
    const toast = useToast();
    const refresh = useRefreshGroups();
    const [productId, setProductId] = useState<number | ''>('');
    const [name, setName] = useState('');
    const [search, setSearch] = useState('');
    const [page, setPage] = useState(1);
    const [selected, setSelected] = useState<Set<number>>(new Set());
    const [pending, setPending] = useState(false);

    useEffect(() => {
        if (!open) return;
        setProductId('');
        setName('');
        setSearch('');
        setPage(1);
        setSelected(new Set());
    }, [open]);

    const products = useQuery({
        queryKey: [GROUPS, 'products'],
        queryFn: async () => (await platform.invoke<ProductOption[]>(GROUPS, 'products')).data ?? [],
        enabled: open,
        staleTime: 30_000,
    });
    const candidates = useQuery({
        queryKey: [GROUPS, 'candidates', group.groupId, productId, search, page],
        queryFn: async () =>
            (
                await platform.invoke<{ list: GroupDevice[]; total: number }>(GROUPS, 'candidates', {
                    productId,
                    groupId: group.groupId,
                    deviceName: search || undefined,
                    pageNumber: page,
                    pageSize: GROUP_DEVICE_PAGE_SIZE,
                })
            ).data,
        enabled: open && productId !== '',
        placeholderData: keepPreviousData,
    });
    const rows = candidates.data?.list ?? [];

    const add = async () => {
        setPending(true);
        try {
            await platform.invoke(GROUPS, 'addDevices', { groupId: group.groupId, deviceList: [...selected] });
            toast('添加成功');
            await refresh();
            onClose();
        } catch (err) {
            toast(errorText(err), 'error');
        } finally {
            setPending(false);
        }
    };

    return (
        <Dialog open={open} onClose={() => !pending && onClose()} fullWidth maxWidth="md" aria-labelledby="add-devices">
            <DialogTitle id="add-devices">添加设备</DialogTitle>
            <DialogContent sx={{ pt: 0 }}>
                <Box sx={{ display: 'flex', gap: 2, flexWrap: 'wrap', mt: 1 }}>
                    <TextField
                        select
                        label="产品"
                        required
                        value={productId}
                        onChange={(e) => {
                            setProductId(Number(e.target.value));
                            setPage(1);
                        }}
                        sx={{ minWidth: 240 }}
                        size="small"
                        helperText={products.error ? `产品加载失败：${errorText(products.error)}` : undefined}
                        error={!!products.error}
                    >
                        {products.isPending ? (
                            <MenuItem value="" disabled>
                                加载中…
                            </MenuItem>
                        ) : null}
                        {(products.data ?? []).map((p) => (
                            <MenuItem key={p.productId} value={p.productId}>
                                {p.productName}
                            </MenuItem>
                        ))}
                    </TextField>
                    <TextField
                        size="small"
                        label="DeviceName"
                        value={name}
                        disabled={productId === ''}
                        onChange={(e) => setName(e.target.value)}
                        onKeyDown={(e) => {
                            if (e.key === 'Enter') {
                                setSearch(name.trim());
                                setPage(1);
                            }
                        }}
                        slotProps={{
                            input: {
                                endAdornment: (
                                    <InputAdornment position="end">
                                        <SearchIcon fontSize="small" />
                                    </InputAdornment>
                                ),
                            },
                        }}
                        placeholder="回车搜索"
                    />
                </Box>
                <Box sx={{ mt: 2, minHeight: 160 }}>
                    {productId === '' ? (
                        <Typography color="text.secondary" sx={{ py: 4, textAlign: 'center' }}>
                            请先选择产品，再勾选要加入分组的设备
                        </Typography>
                    ) : candidates.error ? (
                        <Alert severity="error">设备加载失败：{errorText(candidates.error, '查询失败')}</Alert>
                    ) : candidates.isPending ? (
                        <Box sx={{ py: 4, textAlign: 'center' }} role="status">
                            <CircularProgress size={20} />
                        </Box>
                    ) : rows.length === 0 ? (
                        <Typography color="text.secondary" sx={{ py: 4, textAlign: 'center' }}>
                            该产品下没有可添加的设备
                        </Typography>
                    ) : (
                        <>
                            <DeviceRowsTable
                                label="可添加的设备"
                                rows={rows}
                                selected={selected}
                                onToggle={(id) => setSelected((s) => toggled(s, [id], !s.has(id)))}
                                onToggleAll={(on) =>
                                    setSelected((s) =>
                                        toggled(
                                            s,
                                            rows.map((r) => r.deviceId),
                                            on,
                                        ),
                                    )
                                }
                            />
                            <GroupPager
                                page={page}
                                perPage={GROUP_DEVICE_PAGE_SIZE}
                                total={candidates.data?.total ?? 0}
                                onPage={setPage}
                            />
                        </>
                    )}
                </Box>
            </DialogContent>
            <DialogActions sx={{ px: 3, pb: 2 }}>
                <Typography variant="body2" color="text.secondary" sx={{ flex: 1, pl: 1 }}>
                    已选择 {selected.size} 个设备
                </Typography>
                <Button onClick={onClose} disabled={pending}>
                    取消
                </Button>
                <Button variant="contained" onClick={() => void add()} disabled={pending || selected.size === 0}>
                    {pending ? '提交中…' : '确定'}
                </Button>
            </DialogActions>
        </Dialog>
    );
}
