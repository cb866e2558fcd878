import { Alert } from '@mui/material';
import type { DeviceTabProps } from '../types';

/**
 * Thing-model data: properties with latest values and history, events, services.
 * Placeholder until its helper builds it.
 */
export function ThingModelDataTab({ device }: DeviceTabProps) {
    return <Alert severity="info">{device.deviceName}: 物模型数据</Alert>;
}
