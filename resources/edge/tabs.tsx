import type { ApiCall, ContractPath, ContractPaths } from '../../dataProvider/types';
import type {
    Action,
    FieldDefinition,
    FormAction,
    FormValues,
    ListSpec,
    Row,
    Scope,
    TabSpec,
} from '../../src/engine/types';
import {
    EDGE_FUNCTION_MODES,
    EDGE_RUNTIMES,
    EDGE_SETTINGS_DEFAULTS,
    EDGE_TARGETS,
    EDGE_WINDOWS,
    LOG_LEVELS,
    QOS_LEVELS,
    ROUTE_SOURCES,
    edgeFunctionFormSchema,
    edgeRouteSchema,
    edgeSettingsSchema,
    edgeStreamSchema,
} from '../../schemas/edge';

/**
 * The edge instance detail's 监控 / 场景联动 / 函数计算 / 流数据分析 / 消息路由 / 设置 tabs (Alibaba Link IoT Edge's instance
 * console), declared for resources/edgeInstances.tsx. Functions, jobs, routes, rules and settings go to the gateway
 * with the next 部署; 监控 shows what the gateway reports about itself as properties.
 */

const REFRESH = ['edgeInstances'];
/** The instance: the page's record (row actions) or the record itself (toolbar, tab sections). */
const instanceOf = (scope: Scope) => (scope.page ?? scope.record).id;
const nameOf = (list: ReadonlyArray<{ id: string | number; name: string }>, id: unknown) =>
    list.find((x) => String(x.id) === String(id))?.name ?? String(id ?? '-');
const dash = (v: unknown) => (v === null || v === undefined || v === '' ? '-' : String(v));

// ---- 监控 ----

const monitorCall = { call: 'monitor', every: 10, params: (scope: Scope) => ({ instanceId: scope.record.id }) };
const NOT_REPORTED =
    '网关最近一小时没有上报监控数据（网关以自身属性 cpuUsage、memUsage、diskUsage、msgUp、msgDown 上报）';

const monitor: TabSpec = {
    key: 'monitor',
    label: '监控',
    sections: [
        {
            kind: 'counters',
            title: '最新上报',
            call: monitorCall,
            items: [
                { label: 'CPU使用率（%）', value: 'latest.cpuUsage' },
                { label: '内存使用率（%）', value: 'latest.memUsage' },
                { label: '磁盘使用率（%）', value: 'latest.diskUsage' },
                { label: '上行消息（条/分钟）', value: 'latest.msgUp' },
                { label: '下行消息（条/分钟）', value: 'latest.msgDown' },
                { label: '最近上报时间', value: 'lastReport' },
            ],
        },
        {
            kind: 'chart',
            title: '资源使用率（最近一小时，%）',
            chart: {
                kind: 'line',
                call: monitorCall,
                rows: 'series',
                x: 'minute',
                series: [
                    { field: 'cpuUsage', label: 'CPU' },
                    { field: 'memUsage', label: '内存' },
                    { field: 'diskUsage', label: '磁盘' },
                ],
                yRange: [0, 100],
                empty: NOT_REPORTED,
                height: 240,
            },
        },
        {
            kind: 'chart',
            title: '消息数（最近一小时，条/分钟）',
            chart: {
                kind: 'line',
                call: monitorCall,
                rows: 'series',
                x: 'minute',
                series: [
                    { field: 'msgUp', label: '上行' },
                    { field: 'msgDown', label: '下行' },
                ],
                empty: NOT_REPORTED,
                height: 240,
            },
        },
    ],
};

// ---- 场景联动 ----

const addRule: Action = {
    kind: 'form',
    label: '添加规则',
    variant: 'contained',
    title: '添加场景联动规则',
    fields: [
        [
            'ruleId',
            {
                label: '场景联动规则',
                input: 'select',
                required: true,
                choicesFrom: {
                    call: 'ruleOptions',
                    params: (v) => ({ instanceId: v.instanceId }),
                    optionValue: 'id',
                    optionText: 'label',
                },
                helperText: '网关所属项目的场景联动规则（在“规则引擎 > 场景联动”中创建）',
            },
        ],
    ],
    defaults: (scope) => ({ instanceId: instanceOf(scope) }),
    submit: { call: 'addRule', params: ({ values }) => ({ instanceId: values?.instanceId, ruleId: values?.ruleId }) },
    success: '添加成功',
    refresh: REFRESH,
};

