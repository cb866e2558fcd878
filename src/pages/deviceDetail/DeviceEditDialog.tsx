import { deviceEditSchema } from '../../../schemas/device';
import { FormDialog } from '../../engine/FormDialog';
import type { DeviceDetail } from './types';
import { DETAIL, usePlatform } from './useDevice';

interface DeviceEditDialogProps {
    open: boolean;
    device: DeviceDetail;
    onClose: () => void;
    onSaved: () => void;
}

/**
 * 编辑设备: the remark (required, at most 100) through UpdateDeviceNickname, which succeeds on returnCode '1111';
 * any other answer's message is shown and the dialog stays open. DeviceName is shown, not edited here.
 */
export function DeviceEditDialog({ open, device, onClose, onSaved }: DeviceEditDialogProps) {
    const platform = usePlatform();
    return (
        <FormDialog
            open={open}
            onClose={onClose}
            title="编辑设备"
            fields={[
                ['deviceName', { label: 'DeviceName', maxLength: 100 }],
                ['remark', { label: '备注名称', required: true, maxLength: 100, helperText: '不超过100个字符' }],
            ]}
            schema={deviceEditSchema}
            defaultValues={{ deviceName: device.deviceName, remark: device.remark ?? '' }}
            locked={['deviceName']}
            submit={(values) =>
                platform.invoke(DETAIL, 'updateRemark', { deviceId: device.deviceId, remark: values.remark })
            }
            success="修改成功"
            onSuccess={onSaved}
        />
    );
}
