import AccountTreeIcon from '@mui/icons-material/AccountTree';
import { lazy } from 'react';
import { GROUP_MESSAGES } from '../schemas/group';
import { defineResource } from '../src/engine/types';

const GroupDetailPage = lazy(() => import('../src/pages/groups/GroupDetailPage'));
const GroupListPage = lazy(() => import('../src/pages/groups/GroupListPage'));

const list = { paging: ['pageNumber', 'pageSize'] as [string, string], read: 'data.records', total: 'data.total' };

/** Device groups, three levels (SPEC.md "Groups"; docs/platform-api.md "Groups"). Issue 5. */
export default defineResource({
    name: 'groups',
    label: '分组管理',
    menu: { label: '分组管理', section: '设备接入', order: 4, icon: AccountTreeIcon, related: ['/groupDetail'] },
    hidden: true,
    idField: 'groupId',
    recordRepresentation: 'groupName',
    fields: {
        groupId: { label: '分组ID', readOnly: true },
        groupName: { label: '分组名称', readOnly: true },
        createTime: { label: '添加时间', type: 'datetime', readOnly: true },
    },
    list: {
        perPage: 5,
        perPageOptions: [5, 10, 20],
        deleteConfirm: GROUP_MESSAGES.deleteConfirm,
    },
    messages: { created: GROUP_MESSAGES.created, deleted: '删除成功', updated: '修改成功' },
    views: { list: false, show: false, edit: false, create: false },
    routes: [
        { path: '/groups', element: GroupListPage },
        { path: '/groups/detail', element: GroupDetailPage },
        { path: '/groupDetail/:id', element: GroupDetailPage },
    ],
    api: {
        success: 'returnCode1111',
        getList: { get: '/api/group/list', ...list },
        delete: { post: '/api/group/delete', params: (r) => ({ id: r.id }) },
        custom: {
            tree: { get: '/api/group/tree', read: 'data.list' },
            children: { get: '/api/group/children', read: 'data.list' },
            save: { post: '/api/group/save', read: 'data' },
            update: { post: '/api/group/update', read: 'data' },
            remove: { post: '/api/group/delete' },
            detail: { get: '/api/group/detail', read: 'data' },
            childList: { get: '/api/group/childList', read: 'data' },
            devices: { get: '/api/groups/devices', read: 'data' },
            addDevices: { post: '/api/groups/addDevices', read: 'data', arrays: 'comma' },
            removeDevices: { post: '/api/groups/removeDevices', read: 'data', arrays: 'comma' },
            candidates: { get: '/api/device/candidates', read: 'data', success: 'code0' },
            projects: { get: '/api/project/listAll', read: 'data.list', success: 'code200' },
            products: { get: '/api/product/list-product', read: 'data.list', success: 'code200' },
        },
    },
});
