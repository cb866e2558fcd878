import BugReportIcon from '@mui/icons-material/BugReport';
import ReceiptLongIcon from '@mui/icons-material/ReceiptLong';
import SpeedIcon from '@mui/icons-material/Speed';
import * as yup from 'yup';
import { defineResource, type FieldDefinition } from '../src/engine/types';
import type { FilterSpec, Scope, Section } from '../src/engine/vocabulary';
import { memberList } from './cluster/members';

/**
 * Device access monitors (docs/device-access.md): /monitor/real (live figures), /monitor/debug (send a property
 * set, a service call or a message to one device and watch its traffic) and /monitor/deviceLog (one device's live
 * stream and its message history). Calls: /api/monitor/*, /api/device/propertyTestSet, /serviceTestSet,
 * /ms3/publishMessage.
 */

const DIRECTIONS = [
    { id: 'up', name: '上行', color: 'primary' as const },
    { id: 'down', name: '下行', color: 'secondary' as const },
    { id: 'status', name: '状态', color: 'default' as const },
];

const traffic: Array<[string, FieldDefinition]> = [
    ['time', { label: '时间', type: 'datetime', format: 'HH:mm:ss.SSS' }],
    ['direction', { label: '方向', type: 'status', choices: DIRECTIONS }],
    ['deviceName', { label: 'DeviceName' }],
    ['topic', { label: 'Topic' }],
    ['payload', { label: '内容' }],
];

/** Product, then one of its devices, kept in the URL (?productKey=&deviceId=). */
const pickDevice: FilterSpec[] = [
    {
        source: 'productKey',
        label: '产品',
        input: 'select',
        allLabel: false,
        choicesFrom: { resource: 'products', call: 'listAll', optionValue: 'productKey', optionText: 'productName' },
        resets: ['deviceId'],
    },
    {
        source: 'deviceId',
        label: '设备',
        input: 'select',
        allLabel: false,
        choicesFrom: {
            call: 'devicesOfProduct',
            params: ({ query }) => ({ productKey: query.productKey ?? '' }),
            optionValue: 'deviceId',
            optionText: 'deviceName',
        },
    },
];

const chosen = ({ query }: Scope) => Boolean(query.deviceId);

/** What became of a downlink call, in words (the answer's state). */
function outcome(answer: unknown): string {
    const a = (answer ?? {}) as { state?: string; code?: number; message?: string };
    switch (a.state) {
        case 'replied':
            return a.code === 200
                ? '设备已应答：成功（code 200）'
                : `设备已应答：code ${a.code}${a.message ? `，${a.message}` : ''}`;
        case 'sent':
            return '已下发（异步调用，设备的应答见实时消息）';
        case 'timeout':
            return '已下发，设备未在规定时间内应答';
        default:
            return a.message ?? '设备不在线';
    }
}

const json = (label: string) =>
    yup
        .string()
        .trim()
        .required(`请输入${label}`)
        .test('json', `${label}须为 JSON 对象，例如 {"Brightness": 50}`, (v) => {
            try {
                const parsed = JSON.parse(v ?? '') as unknown;
                return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed);
            } catch {
                return false;
            }
        });

