import { PlaceholderPage } from '../../layout/PlaceholderPage';

/** Placeholder until issue 5 builds it. */
export default function GroupDetailPage() {
    return <PlaceholderPage title="分组管理" />;
}
