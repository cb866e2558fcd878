import AddIcon from '@mui/icons-material/Add';
import CategoryIcon from '@mui/icons-material/Category';
import DevicesOtherIcon from '@mui/icons-material/DevicesOther';
import Inventory2Icon from '@mui/icons-material/Inventory2';
import NotificationsActiveIcon from '@mui/icons-material/NotificationsActive';
import PendingIcon from '@mui/icons-material/Pending';
import PersonAddIcon from '@mui/icons-material/PersonAdd';
import WifiIcon from '@mui/icons-material/Wifi';
import WifiOffIcon from '@mui/icons-material/WifiOff';
import WorkspacesIcon from '@mui/icons-material/Workspaces';
import { defineResource, type Action, type FieldDefinition, type Row } from '../src/engine/types';
import { DEVICE_NAME_RULE_TEXT, DEVICE_STATUSES, normaliseStatus } from '../schemas/device';
import {
    ALERT_LEVELS,
    PROJECT_PAGE_SIZES,
    projectDeviceSchema,
    projectSaveSchema,
    sceneSaveSchema,
    staffAddSchema,
} from '../schemas/project';

/**
 * Projects (scenes) and their staff (SPEC.md "Projects"; docs/platform-api.md "Projects"): the list /programList
 * with scene management, and the overview /programOverview/{id} with its counts, charts, alerts, staff and devices.
 * The overview's project devices are device-family calls (code 0).
 */

/** What a project change reloads: its lists and calls, the devices (they carry the project's name), the dashboard. */
const REFRESH = ['projects', 'devices', 'dashboard'];

const overview = (r: Row) => `/programOverview/${String(r.id)}`;

const levelColors: Record<string, 'error' | 'warning' | 'info'> = { 1: 'error', 2: 'warning', 3: 'info' };
const LEVELS = Object.entries(ALERT_LEVELS).map(([id, name]) => ({ id: Number(id), name, color: levelColors[id] }));
const LEVEL_SLICES = [
    { key: '1', label: ALERT_LEVELS[1], color: '#d32f2f' },
    { key: '2', label: ALERT_LEVELS[2], color: '#ed6c02' },
    { key: '3', label: ALERT_LEVELS[3], color: '#0288d1' },
];
const STATUS_COLORS: Record<string, string> = {
    ONLINE: '#2e7d32',
    OFFLINE: '#9e9e9e',
    INACTIVE: '#0288d1',
    DISABLE: '#d32f2f',
};

/** 新建项目 / 编辑项目: 项目名称, 项目分类 (the scenes, users' own included) and 备注 (schemas/project.ts). */
const projectForm = {
    kind: 'form' as const,
    fields: ['name', 'classId', 'remark'],
    schema: projectSaveSchema,
    refresh: REFRESH,
};

const createProject: Action = {
    ...projectForm,
    label: '新建项目',
    right: 'project.create',
    variant: 'contained',
    icon: AddIcon,
    defaults: () => ({ name: '', classId: '', remark: '' }),
    submit: { call: 'create', params: ({ values }) => ({ ...values }) },
    success: '添加成功',
};

const editProject: Action = {
    ...projectForm,
    label: '编辑',
    right: 'project.edit',
    title: '编辑项目',
    mode: 'edit',
    defaults: ({ record }) => ({ name: record.name, classId: record.classId, remark: record.remark ?? '' }),
    submit: { call: 'update', params: ({ values }) => ({ ...values }) },
    success: '修改成功',
};

/** SPEC.md "Projects": deleting a project with devices says how many lose their project (counted afresh). */
const deleteProject: Action = {
    kind: 'call',
    label: '删除',
    right: 'project.delete',
    color: 'error',
    call: { call: 'delete', params: ({ record }) => ({ id: record.id }) },
    confirmLoad: { call: 'getOne', params: ({ record }) => ({ id: record.id }) },
    confirm: ({ record }) =>
        `确定删除项目「${String(record.name)}」吗？` +
        (Number(record.deviceCount) > 0
            ? `\n该项目下有${String(record.deviceCount)}个设备，删除后这些设备将解除关联`
            : ''),
    success: '删除成功',
    failure: '删除失败',
    refresh: REFRESH,
};

const sceneName: [string, FieldDefinition] = ['name', { label: '场景名称', required: true, maxLength: 20 }];