const rulesList: ListSpec = {
    source: { call: 'rules', params: (scope) => ({ instanceId: scope.record.id }) },
    label: '场景联动',
    rowId: 'ruleId',
    urlPrefix: 'scene_',
    paging: false,
    columns: [
        ['name', { label: '规则名称' }],
        ['productName', { label: '所属产品' }],
        [
            'enabled',
            {
                label: '云端状态',
                type: 'status',
                choices: [
                    { id: 'true', name: '已启用', color: 'success' },
                    { id: 'false', name: '未启用', color: 'default' },
                ],
                render: (r) => (r.enabled ? '已启用' : '未启用'),
            },
        ],
        ['description', { label: '描述', render: (r) => dash(r.description) }],
    ],
    toolbar: [addRule],
    rowActions: [
        {
            kind: 'call',
            label: '移除',
            color: 'error',
            call: {
                call: 'removeRule',
                params: ({ page, record }) => ({ instanceId: page?.id, ruleId: record.ruleId }),
            },
            confirm: ({ record }) => `确定不再在边缘运行规则“${String(record.name)}”吗？规则本身仍保留在平台。`,
            success: '移除成功',
            refresh: REFRESH,
        },
    ],
    empty: { text: '该实例暂无在边缘运行的场景联动规则', action: addRule },
};

// ---- 函数计算, 流数据分析, 消息路由: one form to create and edit, a row action to delete ----

interface Editable {
    /** The toolbar button that creates one (新建函数). */
    addLabel: string;
    /** The row form's title (编辑函数). */
    editTitle: string;
    fields: Array<[string, FieldDefinition]>;
    schema: FormAction['schema'];
    /** The save call (creates without an id, updates with the row's). */
    save: string;
    params: (scope: Scope, id?: unknown) => Record<string, unknown>;
    /** A new one's values. */
    created: (scope: Scope) => FormValues;
    /** An existing row's values. */
    edited: (record: Row) => FormValues;
}

function formActions(e: Editable): { add: FormAction; edit: FormAction } {
    const form = { kind: 'form', width: 'md', fields: e.fields, schema: e.schema, refresh: REFRESH } as const;
    return {
        add: {
            ...form,
            label: e.addLabel,
            variant: 'contained',
            defaults: e.created,
            submit: { call: e.save, params: (scope) => e.params(scope) },
            success: '创建成功',
        },
        edit: {
            ...form,
            label: '编辑',
            title: e.editTitle,
            mode: 'edit',
            defaults: ({ page, record }) => ({ instanceId: page?.id, ...e.edited(record) }),
            submit: { call: e.save, params: (scope) => e.params(scope, scope.record.id) },
            success: '修改成功',
        },
    };
}

// ---- 函数计算 ----

/** Key / value rows as the call's JSON object text, and back. */
const envText = (rows: unknown) =>
    JSON.stringify(
        Object.fromEntries(
            (Array.isArray(rows) ? (rows as Array<{ key?: unknown; value?: unknown }>) : [])
                .filter((r) => String(r?.key ?? '').trim() !== '')
                .map((r) => [String(r.key).trim(), String(r.value ?? '')]),
        ),
    );
const envRows = (text: unknown) => {
    try {
        return Object.entries(JSON.parse(String(text || '{}')) as Record<string, string>).map(([key, value]) => ({
            key,
            value,
        }));
    } catch {
        return [];
    }
};

const functionFields: Array<[string, FieldDefinition]> = [
    ['name', { label: '函数名称', required: true, maxLength: 64 }],
    ['runtime', { label: '运行环境', input: 'select', required: true, choices: [...EDGE_RUNTIMES] }],
    ['handler', { label: '函数入口', required: true, maxLength: 128, helperText: '文件名.函数名，例如 index.handler' }],
    ['mode', { label: '运行方式', input: 'radio', required: true, choices: [...EDGE_FUNCTION_MODES] }],
    ['memoryMb', { label: '内存规格（MB）', type: 'number', required: true, helperText: '16~2048' }],
    ['timeoutSeconds', { label: '超时时间（秒）', type: 'number', required: true, helperText: '1~900' }],
    [
        'env',
        {
            label: '环境变量',
            input: 'keyValue',
            keyValue: { keyLabel: '变量名', valueLabel: '值', addLabel: '添加环境变量', max: 50 },
        },
    ],
    ['code', { label: '函数代码', type: 'longText', maxLength: 65536 }],
    ['description', { label: '描述', type: 'longText', maxLength: 200 }],
];

const functionParams = ({ page, record, values }: Scope, id?: unknown) => ({
    ...values,
    instanceId: (page ?? record).id,
    ...(id === undefined ? {} : { id }),
    env: envText(values?.env),
});

