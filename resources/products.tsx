import Inventory2Icon from '@mui/icons-material/Inventory2';
import { defineResource, type Action, type FormValues, type Scope } from '../src/engine/types';
import {
    DATA_TYPES,
    DEFAULT_DATA_TYPE,
    DEFAULT_NETWORK_TYPE,
    NODE_TYPES,
    productCreateSchema,
    productUpdateSchema,
} from '../schemas/product';
import { REMOTE_CONFIG_CALLS, remoteConfigSections } from './remoteConfig';
import { dataScriptLoads, dataScriptSections } from './dataScripts';
import { functionLoads, functionSections } from './thingFunctions';
import { topicSections } from './topics';

/** /productDetail/{tab}?productId=1, or /productDetail/{productId} as device screens link. */
const productIdOf = ({ query, route }: Scope) => {
    const segment = (route['*'] ?? '').split('/').find((s) => /^\d+$/.test(s));
    return (segment ?? query.productId ?? '').trim();
};

const dash = (v: unknown) => (v === null || v === undefined || v === '' ? '-' : String(v));

const GATEWAY_TYPES = [
    { id: 0, name: '否' },
    { id: 1, name: '是' },
];

const isDevice = (v: FormValues) => Number(v.nodeType ?? 0) === 0;
const viaGateway = (v: FormValues) => Number(v.gatewayType ?? 0) === 1;

/** 查看 ProductSecret: asked first, read afresh, shown in a dialog with a copy button (docs/device-access.md "动态注册"). */
const revealSecret: Action = {
    kind: 'call',
    label: '查看 ProductSecret',
    right: 'product.edit',
    call: { call: 'secret', params: ({ record }) => ({ productId: record.productId }) },
    confirmTitle: '查看 ProductSecret',
    confirm:
        '确定查看 ProductSecret 吗？\n持有 ProductSecret 即可为本产品开启动态注册的设备获取 DeviceSecret，请勿在不安全的场合显示或外传。',
    success: '已获取 ProductSecret',
    refresh: [],
    reveal: {
        title: 'ProductSecret',
        note: '请妥善保管。产品开启动态注册后，设备以 ProductKey、ProductSecret 和 DeviceName 一型一密获取自己的 DeviceSecret。',
        fields: [
            { label: 'ProductKey', path: 'productKey', copy: true },
            { label: 'ProductSecret', path: 'productSecret', copy: true },
        ],
        closeLabel: '关闭',
    },
};

/** A switch of the product's dynamic registration (POST /api/product/dynamicRegister), asked before it changes. */
function registerSwitch(
    key: 'dynamicRegister' | 'noPreRegister',
    name: string,
    onText: string,
    offText: string,
): Action {
    const call = (value: boolean) => ({
        call: 'setDynamicRegister',
        params: ({ record }: Scope) => ({ productId: record.productId, [key]: String(value) }),
    });
    return {
        kind: 'switch',
        label: ({ record }) => (record[key] ? `${name}已开启，点击关闭` : `${name}已关闭，点击开启`),
        text: name,
        ariaLabel: ({ record }) => `${record[key] ? '关闭' : '开启'}${name}`,
        right: 'product.edit',
        checked: ({ record }) => !!record[key],
        // 免预注册 acts only while 动态注册 is on.
        disabled: ({ record }) => (key === 'noPreRegister' && !record.dynamicRegister ? '请先开启动态注册' : false),
        on: {
            kind: 'call',
            label: `开启${name}`,
            call: call(true),
            confirmTitle: `开启${name}`,
            confirm: onText,
            success: `已开启${name}`,
            refresh: ['products'],
        },
        off: {
            kind: 'call',
            label: `关闭${name}`,
            call: call(false),
            confirm: offText,
            success: `已关闭${name}`,
            refresh: ['products'],
        },
    };
}

const onOff = (v: unknown) => (v ? '已开启' : '已关闭');

