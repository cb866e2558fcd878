import Inventory2Icon from '@mui/icons-material/Inventory2';
import { defineResource, type FormValues, type Scope } from '../src/engine/types';
import {
    DATA_TYPES,
    DEFAULT_DATA_TYPE,
    DEFAULT_NETWORK_TYPE,
    NODE_TYPES,
    productCreateSchema,
    productUpdateSchema,
} from '../schemas/product';
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
            load: functionLoads(({ record }) => record.productId),
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
        },
    },
});