const functionForms = formActions({
    addLabel: '新建函数',
    editTitle: '编辑函数',
    fields: functionFields,
    schema: edgeFunctionFormSchema,
    save: 'saveFunction',
    params: functionParams,
    created: () => ({
        runtime: 'nodejs20',
        handler: 'index.handler',
        mode: 'trigger',
        memoryMb: 128,
        timeoutSeconds: 5,
        env: [],
    }),
    edited: (r) => ({
        name: r.name,
        runtime: r.runtime,
        handler: r.handler,
        mode: r.mode,
        memoryMb: r.memoryMb,
        timeoutSeconds: r.timeoutSeconds,
        env: envRows(r.env),
        code: r.code ?? '',
        description: r.description ?? '',
    }),
});

const functionsList: ListSpec = {
    source: { call: 'functions', params: (scope) => ({ instanceId: scope.record.id }) },
    label: '函数计算',
    rowId: 'id',
    urlPrefix: 'fn_',
    columns: [
        ['name', { label: '函数名称' }],
        ['runtime', { label: '运行环境', render: (r) => nameOf(EDGE_RUNTIMES, r.runtime) }],
        ['handler', { label: '函数入口' }],
        ['mode', { label: '运行方式', render: (r) => nameOf(EDGE_FUNCTION_MODES, r.mode) }],
        ['memoryMb', { label: '内存（MB）', type: 'number' }],
        ['timeoutSeconds', { label: '超时（秒）', type: 'number' }],
        [
            'env',
            {
                label: '环境变量',
                ellipsis: 220,
                render: (r) =>
                    envRows(r.env)
                        .map((e) => `${e.key}=${e.value}`)
                        .join('，') || '-',
            },
        ],
        ['createTime', { label: '创建时间', type: 'datetime', format: 'YYYY-MM-DD HH:mm:ss' }],
    ],
    toolbar: [functionForms.add],
    rowActions: [functionForms.edit, deleteRow('deleteFunction', '函数')],
    empty: { text: '该实例暂无函数', action: functionForms.add },
};

function deleteRow(call: string, what: string): Action {
    return {
        kind: 'call',
        label: '删除',
        color: 'error',
        call: { call, params: ({ page, record }) => ({ instanceId: page?.id, id: record.id }) },
        confirm: ({ record }) => `确定删除${what}${record.name ? `“${String(record.name)}”` : ''}吗？`,
        success: '删除成功',
        refresh: REFRESH,
    };
}

// ---- 流数据分析 and 消息路由: sources and targets named from the instance ----

const isNamed = (type: unknown) => type === 'function' || type === 'stream' || type === 'device';
/** A select of the instance's endpoints of the kind the form's `typeField` says. */
const endpointField = (label: string, typeField: string, helperText?: string): FieldDefinition => ({
    label,
    input: 'select',
    required: true,
    choicesFrom: {
        call: 'endpoints',
        params: (v: FormValues) => ({ instanceId: v.instanceId, kind: v[typeField] }),
        optionValue: 'name',
        optionText: 'label',
    },
    visibleWhen: (v) => isNamed(v[typeField]),
    helperText,
});

const streamFields: Array<[string, FieldDefinition]> = [
    ['name', { label: '任务名称', required: true, maxLength: 64 }],
    [
        'sourceTopic',
        {
            label: '数据源Topic',
            required: true,
            maxLength: 256,
            helperText: 'MQTT 主题过滤器，+ 匹配一级，# 匹配其后所有级，例如 /sys/+/+/thing/event/property/post',
        },
    ],
    [
        'windowType',
        {
            label: '窗口类型',
            input: 'radio',
            required: true,
            choices: [...EDGE_WINDOWS],
            resets: { windowSeconds: 60 },
        },
    ],
    [
        'windowSeconds',
        { label: '窗口长度（秒）', type: 'number', required: true, visibleWhen: (v) => v.windowType !== 'none' },
    ],
    [
        'statement',
        {
            label: '分析语句',
            type: 'longText',
            required: true,
            maxLength: 4000,
            helperText:
                '以 SELECT 开头，FROM source 表示数据源，例如 SELECT deviceName, avg(Temperature) FROM source GROUP BY deviceName',
        },
    ],
    [
        'targetType',
        { label: '输出目标', input: 'radio', required: true, choices: [...EDGE_TARGETS], resets: { targetName: '' } },
    ],
    ['targetName', endpointField('输出到', 'targetType')],
    ['description', { label: '描述', type: 'longText', maxLength: 200 }],
];

const streamParams = ({ page, record, values }: Scope, id?: unknown) => ({
    ...values,
    instanceId: (page ?? record).id,
    ...(id === undefined ? {} : { id }),
    windowSeconds: values?.windowType === 'none' ? 0 : values?.windowSeconds,
    targetName: values?.targetType === 'cloud' ? '' : values?.targetName,
});

