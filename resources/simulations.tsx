import SmartToyIcon from '@mui/icons-material/SmartToy';
import { DEVICE_STATUSES } from '../schemas/device';
import {
    SIMULATION_DEVICES_MAX,
    SIMULATION_INTERVAL_MAX,
    SIMULATION_INTERVAL_MIN,
    SIMULATION_MODES,
    simulationFormSchema,
} from '../schemas/simulation';
import { defineResource, type Action, type FormValues, type Row } from '../src/engine/types';

/**
 * Device simulation /monitor/imitate (issue 10; docs/device-access.md "Simulation"; calls under /api/simulation):
 * simulated devices of one product sign in through the platform's broker with their own secrets and report values
 * from the thing model every interval, in the server, so they keep running when the browser closes.
 */

const STATES = [
    { id: 'RUNNING', name: '运行中', color: 'success' as const },
    { id: 'STOPPED', name: '已停止', color: 'default' as const },
];

const REFRESH = ['simulations'];

const detailPath = (r: Row) =>
    r.firstDeviceId ? `/devInstanceDetail/${String(r.productId)}/${String(r.firstDeviceId)}` : '';

/** Key / value rows of the form as the call's JSON object (identifier → value as typed; the server types it). */
function fixedValuesOf(values: FormValues | undefined): string {
    const rows = Array.isArray(values?.fixedValues)
        ? (values.fixedValues as Array<{ key?: unknown; value?: unknown }>)
        : [];
    const out: Record<string, unknown> = {};
    for (const r of rows) {
        const key = String(r?.key ?? '').trim();
        if (key) out[key] = r?.value ?? '';
    }
    return JSON.stringify(out);
}

const create: Action = {
    kind: 'form',
    label: '新建模拟',
    right: 'simulation.create',
    variant: 'contained',
    width: 'md',
    fields: ['productKey', 'deviceIds', 'amount', 'intervalSeconds', 'mode', 'fixedValues', 'events', 'start'],
    schema: simulationFormSchema,
    defaults: () => ({ deviceIds: [], amount: 0, intervalSeconds: 5, mode: 'random', events: false, start: true }),
    submit: {
        call: 'save',
        params: ({ values }) => ({
            productKey: values?.productKey,
            deviceIds: (values?.deviceIds as unknown[] | undefined) ?? [],
            amount: values?.amount ?? 0,
            intervalSeconds: values?.intervalSeconds,
            mode: values?.mode,
            fixedValues: values?.mode === 'fixed' ? fixedValuesOf(values) : '',
            events: values?.events ? 'true' : 'false',
            start: values?.start === false ? 'false' : 'true',
        }),
    },
    note: `模拟设备通过平台的 MQTT 接入服务以各自的密钥连接，与真实设备一样上线、上报；关闭浏览器后仍继续运行。每个模拟最多${SIMULATION_DEVICES_MAX}台设备。`,
    success: '模拟已创建',
    refresh: REFRESH,
};

const start: Action = {
    kind: 'call',
    label: '启动',
    right: 'simulation.edit',
    when: ({ record }) => !record.running,
    call: { call: 'start', params: ({ record }) => ({ id: record.id }) },
    success: '模拟已启动',
    refresh: REFRESH,
};

const stop: Action = {
    kind: 'call',
    label: '停止',
    right: 'simulation.edit',
    color: 'warning',
    when: ({ record }) => !!record.running,
    call: { call: 'stop', params: ({ record }) => ({ id: record.id }) },
    confirm: ({ record }) => `确定停止该模拟吗？其 ${String(record.deviceCount)} 台设备将下线。`,
    success: '模拟已停止',
    refresh: REFRESH,
};

const remove: Action = {
    kind: 'call',
    label: '删除',
    right: 'simulation.delete',
    color: 'error',
    call: { call: 'remove', params: ({ record }) => ({ id: record.id }) },
    confirm: ({ record }) =>
        `确定删除产品“${String(record.productName)}”的这个模拟吗？模拟将停止，其设备保留在设备列表中。`,
    success: '删除成功',
    refresh: REFRESH,
};

