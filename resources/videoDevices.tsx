import InsightsIcon from '@mui/icons-material/Insights';
import LiveTvIcon from '@mui/icons-material/LiveTv';
import SyncProblemIcon from '@mui/icons-material/SyncProblem';
import VideocamIcon from '@mui/icons-material/Videocam';
import VisibilityIcon from '@mui/icons-material/Visibility';
import WifiIcon from '@mui/icons-material/Wifi';
import {
    defineResource,
    type Action,
    type FieldDefinition,
    type FormValues,
    type ListSpec,
    type Row,
    type Scope,
} from '../src/engine/types';
import { DEVICE_STATUSES } from '../schemas/device';
import {
    DEFAULT_RTSP_PORT,
    DEFAULT_RTSP_URI,
    VIDEO_NAME_EDIT_MAX,
    VIDEO_NAME_MAX,
    VIDEO_PASSWORD_HINT,
    VIDEO_PASSWORD_MAX,
    VIDEO_PROTOCOLS,
    VIDEO_PUSH_STATES,
    gbDeviceSchema,
    rtspDeviceSchema,
    videoDeviceEditSchema,
} from '../schemas/videoDevice';

/**
 * Video (camera) devices, rtsp or gb28181 (SPEC.md "Video stream detail", "Video devices"; calls under
 * /api/video-device/*): the list at /videoList and the detail page /videoInfo/{deviceName}?deviceId=.
 */

const isRtsp = (v: FormValues) => v.protocol === 'rtsp';
const isGb = (v: FormValues) => v.protocol === 'gb28181';

/**
 * SPEC.md §4: push and stop push apply to rtsp only, push while stopped, stop push while pushing. A gb28181 camera is
 * watched the way GB/T 28181 platforms do it instead: 点播 (an INVITE, docs/video.md) once it has registered (online),
 * since the platform can only call it then, and 停止点播 (BYE). Both go through the same relay and calls.
 */
const canPush = ({ record }: Scope) => record.protocol === 'rtsp' && Number(record.pushing) === 0;
const canStopPush = ({ record }: Scope) => record.protocol === 'rtsp' && Number(record.pushing) === 1;
const canPlay = ({ record }: Scope) =>
    record.protocol === 'gb28181' && record.status === 'ONLINE' && Number(record.pushing) === 0;
const canStopPlay = ({ record }: Scope) => record.protocol === 'gb28181' && Number(record.pushing) === 1;

/** The form's values as a call sends them: the map input's own 'lng,lat' text and the confirmation stay home. */
const sent = (values: FormValues | undefined) => {
    const { position: _position, confirmPassword: _confirm, ...rest } = values ?? {};
    return rest;
};

const detailPath = (r: Row) =>
    `/videoInfo/${encodeURIComponent(String(r.deviceName ?? ''))}?deviceId=${encodeURIComponent(String(r.deviceId))}`;

/** Region dictionaries (SPEC.md "dictionary list by kind 1, 2 or 3"): the code goes with its name. */
const dictionary = (kind: number) => ({
    call: 'dictionary',
    params: () => ({ kind }),
    optionValue: 'code',
    optionText: 'name',
});

const REFRESH = ['videoDevices'];

const password: FieldDefinition = {
    label: '密码',
    input: 'password',
    masked: true,
    maxLength: VIDEO_PASSWORD_MAX,
    helperText: VIDEO_PASSWORD_HINT,
};

const addRtsp: Action = {
    kind: 'form',
    label: '添加RTSP设备',
    right: 'video.create',
    variant: 'contained',
    fields: [
        'productId',
        'protocol',
        'deviceName',
        'host',
        'port',
        'username',
        'password',
        'uri',
        'position',
        'tcode',
        'icode',
        'ncode',
        'remark',
    ],
    schema: rtspDeviceSchema,
    defaults: () => ({ protocol: 'rtsp', port: DEFAULT_RTSP_PORT, uri: DEFAULT_RTSP_URI }),
    submit: { call: 'addRtsp', params: ({ values }) => sent(values) },
    success: '添加成功',
    refresh: REFRESH,
};

