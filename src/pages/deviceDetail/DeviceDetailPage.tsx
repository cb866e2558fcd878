import { useParams, useSearchParams } from 'react-router-dom';
import { SubDevicesTab, ThingModelDataTab } from './telemetry';
import { DataSubscriptionTab } from './DataSubscriptionTab';
import { DetailShell, type TabSpec } from './DetailShell';
import { DeviceInfo } from './DeviceInfo';
import { DeviceTopicTab } from './DeviceTopicTab';
import { FilesTab } from './FilesTab';
import type { DeviceTabProps } from './types';
import { useDeviceByName } from './useDevice';

/** The tabs in order: checkIdx is the 1-based position here (5 = 子设备管理, a gateway's only). */
const TABS: Array<TabSpec<string> & { panel: (props: DeviceTabProps) => React.ReactNode; gatewayOnly?: boolean }> = [
    { value: '1', label: '设备信息', panel: DeviceInfo },
    { value: '2', label: 'Topic列表', panel: DeviceTopicTab },
    { value: '3', label: '物模型数据', panel: ThingModelDataTab },
    { value: '4', label: '文件管理', panel: FilesTab },
    { value: '5', label: '子设备管理', panel: SubDevicesTab, gatewayOnly: true },
    { value: '6', label: '数据订阅', panel: DataSubscriptionTab },
];

/**
 * /devices/{productKey}/{deviceName}?devicesId=&checkIdx= (SPEC.md "Device detail"). The tab is `checkIdx` in the
 * URL; an index that does not apply (absent, unknown, 5 on a plain device) opens the info.
 */
export default function DeviceDetailPage() {
    const { productKey = '', deviceName = '' } = useParams();
    const [search, setSearch] = useSearchParams();
    const query = useDeviceByName(productKey, deviceName, search.get('devicesId'));
    const gateway = Number(query.data?.product.nodeType) === 1;
    const tabs = TABS.filter((t) => !t.gatewayOnly || gateway);
    const wanted = search.get('checkIdx') ?? '';
    const current = tabs.find((t) => t.value === wanted) ?? tabs[0];

    const choose = (next: string) =>
        setSearch((params) => {
            const out = new URLSearchParams(params);
            out.set('checkIdx', next);
            out.delete('page');
            return out;
        });

    return (
        <DetailShell
            back={{ to: '/devices', label: '设备管理' }}
            query={query}
            tabs={tabs}
            tab={current.value}
            onTab={choose}
        >
            {({ device, product }) => <current.panel device={device} product={product} reload={query.reload} />}
        </DetailShell>
    );
}
