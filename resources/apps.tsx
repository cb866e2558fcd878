import AppSettingsAltIcon from '@mui/icons-material/AppSettingsAlt';
import StorefrontIcon from '@mui/icons-material/Storefront';
import { ALARM_LEVELS, APP_DOMAINS, NOTIFY_TYPES, appAlarmSchema, appSchema } from '../schemas/app';
import { defineResource, type Action, type FieldDefinition } from '../src/engine/types';

/**
 * Apps (SPEC.md "App listing", "App management"): /appconfig publishes apps (上架应用) and lists them with search,
 * view, 上架 / 下架 and delete; /applymanage activates the published ones, switches their use and adds alarm
 * notifications. The dashboard's 已用应用 / 待用应用 count these apps. Calls: /api/app/*.
 */
const PUBLISH = [
    { id: 1, name: '已上架', color: 'success' as const },
    { id: 0, name: '已下架', color: 'default' as const },
];
const ACTIVE = [
    { id: 0, name: '未激活', color: 'default' as const },
    { id: 1, name: '已激活', color: 'success' as const },
    { id: 2, name: '已停用', color: 'warning' as const },
];

const view: Action = {
    kind: 'dialog',
    label: '查看',
    ariaLabel: ({ record }) => `查看 ${String(record.name)}`,
    title: ({ record }) => String(record.name),
    width: 'sm',
    sections: [
        {
            kind: 'fields',
            columns: 1,
            fields: ['name', 'domain', 'description', 'publishStatus', 'activeStatus', 'createTime', 'recentTime'],
        },
    ],
};

const publishToggle: Action = {
    kind: 'call',
    label: ({ record }) => (record.publishStatus === 1 ? '下架' : '上架'),
    ariaLabel: ({ record }) => `${record.publishStatus === 1 ? '下架' : '上架'} ${String(record.name)}`,
    call: {
        call: 'publish',
        params: ({ record }) => ({ id: record.id, publishStatus: record.publishStatus === 1 ? 0 : 1 }),
    },
    confirm: ({ record }) =>
        record.publishStatus === 1 ? `确定下架应用“${String(record.name)}”吗？下架后该应用停止使用。` : '',
    success: (_answer, { record }) => (record.publishStatus === 1 ? '下架成功' : '上架成功'),
};

const useSwitch: Action = {
    kind: 'switch',
    label: ({ record }) =>
        record.useStatus === 1 ? `${String(record.name)} 使用中，点击停止使用` : `启用 ${String(record.name)}`,
    checked: ({ record }) => record.useStatus === 1,
    disabled: ({ record }) => (record.activeStatus !== 1 ? '应用未激活，不能启用' : false),
    on: {
        kind: 'call',
        label: '启用',
        call: { call: 'use', params: ({ record }) => ({ id: record.id, useStatus: 1 }) },
        success: '操作成功',
    },
    off: {
        kind: 'call',
        label: '停止使用',
        call: { call: 'use', params: ({ record }) => ({ id: record.id, useStatus: 0 }) },
        success: '操作成功',
    },
};

const activate: Action = {
    kind: 'call',
    label: ({ record }) => (record.activeStatus === 1 ? '停用' : '激活'),
    ariaLabel: ({ record }) => `${record.activeStatus === 1 ? '停用' : '激活'} ${String(record.name)}`,
    call: {
        call: 'activate',
        params: ({ record }) => ({ id: record.id, activeStatus: record.activeStatus === 1 ? 2 : 1 }),
    },
    confirm: ({ record }) => (record.activeStatus === 1 ? `确定停用应用“${String(record.name)}”吗？` : ''),
    success: '操作成功',
};

const addAlarm: Action = {
    kind: 'form',
    label: '添加告警',
    ariaLabel: ({ record }) => `添加告警 ${String(record.name)}`,
    title: ({ record }) => `添加告警：${String(record.name)}`,
    fields: [
        ['name', { label: '告警名称', required: true, maxLength: 30 }],
        [
            'level',
            {
                label: '告警级别',
                input: 'radio',
                choices: ALARM_LEVELS,
                required: true,
                helperText:
                    '告警规则产生该级别的告警、且本应用处于使用中时发送；发送记录见 日志查询 → 告警消息（失败自动重试）',
            },
        ],
        ['notifyType', { label: '通知方式', input: 'radio', choices: NOTIFY_TYPES, required: true }],
        [
            'receiver',
            {
                label: '接收人',
                required: true,
                formLabel: (v) => (v.notifyType === 'email' ? '接收邮箱' : 'Webhook 地址'),
                helperText: '机器人或 Webhook 的地址；邮件方式经告警规则中第一个邮件通知方式的 SMTP 服务器发送',
            },
        ],
        ['content', { label: '告警内容', input: 'textarea', maxLength: 200 }],
    ],
    schema: appAlarmSchema,
    defaults: () => ({ level: 1, notifyType: 'webhook' }),
    submit: { call: 'addAlarm', params: ({ record, values }) => ({ appId: record.id, ...values }) },
    success: '添加成功',
};

