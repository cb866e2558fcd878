import MemoryIcon from '@mui/icons-material/Memory';
import { defineResource, type Action, type ListSpec, type Row, type Scope } from '../src/engine/types';
import { DEVICE_STATUSES } from '../schemas/device';
import { DEPLOY_STATES, EDGE_PROTOCOLS, edgeInstanceDriverSchema, edgeInstanceSchema } from '../schemas/edge';
import { EDGE_TABS, EDGE_TAB_CALLS } from './edge/tabs';

/**
 * Edge instances (/edge/instance and /edge/instance/detail/{instanceId}, calls under /api/edge/instance/*), after
 * Alibaba Link IoT Edge: an instance runs on one gateway device (its status is the gateway's own MQTT presence), runs
 * drivers with their configuration, and each driver serves sub-devices of that gateway (deviceList1 assigned,
 * deviceList2 candidates), runs scene linkage rules, functions, stream-analysis jobs and message routes with its own
 * settings (resources/edge/tabs.tsx), and shows what its gateway reports about itself (监控). 部署 sends the whole
 * configuration to the gateway as one versioned document; the gateway's answer is in the log tab.
 */

const REFRESH = ['edgeInstances'];
const detailPath = (r: Row) => `/edge/instance/detail/${encodeURIComponent(String(r.id))}`;
const instanceId = ({ record }: Scope) => record.id;

/** The envelope's data or the answer itself: what a call action's success message reads. */
const dataOf = (answer: unknown) => ((answer as { data?: Row })?.data ?? answer) as Row;

const create: Action = {
    kind: 'form',
    label: '新建实例',
    variant: 'contained',
    fields: ['name', 'spec', 'gatewayId', 'remark'],
    schema: edgeInstanceSchema,
    submit: { call: 'save' },
    success: '创建成功',
    refresh: REFRESH,
};

const edit: Action = {
    kind: 'form',
    label: '编辑',
    title: '编辑边缘实例',
    mode: 'edit',
    fields: ['name', 'spec', ['gatewayId', { label: '网关设备', readOnly: true, input: 'none' }], 'remark'],
    schema: edgeInstanceSchema,
    defaults: ({ record }) => ({
        name: record.name,
        spec: record.spec ?? '',
        gatewayId: record.gatewayId,
        remark: record.remark ?? '',
    }),
    submit: { call: 'save', params: ({ record, values }) => ({ ...values, id: record.id }) },
    success: '修改成功',
    refresh: REFRESH,
};

const deploy: Action = {
    kind: 'call',
    label: '部署',
    variant: 'contained',
    call: { call: 'deploy', params: ({ record }) => ({ id: record.id }) },
    confirm: ({ record }) => `确定将“${String(record.name)}”的当前配置部署到网关 ${String(record.gatewayName)} 吗？`,
    success: (answer) => {
        const d = dataOf(answer);
        const state = DEPLOY_STATES.find((s) => s.id === d.status)?.name ?? String(d.status);
        return `版本 ${String(d.version)}：${state}${d.message ? `（${String(d.message)}）` : ''}`;
    },
    refresh: REFRESH,
};

const remove = (then?: string): Action => ({
    kind: 'call',
    label: '删除',
    color: 'error',
    call: { call: 'delete', params: ({ record }) => ({ id: record.id }) },
    confirm: ({ record }) => `确定删除边缘实例“${String(record.name)}”吗？其驱动与子设备分配将一并删除。`,
    confirmTitle: '提示',
    success: '删除成功',
    refresh: REFRESH,
    then: then ? () => then : undefined,
});

const addDriver: Action = {
    kind: 'form',
    label: '添加驱动',
    variant: 'contained',
    fields: ['driverId', 'config'],
    schema: edgeInstanceDriverSchema,
    defaults: () => ({ config: '{}' }),
    submit: { call: 'saveDriver', params: ({ record, values }) => ({ ...values, instanceId: record.id }) },
    success: '添加成功',
    refresh: REFRESH,
};

