import { useEffect, useState } from 'react';
import SearchIcon from '@mui/icons-material/Search';
import {
    Alert,
    Box,
    Button,
    Checkbox,
    Chip,
    Dialog,
    DialogActions,
    DialogContent,
    DialogTitle,
    InputAdornment,
    LinearProgress,
    List,
    ListItemButton,
    ListItemIcon,
    ListItemText,
    TextField,
    Typography,
} from '@mui/material';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { DeviceDetail } from '../types';
import { TELEMETRY, errorText, usePlatform, useToast, type Paged, type SubDeviceRow } from './api';
import { EmptyState, Pager } from './parts';

const CANDIDATE_PAGE_SIZE = 10;
const REMARK_MAX = 100;
export const NOTHING_CHOSEN = '请选择要添加的子设备';
export const REMARK_TOO_LONG = '备注不得超过100个字符';

interface AddSubDeviceDialogProps {
    open: boolean;
    gateway: DeviceDetail;
    onClose: () => void;
    onAdded: (count: number) => void;
}

/**
 * 添加子设备: pick devices that have no gateway yet (GET /api/device/subDevice/candidates, searchable by name, paged,
 * the choice kept across pages and searches), an optional remark, then POST /api/device/subDevice/add.
 */
export function AddSubDeviceDialog({ open, gateway, onClose, onAdded }: AddSubDeviceDialogProps) {
    return (
        <Dialog open={open} onClose={onClose} fullWidth maxWidth="sm" aria-labelledby="add-sub-device-title">
            <DialogTitle id="add-sub-device-title">添加子设备</DialogTitle>
            {open ? <AddForm gateway={gateway} onClose={onClose} onAdded={onAdded} /> : null}
        </Dialog>
    );
}