export default defineResource({
    name: 'simulations',
    label: '设备模拟',
    icon: SmartToyIcon,
    menu: { label: '设备模拟', to: '/monitor/imitate', section: '监控运维', order: 4, icon: SmartToyIcon },
    fields: {
        productName: { label: '产品' },
        deviceCount: { label: '设备数', type: 'number' },
        firstDeviceName: { label: '首个设备', type: 'link', linkTo: detailPath },
        intervalSeconds: {
            label: '上报间隔',
            type: 'number',
            required: true,
            render: (r) => `${String(r.intervalSeconds)} 秒`,
            formLabel: () => '上报间隔（秒）',
            helperText: `${SIMULATION_INTERVAL_MIN}~${SIMULATION_INTERVAL_MAX} 秒`,
        },
        mode: { label: '取值方式', type: 'select', input: 'radio', choices: SIMULATION_MODES, required: true },
        state: { label: '状态', type: 'status', choices: STATES },
        connected: { label: '在线设备', render: (r) => `${String(r.connected ?? 0)} / ${String(r.deviceCount ?? 0)}` },
        messagesSent: { label: '已发送消息', type: 'number' },
        createTime: { label: '创建时间' },

        // The 新建模拟 form.
        productKey: {
            label: '产品',
            input: 'select',
            required: true,
            choicesFrom: { call: 'products', optionValue: 'productKey', optionText: 'productName' },
            resets: { deviceIds: [] },
        },
        deviceIds: {
            label: '选择已有设备',
            input: 'picker',
            visibleWhen: (v) => !!v.productKey,
            picker: {
                source: { call: 'devices', params: ({ values }) => ({ productKey: values?.productKey }) },
                rowId: 'deviceId',
                columns: [
                    ['deviceName', { label: '设备名称' }],
                    ['status', { label: '状态', type: 'status', choices: [...DEVICE_STATUSES] }],
                ],
                perPage: 5,
                filters: [{ source: 'deviceName', label: '设备名称' }],
            },
        },
        amount: {
            label: '新建模拟设备数量',
            type: 'number',
            helperText: `另建的设备名为 sim_XXXX，0~${SIMULATION_DEVICES_MAX}`,
        },
        fixedValues: {
            label: '固定值',
            input: 'keyValue',
            keyValue: { keyLabel: '属性标识符', valueLabel: '值', addLabel: '添加属性', max: 50 },
            visibleWhen: (v) => v.mode === 'fixed',
        },
        events: { label: '同时上报事件（每个间隔随机一个）', type: 'boolean' },
        start: { label: '创建后立即启动', type: 'boolean' },
    },
    views: { list: false, show: false, edit: false, create: false },
    pages: [
        {
            path: '/monitor/imitate',
            title: '设备模拟',
            sections: [
                {
                    kind: 'list',
                    list: {
                        // Asked again every 3 s: devices online and messages sent move while it runs.
                        source: { call: 'getList', every: 3 },
                        columns: [
                            'productName',
                            'deviceCount',
                            'firstDeviceName',
                            'intervalSeconds',
                            'mode',
                            'state',
                            'connected',
                            'messagesSent',
                            'createTime',
                        ],
                        perPage: 10,
                        perPageOptions: [10, 20, 50],
                        counters: {
                            items: [
                                { label: '模拟总数', value: 'total' },
                                { label: '运行中', value: 'running' },
                            ],
                        },
                        toolbar: [create],
                        rowActions: [start, stop, remove],
                        empty: { text: '暂无模拟，点击“新建模拟”让设备上线上报', action: create },
                    },
                },
            ],
        },
    ],
    api: {
        success: 'code200',
        getList: {
            get: '/api/simulation/list',
            paging: ['pageNumber', 'pageSize'],
            read: 'data.records',
            total: 'data.total',
            transform: (row) => ({ ...row, state: row.running ? 'RUNNING' : 'STOPPED' }),
        },
        custom: {
            save: { post: '/api/simulation/save', read: 'data' },
            remove: { delete: '/api/simulation/delete' },
            start: { post: '/api/simulation/start' },
            stop: { post: '/api/simulation/stop' },
            products: { get: '/api/product/list-product', read: 'data.list' },
            devices: {
                get: '/api/device/list',
                paging: ['pageNumber', 'pageSize'],
                read: 'data.records',
                total: 'data.total',
                success: 'code0',
            },
        },
    },
});
