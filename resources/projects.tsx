import WorkspacesIcon from '@mui/icons-material/Workspaces';
import { lazy } from 'react';
import { defineResource } from '../src/engine/types';
import { PROJECT_PAGE_SIZES, projectSaveSchema } from '../schemas/project';

const ProgramListPage = lazy(() => import('../src/pages/projects/ProgramListPage'));
const ProgramOverviewPage = lazy(() => import('../src/pages/projects/ProgramOverviewPage'));

/**
 * Projects (scenes) and their staff (SPEC.md "Projects"; docs/platform-api.md "Projects"). react-admin knows the
 * resource as 'programList', the route SPEC.md names; its list view is the project screen, the overview a route of
 * its own. The overview's project devices are device-family calls (code 0).
 */
export default defineResource({
    name: 'projects',
    label: '项目管理',
    menu: { label: '项目管理', order: 20, icon: WorkspacesIcon, related: ['/programOverview'] },
    icon: WorkspacesIcon,
    path: 'programList',
    hidden: true,
    recordRepresentation: 'name',
    views: { list: ProgramListPage, show: false, edit: false, create: false },
    routes: [{ path: '/programOverview/:id', element: ProgramOverviewPage }],
    fields: {
        name: {
            label: '项目名称',
            type: 'link',
            linkTo: (r) => `/programOverview/${r.id}`,
            required: true,
            maxLength: 30,
        },
        code: { label: '项目编号', readOnly: true },
        classId: {
            label: '项目分类',
            input: 'select',
            views: ['create', 'edit'],
            required: true,
            choicesFrom: { call: 'scenes', optionValue: 'id', optionText: 'name' },
        },
        sceneName: { label: '项目分类', readOnly: true },
        productCount: { label: '产品数', type: 'number', readOnly: true },
        deviceCount: { label: '设备数', type: 'number', readOnly: true },
        remark: { label: '备注', type: 'longText', maxLength: 200 },
        createTime: { label: '创建时间', type: 'datetime', format: 'YYYY-MM-DD HH:mm:ss', readOnly: true },
    },
    schema: projectSaveSchema,
    list: {
        perPage: 10,
        perPageOptions: [...PROJECT_PAGE_SIZES],
        deleteConfirmTitle: '提示',
        createInDialog: true,
        createLabel: '新建项目',
        empty: '暂无项目',
    },
    messages: { created: '添加成功', updated: '修改成功', deleted: '删除成功' },
    api: {
        success: 'code200',
        getList: {
            get: '/api/project/list',
            paging: ['page', 'size'],
            filters: { name: 'name', classId: 'classId' },
            read: 'data.records',
            total: 'data.total',
        },
        getOne: { get: '/api/project/get', params: (r) => ({ id: r.id }), read: 'data' },
        create: {
            post: '/api/project/save',
            params: (r) => ({ classId: r.classId, name: r.name, remark: r.remark ?? '' }),
            read: 'data',
        },
        update: {
            put: '/api/project/update',
            params: (r) => ({ id: r.id, classId: r.classId, name: r.name, remark: r.remark ?? '' }),
            read: 'data',
        },
        delete: { delete: '/api/project/delete', params: (r) => ({ ids: [r.id] }), read: 'data' },
        custom: {
            listAll: { get: '/api/project/listAll', read: 'data.list' },
            select: { get: '/api/project/select', read: 'data.list' },
            count: { get: '/api/project/selectCount', read: 'data' },
            scenes: { get: '/api/project/sceneList', read: 'data.list' },
            saveScene: {
                post: '/api/project/scene/save',
                params: (r) => ({ id: r.id ?? '', name: r.name }),
                read: 'data',
            },
            deleteScene: { delete: '/api/project/scene/delete', read: 'data' },
            associateDevices: { get: '/api/project/associateDevice', read: 'data' },
            staff: { get: '/api/project-user/getUserList', read: 'data.list' },
            addStaff: { post: '/api/project-user/addUser', read: 'data' },
            removeStaff: { get: '/api/project-user/removeUser', read: 'data' },
            users: { get: '/api/user/listAll', read: 'data.list' },
            deviceStatus: { get: '/api/overview/deviceStatus', read: 'data.list' },
            deviceType: { get: '/api/overview/deviceType', read: 'data.list' },
            alertType: { get: '/api/overview/alertType', read: 'data.list' },
            alertList: { get: '/api/overview/alertList', read: 'data' },
            health: { get: '/api/overview/health', read: 'data.list' },
            // The device family answers code 0.
            devices: { get: '/api/device/listByProject', read: 'data', success: 'code0' },
            removeFromProject: { get: '/api/device/removeFromProject', read: 'data', success: 'code0' },
        },
    },
});
