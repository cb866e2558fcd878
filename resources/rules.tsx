import AccountTreeIcon from '@mui/icons-material/AccountTree';
import ListAltIcon from '@mui/icons-material/ListAlt';
import ReceiptLongIcon from '@mui/icons-material/ReceiptLong';
import {
    ACTION_TYPES,
    ALERT_LEVELS,
    MATCH_CHOICES,
    OPERATORS,
    RULE_TYPES,
    STATUS_CHOICES,
    TEMPLATE_HELP,
    TRIGGER_TYPES,
    ruleFormSchema,
} from '../schemas/ruleEngine';
import { defineResource, type Action, type FieldDefinition, type FormValues, type Row } from '../src/engine/types';
import type { FilterSpec, ListSpec, Section, WeekSpan } from '../src/engine/vocabulary';
import { timeRangeEnds, timeRangeText } from '../src/engine/timeRange';

/**
 * The rule engine (issue 12; docs/rules.md; calls under /api/rule): /ruleEngine with the tabs Linkedge (场景联动: the
 * scene linkage rules and their editor) and RuleJournal (规则日志: every firing), and /rule/list (every rule, scene
 * linkage and alert rules). The editor's trigger, condition and action rows choose from the product's thing model.
 */

const ENABLED = [
    { id: 1, name: '已启用', color: 'success' as const },
    { id: 0, name: '已停用', color: 'default' as const },
];
const RESULTS = [
    { id: 'true', name: '成功', color: 'success' as const },
    { id: 'false', name: '有失败', color: 'error' as const },
];

const byProduct = (v: FormValues) => ({ productKey: v.productKey ?? '' });
const model = (call: string, extra: Partial<NonNullable<FieldDefinition['choicesFrom']>> = {}) => ({
    call,
    params: byProduct,
    optionValue: 'identifier',
    optionLabel: (r: Row) => `${String(r.name ?? r.identifier)}（${String(r.identifier)}）`,
    ...extra,
});
const rowIs =
    (key: string, ...kinds: string[]) =>
    (v: FormValues) =>
        kinds.includes(String((v.$row as Row)?.[key]));

const triggerRow: Array<[string, FieldDefinition]> = [
    [
        'type',
        {
            label: '触发类型',
            input: 'select',
            choices: TRIGGER_TYPES,
            required: true,
            resets: { property: '', event: '' },
        },
    ],
    [
        'property',
        {
            label: '属性（不选为任意属性）',
            input: 'select',
            visibleWhen: rowIs('type', 'property'),
            choicesFrom: model('modelProperties'),
        },
    ],
    [
        'event',
        { label: '事件', input: 'select', visibleWhen: rowIs('type', 'event'), choicesFrom: model('modelEvents') },
    ],
    ['status', { label: '上下线', input: 'select', visibleWhen: rowIs('type', 'status'), choices: STATUS_CHOICES }],
    [
        'cron',
        { label: 'cron 表达式', visibleWhen: rowIs('type', 'schedule'), helperText: '如 0 8 * * * 表示每天 8 点' },
    ],
    [
        'module',
        {
            label: '固件模块（不填为任意模块）',
            visibleWhen: rowIs('type', 'otaFailed'),
            helperText: '升级失败后，动作内容可用 ${packageName} ${version} ${module} ${step} ${reason}',
        },
    ],
];

export const conditionRow: Array<[string, FieldDefinition]> = [
    [
        'source',
        {
            label: '条件来源',
            input: 'select',
            choices: [
                { id: 'property', name: '属性值' },
                { id: 'event', name: '事件参数' },
            ],
            resets: { property: '', event: '', field: '' },
        },
    ],
    [
        'property',
        {
            label: '属性',
            input: 'select',
            visibleWhen: rowIs('source', 'property'),
            choicesFrom: model('modelProperties'),
        },
    ],
    [
        'event',
        {
            label: '事件',
            input: 'select',
            visibleWhen: rowIs('source', 'event'),
            choicesFrom: model('modelEvents'),
            resets: { field: '' },
        },
    ],
    [
        'field',
        {
            label: '事件参数',
            input: 'select',
            visibleWhen: rowIs('source', 'event'),
            choicesFrom: model('modelEventFields', { keep: (row, v) => row.event === (v.$row as Row)?.event }),
        },
    ],
    ['operator', { label: '比较', input: 'select', choices: OPERATORS }],
    ['value', { label: '值' }],
    ['value2', { label: '上限', visibleWhen: rowIs('operator', 'between') }],
];

