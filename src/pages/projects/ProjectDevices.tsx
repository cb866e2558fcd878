import { useEffect, useState } from 'react';
import AddIcon from '@mui/icons-material/Add';
import SearchIcon from '@mui/icons-material/Search';
import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { Box, Button, Chip, InputAdornment, TextField } from '@mui/material';
import { Link, useNavigate } from 'react-router-dom';
import { DEVICE_STATUSES, normaliseStatus } from '../../../schemas/device';
import { PROJECT_PAGE_SIZES } from '../../../schemas/project';
import { ActionButton } from '../../engine/actions';
import type { Action } from '../../engine/types';
import { PROJECTS, usePlatform, useQueryState, type Page, type ProjectDeviceRow, type ProjectRow } from './api';
import { SectionCard } from './OverviewTables';
import { EmptyRows, SimpleTable, type Column } from './SimpleTable';

const PER_PAGE = 10;
const SEARCH_DELAY = 400;

/** 移出项目: GET /api/device/removeFromProject after a confirmation. */
const removeFromProject = (then: () => void): Action => ({
    kind: 'call',
    label: '移出项目',
    confirm: ({ record }) =>
        `确定将设备 ${String(record.deviceName)} 移出项目「${String(record.projectName ?? '')}」吗？`,
    call: {
        call: 'removeFromProject',
        params: ({ record }) => ({ projectId: record.projectId, deviceId: record.deviceId }),
    },
    success: '操作成功',
    failure: '系统错误',
    then: () => {
        then();
        return undefined;
    },
});

const deviceLink = (r: ProjectDeviceRow) =>
    `/devices/${encodeURIComponent(r.productKey)}/${encodeURIComponent(r.deviceName)}` +
    `?devicesId=${encodeURIComponent(String(r.deviceId))}`;

/**
 * The project's devices (GET /api/device/listByProject), searchable by name and paged (?devicePage=, ?devicePerPage=,
 * ?deviceName=). 添加设备 goes to /devices?type=program, where devices are added and bound (关联项目); 移出项目 per row.
 */
export function ProjectDevices({ project, onChanged }: { project: ProjectRow; onChanged: () => void }) {
    const platform = usePlatform();
    const queryClient = useQueryClient();
    const navigate = useNavigate();
    const state = useQueryState();
    const page = state.number('devicePage', 1);
    const perPage = state.number('devicePerPage', PER_PAGE);
    const deviceName = state.text('deviceName');
    const [typed, setTyped] = useState(deviceName);
    useEffect(() => setTyped((t) => (t.trim() === deviceName ? t : deviceName)), [deviceName]);
    const { update } = state;
    useEffect(() => {
        if (typed.trim() === deviceName) return;
        const timer = setTimeout(() => update({ deviceName: typed.trim(), devicePage: null }), SEARCH_DELAY);
        return () => clearTimeout(timer);
    }, [typed, deviceName, update]);

    const key = [PROJECTS, 'devices', project.id];
    const devices = useQuery({
        queryKey: [...key, page, perPage, deviceName],
        queryFn: async () =>
            (
                await platform.invoke<Page<ProjectDeviceRow>>(PROJECTS, 'devices', {
                    projectId: project.id,
                    deviceName,
                    pageNumber: page,
                    pageSize: perPage,
                })
            ).data,
        placeholderData: keepPreviousData,
    });

    // A page past the end (devices removed since it was bookmarked) goes to the last page that has rows.
    const { data, isFetching } = devices;
    useEffect(() => {
        if (isFetching || !data || data.records.length > 0 || page <= 1 || !data.total) return;
        update({ devicePage: Math.max(1, Math.ceil(data.total / perPage)) });
    }, [data, isFetching, page, perPage, update]);

    const afterRemove = () => {
        void queryClient.invalidateQueries({ queryKey: key });
        onChanged();
    };

    const columns: Array<Column<ProjectDeviceRow>> = [
        {
            key: 'deviceName',
            label: 'DeviceName',
            render: (r) => <Link to={deviceLink(r)}>{r.deviceName}</Link>,
        },
        { key: 'productName', label: '所属产品', render: (r) => r.productName },
        {
            key: 'status',
            label: '状态',
            nowrap: true,
            render: (r) => {
                const status = DEVICE_STATUSES.find((s) => s.id === normaliseStatus(r.status))!;
                return <Chip size="small" label={status.name} color={status.color} />;
            },
        },
        { key: 'remark', label: '备注', render: (r) => r.remark || '-' },
        { key: 'createTime', label: '添加时间', nowrap: true, render: (r) => r.createTime },
        {
            key: 'actions',
            label: '操作',
            nowrap: true,
            render: (r) => (
                <ActionButton
                    action={removeFromProject(afterRemove)}
                    scope={{ record: { ...r, projectId: project.id, projectName: project.name }, route: {}, query: {} }}
                    resource="devices"
                    size="small"
                />
            ),
        },
    ];

    return (
        <SectionCard
            title="项目设备"
            fill={false}
            actions={
                <Box sx={{ display: 'flex', gap: 1, alignItems: 'center' }}>
                    <TextField
                        size="small"
                        placeholder="请输入DeviceName"
                        value={typed}
                        onChange={(e) => setTyped(e.target.value)}
                        slotProps={{
                            htmlInput: { 'aria-label': 'DeviceName', maxLength: 100 },
                            input: {
                                startAdornment: (
                                    <InputAdornment position="start">
                                        <SearchIcon fontSize="small" />
                                    </InputAdornment>
                                ),
                            },
                        }}
                        sx={{ width: 220 }}
                    />
                    <Button
                        size="small"
                        variant="contained"
                        startIcon={<AddIcon />}
                        onClick={() => navigate('/devices?type=program')}
                    >
                        添加设备
                    </Button>
                </Box>
            }
        >
            <SimpleTable
                label="项目设备"
                columns={columns}
                rows={devices.data?.records}
                rowKey={(r) => r.deviceId}
                loading={devices.isFetching}
                error={devices.error}
                onRetry={() => void devices.refetch()}
                empty={
                    <EmptyRows
                        text={deviceName ? '没有符合条件的设备' : '该项目下暂无设备'}
                        hint={deviceName ? undefined : '点击「添加设备」，在设备管理中添加设备并关联到本项目'}
                    />
                }
                paging={{
                    page,
                    perPage,
                    total: devices.data?.total ?? 0,
                    options: [...PROJECT_PAGE_SIZES],
                    onPage: (next) => update({ devicePage: next === 1 ? null : next }),
                    onPerPage: (next) => update({ devicePerPage: next === PER_PAGE ? null : next, devicePage: null }),
                }}
            />
        </SectionCard>
    );
}
