import NotificationsActiveIcon from '@mui/icons-material/NotificationsActive';
import {
    ALERT_LEVELS,
    ALERT_STATUSES,
    CHANNEL_TYPES,
    MATCH_CHOICES,
    TEMPLATE_HELP,
    alertHandleSchema,
    channelFormSchema,
    ruleFormSchema,
} from '../schemas/ruleEngine';
import { defineResource, type Action, type FormValues, type Row } from '../src/engine/types';
import type { FilterSpec } from '../src/engine/vocabulary';
import { conditionRow, formToRule, ruleToForm } from './rules';

/**
 * Device alarms /monitor/deviceAlarm (issue 12; docs/rules.md "Alerts"; calls under /api/alert-log and
 * /api/alert-rule): live alert events (asked again every 5 s) with filters and 处理 in bulk with a remark; the alert
 * rules (conditions on the thing model raising an alert of a level, with notifications); the notification channels.
 */

const LEVELS = [
    { id: 1, name: '紧急', color: 'error' as const },
    { id: 2, name: '严重', color: 'warning' as const },
    { id: 3, name: '一般', color: 'info' as const },
];
const STATUSES = [
    { id: 0, name: '待处理', color: 'warning' as const },
    { id: 1, name: '已处理', color: 'success' as const },
];
const ENABLED = [
    { id: 1, name: '已启用', color: 'success' as const },
    { id: 0, name: '已停用', color: 'default' as const },
];

const handle: Action = {
    kind: 'form',
    label: '处理',
    title: '处理告警',
    when: ({ record }) => record.status === 0,
    ariaLabel: ({ record }) => `处理告警 ${String(record.id)}`,
    fields: ['remark'],
    schema: alertHandleSchema,
    submit: { call: 'handle', params: ({ record, values }) => ({ ids: [record.id], remark: values?.remark }) },
    success: '处理成功',
    refresh: ['alerts'],
};

const handleSelected: Action = {
    kind: 'form',
    label: '批量处理',
    title: ({ selected }) => `处理选中的 ${selected?.length ?? 0} 条告警`,
    fields: ['remark'],
    schema: alertHandleSchema,
    submit: {
        call: 'handle',
        params: ({ selected, values }) => ({ ids: (selected ?? []).map((r) => r.id), remark: values?.remark }),
    },
    note: '已处理的告警保持不变；条件已恢复的告警处理后关闭。',
    success: (answer) => `已处理 ${String((answer as { handled?: number } | undefined)?.handled ?? '')} 条告警`,
    refresh: ['alerts'],
};

const view: Action = {
    kind: 'widget',
    label: '查看',
    title: ({ record }) => `告警详情（#${String(record.id)}）`,
    widget: 'jsonView',
    props: ({ record }) => ({
        text: JSON.stringify(
            {
                内容: record.params,
                规则: record.ruleName ?? '（演示数据）',
                触发数据: record.input ?? null,
                恢复时间: record.recoverTime,
                关闭时间: record.clearTime,
                处理时间: record.handleTime,
                处理备注: record.remark,
            },
            null,
            2,
        ),
    }),
    width: 'md',
    closeLabel: '关闭',
};

const alertFilters: FilterSpec[] = [
    { source: 'level', label: '告警级别', input: 'select', param: 'level', choices: ALERT_LEVELS },
    { source: 'status', label: '处理状态', input: 'select', param: 'status', choices: ALERT_STATUSES },
    {
        source: 'projectId',
        label: '项目',
        input: 'select',
        param: 'projectId',
        choicesFrom: { call: 'projects', optionValue: 'id', optionText: 'projectName' },
    },
    {
        source: 'productKey',
        label: '产品',
        input: 'select',
        searchable: true,
        param: 'productKey',
        choicesFrom: { call: 'products', optionValue: 'productKey', optionText: 'productName' },
    },
    { source: 'deviceName', label: '设备名称', param: 'deviceName' },
    { source: 'start', to: 'end', label: '时间', input: 'dateRange', param: 'start', toParam: 'end' },
];

const ALERT_RULE_FIELDS = [
    'name',
    'projectId',
    'productKey',
    'deviceName',
    'level',
    'content',
    'match',
    'conditions',
    'durationSeconds',
    'timeWindow',
    'autoClear',
    'channelIds',
    'notifyOnRecover',
    'enabled',
];