const actionRow: Array<[string, FieldDefinition]> = [
    ['type', { label: '动作类型', input: 'select', choices: ACTION_TYPES, required: true }],
    [
        'property',
        {
            label: '属性',
            input: 'select',
            visibleWhen: rowIs('type', 'setProperty'),
            choicesFrom: model('modelProperties'),
        },
    ],
    ['value', { label: '设置为', visibleWhen: rowIs('type', 'setProperty') }],
    [
        'service',
        {
            label: '服务',
            input: 'select',
            visibleWhen: rowIs('type', 'invokeService'),
            choicesFrom: model('modelServices'),
        },
    ],
    ['params', { label: '服务参数（JSON）', visibleWhen: rowIs('type', 'invokeService') }],
    ['deviceName', { label: '目标设备（空为触发设备）', visibleWhen: rowIs('type', 'setProperty', 'invokeService') }],
    ['level', { label: '告警级别', input: 'select', choices: ALERT_LEVELS, visibleWhen: rowIs('type', 'alert') }],
    ['content', { label: '内容模板', visibleWhen: rowIs('type', 'alert', 'notify'), helperText: TEMPLATE_HELP }],
    [
        'channelId',
        {
            label: '通知方式',
            input: 'select',
            visibleWhen: rowIs('type', 'notify'),
            choicesFrom: { call: 'channels', optionValue: 'id', optionText: 'name' },
        },
    ],
    ['onRecover', { label: '恢复时通知', type: 'boolean', visibleWhen: rowIs('type', 'notify') }],
    [
        'recoverContent',
        {
            label: '恢复通知模板',
            visibleWhen: (v) => (v.$row as Row)?.type === 'notify' && (v.$row as Row)?.onRecover === true,
            helperText: TEMPLATE_HELP,
        },
    ],
];

/** A saved rule's rows as the editor holds them (one select per kind, so each loads its own choices). */
export function ruleToForm(r: Row): FormValues {
    const rows = (k: string) => (Array.isArray(r[k]) ? (r[k] as Row[]) : []);
    return {
        id: r.id,
        name: r.name ?? '',
        projectId: r.projectId ?? '',
        productKey: r.productKey ?? '',
        deviceName: r.deviceName ?? '',
        description: r.description ?? '',
        enabled: r.enabled ?? true,
        match: r.match ?? 'all',
        durationSeconds: r.durationSeconds ?? 0,
        timeWindow: r.timeWindow ?? null,
        autoClear: r.autoClear ?? true,
        triggers: rows('triggers').map((t) => ({
            id: t.id,
            type: t.type,
            property: t.type === 'property' ? (t.identifier ?? '') : '',
            event: t.type === 'event' ? t.identifier : '',
            status: t.status ?? 'any',
            cron: t.cron ?? '',
            module: t.module ?? '',
        })),
        conditions: rows('conditions').map((c) => ({
            id: c.id,
            source: c.source,
            property: c.source === 'property' ? c.identifier : '',
            event: c.source === 'event' ? c.identifier : '',
            field: c.field ?? '',
            operator: c.operator,
            value: c.value === undefined ? '' : String(c.value),
            value2: c.value2 === undefined ? '' : String(c.value2),
        })),
        actions: rows('actions').map((a) => ({
            id: a.id,
            type: a.type,
            property: a.type === 'setProperty' ? a.identifier : '',
            value: a.value === undefined ? '' : String(a.value),
            service: a.type === 'invokeService' ? a.identifier : '',
            params: a.params ? JSON.stringify(a.params) : '',
            deviceName: a.deviceName ?? '',
            level: a.level ?? '',
            content: a.content ?? '',
            channelId: a.channelId ?? '',
            onRecover: a.onRecover === true,
            recoverContent: a.recoverContent ?? '',
        })),
    };
}

