import AddIcon from '@mui/icons-material/Add';
import AltRouteIcon from '@mui/icons-material/AltRoute';
import { FORWARD_MESSAGES as M, flowDebugSchema, flowFormSchema } from '../schemas/forwardForms';
import {
    defineResource,
    type Action,
    type FieldDefinition,
    type FormResult,
    type FormValues,
    type Row,
} from '../src/engine/types';

/**
 * 流转规则 (data forwarding flows, /forward/flow): a SQL over the devices' messages whose selected rows go to the
 * chosen destinations of the same project. The list shows each flow's figures and last error; 启动 / 停止 need
 * forward.deploy; 调试 runs the SQL on a sample message. Paths: openapi.yaml's tag forward.
 */

const REFRESH = ['forwardFlows'];
const list = { paging: ['pageNumber', 'pageSize'] as [string, string], read: 'data.records', total: 'data.total' };

const SAMPLE_SQL =
    "SELECT deviceName, payload.params.temperature AS temperature\nFROM '/+/+/thing/event/property/post'";
const SAMPLE_TOPIC = '/sys/a1demo/device1/thing/event/property/post';
const SAMPLE_PAYLOAD = JSON.stringify(
    { id: '1', version: '1.0', method: 'thing.event.property.post', params: { temperature: 26.5 } },
    null,
    2,
);

const STATES = [
    { id: 'on', name: '运行中', color: 'success' as const },
    { id: 'off', name: '已停止', color: 'default' as const },
];

const formFields: Array<string | [string, FieldDefinition]> = [
    ['name', { label: '规则名称', required: true, maxLength: 64 }],
    [
        'projectId',
        {
            label: '所属项目',
            input: 'select',
            required: true,
            choicesFrom: { call: 'projects', optionValue: 'id', optionText: 'projectName' },
            // Destinations belong to a project: choose them again in the new one.
            resets: { destinationIds: [] },
        },
    ],
    [
        'sql',
        {
            label: 'SQL',
            input: 'code',
            code: { language: 'sql' },
            required: true,
            helperText: "SELECT 字段 FROM '主题过滤器' WHERE 条件；主题可用 + 和 # 通配符",
        },
    ],
    [
        'destinationIds',
        {
            label: '数据目的地',
            input: 'checkboxes',
            visibleWhen: (v) => !!v.projectId,
            choicesFrom: {
                call: 'destinationOptions',
                params: (v: FormValues) => ({ projectId: v.projectId, pageNumber: 1, pageSize: 500 }),
                optionValue: 'id',
                optionLabel: (row: Row) => `${String(row.name)}（${String(row.kindLabel ?? row.kind)}）`,
            },
        },
    ],
    ['remark', { label: '备注', input: 'textarea', maxLength: 500 }],
];

const saveParams = (values: FormValues | undefined, id?: unknown) => ({
    ...(id === undefined ? {} : { id }),
    projectId: values?.projectId,
    name: values?.name,
    sql: values?.sql,
    destinationIds: ((values?.destinationIds as unknown[] | undefined) ?? []).map(Number),
    remark: values?.remark ?? '',
});

/** The server's refusal of the SQL (SQL 语法错误（第1行第15列）…) is said under the SQL input. */
const sqlError = (message: string) => (message.startsWith('SQL') ? 'sql' : undefined);

const newFlow: Action = {
    kind: 'form',
    label: '新建流转规则',
    icon: AddIcon,
    variant: 'contained',
    right: 'forward.create',
    width: 'md',
    fields: formFields,
    schema: flowFormSchema,
    defaults: () => ({ name: '', projectId: '', sql: SAMPLE_SQL, destinationIds: [], remark: '' }),
    submit: { call: 'save', params: ({ values }) => saveParams(values) },
    errorField: sqlError,
    note: '新建的规则处于停止状态，启动后开始转发。',
    success: '添加成功',
    refresh: REFRESH,
};

