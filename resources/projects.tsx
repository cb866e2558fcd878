import { lazy } from 'react';
import { defineResource } from '../src/engine/types';

const ProgramListPage = lazy(() => import('../src/pages/projects/ProgramListPage'));
const ProgramOverviewPage = lazy(() => import('../src/pages/projects/ProgramOverviewPage'));

/** Projects (scenes) and their staff (SPEC.md "Projects"; docs/platform-api.md "Projects"). Issue 5. */
export default defineResource({
    name: 'projects',
    label: '项目管理',
    hidden: true,
    fields: {},
    views: { list: false, show: false, edit: false, create: false },
    routes: [
        { path: '/programList', element: ProgramListPage },
        { path: '/programOverview/:id', element: ProgramOverviewPage },
    ],
    api: {
        success: 'code200',
        custom: {},
    },
});