/** The editor's values as /api/rule/save takes them (JSON). */
export function formToRule(v: FormValues): Record<string, unknown> {
    const rows = (k: string) => (Array.isArray(v[k]) ? (v[k] as Row[]) : []);
    const text = (x: unknown) => (x === undefined || x === null ? '' : String(x).trim());
    return {
        ...(v.id ? { id: v.id } : {}),
        name: text(v.name),
        projectId: v.projectId === '' ? undefined : v.projectId,
        productKey: v.productKey,
        deviceName: text(v.deviceName),
        description: text(v.description),
        enabled: v.enabled !== false,
        match: v.match ?? 'all',
        durationSeconds: Number(v.durationSeconds || 0),
        timeWindow: timeRangeText(v.timeWindow) ? timeRangeEnds(v.timeWindow) : null,
        autoClear: v.autoClear !== false,
        triggers: rows('triggers').map((t) => ({
            id: t.id,
            type: t.type,
            identifier: t.type === 'property' ? text(t.property) : t.type === 'event' ? text(t.event) : undefined,
            status: t.type === 'status' ? (t.status ?? 'any') : undefined,
            cron: t.type === 'schedule' ? text(t.cron) : undefined,
            module: t.type === 'otaFailed' ? text(t.module) : undefined,
        })),
        conditions: rows('conditions').map((c) => ({
            id: c.id,
            source: c.source ?? 'property',
            identifier: c.source === 'event' ? text(c.event) : text(c.property),
            field: c.source === 'event' ? text(c.field) : undefined,
            operator: c.operator,
            value: text(c.value),
            value2: c.operator === 'between' ? text(c.value2) : undefined,
        })),
        actions: rows('actions').map((a) => {
            const base = { id: a.id, type: a.type };
            if (a.type === 'setProperty')
                return { ...base, identifier: a.property, value: text(a.value), deviceName: text(a.deviceName) };
            if (a.type === 'invokeService')
                return { ...base, identifier: a.service, params: text(a.params), deviceName: text(a.deviceName) };
            if (a.type === 'alert') return { ...base, level: a.level, content: text(a.content) };
            return {
                ...base,
                channelId: a.channelId,
                content: text(a.content),
                onRecover: a.onRecover === true,
                recoverContent: a.onRecover === true ? text(a.recoverContent) : undefined,
            };
        }),
    };
}

export const RULE_FORM_FIELDS = [
    'name',
    'projectId',
    'productKey',
    'deviceName',
    'description',
    'triggers',
    'match',
    'conditions',
    'durationSeconds',
    'timeWindow',
    'actions',
    'autoClear',
    'enabled',
];

const REFRESH = ['rules'];

const editor = (mode: 'create' | 'edit'): Action => ({
    kind: 'form',
    label: mode === 'create' ? '新建规则' : '编辑',
    title: mode === 'create' ? '新建场景联动规则' : '编辑规则',
    variant: mode === 'create' ? 'contained' : undefined,
    when: mode === 'edit' ? ({ record }) => record.type === 1 : undefined,
    ariaLabel: mode === 'edit' ? ({ record }) => `编辑 ${String(record.name)}` : undefined,
    width: 'lg',
    fields: RULE_FORM_FIELDS,
    schema: ruleFormSchema,
    defaults: ({ record }) =>
        mode === 'edit'
            ? ruleToForm(record)
            : {
                  enabled: true,
                  match: 'all',
                  durationSeconds: 0,
                  autoClear: true,
                  triggers: [{ type: 'property', property: '', status: 'any' }],
                  conditions: [],
                  actions: [],
              },
    submit: { call: 'save', params: ({ values }) => formToRule(values ?? {}) },
    success: '保存成功',
    refresh: REFRESH,
});

const toggle: Action = {
    kind: 'call',
    label: ({ record }) => (record.enabled ? '停用' : '启用'),
    ariaLabel: ({ record }) => `${record.enabled ? '停用' : '启用'} ${String(record.name)}`,
    call: { call: 'enable', params: ({ record }) => ({ id: record.id, enabled: record.enabled ? 'false' : 'true' }) },
    success: (_answer, { record }) => (record.enabled ? '已停用' : '已启用'),
    refresh: REFRESH,
};

const remove: Action = {
    kind: 'call',
    label: '删除',
    color: 'error',
    ariaLabel: ({ record }) => `删除 ${String(record.name)}`,
    call: {
        call: 'remove',
        by: ({ record }) => (record.type === 2 ? 'removeAlertRule' : 'remove'),
        params: ({ record }) => ({ id: record.id }),
    },
    confirm: ({ record }) => `确定删除规则“${String(record.name)}”吗？已产生的告警和日志保留。`,
    success: '删除成功',
    refresh: REFRESH,
};

const columns: ListSpec['columns'] = [
    'name',
    'productName',
    'deviceName',
    'projectName',
    'status',
    'description',
    'updateTime',
];