/** An alert rule as the form holds it: the rule's own rows, plus its level, content and channels. */
const alertRuleToForm = (r: Row): FormValues => ({
    ...ruleToForm(r),
    level: r.level ?? 2,
    content: r.content ?? '',
    channelIds: r.channelIds ?? [],
    notifyOnRecover: r.notifyOnRecover ?? false,
});

const alertRuleEditor = (mode: 'create' | 'edit'): Action => ({
    kind: 'form',
    label: mode === 'create' ? '新建告警规则' : '编辑',
    title: mode === 'create' ? '新建告警规则' : '编辑告警规则',
    variant: mode === 'create' ? 'contained' : undefined,
    ariaLabel: mode === 'edit' ? ({ record }) => `编辑 ${String(record.name)}` : undefined,
    width: 'lg',
    fields: ALERT_RULE_FIELDS,
    schema: ruleFormSchema.pick(['name', 'productKey', 'conditions', 'durationSeconds', 'timeWindow']),
    defaults: ({ record }) =>
        mode === 'edit'
            ? alertRuleToForm(record)
            : {
                  enabled: true,
                  match: 'all',
                  level: 2,
                  durationSeconds: 0,
                  autoClear: true,
                  conditions: [],
                  channelIds: [],
                  notifyOnRecover: false,
              },
    submit: {
        call: 'saveAlertRule',
        params: ({ values }) => {
            const v = values ?? {};
            const { triggers: _t, actions: _a, ...rule } = formToRule({ ...v, triggers: [], actions: [] });
            return {
                ...rule,
                level: v.level,
                content: v.content,
                channelIds: v.channelIds ?? [],
                notifyOnRecover: v.notifyOnRecover === true,
            };
        },
    },
    success: '保存成功',
    refresh: ['alerts'],
});

const toggleRule: Action = {
    kind: 'call',
    label: ({ record }) => (record.enabled ? '停用' : '启用'),
    ariaLabel: ({ record }) => `${record.enabled ? '停用' : '启用'} ${String(record.name)}`,
    call: {
        call: 'enableAlertRule',
        params: ({ record }) => ({ id: record.id, enabled: record.enabled ? 'false' : 'true' }),
    },
    success: (_answer, { record }) => (record.enabled ? '已停用' : '已启用'),
    refresh: ['alerts'],
};

const removeRule: Action = {
    kind: 'call',
    label: '删除',
    color: 'error',
    ariaLabel: ({ record }) => `删除 ${String(record.name)}`,
    call: { call: 'removeAlertRule', params: ({ record }) => ({ id: record.id }) },
    confirm: ({ record }) => `确定删除告警规则“${String(record.name)}”吗？已产生的告警保留。`,
    success: '删除成功',
    refresh: ['alerts'],
};

const CHANNEL_FIELDS = [
    'name',
    'channelType',
    'url',
    'bodyTemplate',
    'host',
    'port',
    'secure',
    'user',
    'pass',
    'from',
    'to',
];

const channelEditor = (mode: 'create' | 'edit'): Action => ({
    kind: 'form',
    label: mode === 'create' ? '新建通知方式' : '编辑',
    title: mode === 'create' ? '新建通知方式' : '编辑通知方式',
    variant: mode === 'create' ? 'contained' : undefined,
    ariaLabel: mode === 'edit' ? ({ record }) => `编辑 ${String(record.name)}` : undefined,
    width: 'md',
    fields: CHANNEL_FIELDS,
    schema: channelFormSchema,
    defaults: ({ record }) =>
        mode === 'edit'
            ? { ...record, ...(record.config as Row), channelType: record.type, type: record.type, pass: '' }
            : { channelType: 'dingtalk', type: 'dingtalk', port: 25, secure: false },
    submit: {
        call: 'saveChannel',
        params: ({ values, record }) => {
            const v = values ?? {};
            return {
                ...(mode === 'edit' ? { id: record.id } : {}),
                name: v.name,
                type: v.channelType,
                ...(v.channelType === 'email'
                    ? {
                          host: v.host,
                          port: v.port,
                          secure: v.secure ? 'true' : 'false',
                          user: v.user ?? '',
                          pass: v.pass ?? '',
                          from: v.from ?? '',
                          to: v.to,
                      }
                    : { url: v.url, bodyTemplate: v.channelType === 'webhook' ? (v.bodyTemplate ?? '') : '' }),
            };
        },
    },
    success: '保存成功',
    refresh: ['alerts'],
});