const streamForms = formActions({
    addLabel: '新建任务',
    editTitle: '编辑流数据分析任务',
    fields: streamFields,
    schema: edgeStreamSchema,
    save: 'saveStream',
    params: streamParams,
    created: (scope) => ({
        instanceId: instanceOf(scope),
        windowType: 'tumbling',
        windowSeconds: 60,
        targetType: 'cloud',
        statement: 'SELECT ',
    }),
    edited: (r) => ({
        name: r.name,
        sourceTopic: r.sourceTopic,
        windowType: r.windowType,
        windowSeconds: r.windowSeconds,
        statement: r.statement,
        targetType: r.targetType,
        targetName: r.targetName ?? '',
        description: r.description ?? '',
    }),
});

const target = (r: Row) => `${nameOf(EDGE_TARGETS, r.targetType)}${r.targetName ? `：${String(r.targetName)}` : ''}`;

const streamsList: ListSpec = {
    source: { call: 'streams', params: (scope) => ({ instanceId: scope.record.id }) },
    label: '流数据分析',
    rowId: 'id',
    urlPrefix: 'data_',
    columns: [
        ['name', { label: '任务名称' }],
        ['sourceTopic', { label: '数据源Topic' }],
        [
            'windowType',
            {
                label: '窗口',
                render: (r) =>
                    r.windowType === 'none'
                        ? nameOf(EDGE_WINDOWS, r.windowType)
                        : `${nameOf(EDGE_WINDOWS, r.windowType)} ${String(r.windowSeconds)}秒`,
            },
        ],
        ['statement', { label: '分析语句', ellipsis: 260 }],
        ['targetType', { label: '输出目标', render: target }],
    ],
    toolbar: [streamForms.add],
    rowActions: [streamForms.edit, deleteRow('deleteStream', '任务')],
    empty: { text: '该实例暂无流数据分析任务', action: streamForms.add },
};

const routeFields: Array<[string, FieldDefinition]> = [
    [
        'sourceType',
        { label: '消息来源', input: 'radio', required: true, choices: [...ROUTE_SOURCES], resets: { sourceName: '' } },
    ],
    ['sourceName', endpointField('来源', 'sourceType', '网关本身、其子设备，或该实例的函数、流数据分析任务')],
    [
        'topicFilter',
        {
            label: 'Topic过滤器',
            required: true,
            maxLength: 256,
            helperText: 'MQTT 主题过滤器：+ 匹配一级，# 匹配其后所有级（只能在最后），例如 /sys/+/+/thing/event/#',
        },
    ],
    [
        'targetType',
        { label: '消息目标', input: 'radio', required: true, choices: [...EDGE_TARGETS], resets: { targetName: '' } },
    ],
    ['targetName', endpointField('目标', 'targetType')],
    ['qos', { label: '服务质量', input: 'radio', required: true, choices: [...QOS_LEVELS] }],
];

const routeParams = ({ page, record, values }: Scope, id?: unknown) => ({
    instanceId: (page ?? record).id,
    ...(id === undefined ? {} : { id }),
    sourceType: values?.sourceType,
    sourceName: values?.sourceType === 'allDevices' ? '' : values?.sourceName,
    topicFilter: values?.topicFilter,
    targetType: values?.targetType,
    targetName: values?.targetType === 'cloud' ? '' : values?.targetName,
    qos: values?.qos,
});

const routeForms = formActions({
    addLabel: '新建路由',
    editTitle: '编辑消息路由',
    fields: routeFields,
    schema: edgeRouteSchema,
    save: 'saveRoute',
    params: routeParams,
    created: (scope) => ({ instanceId: instanceOf(scope), sourceType: 'allDevices', targetType: 'cloud', qos: 0 }),
    edited: (r) => ({
        sourceType: r.sourceType,
        sourceName: r.sourceName ?? '',
        topicFilter: r.topicFilter,
        targetType: r.targetType,
        targetName: r.targetName ?? '',
        qos: r.qos,
    }),
});

const routesList: ListSpec = {
    source: { call: 'routes', params: (scope) => ({ instanceId: scope.record.id }) },
    label: '消息路由',
    rowId: 'id',
    urlPrefix: 'router_',
    columns: [
        [
            'sourceType',
            {
                label: '消息来源',
                render: (r) =>
                    `${nameOf(ROUTE_SOURCES, r.sourceType)}${r.sourceName ? `：${String(r.sourceName)}` : ''}`,
            },
        ],
        ['topicFilter', { label: 'Topic过滤器' }],
        ['targetType', { label: '消息目标', render: target }],
        ['qos', { label: '服务质量', render: (r) => `QoS ${String(r.qos)}` }],
        ['createTime', { label: '创建时间', type: 'datetime', format: 'YYYY-MM-DD HH:mm:ss' }],
    ],
    toolbar: [routeForms.add],
    rowActions: [routeForms.edit, deleteRow('deleteRoute', '消息路由')],
    empty: { text: '该实例暂无消息路由', action: routeForms.add },
};

