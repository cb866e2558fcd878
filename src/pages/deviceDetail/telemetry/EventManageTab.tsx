import type { DeviceTabProps } from '../types';
import { METHOD_EVENTS, RUN_STATUS_SIZE } from './api';
import { ReportedMessages } from './ReportedMessages';

/**
 * Device event manage (事件管理): the events a device reported (POST /api/function/ListProperty with method
 * thing.event.*), time / method / data.
 */
export function EventManageTab({ device }: DeviceTabProps) {
    return (
        <ReportedMessages
            productKey={device.productKey}
            deviceName={device.deviceName}
            method={METHOD_EVENTS}
            size={RUN_STATUS_SIZE}
            title="事件管理"
            empty="暂无事件上报"
        />
    );
}
