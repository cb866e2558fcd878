import { Alert } from '@mui/material';
import type { DeviceTabProps } from '../types';

/**
 * Service call: the product's services and the device's service call records.
 * Placeholder until its helper builds it.
 */
export function ServiceCallTab({ device }: DeviceTabProps) {
    return <Alert severity="info">{device.deviceName}: 服务调用</Alert>;
}
