import { useState } from 'react';
import {
    Alert,
    Box,
    Button,
    Dialog,
    DialogActions,
    DialogContent,
    DialogContentText,
    DialogTitle,
    IconButton,
    Stack,
    TextField,
    Tooltip,
    Typography,
} from '@mui/material';
import AddIcon from '@mui/icons-material/Add';
import DeleteOutlineIcon from '@mui/icons-material/DeleteOutline';
import PlaceIcon from '@mui/icons-material/Place';
import { COORDINATE_KEY, DEVICE_TAG_TYPE, TAG_MESSAGES } from '../../../schemas/tag';
import { MapPickerDialog, parseCoordinateTag } from '../../components/map';
import { useSay } from './DeviceInfo';
import { checkTags, hasErrors, newRow, toItems, type LocationRow, type TagCheck, type TagRow } from './tagRows';
import type { DeviceDetail, DeviceTag } from './types';
import { DETAIL, errorText, usePlatform } from './useDevice';

interface TagEditDialogProps {
    device: DeviceDetail;
    tags: DeviceTag[];
    onClose: () => void;
    /** After a save or a delete: the tags (and the device's location) are fetched again. */
    onChanged: () => void;
}

function initialLocation(device: DeviceDetail, tags: DeviceTag[]): LocationRow | null {
    const tag = tags.find((t) => t.key === COORDINATE_KEY);
    if (!tag) return null;
    return { id: tag.id, point: parseCoordinateTag(tag.value), addr: device.addr };
}

/**
 * 编辑标签 (SPEC.md "Tags and map"): a location picked on the map, stored as the `coordinate` tag, and key/value
 * rows. Every rule of schemas/tag.ts is checked before anything is sent; a saved tag is deleted at once (after
 * confirmation), new rows are simply dropped.
 */
