import { lazy } from 'react';
import { defineResource } from '../src/engine/types';

const GroupDetailPage = lazy(() => import('../src/pages/groups/GroupDetailPage'));
const GroupListPage = lazy(() => import('../src/pages/groups/GroupListPage'));

/** Device groups, three levels (SPEC.md "Groups"; docs/platform-api.md "Groups"). Issue 5. */
export default defineResource({
    name: 'groups',
    label: '分组管理',
    hidden: true,
    fields: {},
    views: { list: false, show: false, edit: false, create: false },
    routes: [
        { path: '/groups', element: GroupListPage },
        { path: '/groups/detail', element: GroupDetailPage },
        { path: '/groupDetail/:id', element: GroupDetailPage },
    ],
    api: {
        success: 'returnCode1111',
        custom: {},
    },
});
