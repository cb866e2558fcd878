import AddIcon from '@mui/icons-material/Add';
import OutboxIcon from '@mui/icons-material/Outbox';
import {
    DESTINATION_KINDS,
    FORWARD_MESSAGES as M,
    destinationFormSchema,
    type DestinationKindId,
} from '../schemas/forwardForms';
import {
    defineResource,
    type Action,
    type FieldDefinition,
    type FormResult,
    type FormValues,
    type Row,
    type Scope,
} from '../src/engine/types';
import { CONFIG_FIELDS, configOf, newConfigValues, savedConfigValues } from './forward/destinationConfig';

/**
 * 数据目的地 (data forwarding destinations, /forward/destination): where flows send their selected rows. The form's
 * configuration fields follow the chosen kind; secrets come back as '******' and are sent back unchanged to keep
 * them. Paths: openapi.yaml's tag forward.
 */

const REFRESH = ['forwardDestinations'];
const list = { paging: ['pageNumber', 'pageSize'] as [string, string], read: 'data.records', total: 'data.total' };

const projectField: FieldDefinition = {
    label: '所属项目',
    input: 'select',
    required: true,
    choicesFrom: { call: 'projects', optionValue: 'id', optionText: 'projectName' },
    perView: { edit: { locked: true } },
};

const formFields: Array<string | [string, FieldDefinition]> = [
    ['name', { label: '名称', required: true, maxLength: 64 }],
    ['projectId', projectField],
    [
        'kind',
        {
            label: '目的地类型',
            input: 'select',
            required: true,
            choices: [...DESTINATION_KINDS],
            // The kind cannot change once saved (the server refuses it).
            perView: { edit: { locked: true } },
        },
    ],
    ...CONFIG_FIELDS,
    ['remark', { label: '备注', input: 'textarea', maxLength: 500 }],
];

const saveParams = (values: FormValues | undefined, id?: unknown) => ({
    ...(id === undefined ? {} : { id }),
    projectId: values?.projectId,
    name: values?.name,
    kind: values?.kind,
    config: configOf(values),
    remark: values?.remark ?? '',
});

const newDestination: Action = {
    kind: 'form',
    label: '新建目的地',
    icon: AddIcon,
    variant: 'contained',
    right: 'forward.create',
    width: 'md',
    fields: formFields,
    schema: destinationFormSchema,
    defaults: () => ({ name: '', projectId: '', kind: 'http', remark: '', ...newConfigValues() }),
    submit: { call: 'save', params: ({ values }) => saveParams(values) },
    success: '添加成功',
    refresh: REFRESH,
};

const editDestination: Action = {
    kind: 'form',
    label: '编辑',
    title: '编辑目的地',
    mode: 'edit',
    right: 'forward.edit',
    width: 'md',
    ariaLabel: ({ record }) => `编辑 ${String(record.name)}`,
    fields: formFields,
    schema: destinationFormSchema,
    load: { call: 'detail', params: ({ record }) => ({ id: record.id }) },
    defaults: ({ record, data }) => {
        const saved = ((data?.load as Row | undefined) ?? record) as Row;
        return {
            name: saved.name,
            projectId: saved.projectId,
            kind: saved.kind,
            remark: saved.remark ?? '',
            ...savedConfigValues(saved),
        };
    },
    submit: { call: 'save', params: ({ record, values }) => saveParams(values, record.id) },
    success: '修改成功',
    refresh: REFRESH,
};

interface TestAnswer {
    ok?: boolean;
    message?: string;
    ms?: number;
}

/** The connection test's answer, said under the button: 连接成功 / 连接失败 with the server's words. */
function testResult(answer: unknown): FormResult {
    const a = (answer ?? {}) as TestAnswer;
    const took = typeof a.ms === 'number' ? `（${a.ms} ms）` : '';
    return a.ok
        ? { severity: 'success', title: `连接成功${took}`, body: a.message || undefined }
        : { severity: 'error', title: `连接失败${took}`, body: a.message || undefined };
}

/** The kind (fixed) and its configuration, as the test dialogs show them. */
const testFields = (locked: boolean): Array<string | [string, FieldDefinition]> => [
    ['kind', { label: '目的地类型', input: 'select', required: true, choices: [...DESTINATION_KINDS], locked }],
    ...CONFIG_FIELDS,
];

const testSubmit = (label: string) => ({
    label,
    primary: true,
    call: {
        call: 'test',
        // With the id, secrets left as '******' are the stored ones.
        params: ({ record, values }: Scope) => ({
            ...(record.id === undefined ? {} : { id: record.id }),
            kind: values?.kind,
            config: configOf(values),
        }),
    },
    show: testResult,
});

