import { useState } from 'react';
import { Switch, Tooltip } from '@mui/material';
import { Confirm, useNotify, useRecordContext } from 'react-admin';
import { DEVICES, errorText, usePlatform, useRefreshDevices, type DeviceRow } from './hooks';

/**
 * Enable / disable one device through PUT /api/device/update (action enable | disable). Disabling cuts the
 * device off the platform, so it asks first; the switch is disabled while the call runs.
 */
export function EnableSwitch(_props: { label?: string }) {
    const record = useRecordContext<DeviceRow>();
    const platform = usePlatform();
    const notify = useNotify();
    const refresh = useRefreshDevices();
    const [pending, setPending] = useState(false);
    const [confirming, setConfirming] = useState(false);
    if (!record) return null;
    const enabled = record.status !== 'DISABLE';

    const run = async (action: 'enable' | 'disable') => {
        setPending(true);
        try {
            await platform.invoke(DEVICES, 'setEnabled', { deviceId: record.deviceId, action });
            notify('操作成功', { type: 'success', messageArgs: { _: '操作成功' } });
            await refresh();
        } catch (error) {
            const text = errorText(error);
            notify(text, { type: 'error', messageArgs: { _: text } });
        } finally {
            setPending(false);
            setConfirming(false);
        }
    };

    const label = `${enabled ? '禁用' : '启用'}设备 ${record.deviceName}`;
    return (
        <>
            <Tooltip title={enabled ? '已启用，点击禁用' : '已禁用，点击启用'}>
                <span>
                    <Switch
                        size="small"
                        checked={enabled}
                        disabled={pending}
                        onClick={(e) => e.stopPropagation()}
                        onChange={() => (enabled ? setConfirming(true) : void run('enable'))}
                        slotProps={{ input: { 'aria-label': label } }}
                    />
                </span>
            </Tooltip>
            <Confirm
                isOpen={confirming}
                loading={pending}
                title="提示"
                content={`确定禁用设备 ${record.deviceName} 吗？禁用后该设备将无法接入平台。`}
                confirm="确定"
                cancel="取消"
                onConfirm={() => void run('disable')}
                onClose={() => setConfirming(false)}
            />
        </>
    );
}