// ---- 设置 ----

const settingFields: Array<[string, FieldDefinition]> = [
    ['logLevel', { label: '日志级别', type: 'select', input: 'radio', required: true, choices: [...LOG_LEVELS] }],
    ['logUpload', { label: '日志上云', type: 'boolean', helperText: '网关将日志上传到平台' }],
    ['logRetentionDays', { label: '日志保留天数', type: 'number', required: true, helperText: '1~30' }],
    [
        'cacheSizeMb',
        { label: '离线消息缓存（MB）', type: 'number', required: true, helperText: '断网时缓存的上行消息，1~1024' },
    ],
    ['heartbeatSeconds', { label: '心跳间隔（秒）', type: 'number', required: true, helperText: '10~600' }],
];

const editSettings: Action = {
    kind: 'form',
    label: '编辑设置',
    title: '实例设置',
    mode: 'edit',
    fields: settingFields,
    schema: edgeSettingsSchema,
    defaults: ({ record }) =>
        Object.fromEntries(Object.entries(EDGE_SETTINGS_DEFAULTS).map(([k, d]) => [k, record[k] ?? d])) as FormValues,
    submit: {
        call: 'saveSettings',
        params: ({ record, values }) => ({
            ...values,
            instanceId: record.id,
            logUpload: values?.logUpload ? 'true' : 'false',
        }),
    },
    success: '保存成功，部署后生效',
    refresh: REFRESH,
};

export const EDGE_TABS: Record<'monitor' | 'scene' | 'func' | 'data' | 'router' | 'setting', TabSpec> = {
    monitor,
    scene: {
        key: 'scene',
        label: '场景联动',
        sections: [{ kind: 'list', list: rulesList }],
    },
    func: { key: 'func', label: '函数计算', sections: [{ kind: 'list', list: functionsList }] },
    data: { key: 'data', label: '流数据分析', sections: [{ kind: 'list', list: streamsList }] },
    router: { key: 'router', label: '消息路由', sections: [{ kind: 'list', list: routesList }] },
    setting: {
        key: 'setting',
        label: '设置',
        sections: [
            {
                kind: 'fields',
                title: '实例设置',
                columns: 2,
                fields: settingFields.map(([k, f]): [string, FieldDefinition] =>
                    k === 'logUpload' ? [k, { ...f, render: (r) => (r.logUpload ? '开启' : '关闭') }] : [k, f],
                ),
                actions: [editSettings],
            },
            {
                kind: 'notice',
                severity: 'info',
                text: '设置、场景联动、函数、流数据分析任务与消息路由在下次“部署”时随配置文档下发到网关。',
            },
        ],
    },
};

/** The calls of the tabs, for the resource's `api.custom`. */
/** A paged list of the instance's records (pageNumber / pageSize in, data.records / data.total out). */
const pagedList = (get: ContractPath<'get'>): ApiCall<ContractPaths> => ({
    get,
    paging: ['pageNumber', 'pageSize'],
    read: 'data.records',
    total: 'data.total',
});

export const EDGE_TAB_CALLS: Record<string, ApiCall<ContractPaths>> = {
    monitor: { get: '/api/edge/instance/monitor', read: 'data' },
    rules: { get: '/api/edge/instance/rules', read: 'data.records', total: 'data.total' },
    ruleOptions: { get: '/api/edge/instance/ruleOptions', read: 'data' },
    addRule: { post: '/api/edge/instance/rule/add' },
    removeRule: { post: '/api/edge/instance/rule/remove' },
    endpoints: { get: '/api/edge/instance/endpoints', read: 'data' },
    functions: pagedList('/api/edge/instance/functions'),
    saveFunction: { post: '/api/edge/instance/function/save' },
    deleteFunction: { post: '/api/edge/instance/function/delete' },
    streams: pagedList('/api/edge/instance/streams'),
    saveStream: { post: '/api/edge/instance/stream/save' },
    deleteStream: { post: '/api/edge/instance/stream/delete' },
    routes: pagedList('/api/edge/instance/routes'),
    saveRoute: { post: '/api/edge/instance/route/save' },
    deleteRoute: { post: '/api/edge/instance/route/delete' },
    saveSettings: { post: '/api/edge/instance/settings/save' },
};
