import { useNavigate, useParams, useSearchParams } from 'react-router-dom';
import { EventManageTab, RunStatusTab, ServiceCallTab, SubDevicesTab } from './telemetry';
import { DetailShell, type TabSpec } from './DetailShell';
import { DeviceInfo } from './DeviceInfo';
import { DeviceTopicTab } from './DeviceTopicTab';
import type { DeviceTabProps } from './types';
import { useDeviceById } from './useDevice';

type InstanceTab = 'list' | 'topic' | 'runStatus' | 'event' | 'service' | 'childDevice';

const TABS: Array<TabSpec<InstanceTab>> = [
    { value: 'list', label: '设备信息' },
    { value: 'topic', label: 'Topic列表' },
    { value: 'runStatus', label: '运行状态' },
    { value: 'event', label: '事件管理' },
    { value: 'service', label: '服务调用' },
    { value: 'childDevice', label: '子设备管理' },
];

const PANELS: Record<InstanceTab, (props: DeviceTabProps) => React.ReactNode> = {
    list: DeviceInfo,
    topic: DeviceTopicTab,
    runStatus: RunStatusTab,
    event: EventManageTab,
    service: ServiceCallTab,
    childDevice: SubDevicesTab,
};

/**
 * /devInstanceDetail/{productId}/{deviceId}[/{tab}] (SPEC.md "Device instance detail"): each tab is a sub-route, so it
 * can be bookmarked; 子设备管理 exists for a gateway only (product nodeType 1). Without a sub-route the list opens, or
 * the child devices when the route carries ?child=true (the device list's 子设备 link).
 */
export default function DevInstanceDetailPage() {
    const params = useParams();
    const [search] = useSearchParams();
    const navigate = useNavigate();
    const query = useDeviceById(params.deviceId);
    const gateway = Number(query.data?.product.nodeType) === 1;
    const tabs = TABS.filter((t) => t.value !== 'childDevice' || gateway);

    const sub = (params['*'] ?? '').split('/')[0];
    const wanted = (sub || (search.get('child') === 'true' ? 'childDevice' : 'list')) as InstanceTab;
    const tab = tabs.some((t) => t.value === wanted) ? wanted : 'list';
    const base = `/devInstanceDetail/${params.productId}/${params.deviceId}`;

    return (
        <DetailShell
            back={{ to: '/deviceInstance', label: '设备管理' }}
            query={query}
            invalid={query.invalidId ? `设备ID“${params.deviceId ?? ''}”无效` : undefined}
            tabs={tabs}
            tab={tab}
            onTab={(next) => navigate(`${base}/${next}`)}
        >
            {({ device, product }) => {
                const Panel = PANELS[tab];
                return <Panel device={device} product={product} reload={query.reload} />;
            }}
        </DetailShell>
    );
}
