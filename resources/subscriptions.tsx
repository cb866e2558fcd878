import AddIcon from '@mui/icons-material/Add';
import SendIcon from '@mui/icons-material/Send';
import {
    CONSUMER_GROUP_NAME_MAX,
    MESSAGE_TYPES,
    SUBSCRIPTION_MESSAGES as M,
    SUBSCRIPTION_PAGE_SIZE,
    SUBSCRIPTION_PAGE_SIZES,
    SUBSCRIPTION_TYPE,
    consumerGroupSchema,
    subscriptionFormSchema,
} from '../schemas/subscription';
import { defineResource, type Action, type FieldDefinition, type FormValues, type Row } from '../src/engine/types';

/**
 * Server-side subscription (SPEC.md "Server subscription"; issue 11; docs/amqp.md): /subscription with the
 * subscription list and the consumer group list as tabs (?tab=groups), and /consumerGroup/detail?id= with the
 * group's subscriptions, its connected AMQP consumers, backlog and delivery rate. Consumers sign in with the user's
 * AccessKey (/usercenter) and the group's ID.
 */

const REFRESH = ['subscriptions'];
const list = { paging: ['pageNumber', 'pageSize'] as [string, string], read: 'data.records', total: 'data.total' };

const projectField: FieldDefinition = {
    label: '所属项目',
    input: 'select',
    required: true,
    choicesFrom: { call: 'projects', optionValue: 'code', optionText: 'projectName' },
};

/** The subscription dialog's fields (create and edit). */
const subscriptionFields: Array<string | [string, FieldDefinition]> = [
    [
        'projectCode',
        {
            ...projectField,
            // Products and consumer groups belong to a project: choose them again in the new one.
            resets: { productKey: '', group: [] },
            perView: { edit: { locked: true } },
        },
    ],
    [
        'productKey',
        {
            label: '产品',
            input: 'select',
            required: true,
            visibleWhen: (v) => !!v.projectCode,
            choicesFrom: {
                call: 'products',
                params: (v: FormValues) => ({ projectCode: v.projectCode }),
                optionValue: 'productKey',
                optionText: 'productName',
                // A product has one subscription: those taken are not offered (but the one being edited is).
                keep: (row: Row, v: FormValues) => !row.subscribed || row.productKey === v.currentProductKey,
            },
        },
    ],
    ['msgType', { label: '订阅类型', input: 'select', choices: [{ id: 'AMQP', name: 'AMQP' }], locked: true }],
    [
        'group',
        {
            label: '消费者组',
            input: 'picker',
            required: true,
            visibleWhen: (v) => !!v.projectCode,
            picker: {
                source: { call: 'groupOptions', params: ({ values }) => ({ projectCode: values?.projectCode }) },
                rowId: 'id',
                rowLabel: 'name',
                columns: [
                    ['name', { label: '消费者组名称' }],
                    ['id', { label: '消费者组ID' }],
                ],
                perPage: 5,
                filters: [{ source: 'name', label: '消费者组名称' }],
                selectedText: (n) => `已选择 ${n} 个消费者组`,
                empty: '该项目下没有消费者组',
            },
        },
    ],
    ['message', { label: '消息类型', input: 'checkboxes', required: true, choices: [...MESSAGE_TYPES] }],
];

const subscriptionParams = (values: FormValues | undefined) => ({
    productKey: values?.productKey,
    group: (values?.group as unknown[] | undefined) ?? [],
    message: (values?.message as unknown[] | undefined) ?? [],
});

const newSubscription: Action = {
    kind: 'form',
    label: '新建订阅',
    icon: AddIcon,
    variant: 'contained',
    title: '新建订阅',
    width: 'md',
    fields: subscriptionFields,
    schema: subscriptionFormSchema,
    defaults: () => ({ projectCode: '', productKey: '', msgType: SUBSCRIPTION_TYPE, group: [], message: ['post'] }),
    submit: {
        call: 'save',
        params: ({ values }) => ({ projectCode: values?.projectCode, ...subscriptionParams(values) }),
    },
    note: '订阅后，该产品设备上报的属性消息将通过 AMQP 1.0 推送到所选的每个消费者组；同一消费者组内的多个客户端分担消息。',
    success: '添加成功',
    refresh: REFRESH,
};