const driversList: ListSpec = {
    source: { call: 'drivers', params: (scope) => ({ instanceId: instanceId(scope) }) },
    label: '实例驱动',
    rowId: 'driverId',
    urlPrefix: 'd',
    columns: [
        'driverName',
        ['version', { label: '驱动版本', render: (r) => String(r.version ?? '-') }],
        'protocol',
        'config',
        'deviceCount',
    ],
    toolbar: [addDriver],
    rowActions: [
        {
            kind: 'form',
            label: '配置',
            title: '驱动配置',
            fields: [['config', { label: '驱动配置' }]],
            schema: edgeInstanceDriverSchema.pick(['config']),
            defaults: ({ record }) => ({ config: record.config ?? '{}' }),
            submit: {
                call: 'saveDriver',
                params: ({ page, record, values }) => ({
                    instanceId: page?.id,
                    driverId: record.driverId,
                    config: values?.config,
                }),
            },
            success: '保存成功',
            refresh: REFRESH,
        },
        {
            kind: 'call',
            label: '移除',
            color: 'error',
            call: {
                call: 'removeDriver',
                params: ({ page, record }) => ({ instanceId: page?.id, driverId: record.driverId }),
            },
            confirm: ({ record }) => `确定移除驱动“${String(record.name)}”吗？分配给它的子设备将一并移除。`,
            success: '移除成功',
            refresh: REFRESH,
        },
    ],
    empty: { text: '该实例暂无驱动', action: addDriver },
};

const assign: Action = {
    kind: 'form',
    label: '分配到驱动',
    title: '分配子设备',
    fields: ['driverId'],
    schema: edgeInstanceDriverSchema.pick(['driverId']),
    submit: {
        call: 'assign',
        params: ({ page, record, selected, values }) => ({
            instanceId: page?.id,
            driverId: values?.driverId,
            deviceId: selected?.length ? selected.map((r) => r.deviceId) : [record.deviceId],
        }),
    },
    success: '分配成功',
    refresh: REFRESH,
};

const deviceList1: ListSpec = {
    source: { call: 'devices', params: (scope) => ({ instanceId: instanceId(scope) }) },
    label: '已分配子设备',
    rowId: 'deviceId',
    urlPrefix: 'l1',
    columns: ['deviceName', ['productName', { label: '所属产品' }], ['status', { label: '设备状态' }], 'driverName'],
    rowActions: [
        {
            kind: 'call',
            label: '移除',
            color: 'error',
            call: {
                call: 'removeDevice',
                params: ({ page, record }) => ({ instanceId: page?.id, deviceId: record.deviceId }),
            },
            confirm: ({ record }) => `确定将“${String(record.deviceName)}”移出该实例吗？`,
            success: '移除成功',
            refresh: REFRESH,
        },
    ],
    empty: { text: '暂无已分配的子设备' },
};

const deviceList2: ListSpec = {
    source: { call: 'candidates', params: (scope) => ({ instanceId: instanceId(scope) }) },
    label: '可分配子设备',
    rowId: 'deviceId',
    urlPrefix: 'l2',
    columns: ['deviceName', ['productName', { label: '所属产品' }], ['status', { label: '设备状态' }]],
    rowActions: [assign],
    bulkActions: [assign],
    empty: { text: '网关下暂无可分配的子设备（先在设备详情的子设备管理中为网关添加子设备）' },
};

const deploymentsList: ListSpec = {
    source: { call: 'deployments', params: (scope) => ({ instanceId: instanceId(scope) }) },
    label: '部署记录',
    rowId: 'id',
    urlPrefix: 'log',
    columns: [
        ['version', { label: '配置版本', render: (r) => `v${String(r.version)}` }],
        ['status', { label: '部署状态', type: 'status', choices: [...DEPLOY_STATES] }],
        'message',
        'createTime',
        'answerTime',
    ],
    rowActions: [
        {
            kind: 'widget',
            label: '查看配置',
            title: ({ record }) => `部署版本 ${String(record.version)}`,
            widget: 'jsonView',
            props: ({ record }) => ({ text: record.document }),
            width: 'md',
            closeLabel: '关闭',
        },
    ],
    empty: { text: '尚未部署' },
};

