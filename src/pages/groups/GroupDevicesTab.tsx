import { useEffect, useState } from 'react';
import AddIcon from '@mui/icons-material/Add';
import FilterListIcon from '@mui/icons-material/FilterList';
import LinkOffIcon from '@mui/icons-material/LinkOff';
import { Alert, Box, Button, Chip, CircularProgress, Typography } from '@mui/material';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Confirm } from 'react-admin';
import { GROUP_DEVICE_PAGE_SIZE } from '../../../schemas/group';
import { errorText, GROUPS, usePlatform, useRefreshGroups, useToast, type GroupDetail, type GroupDevice } from './api';
import { AddDevicesDialog } from './AddDevicesDialog';
import { DeviceRowsTable, toggled } from './DeviceRowsTable';
import { EmptyGroups } from './GroupListPage';
import { GroupPager } from './GroupPager';
import { TagFilterDialog } from './TagFilterDialog';
import { useQueryParams } from './useQueryParams';

interface DevicePage {
    deviceList: GroupDevice[];
    total: number;
    deviceTotal: number;
    deviceOnline: number;
}

/** 设备列表: the group's own devices, 10 a page (fixed), with add, remove and the label (tag) filter. */
export function GroupDevicesTab({ group }: { group: GroupDetail }) {
    const platform = usePlatform();
    const toast = useToast();
    const refresh = useRefreshGroups();
    const { search, set, int } = useQueryParams();
    const page = int('dpage', 1);
    const tagKey = search.get('tagKey') ?? '';
    const tagValue = search.get('tagValue') ?? '';
    const [adding, setAdding] = useState(false);
    const [filtering, setFiltering] = useState(false);
    const [selected, setSelected] = useState<Set<number>>(new Set());
    const [removing, setRemoving] = useState<number[] | null>(null);
    const [pending, setPending] = useState(false);

    const devices = useQuery({
        queryKey: [GROUPS, 'devices', group.groupId, page, tagKey, tagValue],
        queryFn: async () =>
            (
                await platform.invoke<DevicePage>(GROUPS, 'devices', {
                    groupId: group.groupId,
                    pageNumber: page,
                    pageSize: GROUP_DEVICE_PAGE_SIZE,
                    tagKey: tagKey || undefined,
                    tagValue: tagValue || undefined,
                })
            ).data,
        placeholderData: keepPreviousData,
    });
    const rows = devices.data?.deviceList ?? [];
    const total = devices.data?.total ?? 0;
    // A bookmarked page past the end (devices removed since) goes to the last page that has rows.
    const pastEnd = !!devices.data && rows.length === 0 && page > 1 && total > 0 && !devices.isFetching;
    useEffect(() => {
        if (pastEnd) set({ dpage: Math.ceil(total / GROUP_DEVICE_PAGE_SIZE) });
    }, [pastEnd, total, set]);

    const remove = async (ids: number[]) => {
        setPending(true);
        try {
            await platform.invoke(GROUPS, 'removeDevices', { groupId: group.groupId, deviceList: ids });
            toast('操作成功');
            setSelected((s) => toggled(s, ids, false));
            const emptiesPage = rows.every((r) => ids.includes(r.deviceId));
            if (emptiesPage && page > 1) set({ dpage: page - 1 });
            await refresh();
        } catch (err) {
            toast(errorText(err), 'error');
        } finally {
            setPending(false);
            setRemoving(null);
        }
    };

    const names = removing?.map((id) => rows.find((r) => r.deviceId === id)?.deviceName ?? id) ?? [];
    return (
        <Box>
            <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, mb: 1.5, flexWrap: 'wrap' }}>
                <Box sx={{ display: 'flex', gap: 3, flex: 1, minWidth: 200 }} aria-label="设备统计" role="group">
                    <Typography variant="body2">
                        设备总数：<b>{devices.data?.deviceTotal ?? group.deviceTotal}</b>
                    </Typography>
                    <Typography variant="body2">
                        在线：<b>{devices.data?.deviceOnline ?? group.deviceOnline}</b>
                    </Typography>
                </Box>
                <Button variant="contained" startIcon={<AddIcon />} onClick={() => setAdding(true)}>
                    添加设备
                </Button>
                <Button variant="outlined" startIcon={<FilterListIcon />} onClick={() => setFiltering(true)}>
                    标签筛选
                </Button>
                <Button
                    variant="outlined"
                    color="error"
                    startIcon={<LinkOffIcon />}
                    disabled={selected.size === 0 || pending}
                    onClick={() => setRemoving([...selected])}
                >
                    移除设备{selected.size ? `（${selected.size}）` : ''}
                </Button>
            </Box>
            {tagKey ? (
                <Chip
                    sx={{ mb: 1.5, maxWidth: '100%' }}
                    label={`标签：${tagKey}${tagValue ? ` = ${tagValue}` : ''}`}
                    onDelete={() => set({ tagKey: null, tagValue: null, dpage: null })}
                    aria-label="清除标签筛选"
                />
            ) : null}
            {devices.error && !devices.data ? (
                <Alert
                    severity="error"
                    action={
                        <Button color="inherit" size="small" onClick={() => void devices.refetch()}>
                            重试
                        </Button>
                    }
                >
                    设备列表加载失败：{errorText(devices.error, '查询失败')}
                </Alert>
            ) : devices.isPending ? (
                <Box sx={{ py: 4, textAlign: 'center' }} role="status">
                    <CircularProgress size={20} />
                </Box>
            ) : rows.length === 0 ? (
                <EmptyGroups
                    text={tagKey ? '没有带此标签的设备' : '该分组暂无设备'}
                    onCreate={tagKey ? undefined : () => setAdding(true)}
                    createLabel="添加设备"
                />
            ) : (
                <>
                    <DeviceRowsTable
                        label="分组设备"
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
                        actions={(row) => (
                            <Button
                                size="small"
                                color="error"
                                sx={{ minWidth: 0 }}
                                disabled={pending}
                                onClick={() => setRemoving([row.deviceId])}
                            >
                                移除
                            </Button>
                        )}
                    />
                    <GroupPager
                        page={page}
                        perPage={GROUP_DEVICE_PAGE_SIZE}
                        total={total}
                        onPage={(n) => set({ dpage: n })}
                    />
                </>
            )}
            <Confirm
                isOpen={removing !== null}
                loading={pending}
                title="提示"
                content={
                    names.length === 1
                        ? `确定将设备 ${names[0]} 移出分组「${group.groupName}」吗？`
                        : `确定将所选的 ${names.length} 个设备移出分组「${group.groupName}」吗？`
                }
                confirm="确定"
                cancel="取消"
                onConfirm={() => removing && void remove(removing)}
                onClose={() => setRemoving(null)}
            />
            <AddDevicesDialog group={group} open={adding} onClose={() => setAdding(false)} />
            <TagFilterDialog
                open={filtering}
                value={{ tagKey, tagValue }}
                onClose={() => setFiltering(false)}
                onApply={(f) => set({ tagKey: f.tagKey, tagValue: f.tagValue || null, dpage: null })}
            />
        </Box>
    );
}
