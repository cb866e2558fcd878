import { Alert } from '@mui/material';
import type { DeviceTabProps } from '../types';

/**
 * A gateway's sub-devices: list, add, remove.
 * Placeholder until its helper builds it.
 */
export function SubDevicesTab({ device }: DeviceTabProps) {
    return <Alert severity="info">{device.deviceName}: 子设备管理</Alert>;
}
