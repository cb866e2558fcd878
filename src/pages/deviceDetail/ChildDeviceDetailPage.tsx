import { PlaceholderPage } from '../../layout/PlaceholderPage';

/** Placeholder until issue 4 builds it. */
export default function ChildDeviceDetailPage() {
    return <PlaceholderPage title="子设备详情" />;
}