const addGb: Action = {
    kind: 'form',
    label: '添加GB28181设备',
    right: 'video.create',
    fields: [
        'productId',
        'protocol',
        'deviceName',
        'manufacturer',
        // gb28181 registers with its password: required here, and said twice.
        ['password', { ...password, required: true }],
        'confirmPassword',
        'position',
        'tcode',
        'icode',
        'ncode',
        'remark',
    ],
    schema: gbDeviceSchema,
    // SPEC.md §5: a gb28181 camera has no uri.
    defaults: () => ({ protocol: 'gb28181', uri: '' }),
    submit: { call: 'addGb', params: ({ values }) => sent(values) },
    success: '添加成功',
    refresh: REFRESH,
};

/** One dialog for both protocols; its inputs follow the protocol, and so does the call it saves through. */
const edit: Action = {
    kind: 'form',
    label: '编辑',
    right: 'video.edit',
    title: '编辑视频设备',
    mode: 'edit',
    fields: [
        'productId',
        'protocol',
        'deviceName',
        'host',
        'port',
        'username',
        // A gb28181 camera's password is set when it is added; edit leaves it alone. The stored password is never
        // answered: an empty one keeps it.
        ['password', { ...password, visibleWhen: isRtsp, helperText: `留空则不修改；${VIDEO_PASSWORD_HINT}` }],
        'uri',
        'manufacturer',
        'remark',
    ],
    schema: videoDeviceEditSchema,
    defaults: ({ record }) => ({
        productId: record.productId,
        protocol: record.protocol,
        deviceName: record.deviceName ?? '',
        host: record.host ?? '',
        port: record.port ?? '',
        username: record.username ?? '',
        password: '',
        uri: record.uri ?? '',
        manufacturer: record.manufacturer ?? '',
        remark: record.remark ?? '',
    }),
    submit: {
        call: 'editRtsp',
        by: ({ record }) => (record.protocol === 'gb28181' ? 'editGb' : 'editRtsp'),
        params: ({ record, values = {} }) =>
            record.protocol === 'gb28181'
                ? // SPEC.md §7: edit gb28181 takes id, deviceName, manufacturer, remark.
                  {
                      id: record.deviceId,
                      deviceName: values.deviceName,
                      manufacturer: values.manufacturer ?? '',
                      remark: values.remark ?? '',
                  }
                : {
                      deviceId: record.deviceId,
                      deviceName: values.deviceName,
                      host: values.host,
                      port: values.port,
                      username: values.username ?? '',
                      password: values.password ?? '',
                      uri: values.uri ?? '',
                      remark: values.remark ?? '',
                  },
    },
    success: '修改成功',
    refresh: REFRESH,
};

const pushParams = ({ record }: Scope) => ({ projectId: record.projectId ?? '', deviceId: record.deviceId });

const push: Action = {
    kind: 'call',
    label: '推流',
    right: 'video.push',
    when: canPush,
    call: { call: 'push', params: pushParams },
    success: '操作成功',
    refresh: REFRESH,
};

const stopPush: Action = {
    kind: 'call',
    label: '停止推流',
    right: 'video.push',
    color: 'warning',
    when: canStopPush,
    call: { call: 'stopPush', params: pushParams },
    confirm: ({ record }) => `确定停止“${String(record.deviceName)}”推流吗？`,
    success: '操作成功',
    refresh: REFRESH,
};

const play: Action = { ...push, label: '点播', when: canPlay };

const stopPlay: Action = {
    ...stopPush,
    label: '停止点播',
    when: canStopPlay,
    confirm: ({ record }) => `确定停止“${String(record.deviceName)}”点播吗？`,
};

const remove = (then?: string): Action => ({
    kind: 'call',
    label: '删除',
    right: 'video.delete',
    color: 'error',
    call: { call: 'delete', params: ({ record }) => ({ id: record.deviceId }) },
    confirm: ({ record }) => `确定删除视频设备“${String(record.deviceName)}”吗？`,
    confirmTitle: '提示',
    success: '删除成功',
    failure: '删除失败',
    refresh: REFRESH,
    then: then ? () => then : undefined,
});