function AddForm({ gateway, onClose, onAdded }: Omit<AddSubDeviceDialogProps, 'open'>) {
    const platform = usePlatform();
    const toast = useToast();
    const [typed, setTyped] = useState('');
    const [name, setName] = useState('');
    const [page, setPage] = useState(0);
    const [chosen, setChosen] = useState<Map<number, SubDeviceRow>>(new Map());
    const [remark, setRemark] = useState('');
    const [problem, setProblem] = useState<string | null>(null);
    const [submitting, setSubmitting] = useState(false);

    // Searching as one types, once the typing pauses.
    useEffect(() => {
        const timer = setTimeout(() => {
            setName(typed.trim());
            setPage(0);
        }, 300);
        return () => clearTimeout(timer);
    }, [typed]);

    const gwId = gateway.deviceId;
    const query = useQuery({
        queryKey: [TELEMETRY, 'subDeviceCandidates', gwId, name, page],
        queryFn: async () =>
            (
                await platform.invoke<Paged<SubDeviceRow>>(TELEMETRY, 'subDeviceCandidates', {
                    gwId,
                    pageNumber: page + 1,
                    pageSize: CANDIDATE_PAGE_SIZE,
                    ...(name ? { deviceName: name } : {}),
                })
            ).data,
        placeholderData: keepPreviousData,
        retry: false,
        refetchOnWindowFocus: false,
    });
    const rows = query.data?.records ?? [];

    const toggle = (row: SubDeviceRow) => {
        setProblem(null);
        setChosen((current) => {
            const next = new Map(current);
            if (next.has(row.deviceId)) next.delete(row.deviceId);
            else next.set(row.deviceId, row);
            return next;
        });
    };

    const remarkTooLong = remark.trim().length > REMARK_MAX;
    const submit = async () => {
        if (chosen.size === 0) {
            setProblem(NOTHING_CHOSEN);
            return;
        }
        if (remarkTooLong) return;
        setSubmitting(true);
        try {
            const { data } = await platform.invoke<{ count: number }>(TELEMETRY, 'addSubDevices', {
                deviceId: [...chosen.keys()],
                gwId,
                remark: remark.trim() || undefined,
            });
            toast('添加成功', 'success');
            onAdded(data?.count ?? chosen.size);
            onClose();
        } catch (error) {
            toast(errorText(error, '添加失败'), 'error');
        } finally {
            setSubmitting(false);
        }
    };

    return (
        <>
            <DialogContent sx={{ pt: 0 }}>
                <Typography variant="body2" color="text.secondary" sx={{ mb: 1.5 }}>
                    网关：{gateway.deviceName}。可选的设备为尚未挂载到任何网关的直连设备。
                </Typography>
                <TextField
                    fullWidth
                    size="small"
                    label="DeviceName"
                    placeholder="按设备名称搜索"
                    value={typed}
                    onChange={(e) => setTyped(e.target.value)}
                    slotProps={{
                        htmlInput: { maxLength: 100, 'aria-label': '搜索可添加的设备' },
                        input: {
                            endAdornment: (
                                <InputAdornment position="end">
                                    <SearchIcon fontSize="small" />
                                </InputAdornment>
                            ),
                        },
                    }}
                />
                {query.isFetching ? (
                    <LinearProgress aria-label="加载中" sx={{ height: 2 }} />
                ) : (
                    <Box sx={{ height: 2 }} />
                )}
                <Box sx={{ border: 1, borderColor: 'divider', borderRadius: 1, minHeight: 120 }}>
                    {query.error ? (
                        <Alert
                            severity="error"
                            action={
                                <Button color="inherit" size="small" onClick={() => void query.refetch()}>
                                    重试
                                </Button>
                            }
                        >
                            可添加的设备加载失败：{errorText(query.error)}
                        </Alert>
                    ) : query.data && rows.length === 0 ? (
                        <EmptyState
                            text={name ? `没有名称包含“${name}”的可添加设备` : '暂无可添加的设备'}
                            hint="只有未挂载到网关的直连设备可以添加"
                        />
                    ) : (
                        <List dense aria-label="可添加的设备" sx={{ py: 0 }}>
                            {rows.map((row) => (
                                <ListItemButton key={row.deviceId} onClick={() => toggle(row)} sx={{ py: 0 }}>
                                    <ListItemIcon sx={{ minWidth: 36 }}>
                                        <Checkbox
                                            edge="start"
                                            size="small"
                                            checked={chosen.has(row.deviceId)}
                                            tabIndex={-1}
                                            slotProps={{ input: { 'aria-label': row.deviceName } }}
                                        />
                                    </ListItemIcon>
                                    <ListItemText primary={row.deviceName} secondary={row.productName} />
                                </ListItemButton>
                            ))}
                        </List>
                    )}
                </Box>
                {query.data && query.data.total > CANDIDATE_PAGE_SIZE ? (
                    <Pager
                        total={query.data.total}
                        page={page}
                        pageSize={CANDIDATE_PAGE_SIZE}
                        pageSizes={[CANDIDATE_PAGE_SIZE]}
                        onPage={setPage}
                    />
                ) : null}
                <Box sx={{ mt: 1.5 }} aria-live="polite">
                    <Typography variant="body2" color={problem ? 'error' : 'text.secondary'}>
                        {problem ?? `已选择 ${chosen.size} 个设备`}
                    </Typography>
                    <Box sx={{ display: 'flex', flexWrap: 'wrap', gap: 0.5, mt: 0.5 }}>
                        {[...chosen.values()].map((row) => (
                            <Chip key={row.deviceId} size="small" label={row.deviceName} onDelete={() => toggle(row)} />
                        ))}
                    </Box>
                </Box>
                <TextField
                    fullWidth
                    size="small"
                    label="备注"
                    value={remark}
                    onChange={(e) => setRemark(e.target.value)}
                    error={remarkTooLong}
                    helperText={remarkTooLong ? REMARK_TOO_LONG : '选填，会替换所选设备的备注'}
                    slotProps={{ htmlInput: { maxLength: REMARK_MAX } }}
                    sx={{ mt: 2 }}
                />
            </DialogContent>
            <DialogActions sx={{ px: 3, pb: 2 }}>
                <Button onClick={onClose} disabled={submitting}>
                    取消
                </Button>
                <Button variant="contained" onClick={() => void submit()} disabled={submitting}>
                    {submitting ? '提交中…' : '确定'}
                </Button>
            </DialogActions>
        </>
    );
}