/** A saved destination's test: its configuration as saved, which may be changed here before testing (not saved). */
const testConnection: Action = {
    kind: 'dialog',
    label: '测试连接',
    title: ({ record }) => `测试连接：${String(record.name)}`,
    ariaLabel: ({ record }) => `测试连接 ${String(record.name)}`,
    width: 'md',
    sections: [
        {
            kind: 'form',
            note: '用下面的配置连接目的地并发送一条样例数据；在这里修改的配置只用于测试，不会保存。',
            load: { call: 'detail', params: ({ record }) => ({ id: record.id }) },
            defaults: (_scope, loaded) => ({ kind: (loaded as Row).kind, ...savedConfigValues(loaded as Row) }),
            fields: testFields(true),
            submits: [testSubmit('测试连接')],
        },
    ],
};

/** A configuration tried before any destination is saved. */
const testNewConfig: Action = {
    kind: 'dialog',
    label: '测试配置',
    title: '测试目的地配置',
    width: 'md',
    sections: [
        {
            kind: 'form',
            note: '填写配置后测试连接并发送一条样例数据，确认可用后再新建目的地。',
            defaults: () => ({ kind: 'http', ...newConfigValues() }),
            fields: testFields(false),
            submits: [testSubmit('测试连接')],
        },
    ],
};

const removeDestination: Action = {
    kind: 'call',
    label: '删除',
    color: 'error',
    right: 'forward.delete',
    ariaLabel: ({ record }) => `删除 ${String(record.name)}`,
    call: { call: 'remove', params: ({ record }) => ({ id: record.id }) },
    confirm: ({ record }) =>
        Number(record.flowCount ?? 0) > 0
            ? `${M.destinationDeleteConfirm}\n它正被 ${String(record.flowCount)} 条流转规则使用。`
            : M.destinationDeleteConfirm,
    success: '删除成功',
    failure: '删除失败',
    refresh: REFRESH,
};

export default defineResource({
    name: 'forwardDestinations',
    label: '数据目的地',
    path: 'forward/destination',
    icon: OutboxIcon,
    menu: { label: '数据目的地', section: '规则引擎', order: 5, icon: OutboxIcon, to: '/forward/destination' },
    rightFamily: 'forward',
    recordRepresentation: 'name',
    fields: {
        id: { label: 'ID', type: 'number', number: { grouping: false } },
        name: { label: '名称' },
        kindLabel: { label: '类型', render: (r) => String(r.kindLabel ?? kindName(r.kind)) },
        projectName: { label: '所属项目' },
        flowCount: { label: '使用的流转规则', type: 'number' },
        remark: { label: '备注', ellipsis: 160 },
        updateTime: { label: '更新时间', type: 'datetime' },
    },
    views: { list: false, show: false, edit: false, create: false },
    pages: [
        {
            path: '/forward/destination',
            title: '数据目的地',
            sections: [
                {
                    kind: 'list',
                    list: {
                        source: { call: 'list' },
                        label: '数据目的地列表',
                        rowId: 'id',
                        columns: ['name', 'kindLabel', 'projectName', 'flowCount', 'remark', 'updateTime'],
                        perPage: 10,
                        perPageOptions: [10, 20, 50],
                        filters: [
                            { source: 'name', label: '名称', input: 'search' },
                            { source: 'kind', label: '类型', input: 'select', choices: [...DESTINATION_KINDS] },
                            {
                                source: 'projectId',
                                label: '项目',
                                input: 'select',
                                choicesFrom: { call: 'projects', optionValue: 'id', optionText: 'projectName' },
                            },
                        ],
                        toolbar: [newDestination, testNewConfig],
                        rowActions: [testConnection, editDestination, removeDestination],
                        refresh: '刷新目的地列表',
                        empty: {
                            text: '暂无数据目的地',
                            hint: '目的地是流转规则发送数据的去处：平台内主题、HTTP、消息队列或数据库表',
                            filtered: '没有符合条件的目的地',
                            action: newDestination,
                        },
                    },
                },
            ],
        },
    ],
    api: {
        success: 'code200',
        custom: {
            list: { get: '/api/forward/destination/list', ...list },
            detail: { get: '/api/forward/destination/detail', read: 'data' },
            save: { post: '/api/forward/destination/save', body: 'json', read: 'data' },
            remove: { post: '/api/forward/destination/delete', body: 'json' },
            test: { post: '/api/forward/destination/test', body: 'json', read: 'data' },
            projects: { get: '/api/project/listAll', read: 'data.list' },
        },
    },
});

function kindName(kind: unknown): string {
    return DESTINATION_KINDS.find((k) => k.id === (kind as DestinationKindId))?.name ?? String(kind ?? '');
}