const linkedge: ListSpec = {
    source: { call: 'getList', params: () => ({ type: 1 }) },
    columns,
    urlPrefix: 'rule',
    perPage: 10,
    perPageOptions: [10, 20, 30, 40],
    filters: [{ source: 'name', label: '规则名称', param: 'name' }],
    toolbar: [editor('create')],
    rowActions: [editor('edit'), toggle, remove],
    empty: { text: '暂无场景联动规则，点击“新建规则”', action: editor('create') },
};

const journalView: Action = {
    kind: 'widget',
    label: '查看',
    title: ({ record }) => `规则执行详情（${String(record.ruleName)}）`,
    widget: 'jsonView',
    props: ({ record }) => ({ text: JSON.stringify({ input: record.input, results: record.results }, null, 2) }),
    width: 'md',
    closeLabel: '关闭',
};

const journalFilters: FilterSpec[] = [
    {
        source: 'ruleId',
        label: '规则',
        input: 'select',
        param: 'ruleId',
        choicesFrom: { call: 'allRules', optionValue: 'id', optionText: 'name' },
    },
    { source: 'deviceName', label: '设备名称', param: 'deviceName' },
    {
        source: 'success',
        label: '执行结果',
        input: 'select',
        param: 'success',
        choices: [
            { id: '1', name: '成功' },
            { id: '0', name: '有失败' },
        ],
    },
    { source: 'start', to: 'end', label: '时间', input: 'dateRange', param: 'start', toParam: 'end' },
];

const journal: ListSpec = {
    source: { call: 'journal' },
    columns: ['time', 'ruleName', 'deviceName', 'triggerType', 'outcome', 'summary'],
    urlPrefix: 'log',
    perPage: 10,
    perPageOptions: [10, 20, 30, 40],
    filters: journalFilters,
    rowActions: [journalView],
    empty: { text: '暂无规则执行记录：规则触发后，每次执行的输入和各动作结果显示在这里' },
};

/** Each rule with a 生效时段 on every day of the week (a window is daily; 22:00–06:00 runs into the next day). */
export function ruleWindowSpans(answer: unknown): WeekSpan[] | undefined {
    if (!Array.isArray(answer)) return undefined;
    return (answer as Row[]).flatMap((rule) => {
        const window = timeRangeEnds(rule.timeWindow);
        if (!window.start || !window.end) return [];
        const label = `${String(rule.name)}${rule.status === 0 ? '（已停用）' : ''}`;
        return [1, 2, 3, 4, 5, 6, 7].map((weekday) => ({
            key: `${String(rule.id)}-${weekday}`,
            label,
            weekday,
            ...window,
        }));
    });
}

const windowsGrid: Section = {
    kind: 'timeGrid',
    title: '规则生效时段（每周）',
    grid: {
        kind: 'week',
        source: { call: 'allRules' },
        spans: (_scope, answer) => ruleWindowSpans(answer),
        empty: '暂无设置生效时段的规则：未设置生效时段的规则全天生效',
    },
};

