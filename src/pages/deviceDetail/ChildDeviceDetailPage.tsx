import { useNavigate, useParams } from 'react-router-dom';
import { RunStatusTab } from './telemetry';
import { DetailShell, type TabSpec } from './DetailShell';
import { DeviceInfo } from './DeviceInfo';
import { DeviceTopicTab } from './DeviceTopicTab';
import type { DeviceTabProps } from './types';
import { useDeviceById } from './useDevice';

type ChildTab = 'childDeviceView' | 'childDeviceTopic' | 'childRunStatus';

const TABS: Array<TabSpec<ChildTab>> = [
    { value: 'childDeviceView', label: '设备信息' },
    { value: 'childDeviceTopic', label: 'Topic列表' },
    { value: 'childRunStatus', label: '运行状态' },
];

const PANELS: Record<ChildTab, (props: DeviceTabProps) => React.ReactNode> = {
    childDeviceView: DeviceInfo,
    childDeviceTopic: DeviceTopicTab,
    childRunStatus: RunStatusTab,
};

/** /childDeviceDetail/{productId}/{deviceId}[/{tab}]: a sub-device of a gateway, with its info, topics and run status. */
export default function ChildDeviceDetailPage() {
    const params = useParams();
    const navigate = useNavigate();
    const query = useDeviceById(params.deviceId);
    const sub = (params['*'] ?? '').split('/')[0];
    const tab = TABS.some((t) => t.value === sub) ? (sub as ChildTab) : 'childDeviceView';
    const base = `/childDeviceDetail/${params.productId}/${params.deviceId}`;

    return (
        <DetailShell
            back={{ to: '/deviceInstance', label: '设备管理' }}
            query={query}
            invalid={query.invalidId ? `设备ID“${params.deviceId ?? ''}”无效` : undefined}
            tabs={TABS}
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