const editFlow: Action = {
    kind: 'form',
    label: '编辑',
    title: '编辑流转规则',
    mode: 'edit',
    right: 'forward.edit',
    width: 'md',
    ariaLabel: ({ record }) => `编辑 ${String(record.name)}`,
    fields: formFields,
    schema: flowFormSchema,
    defaults: ({ record }) => ({
        name: record.name,
        projectId: record.projectId,
        sql: record.sql,
        destinationIds: record.destinationIds ?? [],
        remark: record.remark ?? '',
    }),
    submit: { call: 'save', params: ({ record, values }) => saveParams(values, record.id) },
    errorField: sqlError,
    success: '修改成功',
    refresh: REFRESH,
};

const enable = (on: boolean): Action => ({
    kind: 'call',
    label: on ? '启动' : '停止',
    color: on ? 'primary' : 'warning',
    right: 'forward.deploy',
    when: ({ record }) => !!record.enabled !== on,
    ariaLabel: ({ record }) => `${on ? '启动' : '停止'} ${String(record.name)}`,
    call: { call: 'enable', params: ({ record }) => ({ id: record.id, enabled: on }) },
    confirm: ({ record }) =>
        on
            ? `确定启动流转规则「${String(record.name)}」吗？启动后符合 SQL 的消息将发送到它的目的地。`
            : `确定停止流转规则「${String(record.name)}」吗？停止后不再转发新消息。`,
    success: on ? '已启动' : '已停止',
    refresh: REFRESH,
});

const removeFlow: Action = {
    kind: 'call',
    label: '删除',
    color: 'error',
    right: 'forward.delete',
    ariaLabel: ({ record }) => `删除 ${String(record.name)}`,
    call: { call: 'remove', params: ({ record }) => ({ id: record.id }) },
    confirm: M.flowDeleteConfirm,
    success: '删除成功',
    failure: '删除失败',
    refresh: REFRESH,
};

interface DebugAnswer {
    selected?: boolean;
    row?: unknown;
    message?: { topic?: string };
}

/** The debug run's answer under the form: selected or not, and the output row. */
function debugResult(answer: unknown): FormResult {
    const a = (answer ?? {}) as DebugAnswer;
    if (!a.selected) {
        return {
            severity: 'info',
            title: '未选中：这条消息不符合 SQL 的 FROM 主题或 WHERE 条件',
            body: a.message?.topic ? `主题：${a.message.topic}` : undefined,
        };
    }
    return { severity: 'success', title: '已选中，输出行：', body: JSON.stringify(a.row ?? null, null, 2) };
}

const debugParams = (values: FormValues | undefined) => ({
    sql: values?.sql,
    topic: values?.topic || undefined,
    payload: JSON.parse(String(values?.payload ?? '{}')) as unknown,
});

const debugFlow: Action = {
    kind: 'dialog',
    label: '调试',
    title: ({ record }) => `调试：${String(record.name)}`,
    ariaLabel: ({ record }) => `调试 ${String(record.name)}`,
    width: 'md',
    sections: [
        {
            kind: 'form',
            note: '用一条样例消息运行 SQL（不发送到目的地），看它是否被选中以及选出的行。',
            defaults: ({ record }) => ({ sql: record.sql, topic: SAMPLE_TOPIC, payload: SAMPLE_PAYLOAD }),
            fields: [
                ['sql', { label: 'SQL', input: 'code', code: { language: 'sql' }, required: true }],
                ['topic', { label: '消息主题' }],
                ['payload', { label: '消息内容（JSON）', input: 'code', code: { language: 'json' }, required: true }],
            ],
            submits: [
                {
                    label: '运行',
                    primary: true,
                    schema: flowDebugSchema,
                    call: { call: 'debug', params: ({ values }) => debugParams(values) },
                    show: debugResult,
                },
            ],
        },
    ],
};

const figure = (r: Row, name: string) => (r.figures as Row | undefined)?.[name];