const debugSections: Section[] = [
    {
        kind: 'actions',
        title: '调试',
        when: (scope) => !chosen(scope),
        text: '请先在上方选择产品和设备。设备连接平台的 MQTT 服务后即可调试（也可在“设备模拟”中启动模拟设备）。',
        actions: [],
    },
    {
        kind: 'actions',
        title: '调试',
        when: chosen,
        text: '向所选设备下发指令；设备的应答与上报实时显示在下方。',
        actions: [
            {
                kind: 'form',
                label: '设置属性',
                right: 'device.downlink',
                variant: 'contained',
                title: '设置属性',
                fields: [
                    [
                        'params',
                        {
                            label: '属性值（JSON）',
                            input: 'textarea',
                            required: true,
                            helperText: '可写属性的标识符与值，例如 {"Brightness": 50}；值须符合物模型',
                        },
                    ],
                ],
                schema: yup.object({ params: json('属性值') }),
                submit: {
                    call: 'propertyTestSet',
                    params: ({ query, values }) => ({ deviceId: query.deviceId, params: values?.params, sync: 'true' }),
                },
                success: outcome,
                refresh: [],
            },
            {
                kind: 'form',
                label: '调用服务',
                right: 'device.downlink',
                title: '调用服务',
                fields: [
                    ['identifier', { label: '服务标识符', required: true, helperText: '物模型中服务的标识符' }],
                    [
                        'params',
                        {
                            label: '输入参数（JSON）',
                            input: 'textarea',
                            defaultValue: '{}',
                            helperText: '例如 {"OnTime": "18:00"}',
                        },
                    ],
                ],
                schema: yup.object({
                    identifier: yup.string().trim().required('请输入服务标识符'),
                    params: json('输入参数'),
                }),
                submit: {
                    call: 'serviceTestSet',
                    params: ({ query, values }) => ({
                        deviceId: query.deviceId,
                        identifier: values?.identifier,
                        params: values?.params,
                    }),
                },
                success: outcome,
                refresh: [],
            },
            {
                kind: 'form',
                label: '发布消息',
                right: 'device.downlink',
                title: '发布消息',
                fields: [
                    [
                        'topic',
                        {
                            label: 'Topic',
                            required: true,
                            helperText: '只能发布到该设备自己的 Topic，例如 /{productKey}/{deviceName}/user/get',
                        },
                    ],
                    ['payload', { label: '消息内容', input: 'textarea' }],
                    [
                        'qos',
                        {
                            label: 'QoS',
                            input: 'radio',
                            choices: [
                                { id: '0', name: '0' },
                                { id: '1', name: '1' },
                            ],
                            defaultValue: '0',
                        },
                    ],
                ],
                schema: yup.object({
                    topic: yup.string().trim().required('请输入 Topic'),
                    payload: yup.string().max(262144, '消息内容不能超过 256KB'),
                }),
                submit: {
                    call: 'publishMessage',
                    params: ({ query, values }) => ({
                        deviceId: query.deviceId,
                        topic: values?.topic,
                        payload: values?.payload ?? '',
                        qos: values?.qos ?? '0',
                    }),
                },
                success: '消息已发布',
                refresh: [],
            },
        ],
    },
    {
        kind: 'stream',
        title: '实时消息',
        when: chosen,
        source: { call: 'stream', params: ({ query }) => ({ deviceId: query.deviceId }) },
        event: 'traffic',
        columns: traffic,
        empty: '等待设备的消息…',
    },
];

const TIME_RANGES = [
    { id: 'hour', name: '最近1小时' },
    { id: 'day', name: '最近1天' },
    { id: 'week', name: '最近7天' },
    { id: 'month', name: '最近30天' },
];

const logSections: Section[] = [
    {
        kind: 'actions',
        title: '设备日志',
        when: (scope) => !chosen(scope),
        text: '请先在上方选择产品和设备。',
        actions: [],
    },
    {
        kind: 'stream',
        title: '实时日志',
        when: chosen,
        source: { call: 'stream', params: ({ query }) => ({ deviceId: query.deviceId }) },
        event: 'traffic',
        columns: traffic,
        empty: '等待设备的消息…',
    },
    {
        kind: 'list',
        title: '历史消息',
        when: chosen,
        list: {
            source: { call: 'history', params: ({ query }) => ({ deviceId: query.deviceId }) },
            urlPrefix: 'history',
            columns: [
                ['time', { label: '时间', type: 'datetime', format: 'YYYY-MM-DD HH:mm:ss' }],
                ['method', { label: '方法' }],
                ['data', { label: '内容', render: (r) => JSON.stringify(r.data) }],
            ],
            filters: [
                {
                    source: 'timeType',
                    label: '时间范围',
                    input: 'select',
                    choices: TIME_RANGES,
                    allLabel: false,
                    defaultValue: 'day',
                },
            ],
            rowId: 'id',
            perPage: 10,
            perPageOptions: [10, 20, 50],
            empty: { text: '该时间范围内没有消息' },
            dense: true,
        },
    },
];