export default defineResource({
    name: 'rules',
    label: '规则引擎',
    path: 'rule/list',
    icon: AccountTreeIcon,
    menu: [
        { label: '场景联动', to: '/ruleEngine/Linkedge', section: '规则引擎', order: 1, icon: AccountTreeIcon },
        { label: '规则日志', to: '/ruleEngine/RuleJournal', section: '规则引擎', order: 2, icon: ReceiptLongIcon },
        { label: '规则列表', to: '/rule/list', section: '规则引擎', order: 3, icon: ListAltIcon },
    ],
    views: { list: false, show: false, edit: false, create: false },
    fields: {
        name: { label: '规则名称', required: true, maxLength: 30 },
        type: { label: '类型', type: 'select', choices: RULE_TYPES },
        productName: { label: '产品' },
        deviceName: { label: '设备', render: (r) => (r.deviceName ? String(r.deviceName) : '全部设备') },
        projectName: { label: '项目', render: (r) => String(r.projectName ?? '—') },
        status: { label: '状态', type: 'status', choices: ENABLED },
        description: { label: '描述', ellipsis: 160 },
        updateTime: { label: '更新时间', type: 'datetime' },
        createTime: { label: '创建时间', type: 'datetime' },
        // The journal.
        time: { label: '时间', type: 'datetime' },
        ruleName: { label: '规则' },
        triggerType: { label: '触发方式', type: 'select', choices: TRIGGER_TYPES },
        outcome: { label: '结果', type: 'status', choices: RESULTS },
        summary: {
            label: '动作结果',
            render: (r) =>
                ((r.results as Array<{ ok: boolean; message: string }> | undefined) ?? [])
                    .map((a) => `${a.ok ? '✓' : '✗'} ${a.message}`)
                    .join('；'),
            ellipsis: 320,
        },
        // The editor.
        projectId: {
            label: '所属项目',
            input: 'select',
            choicesFrom: { call: 'projects', optionValue: 'id', optionText: 'projectName' },
        },
        productKey: {
            label: '产品',
            input: 'select',
            required: true,
            choicesFrom: { call: 'products', optionValue: 'productKey', optionText: 'productName' },
        },
        enabled: { label: '保存后启用', type: 'boolean' },
        match: { label: '条件关系', type: 'select', input: 'radio', choices: MATCH_CHOICES },
        durationSeconds: {
            label: '持续时长（秒）',
            type: 'number',
            helperText: '条件持续满足这么久才执行，0 为立即执行',
        },
        timeWindow: {
            label: '生效时段',
            type: 'timeRange',
            helperText: '留空为全天生效；结束不晚于开始时到次日结束（如 22:00 至次日 06:00）',
        },
        autoClear: { label: '条件恢复后自动清除告警', type: 'boolean' },
        triggers: {
            label: '触发条件',
            input: 'rows',
            required: true,
            rows: {
                fields: triggerRow,
                addLabel: '添加触发条件',
                newRow: { type: 'property', status: 'any' },
                max: 20,
            },
        },
        conditions: {
            label: '过滤条件',
            input: 'rows',
            rows: {
                fields: conditionRow,
                addLabel: '添加过滤条件',
                newRow: { source: 'property', operator: '>' },
                max: 20,
                empty: '无过滤条件：每次触发都执行',
            },
        },
        actions: {
            label: '执行动作',
            input: 'rows',
            required: true,
            rows: { fields: actionRow, addLabel: '添加执行动作', newRow: { type: 'alert', level: 2 }, max: 20 },
        },
    },
    pages: [
        {
            path: '/ruleEngine/*',
            title: '规则引擎',
            tabParam: { fallback: 'Linkedge' },
            tabs: [
                { key: 'Linkedge', label: '场景联动', sections: [{ kind: 'list', list: linkedge }] },
                { key: 'RuleJournal', label: '规则日志', sections: [{ kind: 'list', list: journal }] },
                { key: 'TimeWindows', label: '生效时段', sections: [windowsGrid] },
            ],
        },
        {
            path: '/rule/list',
            title: '规则列表',
            sections: [
                {
                    kind: 'list',
                    list: {
                        ...linkedge,
                        source: { call: 'getList' },
                        columns: ['name', 'type', ...columns.slice(1)],
                        urlPrefix: 'all',
                        filters: [
                            { source: 'name', label: '规则名称', param: 'name' },
                            { source: 'type', label: '类型', input: 'select', param: 'type', choices: RULE_TYPES },
                        ],
                        empty: { text: '暂无规则', action: editor('create') },
                    },
                },
            ],
        },
    ],
    api: {
        success: 'code200',
        getList: {
            get: '/api/rule/list',
            paging: ['pageNumber', 'pageSize'],
            read: 'data.records',
            total: 'data.total',
        },
        custom: {
            save: { post: '/api/rule/save', body: 'json', read: 'data' },
            remove: { post: '/api/rule/delete' },
            removeAlertRule: { post: '/api/alert-rule/delete' },
            enable: { post: '/api/rule/enable' },
            allRules: { get: '/api/rule/list', params: () => ({ pageSize: 1000 }), read: 'data.records' },
            journal: {
                get: '/api/rule/log/list',
                paging: ['pageNumber', 'pageSize'],
                read: 'data.records',
                total: 'data.total',
                transform: (row) => ({ ...row, outcome: String(row.success) }),
            },
            modelProperties: { get: '/api/rule/model', read: 'data.properties' },
            modelEvents: { get: '/api/rule/model', read: 'data.events' },
            modelEventFields: { get: '/api/rule/model', read: 'data.eventFields' },
            modelServices: { get: '/api/rule/model', read: 'data.services' },
            channels: { get: '/api/alert-rule/channel/list', params: () => ({ pageSize: 1000 }), read: 'data.records' },
            products: { get: '/api/product/list-product', read: 'data.list' },
            projects: { get: '/api/project/listAll', read: 'data.list' },
        },
    },
});