const removeChannel: Action = {
    kind: 'call',
    label: '删除',
    color: 'error',
    ariaLabel: ({ record }) => `删除 ${String(record.name)}`,
    call: { call: 'removeChannel', params: ({ record }) => ({ id: record.id }) },
    confirm: ({ record }) => `确定删除通知方式“${String(record.name)}”吗？使用它的规则将记录通知失败。`,
    success: '删除成功',
    refresh: ['alerts'],
};

const notEmail = (v: FormValues) => v.channelType !== 'email';
const isEmail = (v: FormValues) => v.channelType === 'email';

export default defineResource({
    name: 'alerts',
    label: '设备告警',
    path: 'monitor/deviceAlarm',
    icon: NotificationsActiveIcon,
    menu: {
        label: '设备告警',
        to: '/monitor/deviceAlarm',
        section: '监控运维',
        order: 4.5,
        icon: NotificationsActiveIcon,
    },
    views: { list: false, show: false, edit: false, create: false },
    fields: {
        timestamp: { label: '告警时间', render: (r) => String(r.timestamp ?? '').slice(0, -4) },
        level: { label: '告警级别', type: 'status', choices: LEVELS },
        params: { label: '告警内容', ellipsis: 280 },
        deviceName: { label: '设备' },
        productKey: {
            label: '产品',
            input: 'select',
            required: true,
            choicesFrom: { call: 'products', optionValue: 'productKey', optionText: 'productName' },
        },
        projectName: { label: '项目', render: (r) => String(r.projectName ?? '—') },
        ruleName: { label: '规则', render: (r) => String(r.ruleName ?? '—') },
        status: { label: '处理状态', type: 'status', choices: STATUSES },
        remark: { label: '处理备注', ellipsis: 160 },
        handleTime: { label: '处理时间', type: 'datetime' },
        // Alert rules.
        name: { label: '规则名称', required: true, maxLength: 30 },
        productName: { label: '产品' },
        ruleStatus: { label: '状态', type: 'status', choices: ENABLED },
        updateTime: { label: '更新时间', type: 'datetime' },
        projectId: {
            label: '所属项目',
            input: 'select',
            choicesFrom: { call: 'projects', optionValue: 'id', optionText: 'projectName' },
        },
        content: { label: '告警内容模板', required: true, helperText: TEMPLATE_HELP },
        match: { label: '条件关系', type: 'select', input: 'radio', choices: MATCH_CHOICES },
        conditions: {
            label: '告警条件',
            input: 'rows',
            rows: {
                fields: conditionRow,
                addLabel: '添加条件',
                newRow: { source: 'property', operator: '>' },
                max: 20,
            },
        },
        durationSeconds: {
            label: '持续时长（秒）',
            type: 'number',
            helperText: '如“高于 80 持续 300 秒”，0 为立即告警',
        },
        timeWindow: {
            label: '生效时段',
            type: 'timeRange',
            helperText: '留空为全天生效；结束不晚于开始时到次日结束（如 22:00 至次日 06:00）',
        },
        autoClear: { label: '条件恢复后自动清除告警', type: 'boolean' },
        enabled: { label: '保存后启用', type: 'boolean' },
        notifyOnRecover: {
            label: '恢复时通知',
            type: 'boolean',
            helperText: '条件恢复（告警恢复）时也向所选通知方式发送一条恢复通知',
        },
        channelIds: {
            label: '通知方式',
            input: 'picker',
            picker: {
                source: { call: 'channels' },
                rowId: 'id',
                columns: [
                    ['name', { label: '名称' }],
                    ['typeName', { label: '类型' }],
                ],
                perPage: 5,
                empty: '暂无通知方式，可在“通知方式”页签中添加',
            },
        },
        // Channels.
        typeName: { label: '类型' },
        recipient: { label: '地址 / 收件人' },
        channelType: { label: '类型', input: 'select', choices: CHANNEL_TYPES, required: true },
        url: { label: 'Webhook 地址', visibleWhen: notEmail, required: true },
        bodyTemplate: {
            label: '请求体模板（JSON）',
            input: 'textarea',
            visibleWhen: (v) => v.channelType === 'webhook',
            helperText: '留空为默认格式；可用 ${content} 及内容模板的变量',
        },
        host: { label: 'SMTP 服务器', visibleWhen: isEmail, required: true },
        port: { label: '端口', type: 'number', number: { grouping: false }, visibleWhen: isEmail },
        secure: { label: 'SSL/TLS', type: 'boolean', visibleWhen: isEmail },
        user: { label: '用户名', visibleWhen: isEmail },
        pass: { label: '密码（编辑时留空为不修改）', type: 'password', visibleWhen: isEmail },
        from: { label: '发件人', visibleWhen: isEmail },
        to: { label: '收件人（多个用逗号分隔）', visibleWhen: isEmail, required: true },
        createTime: { label: '创建时间', type: 'datetime' },
    },
    pages: [
        {
            path: '/monitor/deviceAlarm',
            title: '设备告警',
            tabParam: { query: 'tab', fallback: 'events', omitFallback: true },
            tabs: [
                {
                    key: 'events',
                    label: '告警事件',
                    sections: [
                        {
                            kind: 'list',
                            list: {
                                source: { call: 'alerts', every: 5 },
                                columns: [
                                    'timestamp',
                                    'level',
                                    'params',
                                    'deviceName',
                                    'projectName',
                                    'ruleName',
                                    'status',
                                    'remark',
                                ],
                                urlPrefix: 'alert',
                                perPage: 10,
                                perPageOptions: [10, 20, 30, 40],
                                filters: alertFilters,
                                bulkActions: [handleSelected],
                                rowActions: [handle, view],
                                empty: { text: '暂无告警', filtered: '没有符合条件的告警' },
                            },
                        },
                    ],
                },
                {
                    key: 'rules',
                    label: '告警规则',
                    sections: [
                        {
                            kind: 'list',
                            list: {
                                source: { call: 'alertRules' },
                                columns: [
                                    'name',
                                    'productName',
                                    [
                                        'deviceName',
                                        { label: '设备', render: (r) => String(r.deviceName ?? '全部设备') },
                                    ],
                                    'level',
                                    'ruleStatus',
                                    'updateTime',
                                ],
                                urlPrefix: 'rule',
                                perPage: 10,
                                toolbar: [alertRuleEditor('create')],
                                rowActions: [alertRuleEditor('edit'), toggleRule, removeRule],
                                empty: { text: '暂无告警规则', action: alertRuleEditor('create') },
                            },
                        },
                    ],
                },
                {
                    key: 'channels',
                    label: '通知方式',
                    sections: [
                        {
                            kind: 'list',
                            list: {
                                source: { call: 'channels' },
                                columns: ['name', 'typeName', 'recipient', 'createTime'],
                                urlPrefix: 'channel',
                                perPage: 10,
                                toolbar: [channelEditor('create')],
                                rowActions: [channelEditor('edit'), removeChannel],
                                empty: {
                                    text: '暂无通知方式：添加 Webhook、钉钉、企业微信机器人或邮件',
                                    action: channelEditor('create'),
                                },
                            },
                        },
                    ],
                },
            ],
        },
    ],
    api: {
        success: 'code200',
        custom: {
            alerts: {
                get: '/api/alert-log/list',
                paging: ['pageNumber', 'pageSize'],
                read: 'data.records',
                total: 'data.total',
            },
            handle: { post: '/api/alert-log/handle', body: 'json', read: 'data' },
            alertRules: {
                get: '/api/alert-rule/list',
                paging: ['pageNumber', 'pageSize'],
                read: 'data.records',
                total: 'data.total',
                transform: (row) => ({ ...row, ruleStatus: row.enabled ? 1 : 0 }),
            },
            saveAlertRule: { post: '/api/alert-rule/save', body: 'json', read: 'data' },
            enableAlertRule: { post: '/api/alert-rule/enable' },
            removeAlertRule: { post: '/api/alert-rule/delete' },
            channels: {
                get: '/api/alert-rule/channel/list',
                paging: ['pageNumber', 'pageSize'],
                read: 'data.records',
                total: 'data.total',
                transform: (row) => {
                    const cfg = (row.config ?? {}) as Row;
                    return {
                        ...row,
                        typeName: CHANNEL_TYPES.find((t) => t.id === row.type)?.name ?? row.type,
                        recipient: row.type === 'email' ? cfg.to : cfg.url,
                    };
                },
            },
            saveChannel: { post: '/api/alert-rule/channel/save', body: 'json', read: 'data' },
            removeChannel: { post: '/api/alert-rule/channel/delete' },
            products: { get: '/api/product/list-product', read: 'data.list' },
            projects: { get: '/api/project/listAll', read: 'data.list' },
            modelProperties: { get: '/api/rule/model', read: 'data.properties' },
            modelEvents: { get: '/api/rule/model', read: 'data.events' },
            modelEventFields: { get: '/api/rule/model', read: 'data.eventFields' },
        },
    },
});