export default defineResource({
    name: 'monitor',
    label: '监控运维',
    menu: [
        { label: '实时监控', to: '/monitor/real', section: '监控运维', order: 1, icon: SpeedIcon },
        { label: '在线调试', to: '/monitor/debug', section: '监控运维', order: 2, icon: BugReportIcon },
        { label: '设备日志', to: '/monitor/deviceLog', section: '监控运维', order: 3, icon: ReceiptLongIcon },
    ],
    hidden: true,
    fields: {},
    views: { list: false, show: false, edit: false, create: false },
    pages: [
        {
            path: '/monitor/real/*',
            title: '实时监控',
            tabs: [
                {
                    key: 'metrics',
                    label: '数据指标',
                    sections: [
                        {
                            kind: 'counters',
                            call: { call: 'real', every: 2 },
                            items: [
                                { label: '在线连接', value: 'connected' },
                                { label: '上行消息/秒', value: 'upPerSecond' },
                                { label: '下行消息/秒', value: 'downPerSecond' },
                                { label: '上行消息总数', value: 'totals.up' },
                            ],
                        },
                        {
                            kind: 'chart',
                            title: '最近一分钟的消息数（每秒）',
                            chart: {
                                kind: 'line',
                                call: { call: 'real', every: 2 },
                                rows: 'series',
                                x: 'second',
                                series: [
                                    { field: 'up', label: '上行' },
                                    // Each post's reply is a downlink: dashed, the two lines stay apart where equal.
                                    { field: 'down', label: '下行', dashed: true },
                                ],
                                empty: '暂无消息',
                                height: 240,
                            },
                        },
                        {
                            kind: 'list',
                            list: { ...memberList('realNodes'), title: '各服务进程的份额（以上数字为全部进程之和）' },
                        },
                        {
                            kind: 'list',
                            title: '各产品的上行消息',
                            list: {
                                source: { call: 'realProducts', every: 2 },
                                columns: [
                                    ['productName', { label: '产品名称' }],
                                    ['productKey', { label: 'ProductKey' }],
                                    ['online', { label: '在线设备', type: 'number' }],
                                    ['upPerSecond', { label: '上行消息/秒', type: 'number' }],
                                ],
                                rowId: 'productKey',
                                paging: false,
                                empty: { text: '最近 5 秒没有设备上报消息' },
                                dense: true,
                            },
                        },
                    ],
                },
            ],
        },
        { path: '/monitor/debug', title: '在线调试', params: pickDevice, sections: debugSections },
        { path: '/monitor/deviceLog', title: '设备日志', params: pickDevice, sections: logSections },
    ],
    api: {
        success: 'code0',
        custom: {
            real: { get: '/api/monitor/real', read: 'data', success: 'code200' },
            realProducts: { get: '/api/monitor/real', read: 'data.products', success: 'code200' },
            realNodes: { get: '/api/monitor/real', read: 'data.nodes', success: 'code200' },
            stream: { get: '/api/monitor/stream' },
            devicesOfProduct: {
                get: '/api/device/list',
                params: ({ productKey }) => ({ productKey, pageNumber: 1, pageSize: 500 }),
                read: 'data.records',
            },
            history: {
                get: '/api/device/events',
                paging: ['nextPage', 'pageSize'],
                read: 'data.resultList',
                total: 'data.totalCount',
            },
            propertyTestSet: { post: '/api/device/propertyTestSet', read: 'data' },
            serviceTestSet: { post: '/api/device/serviceTestSet', read: 'data' },
            publishMessage: { post: '/ms3/publishMessage', read: 'data', success: 'code200' },
        },
    },
});
