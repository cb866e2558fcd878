import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Alert, Box, Button, Chip, LinearProgress, Stack, Typography } from '@mui/material';
import EditIcon from '@mui/icons-material/Edit';
import PlaceIcon from '@mui/icons-material/Place';
import { COORDINATE_KEY, DEVICE_TAG_TYPE } from '../../../schemas/tag';
import { parseCoordinateTag } from '../../components/map/pickerState';
import { TagEditDialog } from './TagEditDialog';
import type { DeviceDetail, DeviceTag } from './types';
import { DETAIL, deviceKey, errorText, usePlatform } from './useDevice';

/** 标签信息: the device's location tag and key/value tags, and the modal that edits them. */
export function TagSection({ device, reload }: { device: DeviceDetail; reload: () => void }) {
    const platform = usePlatform();
    const [editing, setEditing] = useState(false);
    const tags = useQuery({
        queryKey: [...deviceKey(device.deviceId), 'tags'],
        queryFn: async () =>
            (
                await platform.invoke<DeviceTag[]>(DETAIL, 'tags', {
                    type: DEVICE_TAG_TYPE,
                    objectId: device.deviceId,
                })
            ).data ?? [],
        retry: false,
    });
    const list = tags.data ?? [];
    const coordinate = list.find((t) => t.key === COORDINATE_KEY);
    const point = parseCoordinateTag(coordinate?.value);
    const others = list.filter((t) => t.key !== COORDINATE_KEY);

    return (
        <Box sx={{ mt: 3 }} aria-label="标签信息" component="section">
            <Stack direction="row" alignItems="center" sx={{ mb: 1 }}>
                <Typography variant="subtitle1" component="h2" sx={{ fontWeight: 600, flex: 1 }}>
                    标签信息
                </Typography>
                <Button
                    startIcon={<EditIcon />}
                    onClick={() => setEditing(true)}
                    disabled={tags.isPending || !!tags.error}
                >
                    编辑标签
                </Button>
            </Stack>
            {tags.isPending ? <LinearProgress aria-label="标签加载中" /> : null}
            {tags.error ? (
                <Alert
                    severity="error"
                    action={
                        <Button color="inherit" size="small" onClick={() => void tags.refetch()}>
                            重试
                        </Button>
                    }
                >
                    标签加载失败：{errorText(tags.error, '查询失败')}
                </Alert>
            ) : null}
            {tags.data ? (
                <Box sx={{ border: 1, borderColor: 'divider', borderRadius: 1, p: 2 }} data-testid="device-tags">
                    <Stack direction="row" spacing={1} alignItems="center" sx={{ mb: others.length ? 1.5 : 0 }}>
                        <PlaceIcon fontSize="small" color={point ? 'primary' : 'disabled'} />
                        <Typography variant="body2" color={point ? 'text.primary' : 'text.secondary'}>
                            {point
                                ? `${device.addr ? `${device.addr}，` : ''}纬度 ${point.lat}，经度 ${point.lng}`
                                : '未设置位置'}
                        </Typography>
                    </Stack>
                    {others.length ? (
                        <Stack direction="row" sx={{ flexWrap: 'wrap', gap: 1 }}>
                            {others.map((t) => (
                                <Chip key={t.id} size="small" variant="outlined" label={`${t.key}: ${t.value}`} />
                            ))}
                        </Stack>
                    ) : (
                        <Typography variant="body2" color="text.secondary" sx={{ mt: point ? 1 : 0.5 }}>
                            暂无标签，点击“编辑标签”添加。
                        </Typography>
                    )}
                </Box>
            ) : null}
            {editing && tags.data ? (
                <TagEditDialog
                    device={device}
                    tags={tags.data}
                    onClose={() => setEditing(false)}
                    onChanged={() => {
                        void tags.refetch();
                        reload();
                    }}
                />
            ) : null}
        </Box>
    );
}