export function TagEditDialog({ device, tags, onClose, onChanged }: TagEditDialogProps) {
    const platform = usePlatform();
    const say = useSay();
    const [rows, setRows] = useState<TagRow[]>(() =>
        tags.filter((t) => t.key !== COORDINATE_KEY).map((t) => newRow(t)),
    );
    const [location, setLocation] = useState<LocationRow | null>(() => initialLocation(device, tags));
    const [submitted, setSubmitted] = useState(false);
    const [touched, setTouched] = useState<ReadonlySet<string>>(new Set());
    const [picking, setPicking] = useState(false);
    const [saving, setSaving] = useState(false);
    const [deleting, setDeleting] = useState<{ id: number; label: string; uid?: string } | null>(null);
    const [busyDelete, setBusyDelete] = useState(false);

    const changeRow = (uid: string, patch: Partial<TagRow>) =>
        setRows((current) => current.map((r) => (r.uid === uid ? { ...r, ...patch } : r)));
    const dropRow = (uid: string) => setRows((current) => current.filter((r) => r.uid !== uid));
    // Before the first save a row is checked once it has been left, so a fresh row is not shouted at.
    const touch = (uid: string) => setTouched((current) => new Set(current).add(uid));

    const result = checkTags(rows, location);
    const errors: TagCheck = submitted
        ? result
        : { rows: Object.fromEntries(Object.entries(result.rows).filter(([uid]) => touched.has(uid))) };

    const save = async () => {
        setSubmitted(true);
        if (hasErrors(result)) return;
        const items = toItems(rows, location);
        if (items.length === 0) {
            onClose();
            return;
        }
        setSaving(true);
        try {
            await platform.invoke(DETAIL, 'saveTags', {
                type: DEVICE_TAG_TYPE,
                objectId: device.deviceId,
                items,
                addr: location?.addr ?? undefined,
            });
            say('保存成功');
            onChanged();
            onClose();
        } catch (error) {
            say(errorText(error, '保存失败'), 'error');
        } finally {
            setSaving(false);
        }
    };

    const confirmDelete = async () => {
        if (!deleting) return;
        setBusyDelete(true);
        try {
            await platform.invoke(DETAIL, 'deleteTag', {
                id: deleting.id,
                objectId: device.deviceId,
                type: DEVICE_TAG_TYPE,
            });
            say(TAG_MESSAGES.deleted);
            if (deleting.uid) dropRow(deleting.uid);
            else setLocation(null);
            onChanged();
        } catch {
            say(TAG_MESSAGES.deleteFailed, 'error');
        } finally {
            setBusyDelete(false);
            setDeleting(null);
        }
    };

    return (
        <>
            <Dialog
                open
                onClose={saving ? undefined : onClose}
                fullWidth
                maxWidth="md"
                aria-labelledby="tag-edit-title"
            >
                <DialogTitle id="tag-edit-title">编辑标签</DialogTitle>
                <DialogContent>
                    <Typography variant="subtitle2" sx={{ mt: 1, mb: 1 }}>
                        位置标签
                    </Typography>
                    {location ? (
                        <Stack direction="row" spacing={1} alignItems="flex-start" data-testid="tag-location-row">
                            <TextField
                                size="small"
                                label="Key"
                                value={COORDINATE_KEY}
                                disabled
                                sx={{ width: 180, flexShrink: 0 }}
                            />
                            <TextField
                                size="small"
                                label="位置"
                                fullWidth
                                value={
                                    location.point
                                        ? `${location.addr ?? ''}（纬度 ${location.point.lat}，经度 ${location.point.lng}）`
                                        : ''
                                }
                                placeholder="请在地图上选择位置"
                                error={!!errors.location}
                                helperText={errors.location ?? ' '}
                                slotProps={{ htmlInput: { readOnly: true, 'aria-label': '位置' } }}
                            />
                            <Button
                                variant="outlined"
                                startIcon={<PlaceIcon />}
                                onClick={() => setPicking(true)}
                                sx={{ flexShrink: 0, whiteSpace: 'nowrap' }}
                            >
                                地图选点
                            </Button>
                            <Tooltip title="删除位置标签">
                                <IconButton
                                    aria-label="删除位置标签"
                                    onClick={() =>
                                        location.id
                                            ? setDeleting({ id: location.id, label: '位置标签' })
                                            : setLocation(null)
                                    }
                                >
                                    <DeleteOutlineIcon />
                                </IconButton>
                            </Tooltip>
                        </Stack>
                    ) : (
                        <Button
                            startIcon={<PlaceIcon />}
                            onClick={() => setLocation({ point: null, addr: null })}
                            sx={{ mb: 1 }}
                        >
                            添加位置标签
                        </Button>
                    )}
                    <Typography variant="subtitle2" sx={{ mt: 2, mb: 1 }}>
                        自定义标签
                    </Typography>
                    {rows.length === 0 ? (
                        <Typography variant="body2" color="text.secondary" sx={{ mb: 1 }}>
                            暂无自定义标签，点击“添加标签”新增一行。
                        </Typography>
                    ) : null}
                    <Stack spacing={0.5} aria-label="标签列表">
                        {rows.map((row, index) => (
                            <Stack
                                key={row.uid}
                                direction="row"
                                spacing={1}
                                alignItems="flex-start"
                                data-testid="tag-row"
                            >
                                <TextField
                                    size="small"
                                    label="Key"
                                    required
                                    value={row.key}
                                    onChange={(e) => changeRow(row.uid, { key: e.target.value })}
                                    onBlur={() => touch(row.uid)}
                                    error={!!errors.rows[row.uid]?.key}
                                    helperText={errors.rows[row.uid]?.key ?? '数字、字母、.，不超过30个字符'}
                                    slotProps={{ htmlInput: { 'aria-label': `第${index + 1}行Key` } }}
                                    sx={{ width: 260, flexShrink: 0 }}
                                />
                                <TextField
                                    size="small"
                                    label="Value"
                                    required
                                    fullWidth
                                    value={row.value}
                                    onChange={(e) => changeRow(row.uid, { value: e.target.value })}
                                    onBlur={() => touch(row.uid)}
                                    error={!!errors.rows[row.uid]?.value}
                                    helperText={errors.rows[row.uid]?.value ?? '不超过128个字符'}
                                    slotProps={{ htmlInput: { 'aria-label': `第${index + 1}行Value` } }}
                                />
                                <Tooltip title="删除此行">
                                    <IconButton
                                        aria-label={`删除第${index + 1}行`}
                                        onClick={() =>
                                            row.id
                                                ? setDeleting({ id: row.id, label: `标签「${row.key}」`, uid: row.uid })
                                                : dropRow(row.uid)
                                        }
                                    >
                                        <DeleteOutlineIcon />
                                    </IconButton>
                                </Tooltip>
                            </Stack>
                        ))}
                    </Stack>
                    <Button startIcon={<AddIcon />} onClick={() => setRows([...rows, newRow()])} sx={{ mt: 1 }}>
                        添加标签
                    </Button>
                    {errors.form ? (
                        <Alert severity="error" sx={{ mt: 1 }}>
                            {errors.form}
                        </Alert>
                    ) : null}
                    <Box sx={{ mt: 1 }}>
                        <Typography variant="caption" color="text.secondary">
                            Value 支持中文、英文字母、数字、下划线（_）、中划线（-）、点号（.）以及半角冒号（:）。
                        </Typography>
                    </Box>
                </DialogContent>
                <DialogActions sx={{ px: 3, pb: 2 }}>
                    <Button onClick={onClose} disabled={saving}>
                        取消
                    </Button>
                    <Button variant="contained" onClick={() => void save()} disabled={saving}>
                        {saving ? '保存中…' : '确定'}
                    </Button>
                </DialogActions>
            </Dialog>
            <MapPickerDialog
                open={picking}
                value={location?.point ? { ...location.point, address: location.addr ?? undefined } : null}
                onClose={() => setPicking(false)}
                onConfirm={(address) => {
                    setPicking(false);
                    setLocation({
                        id: location?.id,
                        point: { lng: address.lng, lat: address.lat },
                        addr: address.address,
                    });
                }}
            />
            <Dialog
                open={!!deleting}
                onClose={busyDelete ? undefined : () => setDeleting(null)}
                aria-labelledby="tag-delete-title"
            >
                <DialogTitle id="tag-delete-title">提示</DialogTitle>
                <DialogContent>
                    <DialogContentText>是否删除{deleting?.label}？删除后立即生效。</DialogContentText>
                </DialogContent>
                <DialogActions>
                    <Button onClick={() => setDeleting(null)} disabled={busyDelete}>
                        取消
                    </Button>
                    <Button
                        color="error"
                        variant="contained"
                        onClick={() => void confirmDelete()}
                        disabled={busyDelete}
                    >
                        删除
                    </Button>
                </DialogActions>
            </Dialog>
        </>
    );
}