/** Each row's figures and state where the columns read them. */
function flatRow(row: Row): Row {
    return {
        ...row,
        state: row.enabled ? 'on' : 'off',
        selected: figure(row, 'selected') ?? 0,
        sent: figure(row, 'sent') ?? 0,
        failed: figure(row, 'failed') ?? 0,
        backlog: figure(row, 'backlog') ?? 0,
        lastError: figure(row, 'lastError') ?? '',
        lastErrorTime: figure(row, 'lastErrorTime') ?? '',
    };
}

export default defineResource({
    name: 'forwardFlows',
    label: '流转规则',
    path: 'forward/flow',
    icon: AltRouteIcon,
    menu: { label: '数据流转', section: '规则引擎', order: 4, icon: AltRouteIcon, to: '/forward/flow' },
    rightFamily: 'forward',
    recordRepresentation: 'name',
    fields: {
        name: { label: '规则名称' },
        projectName: { label: '所属项目' },
        state: { label: '状态', type: 'status', choices: STATES },
        destinationNames: {
            label: '数据目的地',
            render: (r) =>
                Array.isArray(r.destinations)
                    ? (r.destinations as Row[]).map((d) => String(d.name)).join('、') || '—'
                    : '—',
        },
        selected: { label: '已选中', type: 'number' },
        sent: { label: '已发送', type: 'number' },
        failed: { label: '失败', type: 'number' },
        backlog: { label: '堆积', type: 'number' },
        lastError: {
            label: '最近错误',
            ellipsis: 200,
            render: (r) => (r.lastError ? `${String(r.lastErrorTime ?? '')} ${String(r.lastError)}`.trim() : '—'),
        },
        updateTime: { label: '更新时间', type: 'datetime' },
    },
    views: { list: false, show: false, edit: false, create: false },
    pages: [
        {
            path: '/forward/flow',
            title: '数据流转',
            sections: [
                {
                    kind: 'list',
                    list: {
                        source: { call: 'list' },
                        label: '流转规则列表',
                        rowId: 'id',
                        map: flatRow,
                        columns: [
                            'name',
                            'projectName',
                            'state',
                            'destinationNames',
                            'selected',
                            'sent',
                            'failed',
                            'backlog',
                            'lastError',
                        ],
                        compactCells: true,
                        perPage: 10,
                        perPageOptions: [10, 20, 50],
                        filters: [
                            { source: 'name', label: '规则名称', input: 'search' },
                            {
                                source: 'projectId',
                                label: '项目',
                                input: 'select',
                                choicesFrom: { call: 'projects', optionValue: 'id', optionText: 'projectName' },
                            },
                            {
                                source: 'enabled',
                                label: '状态',
                                input: 'select',
                                choices: [
                                    { id: 'true', name: '运行中' },
                                    { id: 'false', name: '已停止' },
                                ],
                            },
                        ],
                        toolbar: [newFlow],
                        rowActions: [enable(true), enable(false), debugFlow, editFlow, removeFlow],
                        refresh: '刷新流转规则',
                        empty: {
                            text: '暂无流转规则',
                            hint: '流转规则用 SQL 从设备消息中选出数据，发送到数据目的地',
                            filtered: '没有符合条件的流转规则',
                            action: newFlow,
                        },
                    },
                },
            ],
        },
    ],
    api: {
        success: 'code200',
        custom: {
            list: { get: '/api/forward/flow/list', ...list },
            save: { post: '/api/forward/flow/save', body: 'json', read: 'data' },
            remove: { post: '/api/forward/flow/delete', body: 'json' },
            enable: { post: '/api/forward/flow/enable', body: 'json' },
            debug: { post: '/api/forward/flow/debug', body: 'json', read: 'data' },
            destinationOptions: { get: '/api/forward/destination/list', read: 'data.records' },
            projects: { get: '/api/project/listAll', read: 'data.list' },
        },
    },
});