const editSubscription: Action = {
    kind: 'form',
    label: '编辑',
    title: '编辑订阅',
    mode: 'edit',
    width: 'md',
    ariaLabel: ({ record }) => `编辑 ${String(record.productName)} 的订阅`,
    fields: subscriptionFields,
    schema: subscriptionFormSchema,
    defaults: ({ record }) => ({
        projectCode: record.projectCode,
        productKey: record.productKey,
        currentProductKey: record.productKey,
        msgType: SUBSCRIPTION_TYPE,
        group: record.group ?? [],
        message: record.message ?? ['post'],
    }),
    submit: { call: 'edit', params: ({ record, values }) => ({ id: record.id, ...subscriptionParams(values) }) },
    success: '修改成功',
    refresh: REFRESH,
};

const removeSubscription: Action = {
    kind: 'call',
    label: '删除',
    color: 'error',
    ariaLabel: ({ record }) => `删除 ${String(record.productName)} 的订阅`,
    call: { call: 'remove', params: ({ record }) => ({ productKey: record.productKey }) },
    confirm: M.deleteConfirm,
    success: M.deleted,
    failure: M.deleteFailed,
    refresh: REFRESH,
};

const groupNameField: FieldDefinition = {
    label: '消费者组名称',
    required: true,
    maxLength: CONSUMER_GROUP_NAME_MAX,
    helperText: '以英文字母开头，1~30个字符；支持中文、英文字母、数字、下划线、中划线、点号和半角冒号',
};

const newGroup: Action = {
    kind: 'form',
    label: '新建消费者组',
    icon: AddIcon,
    variant: 'contained',
    fields: [
        ['projectCode', projectField],
        ['name', groupNameField],
    ],
    schema: consumerGroupSchema,
    defaults: () => ({ projectCode: '', name: '' }),
    submit: {
        call: 'saveGroup',
        params: ({ values }) => ({ id: '', projectCode: values?.projectCode, name: values?.name }),
    },
    success: '创建成功',
    refresh: REFRESH,
};

const editGroup: Action = {
    kind: 'form',
    label: '编辑',
    title: '编辑消费者组',
    mode: 'edit',
    ariaLabel: ({ record }) => `编辑 ${String(record.name)}`,
    when: ({ record }) => record.name !== 'default',
    fields: [
        ['projectCode', { ...projectField, locked: true }],
        ['name', groupNameField],
    ],
    schema: consumerGroupSchema,
    defaults: ({ record }) => ({ projectCode: record.projectCode, name: record.name }),
    submit: {
        call: 'saveGroup',
        params: ({ record, values }) => ({ id: record.id, projectCode: record.projectCode, name: values?.name }),
    },
    success: '修改成功',
    refresh: REFRESH,
};

const viewGroup: Action = {
    kind: 'link',
    label: '查看',
    ariaLabel: ({ record }) => `查看 ${String(record.name)}`,
    to: ({ record }) => `/consumerGroup/detail?id=${String(record.id)}`,
};

const removeGroup: Action = {
    kind: 'call',
    label: '删除',
    color: 'error',
    ariaLabel: ({ record }) => `删除 ${String(record.name)}`,
    when: ({ record }) => record.name !== 'default',
    call: { call: 'removeGroup', params: ({ record }) => ({ id: record.id }) },
    confirm: M.groupDeleteConfirm,
    success: '删除成功',
    failure: '删除失败',
    refresh: REFRESH,
};