/** The video list (/videoList), also the 视频流列表 tab of /devices (resources/devices.tsx). */
export const videoDeviceList: ListSpec = {
    columns: ['deviceName', 'productName', 'protocol', 'status', 'pushing', 'createTime'],
    perPage: 10,
    perPageOptions: [10, 20, 30, 40],
    filters: [
        // SPEC.md §9: 全部 / 已激活 / 已停止, kept in the URL as ?status=.
        {
            source: 'pushing',
            label: '状态',
            input: 'tabs',
            choices: VIDEO_PUSH_STATES.map(({ id, name }) => ({ id, name })),
            param: 'status',
        },
        { source: 'deviceName', label: '设备名称' },
    ],
    toolbar: [addRtsp, addGb],
    rowActions: [
        { kind: 'link', label: '查看', to: ({ record }) => detailPath(record) },
        edit,
        push,
        stopPush,
        play,
        stopPlay,
        remove(),
    ],
    empty: { text: '暂无视频设备', action: addRtsp },
};

export default defineResource({
    name: 'videoDevices',
    label: '视频设备',
    icon: VideocamIcon,
    idField: 'deviceId',
    recordRepresentation: 'deviceName',
    menu: [
        {
            label: '视频设备',
            to: '/videoList',
            section: '设备接入',
            order: 5,
            icon: VideocamIcon,
            related: ['/videoInfo'],
        },
        { label: '视频统计', to: '/videoData', section: '设备接入', order: 6, icon: InsightsIcon },
    ],
    fields: {
        deviceId: { label: '设备ID', readOnly: true },
        deviceName: {
            label: '设备名称',
            type: 'link',
            linkTo: detailPath,
            required: true,
            maxLength: VIDEO_NAME_MAX,
            // SPEC.md §5: characters outside ASCII are stripped as typed.
            inputFilter: 'ascii',
            helperText: `以英文字母开头，支持英文字母、数字和下划线，最多${VIDEO_NAME_MAX}个字符`,
            perView: { edit: { maxLength: VIDEO_NAME_EDIT_MAX, helperText: undefined } },
        },
        productId: {
            label: '所属产品',
            input: 'select',
            required: true,
            choicesFrom: { call: 'products', optionValue: 'productId', optionText: 'productName' },
            perView: { edit: { locked: true } },
        },
        productName: { label: '所属产品', readOnly: true },
        protocol: { label: '接入协议', type: 'select', choices: [...VIDEO_PROTOCOLS], required: true, locked: true },
        status: { label: '设备状态', type: 'status', choices: [...DEVICE_STATUSES], readOnly: true },
        pushing: { label: '推流状态', type: 'status', choices: [...VIDEO_PUSH_STATES], readOnly: true },
        host: { label: '设备IP/域名', required: true, maxLength: 128, visibleWhen: isRtsp },
        port: {
            label: '端口',
            type: 'number',
            required: true,
            visibleWhen: isRtsp,
            // A port is a number, not a quantity: no thousands separator.
            number: { grouping: false },
        },
        username: { label: '用户名', maxLength: 32, visibleWhen: isRtsp },
        password,
        confirmPassword: { label: '确认密码', input: 'password', required: true, maxLength: VIDEO_PASSWORD_MAX },
        uri: { label: '取流地址', maxLength: 200, visibleWhen: isRtsp },
        manufacturer: { label: '厂商', maxLength: 64, visibleWhen: isGb },
        position: {
            label: '设备位置',
            type: 'position',
            position: {
                longitude: 'longitude',
                latitude: 'latitude',
                address: 'address',
                province: 'pcode',
                city: 'ccode',
                area: 'acode',
            },
        },
        tcode: {
            label: '设备类型',
            input: 'select',
            choicesFrom: dictionary(1),
            nameField: 'tname',
            render: (r) => String(r.tname ?? r.tcode ?? '-'),
        },
        icode: {
            label: '行业编码',
            input: 'select',
            choicesFrom: dictionary(2),
            nameField: 'iname',
            render: (r) => String(r.iname ?? r.icode ?? '-'),
        },
        ncode: {
            label: '网络标识',
            input: 'select',
            choicesFrom: dictionary(3),
            nameField: 'nname',
            render: (r) => String(r.nname ?? r.ncode ?? '-'),
        },
        sipId: { label: 'SIP服务器ID', readOnly: true },
        sipDomain: { label: 'SIP域', readOnly: true },
        sipIp: { label: 'SIP服务器IP', readOnly: true },
        sipPort: { label: 'SIP服务器端口', readOnly: true },
        gbId: { label: '国标编号', readOnly: true },
        channelId: { label: '通道编号', readOnly: true },
        channelName: { label: '通道名称', readOnly: true, render: (r) => String(r.name ?? '-') },
        channelMaker: { label: '厂商', readOnly: true, render: (r) => String(r.manufacturer ?? '-') },
        channelModel: { label: '型号', readOnly: true, render: (r) => String(r.model ?? '-') },
        channelStatus: {
            label: '状态',
            readOnly: true,
            render: (r) => (r.status === 'ON' ? '在线' : r.status === 'OFF' ? '离线' : String(r.status ?? '-')),
        },
        projectName: { label: '所属项目', readOnly: true, render: (r) => String(r.projectName ?? '未关联') },
        streamState: {
            label: '视频流',
            readOnly: true,
            render: (r) => {
                const stream = r.stream as { state?: string; error?: string | null } | null | undefined;
                const state = stream?.state ?? 'stopped';
                const text: Record<string, string> = {
                    starting: '连接中',
                    playing: '直播中',
                    retrying: '重连中',
                    stopped: '-',
                };
                return text[state] ?? state;
            },
        },
        registerTime: { label: '注册时间', type: 'datetime', format: 'YYYY-MM-DD HH:mm:ss', readOnly: true },
        keepaliveTime: { label: '最近心跳', type: 'datetime', format: 'YYYY-MM-DD HH:mm:ss', readOnly: true },
        remark: { label: '备注', type: 'longText', maxLength: 100 },
        createTime: { label: '添加时间', type: 'datetime', format: 'YYYY-MM-DD HH:mm:ss', readOnly: true },
    },
    views: { list: false, show: false, edit: false, create: false },
    pages: [
        {
            path: '/videoList',
            title: '视频设备',
            sections: [{ kind: 'list', list: videoDeviceList }],
        },
        {
            // SPEC.md names /videoData without its content: every camera across projects with its status, and
            // what the platform relays (pushing, playing, viewers, bytes), refreshed every 5 s.
            path: '/videoData',
            title: '视频统计',
            sections: [
                {
                    kind: 'counters',
                    title: '推流统计',
                    call: { call: 'statistics', every: 5 },
                    items: [
                        { label: '视频设备', value: 'total', icon: VideocamIcon, color: '#5470c6' },
                        { label: '在线', value: 'online', icon: WifiIcon, color: '#2e7d32' },
                        { label: '推流中', value: 'pushing', icon: LiveTvIcon, color: '#0288d1' },
                        { label: '正在重连', value: 'retrying', icon: SyncProblemIcon, color: '#ed6c02' },
                        { label: '观看人数', value: 'viewers', icon: VisibilityIcon, color: '#9c27b0' },
                        { label: '已转发(MB)', value: 'megabytes', icon: InsightsIcon, color: '#607d8b' },
                    ],
                },
                {
                    kind: 'list',
                    title: '全部视频设备',
                    list: {
                        columns: [
                            'deviceName',
                            'productName',
                            'projectName',
                            'protocol',
                            'status',
                            'pushing',
                            'streamState',
                        ],
                        perPage: 10,
                        perPageOptions: [10, 20, 30, 40],
                        urlPrefix: 'data_',
                        rowActions: [{ kind: 'link', label: '查看', to: ({ record }) => detailPath(record) }],
                        empty: { text: '暂无视频设备' },
                    },
                },
            ],
        },
        {
            path: '/videoInfo/:deviceName',
            title: '视频设备详情',
            back: { label: '视频设备', to: '/videoList' },
            record: {
                call: 'getOne',
                params: ({ query }) => ({ id: query.deviceId }),
                missing: ({ query }) => (query.deviceId ? undefined : '缺少设备ID'),
                notFound: ({ route }) => `未找到视频设备 ${route.deviceName}`,
                notFoundTitle: '视频设备不存在',
            },
            header: {
                title: ({ record }) => String(record.deviceName ?? ''),
                status: 'pushing',
                fields: ['productName', 'protocol', 'status'],
                actions: [edit, push, stopPush, play, stopPlay, remove('/videoList')],
            },
            sections: [
                {
                    kind: 'fields',
                    title: '设备信息',
                    columns: 2,
                    fields: [
                        ['deviceName', { label: '设备名称' }],
                        ['deviceId', { label: '设备ID', copy: true }],
                        'productName',
                        'protocol',
                        'status',
                        'pushing',
                        'position',
                        'tcode',
                        'icode',
                        'ncode',
                        'remark',
                        'createTime',
                    ],
                },
                {
                    kind: 'fields',
                    title: 'RTSP取流',
                    when: ({ record }) => record.protocol === 'rtsp',
                    columns: 2,
                    fields: [
                        'host',
                        'port',
                        'username',
                        [
                            'password',
                            { ...password, masked: false, render: (r) => (r.hasPassword ? '已设置' : '未设置') },
                        ],
                        'uri',
                    ],
                },
                {
                    kind: 'widget',
                    title: '实时画面',
                    widget: 'liveVideo',
                    // Both protocols play through the same HLS relay (a gb28181 camera once pushed over INVITE).
                    props: ({ record }) => ({
                        resource: 'videoDevices',
                        deviceId: record.deviceId,
                        pushing: record.pushing,
                    }),
                },
                {
                    kind: 'fields',
                    title: 'GB28181接入',
                    when: ({ record }) => record.protocol === 'gb28181',
                    columns: 2,
                    fields: [
                        'manufacturer',
                        ['gbId', { label: '国标编号', copy: true }],
                        'sipId',
                        'sipDomain',
                        'sipIp',
                        'sipPort',
                        'registerTime',
                        'keepaliveTime',
                    ],
                },
                {
                    kind: 'list',
                    title: '通道',
                    when: ({ record }) => record.protocol === 'gb28181',
                    // The channels the camera answered to the catalog query after it registered.
                    list: {
                        rows: ({ record }) => (Array.isArray(record.channels) ? (record.channels as Row[]) : []),
                        rowId: 'channelId',
                        columns: ['channelId', 'channelName', 'channelMaker', 'channelModel', 'channelStatus'],
                        empty: { text: '暂无通道（设备注册后平台会查询其目录）' },
                    },
                },
            ],
        },
    ],
    api: {
        success: 'code200',
        idField: 'deviceId',
        getList: {
            get: '/api/video-device/list',
            paging: ['pageNumber', 'pageSize'],
            read: 'data.records',
            total: 'data.total',
        },
        getOne: { get: '/api/video-device/get', params: (r) => ({ id: r.id }), read: 'data' },
        delete: { delete: '/api/video-device/delete', params: (r) => ({ id: r.id }) },
        custom: {
            addRtsp: { post: '/api/video-device/add-rtsp' },
            editRtsp: { post: '/api/video-device/edit-rtsp' },
            addGb: { post: '/api/video-device/add-gb28181' },
            editGb: { post: '/api/video-device/edit-gb28181' },
            push: { post: '/api/video-device/push' },
            stopPush: { post: '/api/video-device/stop-push' },
            dictionary: { get: '/api/video-device/dict', read: 'data' },
            streamStatus: { get: '/api/video-device/stream-status', read: 'data' },
            statistics: {
                get: '/api/video-device/statistics',
                read: 'data',
                transform: (data) => ({ ...data, megabytes: (Number(data.bytesServed ?? 0) / 1048576).toFixed(1) }),
            },
            products: { get: '/api/product/list-product', read: 'data.list' },
        },
    },
});
