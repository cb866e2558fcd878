import { PlaceholderPage } from '../../layout/PlaceholderPage';

/** Placeholder until issue 5 builds it. */
export default function ProgramOverviewPage() {
    return <PlaceholderPage title="项目管理" />;
}