const clearBacklog: Action = {
    kind: 'call',
    label: '清空堆积',
    color: 'warning',
    disabled: ({ record }) => (Number(record.backlog ?? 0) > 0 ? false : '没有堆积的消息'),
    call: { call: 'clear', params: ({ record }) => ({ id: record.id }) },
    confirm: ({ record }) => `${M.clearConfirm}\n当前堆积 ${String(record.backlog ?? 0)} 条。`,
    success: (answer) => `已清空 ${String((answer as { cleared?: number } | undefined)?.cleared ?? 0)} 条堆积消息`,
    refresh: ['page'],
};

const validId = (raw: string | undefined) => (raw && /^\d{1,9}$/.test(raw) && Number(raw) > 0 ? raw : undefined);

export default defineResource({
    name: 'subscriptions',
    label: '服务端订阅',
    icon: SendIcon,
    menu: {
        label: '服务端订阅',
        section: '设备接入',
        order: 6,
        icon: SendIcon,
        to: '/subscription',
        related: ['/consumerGroup/detail'],
    },
    recordRepresentation: 'productName',
    fields: {
        productName: { label: '产品名称' },
        productKey: { label: 'ProductKey' },
        msgType: { label: '订阅类型' },
        groupNames: {
            label: '消费者组',
            render: (r) => (Array.isArray(r.groups) ? (r.groups as Row[]).map((g) => String(g.name)).join('、') : ''),
        },
        createTime: { label: '创建时间', type: 'datetime' },
        name: { label: '消费者组名称' },
        id: { label: 'ID' },
        projectName: { label: '所属项目', render: (r) => String(r.projectName || r.projectCode || '') },
        online: { label: '在线客户端', type: 'number' },
        backlog: { label: '堆积消息', type: 'number' },
        dropped: { label: '已丢弃', type: 'number' },
        deliveryRate: { label: '投递速率', render: (r) => `${String(r.deliveryRate ?? 0)} 条/秒` },
        delivered: { label: '已投递', type: 'number' },
        acknowledged: { label: '已确认', type: 'number' },
        clientId: { label: '客户端ID' },
        address: { label: '客户端地址' },
        connectedSince: { label: '连接时间', type: 'datetime' },
    },
    views: { list: false, show: false, edit: false, create: false },
    pages: [
        {
            path: '/subscription',
            title: '服务端订阅',
            tabParam: { query: 'tab', fallback: 'subscriptions', omitFallback: true },
            tabs: [
                {
                    key: 'subscriptions',
                    label: '订阅列表',
                    sections: [
                        {
                            kind: 'list',
                            list: {
                                source: { call: 'list' },
                                label: '订阅列表',
                                rowId: 'id',
                                columns: ['productName', 'productKey', 'msgType', 'groupNames', 'createTime'],
                                perPage: SUBSCRIPTION_PAGE_SIZE,
                                perPageOptions: [...SUBSCRIPTION_PAGE_SIZES],
                                toolbar: [newSubscription],
                                rowActions: [editSubscription, removeSubscription],
                                refresh: '刷新订阅列表',
                                empty: {
                                    text: '暂无订阅',
                                    hint: '新建订阅后，所选产品的设备上报消息将推送到消费者组',
                                    action: newSubscription,
                                },
                            },
                        },
                    ],
                },
                {
                    key: 'groups',
                    label: '消费者组列表',
                    sections: [
                        {
                            kind: 'list',
                            list: {
                                source: { call: 'groups' },
                                label: '消费者组列表',
                                urlPrefix: 'g',
                                rowId: 'id',
                                columns: ['name', 'id', 'projectName', 'createTime'],
                                perPage: SUBSCRIPTION_PAGE_SIZE,
                                perPageOptions: [...SUBSCRIPTION_PAGE_SIZES],
                                toolbar: [newGroup],
                                rowActions: [viewGroup, editGroup, removeGroup],
                                refresh: '刷新消费者组列表',
                                empty: { text: '暂无消费者组', action: newGroup },
                            },
                        },
                    ],
                },
            ],
        },
        {
            path: '/consumerGroup/detail',
            title: '消费者组详情',
            back: { label: '服务端订阅', to: '/subscription?tab=groups' },
            record: {
                call: 'groupDetail',
                // Clients, counts and rate move while consumers receive.
                every: 3,
                params: ({ query }) => ({ id: validId(query.id) }),
                missing: ({ query }) => (validId(query.id) ? undefined : '缺少消费者组ID，请从消费者组列表进入'),
                notFound: '该消费者组不存在或已被删除',
                notFoundTitle: '消费者组不存在',
            },
            header: {
                title: ({ record }) => String(record.name ?? ''),
                subtitle: ({ record }) => `ID ${String(record.id ?? '')}`,
                actions: [clearBacklog],
            },
            sections: [
                {
                    kind: 'counters',
                    items: [
                        { label: '在线客户端', value: 'online' },
                        { label: '堆积消息', value: 'backlog' },
                        { label: '投递速率（条/秒）', value: 'deliveryRate' },
                        { label: '已投递', value: 'delivered' },
                        { label: '已确认', value: 'acknowledged' },
                        { label: '已丢弃', value: 'dropped' },
                    ],
                },
                {
                    kind: 'fields',
                    title: '基本信息',
                    columns: 2,
                    fields: [
                        ['name', { label: '消费者组名称' }],
                        ['id', { label: '消费者组ID', copy: true }],
                        'projectName',
                        'createTime',
                    ],
                },
                {
                    kind: 'notice',
                    severity: 'info',
                    text: ({ record }) =>
                        `消费端以 AMQP 1.0 连接本平台的 AMQP 端口，用户中心的 AccessKey 签名登录，用户名中 consumerGroupId=${String(record.id ?? '')}；` +
                        '每个连接打开一个接收链路。消息在没有客户端在线时保存在堆积中，超过上限或时长后最早的消息被丢弃。',
                },
                {
                    kind: 'list',
                    list: {
                        title: '在线客户端',
                        rows: ({ record }) => (Array.isArray(record.clients) ? (record.clients as Row[]) : []),
                        rowId: 'id',
                        columns: [
                            'clientId',
                            'address',
                            'connectedSince',
                            'delivered',
                            'acknowledged',
                            ['nodeId', { label: '所连服务进程', render: (r) => String(r.nodeId ?? '本实例') }],
                        ],
                        empty: { text: '暂无在线客户端', columns: true },
                    },
                },
                {
                    kind: 'list',
                    list: {
                        title: '订阅',
                        urlPrefix: 's',
                        rows: ({ record }) =>
                            Array.isArray(record.subscriptions) ? (record.subscriptions as Row[]) : [],
                        rowId: 'id',
                        columns: ['productName', 'productKey', 'msgType', 'createTime'],
                        empty: { text: '暂无订阅推送到该消费者组', columns: true },
                    },
                },
            ],
        },
    ],
    api: {
        success: 'code200',
        custom: {
            list: { get: '/api/subscription/list', ...list },
            save: { post: '/api/subscription/save', read: 'data', arrays: 'comma' },
            edit: { post: '/api/subscription/edit', read: 'data', arrays: 'comma' },
            remove: { post: '/api/subscription/delete' },
            products: { get: '/api/subscription/products', read: 'data' },
            groups: { get: '/api/consumerGroup/list', ...list },
            groupOptions: { get: '/api/consumerGroup/list', ...list },
            saveGroup: { post: '/api/consumerGroup/save', read: 'data' },
            removeGroup: { post: '/api/consumerGroup/delete' },
            groupDetail: { get: '/api/consumerGroup/detail', read: 'data' },
            clear: { post: '/api/consumerGroup/clear', read: 'data' },
            projects: { get: '/api/project/listAll', read: 'data.list' },
        },
    },
});