/** 场景管理: the scenes with their project counts; add, rename, delete (refused while projects use the scene). */
const manageScenes: Action = {
    kind: 'dialog',
    label: '场景管理',
    variant: 'outlined',
    icon: CategoryIcon,
    sections: [
        {
            kind: 'list',
            list: {
                title: '场景列表',
                source: { call: 'scenes', params: () => ({}) },
                columns: [
                    ['name', { label: '场景名称' }],
                    ['projectCount', { label: '项目数', render: (r) => `${Number(r.projectCount ?? 0)} 个项目` }],
                ],
                paging: false,
                dense: true,
                toolbar: [
                    {
                        kind: 'form',
                        label: '添加',
                        right: 'project.edit',
                        title: '添加场景',
                        variant: 'contained',
                        fields: [sceneName],
                        schema: sceneSaveSchema,
                        submit: { call: 'saveScene', params: ({ values }) => ({ id: '', name: values?.name }) },
                        success: '添加成功',
                        refresh: ['page'],
                    },
                ],
                rowActions: [
                    {
                        kind: 'form',
                        label: '重命名',
                        title: '重命名场景',
                        fields: [sceneName],
                        schema: sceneSaveSchema,
                        defaults: ({ record }) => ({ name: record.name }),
                        submit: {
                            call: 'saveScene',
                            params: ({ record, values }) => ({ id: record.id, name: values?.name }),
                        },
                        success: '修改成功',
                        refresh: ['page'],
                    },
                    {
                        kind: 'call',
                        label: '删除',
                        right: 'project.delete',
                        color: 'error',
                        call: { call: 'deleteScene', params: ({ record }) => ({ id: record.id }) },
                        confirm: ({ record }) => `确定删除场景「${String(record.name)}」吗？`,
                        success: '删除成功',
                        failure: '删除失败',
                        refresh: ['page'],
                    },
                ],
                empty: { text: '暂无场景，请先添加' },
            },
        },
    ],
};

/** 添加人员: users found by phone number, ticked, sent as a list of { projectCode, userId }. */
const addStaff: Action = {
    kind: 'form',
    label: '添加人员',
    right: 'project.bind',
    variant: 'outlined',
    icon: PersonAddIcon,
    fields: [
        [
            'userIds',
            {
                label: '选择人员',
                input: 'picker',
                required: true,
                picker: {
                    source: { call: 'users' },
                    rowId: 'userId',
                    columns: [
                        ['username', { label: '姓名' }],
                        ['loginName', { label: '登录名' }],
                        ['mobile', { label: '手机号码' }],
                    ],
                    filters: [{ source: 'phoneNumber', label: '手机号码' }],
                    taken: (row, { data }) =>
                        Array.isArray(data?.staff) && (data.staff as Row[]).some((s) => s.userId === row.userId)
                            ? '已在项目中'
                            : undefined,
                },
            },
        ],
    ],
    schema: staffAddSchema,
    defaults: () => ({ userIds: [] }),
    submit: {
        call: 'addStaff',
        params: ({ record, values }) => ({
            list: ((values?.userIds ?? []) as number[]).map((userId) => ({ projectCode: record.code, userId })),
        }),
    },
    success: '添加成功',
    width: 'md',
};

/** 添加设备: a device of any product, added to this project (SaveDevice with the projectId). */
const addDevice: Action = {
    kind: 'form',
    label: '添加设备',
    right: 'device.create',
    variant: 'contained',
    icon: AddIcon,
    fields: [
        [
            'productId',
            {
                label: '所属产品',
                input: 'select',
                required: true,
                choicesFrom: {
                    call: 'listAll',
                    resource: 'products',
                    optionValue: 'productId',
                    optionText: 'productName',
                },
            },
        ],
        ['deviceName', { label: 'DeviceName', required: true, maxLength: 100, helperText: DEVICE_NAME_RULE_TEXT }],
        ['remark', { label: '备注', maxLength: 100 }],
    ],
    schema: projectDeviceSchema,
    note: ({ record }) => `添加的设备将关联到本项目「${String(record.name ?? '')}」`,
    submit: { call: 'addDevice', params: ({ route, values }) => ({ ...values, projectId: route.id }) },
    success: '添加成功',
    failure: '系统错误',
    refresh: REFRESH,
};

