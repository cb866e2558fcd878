import { Alert } from '@mui/material';
import type { DeviceTabProps } from '../types';

/**
 * Device event manage: the events a device reported (ListProperty with thing.event.*), time / method / data.
 * Placeholder until its helper builds it.
 */
export function EventManageTab({ device }: DeviceTabProps) {
    return <Alert severity="info">{device.deviceName}: 事件管理</Alert>;
}
