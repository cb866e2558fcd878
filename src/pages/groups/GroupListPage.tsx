import { PlaceholderPage } from '../../layout/PlaceholderPage';

/** Placeholder until issue 5 builds it. */
export default function GroupListPage() {
    return <PlaceholderPage title="分组管理" />;
}
