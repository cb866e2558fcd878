import { useState } from 'react';
import LinkIcon from '@mui/icons-material/Link';
import LinkOffIcon from '@mui/icons-material/LinkOff';
import { Button } from '@mui/material';
import { Confirm, useNotify } from 'react-admin';
import { checkBind, checkUnbind } from '../../../schemas/device';
import { ProjectBindDialog } from '../../components/devices/ProjectBindDialog';
import { DEVICES, errorText, usePlatform, type DeviceRow } from './hooks';

/**
 * Stands for "the project the dialog will ask for" when the selection is checked before the dialog opens: only
 * the selection's own problems (none chosen, some already bound) can then be reported.
 */
const CHOSEN_IN_DIALOG = 'chosen-in-dialog';

interface BindButtonsProps {
    selected: DeviceRow[];
    /** After a bind or unbind: clear the selection and reload. */
    onChanged: () => void;
}

/** 关联项目 / 解绑项目 with SPEC.md's checks (schemas/device.ts) before any call. */
export function BindButtons({ selected, onChanged }: BindButtonsProps) {
    const platform = usePlatform();
    const notify = useNotify();
    const [binding, setBinding] = useState(false);
    const [unbinding, setUnbinding] = useState(false);
    const [pending, setPending] = useState(false);
    const warn = (text: string) => notify(text, { type: 'warning', messageArgs: { _: text } });

    const openBind = () => {
        const problem = checkBind(selected, CHOSEN_IN_DIALOG);
        if (problem) warn(problem);
        else setBinding(true);
    };

    const openUnbind = () => {
        const problem = checkUnbind(selected);
        if (problem) warn(problem);
        else setUnbinding(true);
    };

    const unbind = async () => {
        setPending(true);
        try {
            // One projectId per deviceId, in the same order: the pairs hold whether the server zips or collects them.
            await platform.invoke(DEVICES, 'unbind', {
                projectId: selected.map((d) => d.projectId),
                deviceId: selected.map((d) => d.deviceId),
            });
            notify('解绑成功', { type: 'success', messageArgs: { _: '解绑成功' } });
            onChanged();
        } catch (error) {
            const text = errorText(error);
            notify(text, { type: 'error', messageArgs: { _: text } });
        } finally {
            setPending(false);
            setUnbinding(false);
        }
    };

    const projectName = selected[0]?.projectName ?? '';
    return (
        <>
            <Button variant="outlined" startIcon={<LinkIcon />} onClick={openBind}>
                关联项目
            </Button>
            <Button variant="outlined" startIcon={<LinkOffIcon />} onClick={openUnbind} disabled={pending}>
                解绑项目
            </Button>
            <ProjectBindDialog
                open={binding}
                onClose={() => setBinding(false)}
                resource={DEVICES}
                devices={selected}
                onBound={onChanged}
            />
            <Confirm
                isOpen={unbinding}
                loading={pending}
                title="提示"
                content={`确定将所选的 ${selected.length} 个设备从项目「${projectName}」解绑吗？`}
                confirm="确定"
                cancel="取消"
                onConfirm={() => void unbind()}
                onClose={() => setUnbinding(false)}
            />
        </>
    );
}

/** SPEC.md "Devices": removing a device that has no project says '未关联项目'. */
export const NOT_IN_PROJECT = '未关联项目';

/** The row action 移出项目: GET /api/device/removeFromProject after a confirmation. */
export function RemoveFromProjectButton({ device, onRemoved }: { device: DeviceRow; onRemoved: () => void }) {
    const platform = usePlatform();
    const notify = useNotify();
    const [open, setOpen] = useState(false);
    const [pending, setPending] = useState(false);
    const bound = device.projectId !== null && device.projectId !== undefined && device.projectId !== '';

    const remove = async () => {
        setPending(true);
        try {
            await platform.invoke(DEVICES, 'removeFromProject', {
                projectId: device.projectId,
                deviceId: device.deviceId,
            });
            notify('操作成功', { type: 'success', messageArgs: { _: '操作成功' } });
            onRemoved();
        } catch (error) {
            const text = errorText(error);
            notify(text, { type: 'error', messageArgs: { _: text } });
        } finally {
            setPending(false);
            setOpen(false);
        }
    };

    return (
        <>
            <Button
                size="small"
                sx={{ minWidth: 0, px: 0.75, whiteSpace: 'nowrap' }}
                disabled={pending}
                onClick={() =>
                    bound
                        ? setOpen(true)
                        : notify(NOT_IN_PROJECT, { type: 'warning', messageArgs: { _: NOT_IN_PROJECT } })
                }
            >
                移出项目
            </Button>
            <Confirm
                isOpen={open}
                loading={pending}
                title="提示"
                content={`确定将设备 ${device.deviceName} 移出项目「${device.projectName ?? ''}」吗？`}
                confirm="确定"
                cancel="取消"
                onConfirm={() => void remove()}
                onClose={() => setOpen(false)}
            />
        </>
    );
}
