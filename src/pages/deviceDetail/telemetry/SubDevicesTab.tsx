import { useEffect, useState } from 'react';
import AddIcon from '@mui/icons-material/Add';
import SearchIcon from '@mui/icons-material/Search';
import {
    Box,
    Button,
    Chip,
    InputAdornment,
    LinearProgress,
    Link as MuiLink,
    Table,
    TableBody,
    TableCell,
    TableContainer,
    TableHead,
    TableRow,
    TextField,
} from '@mui/material';
import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { Confirm, useBasename } from 'react-admin';
import { Link as RouterLink, useSearchParams } from 'react-router-dom';
import { DEVICE_STATUSES, normaliseStatus } from '../../../../schemas/device';
import type { DeviceTabProps } from '../types';
import { TELEMETRY, errorText, usePlatform, useToast, type Paged, type SubDeviceRow } from './api';
import { AddSubDeviceDialog } from './AddSubDeviceDialog';
import { EmptyState, LoadError, Pager, TabToolbar } from './parts';

/** SPEC.md §9: tables default to 10 a page with 10, 20, 30, 40 offered. */
const PAGE_SIZES = [10, 20, 30, 40];
/**
 * The list state in the query string, under names of its own: the detail page's other tabs (files) page too, and
 * the engine's useUrlListController owns the plain `page` / `perPage` names.
 */
export const SUB_PARAMS = { page: 'subPage', size: 'subSize', name: 'subName' } as const;

function positive(value: string | null, fallback: number): number {
    const n = Number(value);
    return Number.isInteger(n) && n > 0 ? n : fallback;
}

export function childDetailPath(row: Pick<SubDeviceRow, 'productId' | 'deviceId'>): string {
    return `/childDeviceDetail/${encodeURIComponent(String(row.productId))}/${encodeURIComponent(String(row.deviceId))}`;
}

/**
 * A gateway's sub-devices (GET /api/device/subDevice/list): search by deviceName, paging in the URL, add from the
 * candidates, remove with a confirmation, links to each sub-device's detail.
 */