/** Products (SPEC.md "Product management"; docs/platform-api.md "Products"). */
export default defineResource({
    name: 'products',
    rightFamily: 'product',
    label: '产品管理',
    menu: { label: '产品管理', section: '设备接入', order: 1, icon: Inventory2Icon, related: ['/productDetail'] },
    icon: Inventory2Icon,
    path: 'product',
    idField: 'productId',
    recordRepresentation: 'productName',
    pages: [
        {
            path: '/productDetail/*',
            title: '产品详情',
            back: { label: '产品管理', to: '/product' },
            record: {
                call: 'getOne',
                params: (scope) => ({ id: productIdOf(scope) }),
                missing: (scope) => {
                    const id = productIdOf(scope);
                    if (!id) return '缺少产品ID';
                    return /^\d+$/.test(id) ? undefined : `产品ID“${id}”无效`;
                },
                notFound: (scope) => `未找到ID为 ${productIdOf(scope)} 的产品`,
                notFoundTitle: '产品不存在',
            },
            load: { ...functionLoads(({ record }) => record.productId), ...dataScriptLoads },
            header: {
                title: ({ record }) => String(record.productName ?? ''),
                fields: [['productKey', { label: 'ProductKey', copy: true }], 'nodeType'],
            },
            tabs: [
                {
                    key: 'view',
                    label: '产品信息',
                    sections: [
                        {
                            kind: 'fields',
                            title: '产品信息',
                            fields: [
                                'productName',
                                'productKey',
                                'nodeType',
                                [
                                    'gatewayAnswer',
                                    {
                                        label: '是否接入网关',
                                        // Only a directly connected device answers it; a gateway's is always 0.
                                        render: (r) =>
                                            Number(r.nodeType) === 1 ? '-' : Number(r.gatewayType) === 1 ? '是' : '否',
                                    },
                                ],
                                [
                                    'networkAnswer',
                                    {
                                        label: '连网方式',
                                        formLabel: (r) => (viaGateway(r) ? '网关接入协议' : '连网方式'),
                                        render: (r) => dash(r.networkName ?? r.networkType),
                                    },
                                ],
                                'dataType',
                                'categoryName',
                                [
                                    'projectAnswer',
                                    { label: '所属项目', render: (r) => dash(r.projectName ?? r.projectCode) },
                                ],
                                'createTime',
                                ['remarkAnswer', { label: '描述', render: (r) => dash(r.remark) }],
                            ],
                            actions: [
                                {
                                    kind: 'form',
                                    label: '编辑',
                                    right: 'product.edit',
                                    title: '编辑产品',
                                    mode: 'edit',
                                    fields: ['productName', 'remark'],
                                    schema: productUpdateSchema,
                                    defaults: ({ record }) => ({
                                        productId: record.productId,
                                        productName: record.productName ?? '',
                                        remark: record.remark ?? '',
                                    }),
                                    submit: {
                                        call: 'update',
                                        params: ({ record, values }) => ({
                                            ...record,
                                            productName: String(values?.productName ?? '').trim(),
                                            remark: String(values?.remark ?? '').trim(),
                                        }),
                                    },
                                    success: '修改成功',
                                    failure: '修改失败',
                                },
                            ],
                        },
                        {
                            kind: 'fields',
                            title: '设备认证（一型一密）',
                            fields: [
                                [
                                    'productSecretMasked',
                                    {
                                        label: 'ProductSecret',
                                        render: () => '********（点击“查看 ProductSecret”显示）',
                                    },
                                ],
                                [
                                    'dynamicRegisterAnswer',
                                    { label: '动态注册', render: (r) => onOff(r.dynamicRegister) },
                                ],
                                ['noPreRegisterAnswer', { label: '免预注册', render: (r) => onOff(r.noPreRegister) }],
                            ],
                            actions: [
                                revealSecret,
                                registerSwitch(
                                    'dynamicRegister',
                                    '动态注册',
                                    '开启后，持有 ProductSecret 的设备可获取已添加设备的 DeviceSecret（每台一次），网关可为子设备动态注册。确定开启吗？',
                                    '关闭后，设备与网关的动态注册请求都将被拒绝，已激活的设备不受影响。确定关闭吗？',
                                ),
                                registerSwitch(
                                    'noPreRegister',
                                    '免预注册',
                                    '开启后，动态注册可创建平台尚未添加的设备（设备名由设备自报）。请确认 ProductSecret 未外泄。确定开启吗？',
                                    '关闭后，动态注册只接受已添加的设备。确定关闭吗？',
                                ),
                            ],
                        },
                    ],
                },
                {
                    key: 'topic',
                    label: 'Topic类列表',
                    sections: topicSections(({ record }) => ({ productKey: record.productKey })),
                },
                {
                    key: 'function',
                    label: '功能定义',
                    sections: functionSections(),
                },
                {
                    key: 'config',
                    label: '远程配置',
                    sections: remoteConfigSections,
                },
                { key: 'script', label: '数据解析', sections: dataScriptSections() },
            ],
        },
    ],
    fields: {
        productName: {
            label: '产品名称',
            required: true,
            maxLength: 30,
            helperText: '支持中文、英文字母、数字和下划线，长度4~30，中文算2位',
        },
        productKey: { label: 'ProductKey', readOnly: true },
        projectCode: {
            label: '所属项目',
            views: ['create'],
            input: 'select',
            choicesFrom: { call: 'projects', optionValue: 'code', optionText: 'projectName' },
        },
        projectName: { label: '所属项目', views: ['show'], readOnly: true },
        categoryId: {
            label: '所属分类',
            type: 'cascader',
            views: ['create'],
            required: true,
            choicesFrom: { call: 'categories' },
        },
        categoryName: { label: '所属分类', views: ['list', 'show'], readOnly: true },
        nodeType: {
            label: '节点类型',
            type: 'select',
            input: 'radio',
            choices: [...NODE_TYPES],
            views: ['list', 'show', 'create'],
            required: true,
            defaultValue: 0,
            // A gateway is not itself behind a gateway: the question goes away and its answer returns to 否.
            resets: { gatewayType: 0 },
        },
        gatewayType: {
            label: '是否接入网关',
            type: 'select',
            input: 'radio',
            choices: GATEWAY_TYPES,
            views: ['create', 'show'],
            required: true,
            defaultValue: 0,
            visibleWhen: isDevice,
        },
        networkType: {
            label: '连网方式',
            formLabel: (v) => (viaGateway(v) ? '网关接入协议' : '连网方式'),
            input: 'select',
            views: ['create'],
            required: true,
            defaultValue: DEFAULT_NETWORK_TYPE,
            choicesFrom: { call: 'networks', params: (v) => ({ type: viaGateway(v) ? 1 : 0 }) },
        },
        networkName: { label: '连网方式', views: ['list', 'show'], readOnly: true },
        dataType: {
            label: '数据格式',
            type: 'select',
            input: 'radio',
            choices: [...DATA_TYPES],
            views: ['list', 'show', 'create'],
            required: true,
            defaultValue: DEFAULT_DATA_TYPE,
        },
        remark: { label: '产品描述', type: 'longText', views: ['show', 'create', 'edit'], maxLength: 100 },
        createTime: { label: '创建时间', type: 'datetime', format: 'YYYY-MM-DD HH:mm:ss', readOnly: true },
    },
    schema: productCreateSchema,
    editSchema: productUpdateSchema,
    list: {
        perPage: 10,
        perPageOptions: [5, 10, 20],
        filters: [{ source: 'q', label: '产品名称', alwaysOn: true }],
        rowActions: [
            { kind: 'link', label: '查看', to: ({ record: r }) => `/productDetail/view?productId=${r.productId}` },
            {
                kind: 'link',
                label: '管理设备',
                to: ({ record: r }) => `/devices?pk=${encodeURIComponent(String(r.productKey))}`,
            },
            {
                kind: 'link',
                label: '物模型定义',
                to: ({ record: r }) => `/productDetail/function?productId=${r.productId}`,
            },
        ],
        show: false,
        edit: false,
        deleteConfirm: '是否删除此产品?',
        createInDialog: true,
        createLabel: '创建产品',
        empty: '暂无产品，点击“创建产品”开始接入',
    },
    messages: {
        created: '添加成功',
        createFailed: '系统错误',
        updated: '修改成功',
        deleted: '删除成功',
    },
    api: {
        success: 'code200',
        idField: 'productId',
        getList: {
            get: '/api/product',
            paging: ['pageNumber', 'pageSize'],
            filters: { q: 'productName' },
            read: 'data.records',
            total: 'data.total',
        },
        getOne: { get: '/api/product/detail', params: (r) => ({ productId: r.id }), read: 'data' },
        create: {
            post: '/api/product/save',
            body: 'form',
            params: (r) => ({
                projectCode: r.projectCode ?? '',
                nodeType: r.nodeType,
                gatewayType: r.gatewayType,
                categoryId: r.categoryId,
                networkType: r.networkType,
                dataType: r.dataType,
                productName: r.productName,
                remark: r.remark ?? '',
            }),
            read: 'data',
        },
        update: {
            post: '/api/product/update',
            params: (r) => ({ productId: r.id, productName: r.productName, remark: r.remark ?? '' }),
            read: 'data',
        },
        delete: { delete: '/api/product', params: (r) => ({ productId: r.id }) },
        custom: {
            categories: { get: '/api/product/list-category', read: 'data' },
            networks: { get: '/api/product/list-network', read: 'data' },
            listAll: { get: '/api/product/list-product', read: 'data.list' },
            thingModel: { post: '/api/product/GetThingModel', read: 'data' },
            // The project picker: the projects family has no resource of its own yet.
            projects: { get: '/api/project/listAll', read: 'data.list' },
            /** 一型一密: the ProductSecret (product.edit) and the 动态注册 / 免预注册 switches. */
            secret: { get: '/api/product/secret', read: 'data' },
            setDynamicRegister: { post: '/api/product/dynamicRegister', body: 'form', read: 'data' },
            /** 远程配置 (resources/remoteConfig.tsx). */
            ...REMOTE_CONFIG_CALLS,
            /** 数据解析: the script (draft, published version, limits), 保存草稿, 发布, 模拟运行. */
            script: { get: '/api/product/script', read: 'data' },
            saveScript: { post: '/api/product/script/save', read: 'data' },
            publishScript: { post: '/api/product/script/publish', read: 'data' },
            debugScript: { post: '/api/product/script/debug', read: 'data' },
        },
    },
});