const removeDevice: Action = {
    kind: 'call',
    label: '移出项目',
    call: {
        call: 'removeFromProject',
        params: ({ record, route }) => ({ projectId: route.id, deviceId: record.deviceId }),
    },
    confirm: ({ record }) =>
        `确定将设备 ${String(record.deviceName)} 移出项目「${String(record.projectName ?? '')}」吗？`,
    success: '操作成功',
    refresh: REFRESH,
};

const deviceLink = (r: Row) =>
    `/devices/${encodeURIComponent(String(r.productKey))}/${encodeURIComponent(String(r.deviceName))}` +
    `?devicesId=${encodeURIComponent(String(r.deviceId))}`;

const byProject = ({ route }: { route: Record<string, string> }) => ({ projectId: route.id });

export default defineResource({
    name: 'projects',
    label: '项目管理',
    menu: { label: '项目管理', order: 20, icon: WorkspacesIcon, related: ['/programOverview'] },
    icon: WorkspacesIcon,
    path: 'programList',
    hidden: true,
    recordRepresentation: 'name',
    views: { list: false, show: false, edit: false, create: false },
    fields: {
        name: { label: '项目名称', type: 'link', linkTo: overview, required: true, maxLength: 30 },
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
    messages: { created: '添加成功', updated: '修改成功', deleted: '删除成功' },
    pages: [
        {
            // SPEC.md "Projects": scene filter, name search, the paged table (10 a page; 5, 10, 20), all in the URL.
            path: '/programList',
            title: '项目管理',
            sections: [
                {
                    kind: 'list',
                    list: {
                        columns: ['name', 'code', 'sceneName', 'productCount', 'deviceCount', 'remark', 'createTime'],
                        perPage: 10,
                        perPageOptions: [...PROJECT_PAGE_SIZES],
                        filters: [
                            {
                                source: 'classId',
                                label: '项目分类',
                                input: 'buttons',
                                choicesFrom: {
                                    call: 'scenes',
                                    params: () => ({}),
                                    optionValue: 'id',
                                    optionText: 'name',
                                },
                            },
                            { source: 'name', label: '项目名称' },
                        ],
                        toolbar: [manageScenes, createProject],
                        rowActions: [
                            { kind: 'link', label: '查看', to: ({ record }) => overview(record) },
                            editProject,
                            deleteProject,
                        ],
                        // A filter that finds nothing says so, not 暂无项目.
                        empty: {
                            text: ({ query }) => (query.classId || query.name ? '没有符合条件的项目' : '暂无项目'),
                            hint: ({ query }) =>
                                query.classId || query.name
                                    ? '换个分类或名称再试'
                                    : '点击右上角「新建项目」创建第一个项目',
                        },
                    },
                },
            ],
        },
        {
            // SPEC.md "Projects": counts, three pies, health, staff, alert events, rule engine, the project's devices.
            path: '/programOverview/:id',
            title: ({ record }) => (record.name ? `项目概览 - ${String(record.name)}` : '项目概览'),
            crumb: '项目概览',
            back: { label: '项目列表', to: '/programList' },
            record: {
                call: 'getOne',
                params: ({ route }) => ({ id: route.id }),
                missing: ({ route }) =>
                    /^[1-9]\d*$/.test(route.id ?? '') ? undefined : '该项目可能已被删除，或链接有误',
                notFound: '该项目可能已被删除，或链接有误',
                notFoundTitle: '项目不存在',
            },
            load: { staff: { call: 'staff', params: ({ record }) => ({ projectCode: record.code }) } },
            header: {
                title: ({ record }) => String(record.name ?? ''),
                fields: [['code', { label: '项目编号', copy: true }], 'sceneName', 'createTime', 'remark'],
            },
            sections: [
                {
                    kind: 'counters',
                    title: '项目统计',
                    items: [
                        { label: '产品数', value: 'productCount', icon: Inventory2Icon, color: '#5470c6' },
                        { label: '设备数', value: 'deviceCount', icon: DevicesOtherIcon, color: '#4e9bf5' },
                        { label: '在线', value: 'onlineCount', icon: WifiIcon, color: '#2e7d32' },
                        { label: '离线', value: 'offlineCount', icon: WifiOffIcon, color: '#8c96a3' },
                        { label: '未激活', value: 'inactiveCount', icon: PendingIcon, color: '#0288d1' },
                        { label: '待处理告警', value: 'warn', icon: NotificationsActiveIcon, color: '#ed6c02' },
                    ],
                },
                {
                    kind: 'row',
                    sections: [
                        {
                            kind: 'chart',
                            title: '设备状态',
                            chart: {
                                kind: 'pie',
                                call: { call: 'deviceStatus', params: byProject },
                                name: 'status',
                                value: 'amount',
                                names: Object.fromEntries(DEVICE_STATUSES.map((s) => [s.id, s.name])),
                                colors: STATUS_COLORS,
                            },
                        },
                        {
                            kind: 'chart',
                            title: '设备类型',
                            chart: {
                                kind: 'pie',
                                call: { call: 'deviceType', params: byProject },
                                name: 'type',
                                value: 'amount',
                            },
                        },
                        {
                            kind: 'chart',
                            title: '待处理告警',
                            chart: {
                                kind: 'pie',
                                call: { call: 'alertType', params: byProject },
                                name: 'type',
                                value: 'amount',
                                slices: LEVEL_SLICES,
                            },
                        },
                    ],
                },
                {
                    kind: 'row',
                    widths: [6, 6],
                    sections: [
                        {
                            kind: 'chart',
                            title: '健康度趋势',
                            chart: {
                                kind: 'line',
                                call: { call: 'health', params: byProject },
                                x: 'day',
                                series: [{ field: 'score', label: '健康度', color: '#2e7d32' }],
                                filters: [
                                    {
                                        source: 'days',
                                        label: '时间范围',
                                        input: 'buttons',
                                        choices: [
                                            { id: '7', name: '近7天' },
                                            { id: '30', name: '近30天' },
                                        ],
                                        allLabel: false,
                                        defaultValue: '7',
                                    },
                                ],
                                summary: (rows) => `最近一天 ${String(rows[rows.length - 1].score)} 分`,
                                // A project without devices has no health to speak of (not 100).
                                noData: ({ record }) => Number(record.deviceCount ?? 0) === 0,
                                empty: '暂无数据',
                                yRange: [0, 100],
                                height: 220,
                            },
                        },
                        {
                            kind: 'list',
                            title: '项目人员',
                            list: {
                                source: { call: 'staff', params: ({ record }) => ({ projectCode: record.code }) },
                                columns: [
                                    ['username', { label: '姓名' }],
                                    ['loginName', { label: '登录名' }],
                                    ['mobile', { label: '手机号码' }],
                                ],
                                paging: false,
                                dense: true,
                                // SPEC.md §9: the staff table scrolls at 175 px.
                                height: 175,
                                toolbar: [addStaff],
                                rowActions: [
                                    {
                                        kind: 'call',
                                        label: '移除',
                                        right: 'project.bind',
                                        color: 'error',
                                        call: { call: 'removeStaff', params: ({ record }) => ({ id: record.id }) },
                                        confirm: ({ record }) => `确定将「${String(record.username)}」移出项目人员吗？`,
                                        success: '移除成功',
                                    },
                                ],
                                empty: { text: '暂无项目人员', hint: '点击「添加人员」按手机号码查找用户' },
                            },
                        },
                    ],
                },
                {
                    kind: 'list',
                    title: '告警事件',
                    list: {
                        source: { call: 'alertList', params: byProject },
                        columns: [
                            ['type', { label: '告警级别', type: 'status', choices: LEVELS }],
                            ['deviceName', { label: '设备名称' }],
                            ['params', { label: '告警内容', ellipsis: 240 }],
                            [
                                'status',
                                {
                                    label: '处理状态',
                                    render: (r) => (Number(r.status) === 1 ? '已处理' : '待处理'),
                                },
                            ],
                            // SPEC.md §9: '…:ss.SSS' is shown without its last 4 characters.
                            ['timestamp', { label: '告警时间', type: 'datetime', format: 'YYYY-MM-DD HH:mm:ss' }],
                        ],
                        // ?alertPage=2 opens a bookmarked page of alerts (SPEC.md §9: 10 a page).
                        urlPrefix: 'alert',
                        perPage: 10,
                        dense: true,
                        empty: { text: '暂无告警事件' },
                    },
                },
                {
                    kind: 'list',
                    title: '规则引擎',
                    list: {
                        // The project's rules (scene linkage and alert rules), /api/rule/list?projectId=.
                        source: { call: 'projectRules', params: byProject },
                        columns: [
                            ['name', { label: '规则名称' }],
                            [
                                'status',
                                {
                                    label: '状态',
                                    type: 'status',
                                    choices: [
                                        { id: 1, name: '已启用', color: 'success' },
                                        { id: 0, name: '已停用', color: 'default' },
                                    ],
                                },
                            ],
                            ['description', { label: '描述' }],
                            ['createTime', { label: '创建时间' }],
                        ],
                        urlPrefix: 'rule',
                        perPage: 10,
                        dense: true,
                        empty: {
                            text: '暂无规则',
                            hint: '在“规则引擎”中新建规则并选择本项目后，规则显示在这里',
                            columns: true,
                        },
                    },
                },
                {
                    kind: 'list',
                    title: '项目设备',
                    list: {
                        source: { call: 'devices', params: byProject },
                        rowId: 'deviceId',
                        columns: [
                            ['deviceName', { label: 'DeviceName', type: 'link', linkTo: deviceLink }],
                            ['productName', { label: '所属产品' }],
                            ['status', { label: '状态', type: 'status', choices: [...DEVICE_STATUSES] }],
                            ['remark', { label: '备注' }],
                            ['createTime', { label: '添加时间' }],
                        ],
                        // ?devicePage=&devicePerPage=&deviceName= beside the alert page.
                        urlPrefix: 'device',
                        perPage: 10,
                        perPageOptions: [...PROJECT_PAGE_SIZES],
                        filters: [{ source: 'deviceName', label: 'DeviceName', param: 'deviceName' }],
                        toolbar: [addDevice],
                        rowActions: [removeDevice],
                        dense: true,
                        empty: {
                            text: ({ query }) => (query.deviceName ? '没有符合条件的设备' : '该项目下暂无设备'),
                            hint: ({ query }) =>
                                query.deviceName ? '换个名称再试' : '点击「添加设备」添加设备，它将关联到本项目',
                        },
                    },
                },
            ],
        },
    ],
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
            projectRules: {
                get: '/api/rule/list',
                paging: ['pageNumber', 'pageSize'],
                read: 'data.records',
                total: 'data.total',
            },
            select: { get: '/api/project/select', read: 'data.list' },
            count: { get: '/api/project/selectCount', read: 'data' },
            scenes: { get: '/api/project/sceneList', read: 'data.list' },
            saveScene: { post: '/api/project/scene/save', read: 'data' },
            deleteScene: { delete: '/api/project/scene/delete', read: 'data' },
            associateDevices: { get: '/api/project/associateDevice', read: 'data' },
            staff: { get: '/api/project-user/getUserList', read: 'data.list' },
            addStaff: { post: '/api/project-user/addUser', body: 'json', read: 'data' },
            removeStaff: { get: '/api/project-user/removeUser', read: 'data' },
            users: { get: '/api/user/listAll', read: 'data.list' },
            deviceStatus: { get: '/api/overview/deviceStatus', read: 'data.list' },
            deviceType: { get: '/api/overview/deviceType', read: 'data.list' },
            alertType: { get: '/api/overview/alertType', read: 'data.list' },
            alertList: {
                get: '/api/overview/alertList',
                paging: ['pageNumber', 'pageSize'],
                read: 'data.records',
                total: 'data.total',
            },
            // The axis says 11-25: the year is the page's.
            health: {
                get: '/api/overview/health',
                read: 'data.list',
                transform: (row) => ({ ...row, day: String(row.date ?? '').slice(5) }),
            },
            // The device family answers code 0.
            devices: {
                get: '/api/device/listByProject',
                paging: ['pageNumber', 'pageSize'],
                read: 'data.records',
                total: 'data.total',
                success: 'code0',
                transform: (row) => ({ ...row, status: normaliseStatus(row.status) }),
            },
            addDevice: { post: '/api/device/SaveDevice', read: 'data', success: 'code0' },
            removeFromProject: { get: '/api/device/removeFromProject', read: 'data', success: 'code0' },
        },
    },
});
