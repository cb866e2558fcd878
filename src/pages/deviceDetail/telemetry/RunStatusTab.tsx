import { Alert } from '@mui/material';
import type { DeviceTabProps } from '../types';

/**
 * Run status: the messages a device reported (POST /api/function/ListProperty), time / method / data.
 * Placeholder until its helper builds it.
 */
export function RunStatusTab({ device }: DeviceTabProps) {
    return <Alert severity="info">{device.deviceName}: 运行状态</Alert>;
}