export default defineResource({
    name: 'edgeInstances',
    label: '边缘实例',
    icon: MemoryIcon,
    recordRepresentation: 'name',
    menu: {
        label: '边缘实例',
        to: '/edge/instance',
        section: '边缘计算',
        order: 1,
        icon: MemoryIcon,
        related: ['/edge/instance/detail'],
    },
    fields: {
        id: { label: '实例ID', readOnly: true },
        name: { label: '实例名称', type: 'link', linkTo: detailPath, required: true, maxLength: 64 },
        spec: { label: '规格', maxLength: 64, helperText: '例如：2核4G' },
        gatewayId: {
            label: '网关设备',
            input: 'select',
            required: true,
            choicesFrom: { call: 'gateways', optionValue: 'deviceId', optionText: 'label' },
            helperText: '实例运行在该网关上，网关通过 MQTT 接入平台',
        },
        gatewayName: { label: '网关设备', readOnly: true },
        productName: { label: '网关产品', readOnly: true },
        productKey: { label: 'ProductKey', readOnly: true },
        status: { label: '网关状态', type: 'status', choices: [...DEVICE_STATUSES], readOnly: true },
        lastTime: { label: '最近心跳', type: 'datetime', format: 'YYYY-MM-DD HH:mm:ss', readOnly: true },
        version: {
            label: '配置版本',
            readOnly: true,
            render: (r) => (Number(r.version) ? `v${String(r.version)}` : '未部署'),
        },
        driverCount: { label: '驱动数', type: 'number', readOnly: true },
        deviceCount: { label: '子设备数', type: 'number', readOnly: true },
        deployStatus: {
            label: '部署状态',
            type: 'status',
            choices: [...DEPLOY_STATES],
            readOnly: true,
        },
        remark: { label: '备注', type: 'longText', maxLength: 200 },
        createTime: { label: '创建时间', type: 'datetime', format: 'YYYY-MM-DD HH:mm:ss', readOnly: true },
        // Drivers and sub-devices of the detail tabs.
        driverId: {
            label: '驱动',
            input: 'select',
            required: true,
            choicesFrom: { call: 'driverOptions', optionValue: 'id', optionText: 'label' },
        },
        driverName: { label: '驱动', readOnly: true, render: (r) => String(r.driverName ?? r.name ?? '-') },
        protocol: { label: '协议类型', type: 'select', choices: [...EDGE_PROTOCOLS], readOnly: true },
        config: { label: '驱动配置', type: 'longText', helperText: 'JSON 对象，按驱动的配置模板填写' },
        deviceName: { label: '设备名称', readOnly: true },
        message: { label: '网关应答', readOnly: true },
        answerTime: { label: '应答时间', type: 'datetime', format: 'YYYY-MM-DD HH:mm:ss', readOnly: true },
    },
    views: { list: false, show: false, edit: false, create: false },
    pages: [
        {
            path: '/edge/instance',
            title: '边缘实例',
            sections: [
                {
                    kind: 'list',
                    list: {
                        columns: [
                            'name',
                            'spec',
                            'gatewayName',
                            'status',
                            'lastTime',
                            'driverCount',
                            'deviceCount',
                            'version',
                            'deployStatus',
                        ],
                        perPage: 10,
                        perPageOptions: [10, 20, 30, 40],
                        filters: [{ source: 'name', label: '实例名称' }],
                        toolbar: [create],
                        rowActions: [
                            { kind: 'link', label: '查看', to: ({ record }) => detailPath(record) },
                            deploy,
                            remove(),
                        ],
                        empty: { text: '暂无边缘实例', action: create },
                    },
                },
            ],
        },
        {
            path: '/edge/instance/detail/:instanceId/*',
            title: '边缘实例详情',
            back: { label: '边缘实例', to: '/edge/instance' },
            record: {
                call: 'getOne',
                params: ({ route }) => ({ id: route.instanceId }),
                notFound: '该边缘实例不存在或已被删除',
                notFoundTitle: '边缘实例不存在',
            },
            header: {
                title: ({ record }) => String(record.name ?? ''),
                status: 'status',
                fields: ['gatewayName', 'version', 'deployStatus'],
                actions: [deploy, edit, remove('/edge/instance')],
            },
            tabs: [
                {
                    key: 'gateway',
                    label: '网关',
                    sections: [
                        {
                            kind: 'fields',
                            title: '实例信息',
                            columns: 2,
                            fields: ['name', 'id', 'spec', 'createTime', 'remark'],
                        },
                        {
                            kind: 'fields',
                            title: '网关设备',
                            columns: 2,
                            fields: ['gatewayName', 'productName', 'productKey', 'status', 'lastTime'],
                        },
                    ],
                },
                EDGE_TABS.monitor,
                {
                    key: 'driver',
                    label: '驱动',
                    sections: [
                        { kind: 'list', title: '实例驱动', list: driversList },
                        {
                            kind: 'tabs',
                            param: 'list',
                            label: '子设备',
                            tabs: [
                                {
                                    key: 'deviceList1',
                                    label: '已分配子设备',
                                    sections: [{ kind: 'list', list: deviceList1 }],
                                },
                                {
                                    key: 'deviceList2',
                                    label: '可分配子设备',
                                    sections: [{ kind: 'list', list: deviceList2 }],
                                },
                            ],
                        },
                    ],
                },
                EDGE_TABS.scene,
                EDGE_TABS.func,
                EDGE_TABS.data,
                EDGE_TABS.router,
                EDGE_TABS.setting,
                { key: 'log', label: '部署日志', sections: [{ kind: 'list', list: deploymentsList }] },
            ],
        },
    ],
    api: {
        success: 'code200',
        getList: {
            get: '/api/edge/instance/list',
            paging: ['pageNumber', 'pageSize'],
            read: 'data.records',
            total: 'data.total',
        },
        getOne: { get: '/api/edge/instance/get', params: (r) => ({ id: r.id }), read: 'data' },
        delete: { delete: '/api/edge/instance/delete', params: (r) => ({ id: r.id }) },
        custom: {
            save: { post: '/api/edge/instance/save', read: 'data' },
            delete: { delete: '/api/edge/instance/delete' },
            deploy: { post: '/api/edge/instance/deploy' },
            gateways: { get: '/api/edge/instance/gateways', read: 'data' },
            driverOptions: { get: '/api/edge/driver/options', read: 'data' },
            drivers: { get: '/api/edge/instance/drivers', read: 'data.records', total: 'data.total' },
            saveDriver: { post: '/api/edge/instance/driver/save' },
            removeDriver: { post: '/api/edge/instance/driver/remove' },
            devices: {
                get: '/api/edge/instance/devices',
                paging: ['pageNumber', 'pageSize'],
                read: 'data.records',
                total: 'data.total',
            },
            candidates: {
                get: '/api/edge/instance/candidates',
                paging: ['pageNumber', 'pageSize'],
                read: 'data.records',
                total: 'data.total',
            },
            assign: { post: '/api/edge/instance/device/assign', arrays: 'repeat' },
            removeDevice: { post: '/api/edge/instance/device/remove' },
            deployments: {
                get: '/api/edge/instance/deployments',
                paging: ['pageNumber', 'pageSize'],
                read: 'data.records',
                total: 'data.total',
            },
            ...EDGE_TAB_CALLS,
        },
    },
});
