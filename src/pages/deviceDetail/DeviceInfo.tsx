import { useState, type ReactNode } from 'react';
import { useNotify } from 'react-admin';
import { Box, Button, IconButton, Stack, Tooltip, Typography } from '@mui/material';
import ContentCopyIcon from '@mui/icons-material/ContentCopy';
import EditIcon from '@mui/icons-material/Edit';
import RefreshIcon from '@mui/icons-material/Refresh';
import VisibilityIcon from '@mui/icons-material/Visibility';
import VisibilityOffIcon from '@mui/icons-material/VisibilityOff';
import { NODE_TYPES } from '../../../schemas/product';
import { copyText } from '../../components/thingModel/copyText';
import { DeviceEditDialog } from './DeviceEditDialog';
import { statusOf } from './DeviceHeader';
import { TagSection } from './TagSection';
import type { DeviceTabProps } from './types';
import { DETAIL, errorText, usePlatform, useRefreshDeviceLists } from './useDevice';

const dash = (v: unknown): string => (v === null || v === undefined || v === '' ? '-' : String(v));
const SECRET_MASK = '••••••••••••••••';

export function nodeTypeName(nodeType: number | null | undefined): string {
    return NODE_TYPES.find((n) => n.id === Number(nodeType))?.name ?? '网关';
}

export function useSay() {
    const notify = useNotify();
    return (text: string, type: 'success' | 'error' | 'warning' | 'info' = 'success') =>
        notify(text, { type, messageArgs: { _: text } });
}

function CopyButton({ label, value }: { label: string; value: string }) {
    const say = useSay();
    const copy = async () => {
        const ok = await copyText(value);
        say(ok ? '复制成功' : '复制失败，请手动选择复制', ok ? 'success' : 'warning');
    };
    return (
        <Tooltip title={`复制${label}`}>
            <IconButton size="small" aria-label={`复制${label}`} onClick={() => void copy()}>
                <ContentCopyIcon fontSize="inherit" />
            </IconButton>
        </Tooltip>
    );
}

function Credential({ label, value, secret }: { label: string; value: string; secret?: boolean }) {
    const [shown, setShown] = useState(!secret);
    return (
        <Stack direction="row" alignItems="center" spacing={0.5} sx={{ minWidth: 0 }}>
            <Box
                component="span"
                sx={{ fontFamily: 'monospace', wordBreak: 'break-all' }}
                data-testid={`credential-${label}`}
            >
                {shown ? value : SECRET_MASK}
            </Box>
            {secret ? (
                <Tooltip title={shown ? '隐藏密码' : '显示密码'}>
                    <IconButton
                        size="small"
                        aria-label={shown ? '隐藏密码' : '显示密码'}
                        onClick={() => setShown((s) => !s)}
                    >
                        {shown ? <VisibilityOffIcon fontSize="inherit" /> : <VisibilityIcon fontSize="inherit" />}
                    </IconButton>
                </Tooltip>
            ) : null}
            <CopyButton label={label} value={value} />
        </Stack>
    );
}

function location(device: DeviceTabProps['device']): string {
    const coords =
        device.longitude !== null &&
        device.longitude !== undefined &&
        device.latitude !== null &&
        device.latitude !== undefined
            ? `经度 ${device.longitude}，纬度 ${device.latitude}`
            : '';
    if (device.addr && coords) return `${device.addr}（${coords}）`;
    return device.addr || coords || '-';
}

/** 设备信息: the device's fields and credentials, refresh (getStatus) and edit, then its tags. */
export function DeviceInfo({ device, product, reload }: DeviceTabProps) {
    const platform = usePlatform();
    const say = useSay();
    const refreshLists = useRefreshDeviceLists();
    const [editing, setEditing] = useState(false);
    const [refreshing, setRefreshing] = useState(false);

    const refresh = async () => {
        setRefreshing(true);
        try {
            await platform.invoke(DETAIL, 'getStatus', {
                productKey: device.productKey,
                deviceName: device.deviceName,
            });
            reload();
            void refreshLists();
            say('操作成功');
        } catch (error) {
            say(errorText(error, '查询失败'), 'error');
        } finally {
            setRefreshing(false);
        }
    };

    const items: Array<[string, ReactNode]> = [
        ['产品名称', dash(product.productName)],
        [
            'ProductKey',
            <Box component="span" key="pk" sx={{ fontFamily: 'monospace' }}>
                {device.productKey}
            </Box>,
        ],
        ['节点类型', nodeTypeName(product.nodeType ?? device.nodeType)],
        [
            'DeviceName',
            <Box component="span" key="dn" sx={{ fontFamily: 'monospace' }}>
                {device.deviceName}
            </Box>,
        ],
        ['备注名称', dash(device.remark)],
        ['添加时间', dash(device.createTime)],
        ['最后上线时间', dash(device.lastTime)],
        ['当前状态', statusOf(device).name],
        ['用户名', <Credential key="u" label="用户名" value={device.username} />],
        ['物理位置', location(device)],
        ['ClientId', <Credential key="c" label="ClientId" value={device.clientId} />],
        ['密码', <Credential key="s" label="密码" value={device.secret} secret />],
    ];

    return (
        <Box>
            <Stack direction="row" alignItems="center" spacing={1} sx={{ mb: 2 }}>
                <Typography variant="subtitle1" component="h2" sx={{ fontWeight: 600, flex: 1 }}>
                    设备信息
                </Typography>
                <Button startIcon={<RefreshIcon />} onClick={() => void refresh()} disabled={refreshing}>
                    {refreshing ? '刷新中…' : '刷新'}
                </Button>
                <Button startIcon={<EditIcon />} onClick={() => setEditing(true)}>
                    编辑
                </Button>
            </Stack>
            <Box
                component="dl"
                aria-label="设备信息"
                sx={{
                    m: 0,
                    display: 'grid',
                    gridTemplateColumns: {
                        xs: '110px minmax(0, 1fr)',
                        md: '120px minmax(0, 1fr) 120px minmax(0, 1fr)',
                    },
                    border: 1,
                    borderColor: 'divider',
                    borderRadius: 1,
                    overflow: 'hidden',
                    '& dt, & dd': {
                        m: 0,
                        px: 2,
                        py: 1,
                        borderBottom: 1,
                        borderColor: 'divider',
                        minHeight: 42,
                        display: 'flex',
                        alignItems: 'center',
                    },
                    '& dt': { bgcolor: 'action.hover', color: 'text.secondary' },
                    '& dd': { wordBreak: 'break-all' },
                }}
            >
                {items.map(([label, value]) => (
                    <Box key={label} sx={{ display: 'contents' }}>
                        <Typography component="dt" variant="body2">
                            {label}
                        </Typography>
                        <Typography component="dd" variant="body2" aria-label={label}>
                            {value}
                        </Typography>
                    </Box>
                ))}
            </Box>
            <TagSection device={device} reload={reload} />
            <DeviceEditDialog
                open={editing}
                device={device}
                onClose={() => setEditing(false)}
                onSaved={() => {
                    reload();
                    void refreshLists();
                }}
            />
        </Box>
    );
}
