import type { DeviceTabProps } from '../types';
import { METHOD_PROPERTY_POST, NO_PROPERTY_DATA, RUN_STATUS_SIZE } from './api';
import { ReportedMessages } from './ReportedMessages';

/**
 * Run status (运行状态): the latest property reports of the device (POST /api/function/ListProperty, size 10,
 * method thing.event.property.post), time / method / data. A failed answer says '未上报属性数据' (SPEC.md).
 */
export function RunStatusTab({ device }: DeviceTabProps) {
    return (
        <ReportedMessages
            productKey={device.productKey}
            deviceName={device.deviceName}
            method={METHOD_PROPERTY_POST}
            size={RUN_STATUS_SIZE}
            title="运行状态"
            failureText={NO_PROPERTY_DATA}
            empty={NO_PROPERTY_DATA}
        />
    );
}
