import { PlaceholderPage } from '../../layout/PlaceholderPage';

/** Placeholder until issue 4 builds it. */
export default function DevInstanceDetailPage() {
    return <PlaceholderPage title="设备详情" />;
}
