import { TopicTable } from '../../components/thingModel/TopicTable';
import type { DeviceTabProps } from './types';

/** Topic列表: 基础通信Topic / 物模型通信Topic with the device's own productKey and deviceName in every topic. */
export function DeviceTopicTab({ device }: DeviceTabProps) {
    return <TopicTable productKey={device.productKey} deviceName={device.deviceName} />;
}
