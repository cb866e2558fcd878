import type { DeviceTabProps } from '../types';
import { ServicesPanel } from './ServicesPanel';

/** Service call (服务调用): the product's services and the device's service call records. */
export function ServiceCallTab({ device }: DeviceTabProps) {
    return <ServicesPanel productId={device.productId} productKey={device.productKey} deviceName={device.deviceName} />;
}