export function SubDevicesTab({ device, reload }: DeviceTabProps) {
    const platform = usePlatform();
    const toast = useToast();
    const basename = useBasename();
    const queryClient = useQueryClient();
    const [search, setSearch] = useSearchParams();
    const page = positive(search.get(SUB_PARAMS.page), 1);
    const pageSize = positive(search.get(SUB_PARAMS.size), PAGE_SIZES[0]);
    const name = search.get(SUB_PARAMS.name) ?? '';
    const [typed, setTyped] = useState(name);
    const [adding, setAdding] = useState(false);
    const [removing, setRemoving] = useState<SubDeviceRow | null>(null);
    const [pending, setPending] = useState(false);
    useEffect(() => setTyped(name), [name]);

    const update = (changes: Record<string, string | null>) =>
        setSearch((current) => {
            const next = new URLSearchParams(current);
            for (const [key, value] of Object.entries(changes)) {
                if (value === null || value === '') next.delete(key);
                else next.set(key, value);
            }
            return next;
        });

    const gwId = device.deviceId;
    const query = useQuery({
        queryKey: [TELEMETRY, 'subDevices', gwId, page, pageSize, name],
        queryFn: async () =>
            (
                await platform.invoke<Paged<SubDeviceRow>>(TELEMETRY, 'subDevices', {
                    gwId,
                    pageNumber: page,
                    pageSize,
                    ...(name ? { deviceName: name } : {}),
                })
            ).data,
        placeholderData: keepPreviousData,
        retry: false,
        refetchOnWindowFocus: false,
    });
    const rows = query.data?.records ?? [];
    const total = query.data?.total ?? 0;

    // A page past the end (rows removed since it was bookmarked) steps back to the last page with rows.
    useEffect(() => {
        if (query.isFetching || !query.data || rows.length > 0 || page <= 1) return;
        const last = Math.max(1, Math.ceil(total / pageSize));
        if (last !== page) update({ [SUB_PARAMS.page]: last > 1 ? String(last) : null });
        // eslint-disable-next-line react-hooks/exhaustive-deps
    }, [query.isFetching, query.data, rows.length, page, total, pageSize]);

    const changed = async () => {
        await queryClient.invalidateQueries({ queryKey: [TELEMETRY, 'subDevices', gwId] });
        await queryClient.invalidateQueries({ queryKey: [TELEMETRY, 'subDeviceCandidates', gwId] });
        reload();
    };

    const remove = async () => {
        if (!removing) return;
        setPending(true);
        try {
            await platform.invoke(TELEMETRY, 'removeSubDevice', { deviceId: removing.deviceId, gwId });
            toast('操作成功', 'success');
            setRemoving(null);
            await changed();
        } catch (error) {
            toast(errorText(error, '操作失败'), 'error');
        } finally {
            setPending(false);
        }
    };

    const searchName = () => update({ [SUB_PARAMS.name]: typed.trim() || null, [SUB_PARAMS.page]: null });

    return (
        <Box>
            <TabToolbar>
                <TextField
                    size="small"
                    label="DeviceName"
                    placeholder="按设备名称搜索"
                    value={typed}
                    onChange={(e) => setTyped(e.target.value)}
                    onKeyDown={(e) => {
                        if (e.key === 'Enter') searchName();
                    }}
                    slotProps={{
                        htmlInput: { maxLength: 100, 'aria-label': '按设备名称搜索子设备' },
                        input: {
                            endAdornment: (
                                <InputAdornment position="end">
                                    <SearchIcon fontSize="small" />
                                </InputAdornment>
                            ),
                        },
                    }}
                    sx={{ width: 260 }}
                />
                <Button variant="outlined" onClick={searchName}>
                    搜索
                </Button>
                {name ? (
                    <Button onClick={() => update({ [SUB_PARAMS.name]: null, [SUB_PARAMS.page]: null })}>重置</Button>
                ) : null}
                <Box sx={{ flex: 1 }} />
                <Button variant="contained" startIcon={<AddIcon />} onClick={() => setAdding(true)}>
                    添加子设备
                </Button>
            </TabToolbar>
            {query.isFetching ? <LinearProgress aria-label="加载中" sx={{ height: 2 }} /> : <Box sx={{ height: 2 }} />}
            <TableContainer>
                <Table size="small" aria-label="子设备" sx={{ minWidth: 760 }}>
                    <TableHead>
                        <TableRow sx={{ '& th': { whiteSpace: 'nowrap', fontWeight: 600 } }}>
                            <TableCell>DeviceName</TableCell>
                            <TableCell>所属产品</TableCell>
                            <TableCell>状态</TableCell>
                            <TableCell>备注</TableCell>
                            <TableCell>添加时间</TableCell>
                            <TableCell sx={{ width: 130 }}>操作</TableCell>
                        </TableRow>
                    </TableHead>
                    <TableBody>
                        {rows.map((row) => {
                            const status = DEVICE_STATUSES.find((s) => s.id === normaliseStatus(row.status))!;
                            const to = `${basename}${childDetailPath(row)}`;
                            return (
                                <TableRow key={row.deviceId} hover>
                                    <TableCell>
                                        <MuiLink component={RouterLink} to={to} underline="hover">
                                            {row.deviceName}
                                        </MuiLink>
                                    </TableCell>
                                    <TableCell>{row.productName}</TableCell>
                                    <TableCell>
                                        <Chip size="small" label={status.name} color={status.color} />
                                    </TableCell>
                                    <TableCell sx={{ maxWidth: 220, wordBreak: 'break-all' }}>
                                        {row.remark || '-'}
                                    </TableCell>
                                    <TableCell sx={{ whiteSpace: 'nowrap' }}>{row.createTime ?? '-'}</TableCell>
                                    <TableCell sx={{ whiteSpace: 'nowrap' }}>
                                        <Button size="small" component={RouterLink} to={to} sx={{ minWidth: 0 }}>
                                            查看
                                        </Button>
                                        <Button
                                            size="small"
                                            color="error"
                                            sx={{ minWidth: 0 }}
                                            onClick={() => setRemoving(row)}
                                            aria-label={`移除 ${row.deviceName}`}
                                        >
                                            移除
                                        </Button>
                                    </TableCell>
                                </TableRow>
                            );
                        })}
                    </TableBody>
                </Table>
            </TableContainer>
            {query.error ? (
                <LoadError title="子设备加载失败" error={query.error} onRetry={() => void query.refetch()} />
            ) : query.data && rows.length === 0 && !query.isFetching ? (
                <EmptyState
                    text={name ? `没有名称包含“${name}”的子设备` : '暂无子设备'}
                    hint={name ? '换个关键字，或点击“重置”查看全部' : '点击“添加子设备”把设备挂载到此网关'}
                />
            ) : null}
            {total > 0 ? (
                <Pager
                    total={total}
                    page={page - 1}
                    pageSize={pageSize}
                    pageSizes={PAGE_SIZES}
                    onPage={(next) => update({ [SUB_PARAMS.page]: next > 0 ? String(next + 1) : null })}
                    onPageSize={(size) => update({ [SUB_PARAMS.size]: String(size), [SUB_PARAMS.page]: null })}
                />
            ) : null}
            <AddSubDeviceDialog
                open={adding}
                gateway={device}
                onClose={() => setAdding(false)}
                onAdded={() => void changed()}
            />
            <Confirm
                isOpen={!!removing}
                loading={pending}
                title="提示"
                content={`确定将子设备“${removing?.deviceName ?? ''}”从网关“${device.deviceName}”移除吗？移除后该设备不再经此网关接入。`}
                confirm="确定"
                cancel="取消"
                onConfirm={() => void remove()}
                onClose={() => (pending ? undefined : setRemoving(null))}
            />
        </Box>
    );
}