const f = (label: string, extra: Partial<FieldDefinition> = {}): FieldDefinition => ({ label, ...extra });

export default defineResource({
    name: 'apps',
    label: '应用上架',
    path: 'appconfig',
    icon: StorefrontIcon,
    menu: [
        { label: '应用上架', to: '/appconfig', section: '应用管理', order: 1, icon: StorefrontIcon },
        { label: '应用管理', to: '/applymanage', section: '应用管理', order: 2, icon: AppSettingsAltIcon },
    ],
    recordRepresentation: 'name',
    fields: {
        name: f('应用名称', { required: true, maxLength: 30 }),
        domain: f('应用领域', {
            type: 'select',
            input: 'select',
            required: true,
            choices: APP_DOMAINS.map((d) => ({ id: d, name: d })),
        }),
        description: f('应用描述', { type: 'longText', maxLength: 200, views: ['show', 'create'] }),
        publishStatus: f('发布状态', { type: 'status', choices: PUBLISH, readOnly: true }),
        activeStatus: f('激活状态', { type: 'status', choices: ACTIVE, readOnly: true, views: ['show'] }),
        createTime: f('上架时间', { readOnly: true }),
        recentTime: f('最近使用时间', { readOnly: true, views: ['show'] }),
        company: f('所属单位', { readOnly: true, views: ['show'] }),
    },
    schema: appSchema,
    views: { show: false, edit: false },
    list: {
        perPage: 10,
        perPageOptions: [10, 20, 30, 40],
        columns: ['name', 'domain', 'publishStatus', 'createTime'],
        filters: [{ source: 'name', label: '应用名称', alwaysOn: true }],
        rowActions: [view, publishToggle],
        show: false,
        edit: false,
        deleteConfirmOf: (r) => `确定删除应用“${String(r.name)}”吗？其告警配置一并删除。`,
        createInDialog: true,
        createLabel: '上架应用',
        createTitle: '上架应用',
        empty: '暂无应用',
    },
    messages: { created: '上架成功', deleted: '删除成功' },
    pages: [
        {
            path: '/applymanage',
            title: '应用管理',
            sections: [
                {
                    kind: 'list',
                    list: {
                        label: '应用管理',
                        source: { call: 'published' },
                        columns: [
                            'name',
                            'domain',
                            ['activeStatus', { label: '激活状态', type: 'status', choices: ACTIVE }],
                            ['alarmCount', { label: '告警配置', type: 'number' }],
                            ['recentTime', { label: '最近使用时间' }],
                        ],
                        rowId: 'id',
                        perPage: 10,
                        perPageOptions: [10, 20, 30, 40],
                        filters: [{ source: 'name', label: '应用名称' }],
                        rowActions: [useSwitch, activate, addAlarm],
                        empty: { text: '暂无已上架的应用', hint: '请先在“应用上架”中上架应用' },
                    },
                },
            ],
        },
    ],
    api: {
        success: 'code200',
        getList: {
            get: '/api/app/list',
            paging: ['pageNumber', 'pageSize'],
            read: 'data.records',
            total: 'data.total',
        },
        create: { post: '/api/app/save', read: 'data' },
        delete: { delete: '/api/app/delete', params: (r) => ({ id: r.id }) },
        custom: {
            published: {
                get: '/api/app/list',
                params: (p) => ({ ...p, publishStatus: 1 }),
                paging: ['pageNumber', 'pageSize'],
                read: 'data.records',
                total: 'data.total',
            },
            publish: { post: '/api/app/publish', read: 'data' },
            activate: { post: '/api/app/activate', read: 'data' },
            use: { post: '/api/app/use', read: 'data' },
            addAlarm: { post: '/api/app/alarm/save', read: 'data' },
        },
    },
});
