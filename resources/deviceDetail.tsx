import * as yup from 'yup';
import { OTA_DEVICE_CALLS, otaSections } from './ota/deviceTab';
import { SHADOW_CALLS, shadowSections } from './deviceShadow';
import RefreshIcon from '@mui/icons-material/Refresh';
import EditIcon from '@mui/icons-material/Edit';
import UploadIcon from '@mui/icons-material/Upload';
import AddIcon from '@mui/icons-material/Add';
import {
    defineResource,
    type Action,
    type FieldDefinition,
    type ListSpec,
    type PageSpec,
    type Row,
    type Scope,
    type Section,
    type TabSpec,
} from '../src/engine/types';
import { DEVICE_STATUSES, deviceEditSchema, normaliseStatus } from '../schemas/device';
import { topicSections } from './topics';
import {
    FILE_EXTENSIONS,
    FILE_MAX_BYTES,
    FILE_MESSAGES,
    FILE_PAGE_SIZE,
    FILE_RULE_TEXT,
    fileProblem,
} from '../schemas/deviceFile';
import { NODE_TYPES } from '../schemas/product';
import { COORDINATE_KEY, DEVICE_TAG_TYPE, MAX_TAGS, TAG_MESSAGES, deviceTagsFormSchema } from '../schemas/tag';

/**
 * The device detail screens (SPEC.md "Device instance detail", "Device detail"): three routes that differ only in
 * how they find the device, sharing one set of tabs (TAB below): info with credentials, remark and tags; topics;
 * thing-model data (properties and their history, events, services); run status; event manage; service calls;
 * sub-devices of a gateway; files; data subscription; firmware; the device shadow (deviceShadow.ts). The calls are
 * docs/platform-api.md "Device detail".
 */

const DETAIL = 'deviceDetail';
/** What a write on a device reloads: this page's calls and the device lists behind it. */
const REFRESH = [DETAIL, 'devices'];

/** SPEC.md: run status fetches 10 entries; property history pages 10/20/50; device detail events 50 a page. */
const REPORT_SIZE = 10;
const EVENTS_PAGE_SIZE = 50;
/** SPEC.md "The error catalogue": run status when ListProperty answers a code other than 0. */
const NO_PROPERTY_DATA = '未上报属性数据';
const NOTHING_CHOSEN = '请选择要添加的子设备';
const REMARK_TOO_LONG = '备注不得超过100个字符';

const dash = (v: unknown): string => (v === null || v === undefined || v === '' ? '-' : String(v));

/** A reported value or payload as plain text: strings as they are, anything else as JSON (never markup). */
function asText(value: unknown): string {
    if (value === null || value === undefined) return '';
    if (typeof value === 'string') return value;
    if (typeof value === 'number' || typeof value === 'boolean') return String(value);
    try {
        return JSON.stringify(value);
    } catch {
        return String(value);
    }
}

function humanSize(bytes: unknown): string {
    const n = Number(bytes);
    if (!Number.isFinite(n) || n < 0) return '-';
    if (n < 1024) return `${n} B`;
    if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
    if (n < 1024 * 1024 * 1024) return `${(n / 1024 / 1024).toFixed(1)} MB`;
    return `${(n / 1024 / 1024 / 1024).toFixed(1)} GB`;
}

/** Integer and floating point properties are charted; the other types (text, enum, bool, struct ...) are tabled. */
const isNumeric = (dataTypeName: unknown) => /整数|浮点|^int|^float|^double/i.test(String(dataTypeName ?? ''));

/** 'lat,lng' of a coordinate tag. */
function parsePoint(value: unknown): { lng: number; lat: number } | null {
    const m = /^\s*(-?\d+(?:\.\d+)?)\s*,\s*(-?\d+(?:\.\d+)?)\s*$/.exec(String(value ?? ''));
    if (!m) return null;
    const lat = Number(m[1]);
    const lng = Number(m[2]);
    return Math.abs(lat) <= 90 && Math.abs(lng) <= 180 ? { lng, lat } : null;
}

function location(r: Row): string {
    const located =
        r.longitude !== null && r.longitude !== undefined && r.latitude !== null && r.latitude !== undefined;
    const coords = located ? `经度 ${String(r.longitude)}，纬度 ${String(r.latitude)}` : '';
    const addr = r.addr ? String(r.addr) : '';
    if (addr && coords) return `${addr}（${coords}）`;
    return addr || coords || '未设置位置';
}

const isGateway = ({ record }: Scope) => Number(record.nodeType) === 1;
/** The device of the page, also where a row (a property, a file) is the record. */
const device = (scope: Scope): Row => scope.page ?? scope.record;

export const childDetailPath = (r: Row) =>
    `/childDeviceDetail/${encodeURIComponent(String(r.productId))}/${encodeURIComponent(String(r.deviceId))}`;

// ---------------------------------------------------------------- 设备信息

const refreshStatus: Action = {
    kind: 'call',
    label: '刷新',
    icon: RefreshIcon,
    call: {
        call: 'getStatus',
        params: ({ record }) => ({ productKey: record.productKey, deviceName: record.deviceName }),
    },
    success: '操作成功',
    failure: '查询失败',
    refresh: REFRESH,
};

/** 编辑设备: the remark (required, at most 100) through UpdateDeviceNickname; DeviceName is shown, not edited. */
const editRemark: Action = {
    kind: 'form',
    label: '编辑',
    right: 'device.edit',
    icon: EditIcon,
    title: '编辑设备',
    mode: 'edit',
    fields: [
        ['deviceName', { label: 'DeviceName', maxLength: 100, locked: true }],
        ['remark', { label: '备注名称', required: true, maxLength: 100, helperText: '不超过100个字符' }],
    ],
    schema: deviceEditSchema,
    defaults: ({ record }) => ({ deviceName: record.deviceName, remark: record.remark ?? '' }),
    submit: {
        call: 'updateRemark',
        params: ({ record, values }) => ({ deviceId: record.deviceId, remark: values?.remark }),
    },
    success: '修改成功',
    refresh: REFRESH,
};

/** The tag dialog's rows back into what POST /api/tag/save takes: every row, the location as the `coordinate` tag. */
function tagItems(values: Row = {}): Array<{ id?: number; key: string; value: string }> {
    const rows = (Array.isArray(values.items) ? values.items : []) as Row[];
    const items = rows.map((r) => ({
        ...(r.tagId ? { id: Number(r.tagId) } : {}),
        key: String(r.key ?? '').trim(),
        value: String(r.value ?? ''),
    }));
    const located = values.lng !== undefined && values.lng !== null && values.lng !== '';
    if (located && (values.hasLocation || values.locationId)) {
        items.unshift({
            ...(values.locationId ? { id: Number(values.locationId) } : {}),
            key: COORDINATE_KEY,
            value: `${String(values.lat)},${String(values.lng)}`,
        });
    }
    return items;
}

const tagsOf = ({ record }: Scope) => ({ type: DEVICE_TAG_TYPE, objectId: record.deviceId });

/**
 * 编辑标签 (SPEC.md "Tags and map"): a location picked on the map (the `coordinate` tag) and key/value rows, every
 * rule of schemas/tag.ts checked before anything is sent; a saved row is deleted at once after its confirmation.
 */
const editTags: Action = {
    kind: 'form',
    label: '编辑标签',
    icon: EditIcon,
    width: 'md',
    load: { call: 'tags', params: tagsOf },
    fields: [
        ['hasLocation', { label: '设置位置标签', input: 'boolean', visibleWhen: (v) => !v.locationId }],
        [
            'location',
            {
                label: '位置',
                type: 'position',
                position: { longitude: 'lng', latitude: 'lat', address: 'addr' },
                visibleWhen: (v) => !!v.hasLocation || !!v.locationId,
            },
        ],
        [
            'items',
            {
                label: '自定义标签',
                input: 'keyValue',
                keyValue: {
                    keyLabel: 'Key',
                    valueLabel: 'Value',
                    addLabel: '添加标签',
                    max: MAX_TAGS,
                    remove: {
                        when: (row) => !!row.tagId,
                        confirm: (row) => `是否删除标签「${String(row.key)}」？删除后立即生效。`,
                        call: {
                            call: 'deleteTag',
                            params: ({ record, values }) => ({ ...tagsOf({ record } as Scope), id: values?.tagId }),
                        },
                        success: TAG_MESSAGES.deleted,
                        failure: TAG_MESSAGES.deleteFailed,
                    },
                },
            },
        ],
    ],
    schema: deviceTagsFormSchema,
    defaults: ({ record, data }) => {
        const tags = (Array.isArray(data?.load) ? data.load : []) as Row[];
        const coordinate = tags.find((t) => t.key === COORDINATE_KEY);
        const point = parsePoint(coordinate?.value);
        return {
            hasLocation: !!coordinate,
            locationId: coordinate?.id,
            lng: point?.lng,
            lat: point?.lat,
            addr: record.addr ?? '',
            location: point ? `${point.lng},${point.lat}` : '',
            items: tags
                .filter((t) => t.key !== COORDINATE_KEY)
                .map((t) => ({ tagId: t.id, key: t.key, value: t.value })),
        };
    },
    submit: {
        call: 'saveTags',
        params: ({ record, values }) => ({
            ...tagsOf({ record } as Scope),
            items: tagItems(values),
            addr: values?.addr ? String(values.addr) : undefined,
        }),
    },
    success: '保存成功',
    failure: '保存失败',
    refresh: REFRESH,
};

const tagList: ListSpec = {
    source: { call: 'tags', params: tagsOf },
    rowId: 'id',
    paging: false,
    dense: true,
    columns: [
        ['key', { label: 'Key', render: (r) => (r.key === COORDINATE_KEY ? '位置' : String(r.key)) }],
        [
            'value',
            {
                label: 'Value',
                render: (r) => {
                    if (r.key !== COORDINATE_KEY) return String(r.value ?? '');
                    const point = parsePoint(r.value);
                    return point ? `纬度 ${point.lat}，经度 ${point.lng}` : String(r.value ?? '');
                },
            },
        ],
    ],
    toolbar: [editTags],
    rowActions: [
        {
            kind: 'call',
            label: '删除',
            right: 'device.edit',
            color: 'error',
            call: {
                call: 'deleteTag',
                params: ({ record, page }) => ({ ...tagsOf({ record: page ?? {} } as Scope), id: record.id }),
            },
            confirm: ({ record }) =>
                `是否删除${record.key === COORDINATE_KEY ? '位置标签' : `标签「${String(record.key)}」`}？删除后立即生效。`,
            success: TAG_MESSAGES.deleted,
            failure: TAG_MESSAGES.deleteFailed,
            refresh: REFRESH,
        },
    ],
    empty: { text: '暂无标签，点击“编辑标签”添加。' },
};

const infoSections: Section[] = [
    {
        kind: 'fields',
        title: '设备信息',
        columns: 2,
        fields: [
            'productName',
            'productKey',
            'nodeType',
            'deviceName',
            'remark',
            'createTime',
            'lastTime',
            'status',
            'username',
            'location',
            'clientId',
            'secret',
        ],
        actions: [refreshStatus, editRemark],
    },
    { kind: 'list', title: '标签信息', list: tagList },
];

// ---------------------------------------------------------------- 物模型数据, 运行状态, 事件管理, 服务调用

const messageColumns: ListSpec['columns'] = [
    ['time', { label: '时间' }],
    ['method', { label: '方法' }],
    ['data', { label: '数据', render: (r) => asText(r.data) }],
];

/** The latest messages of one method a device reported (POST /api/function/ListProperty), with 刷新. */
function reported(title: string, method: string, empty: string, failure?: string): Section {
    return {
        kind: 'list',
        list: {
            title,
            source: {
                call: 'listProperty',
                params: (scope) => ({
                    productKey: device(scope).productKey,
                    deviceName: device(scope).deviceName,
                    size: REPORT_SIZE,
                    method,
                }),
            },
            columns: messageColumns,
            paging: false,
            dense: true,
            refresh: `刷新${title}`,
            failure,
            empty: { text: empty, hint: '设备上报后点击“刷新”查看最新记录' },
        },
    };
}

const HISTORY_RANGES = [
    { id: 'hour', name: '1小时' },
    { id: 'day', name: '24小时' },
];
const rangeName = (query: Record<string, string>) =>
    HISTORY_RANGES.find((r) => r.id === query.history_range)?.name ?? '1小时';

/** 查看数据: a property's history, range 1小时 / 24小时, a line chart for numeric types, and the records paged. */
const propertyHistory: Action = {
    kind: 'dialog',
    label: '查看数据',
    title: ({ record }) => `属性历史：${String(record.functionName)}（${String(record.identifier)}）`,
    width: 'md',
    sections: [
        {
            kind: 'fields',
            columns: 2,
            fields: [
                ['dataTypeName', { label: '数据类型', render: (r) => dash(r.dataTypeName) }],
                ['unit', { label: '单位', render: (r) => dash(r.unit) }],
            ],
        },
        {
            kind: 'widget',
            widget: 'propertyHistoryChart',
            when: ({ record }) => isNumeric(record.dataTypeName),
            props: (scope) => ({
                deviceId: device(scope).deviceId,
                identifier: scope.record.identifier,
                range: scope.query.history_range === 'day' ? 'day' : 'hour',
                label: `${String(scope.record.functionName)}${scope.record.unit ? `（${String(scope.record.unit)}）` : ''}`,
            }),
        },
        {
            kind: 'list',
            list: {
                title: '历史数据',
                source: {
                    call: 'propertyHistory',
                    params: (scope) => ({ deviceId: device(scope).deviceId, identifier: scope.record.identifier }),
                },
                urlPrefix: 'history_',
                rowId: 'timestamp',
                dense: true,
                perPage: 10,
                perPageOptions: [10, 20, 50],
                filters: [
                    {
                        source: 'range',
                        label: '时间范围',
                        input: 'tabs',
                        choices: HISTORY_RANGES,
                        allLabel: false,
                        defaultValue: 'hour',
                    },
                    {
                        source: 'asc',
                        label: '排序',
                        input: 'tabs',
                        choices: [
                            { id: 'false', name: '时间降序' },
                            { id: 'true', name: '时间升序' },
                        ],
                        allLabel: false,
                        defaultValue: 'false',
                    },
                ],
                columns: [
                    ['timestamp', { label: '时间' }],
                    [
                        'value',
                        {
                            label: '值',
                            render: (r) =>
                                r.value === null || r.value === undefined
                                    ? ''
                                    : `${asText(r.value)}${r.unit ? String(r.unit) : ''}`,
                        },
                    ],
                ],
                refresh: '刷新历史数据',
                empty: { text: ({ query }) => `最近${rangeName(query)}内该属性没有上报记录` },
            },
        },
    ],
};

const propertiesList: Section = {
    kind: 'list',
    list: {
        title: '属性',
        source: { call: 'properties', params: (scope) => ({ deviceId: device(scope).deviceId }) },
        rowId: 'identifier',
        paging: false,
        dense: true,
        columns: [
            ['functionName', { label: '属性名称' }],
            ['identifier', { label: '标识符' }],
            ['dataTypeName', { label: '数据类型', render: (r) => dash(r.dataTypeName) }],
            [
                'value',
                {
                    label: '最新值',
                    render: (r) =>
                        r.timestamp === null || r.value === null || r.value === undefined
                            ? '未上报'
                            : `${asText(r.value)}${r.unit ? String(r.unit) : ''}`,
                },
            ],
            ['timestamp', { label: '更新时间', render: (r) => dash(r.timestamp) }],
        ],
        rowActions: [propertyHistory],
        refresh: '刷新属性',
        empty: { text: '暂无数据', hint: '该产品的物模型未定义属性，可在产品详情的“功能定义”中添加' },
    },
};

const TIME_TYPES = [
    { id: 'hour', name: '1小时' },
    { id: 'day', name: '1天' },
    { id: 'week', name: '1周' },
    { id: 'month', name: '1个月' },
];

const eventsList: Section = {
    kind: 'list',
    list: {
        title: '事件',
        source: { call: 'events', params: (scope) => ({ deviceId: device(scope).deviceId }) },
        urlPrefix: 'event_',
        dense: true,
        perPage: EVENTS_PAGE_SIZE,
        filters: [
            {
                source: 'timeType',
                label: '时间范围',
                input: 'tabs',
                choices: TIME_TYPES,
                allLabel: false,
                defaultValue: 'hour',
            },
        ],
        columns: [
            ['time', { label: '时间' }],
            ['identifier', { label: '标识符', render: (r) => dash(r.identifier) }],
            ['method', { label: '方法' }],
            ['data', { label: '数据', render: (r) => asText(r.data) }],
        ],
        refresh: '刷新事件',
        empty: {
            text: '暂无数据',
            hint: ({ query }) =>
                `最近${TIME_TYPES.find((t) => t.id === query.event_timeType)?.name ?? '1小时'}内设备没有上报事件，可切换更长的时间范围`,
        },
    },
};

const CALL_TYPES = [
    { id: 'sync', name: '同步' },
    { id: 'async', name: '异步' },
];

const servicesSections: Section[] = [
    {
        kind: 'list',
        list: {
            title: '服务列表',
            source: { call: 'services', params: (scope) => ({ productId: device(scope).productId }) },
            paging: false,
            dense: true,
            columns: [
                ['name', { label: '服务名称' }],
                ['identifier', { label: '标识符' }],
                ['callType', { label: '调用方式', type: 'select', choices: CALL_TYPES }],
                ['description', { label: '描述', render: (r) => dash(r.description) }],
            ],
            empty: { text: '该产品未定义服务', hint: '在产品详情的“功能定义”中添加服务' },
        },
    },
    reported('服务调用记录', 'thing.service.*', '暂无服务调用记录'),
];

// ---------------------------------------------------------------- 子设备管理, 文件管理, 数据订阅

const gatewayOf = (scope: Scope) => device(scope).deviceId;

/** 添加子设备: devices without a gateway, searchable and paged, the choice kept across pages; an optional remark. */
const addSubDevices: Action = {
    kind: 'form',
    label: '添加子设备',
    right: 'device.bind',
    icon: AddIcon,
    variant: 'contained',
    width: 'md',
    note: (scope) => `网关：${String(device(scope).deviceName)}。可选的设备为尚未挂载到任何网关的直连设备。`,
    fields: [
        [
            'deviceId',
            {
                label: '可添加的设备',
                input: 'picker',
                required: true,
                picker: {
                    source: { call: 'subDeviceCandidates', params: (scope) => ({ gwId: gatewayOf(scope) }) },
                    rowId: 'deviceId',
                    perPage: 10,
                    columns: [
                        ['deviceName', { label: 'DeviceName' }],
                        ['productName', { label: '所属产品' }],
                    ],
                    filters: [{ source: 'deviceName', label: '搜索可添加的设备' }],
                },
            },
        ],
        ['remark', { label: '备注', maxLength: 100, helperText: '选填，会替换所选设备的备注' }],
    ],
    schema: yup.object({
        deviceId: yup.array().min(1, NOTHING_CHOSEN).required(NOTHING_CHOSEN),
        remark: yup.string().trim().max(100, REMARK_TOO_LONG),
    }),
    submit: {
        call: 'addSubDevices',
        params: (scope) => ({
            deviceId: scope.values?.deviceId,
            gwId: gatewayOf(scope),
            remark: String(scope.values?.remark ?? '').trim() || undefined,
        }),
    },
    success: '添加成功',
    failure: '添加失败',
    refresh: REFRESH,
};

const subDevicesList: Section = {
    kind: 'list',
    list: {
        title: '子设备',
        source: { call: 'subDevices', params: (scope) => ({ gwId: gatewayOf(scope) }) },
        rowId: 'deviceId',
        urlPrefix: 'sub',
        perPage: 10,
        perPageOptions: [10, 20, 30, 40],
        filters: [{ source: 'deviceName', label: '设备名称', param: 'subName' }],
        columns: [
            ['deviceName', { label: 'DeviceName', type: 'link', linkTo: childDetailPath }],
            ['productName', { label: '所属产品' }],
            ['status', { label: '状态', type: 'status', choices: [...DEVICE_STATUSES] }],
            ['remark', { label: '备注', render: (r) => dash(r.remark) }],
            ['createTime', { label: '添加时间', render: (r) => dash(r.createTime) }],
        ],
        toolbar: [addSubDevices],
        rowActions: [
            { kind: 'link', label: '查看', to: ({ record }) => childDetailPath(record) },
            {
                kind: 'call',
                label: '移除',
                right: 'device.bind',
                color: 'error',
                call: {
                    call: 'removeSubDevice',
                    params: (scope) => ({ deviceId: scope.record.deviceId, gwId: gatewayOf(scope) }),
                },
                confirm: (scope) =>
                    `确定将子设备“${String(scope.record.deviceName)}”从网关“${String(device(scope).deviceName)}”移除吗？移除后该设备不再经此网关接入。`,
                success: '操作成功',
                failure: '操作失败',
                refresh: REFRESH,
            },
        ],
        empty: {
            text: ({ query }) => (query.subName ? `没有名称包含“${query.subName}”的子设备` : '暂无子设备'),
            hint: ({ query }) =>
                query.subName ? '换个关键字，或清空搜索查看全部' : '点击“添加子设备”把设备挂载到此网关',
        },
    },
};

const BOUND_TEXT: Record<string, string> = { none: '未挂载', this: '已是本网关子设备', other: '已挂载到其他网关' };

/**
 * 发现的子设备: what the gateway reported on thing/list/found (docs/device-access.md "网关拓扑"). 添加 binds the device
 * of that name (created under its product when the platform has none) and tells the gateway (thing/topo/change);
 * 忽略 drops the report.
 */
const foundList: Section = {
    kind: 'list',
    list: {
        title: '网关发现的子设备',
        source: { call: 'foundSubDevices', params: (scope) => ({ gwId: gatewayOf(scope) }) },
        rowId: 'id',
        urlPrefix: 'found',
        perPage: 10,
        perPageOptions: [10, 20, 30, 40],
        columns: [
            ['deviceName', { label: 'DeviceName' }],
            ['productKey', { label: 'ProductKey' }],
            ['productName', { label: '所属产品', render: (r) => dash(r.productName ?? '产品不存在') }],
            [
                'bound',
                {
                    label: '平台中的设备',
                    render: (r) => (r.deviceId ? (BOUND_TEXT[String(r.bound)] ?? '-') : '尚未添加（添加时创建）'),
                },
            ],
            ['foundTime', { label: '上报时间', render: (r) => dash(r.foundTime) }],
        ],
        rowActions: [
            {
                kind: 'call',
                label: '添加',
                right: 'device.bind',
                ariaLabel: (scope) => `添加发现的子设备 ${String(scope.record.deviceName)}`,
                guard: ({ record }) => (record.bound === 'other' ? '该设备已挂载到其他网关' : undefined),
                call: {
                    call: 'addFoundSubDevice',
                    params: (scope) => ({ id: scope.record.id, gwId: gatewayOf(scope) }),
                },
                confirm: (scope) =>
                    scope.record.deviceId
                        ? `确定将设备“${String(scope.record.deviceName)}”添加为网关“${String(device(scope).deviceName)}”的子设备吗？`
                        : `平台中还没有设备“${String(scope.record.deviceName)}”。确定在产品下创建它并添加为本网关的子设备吗？`,
                success: '添加成功',
                failure: '添加失败',
                refresh: REFRESH,
            },
            {
                kind: 'call',
                label: '忽略',
                right: 'device.bind',
                ariaLabel: (scope) => `忽略发现的子设备 ${String(scope.record.deviceName)}`,
                call: {
                    call: 'removeFoundSubDevice',
                    params: (scope) => ({ id: scope.record.id, gwId: gatewayOf(scope) }),
                },
                success: '已忽略',
                refresh: REFRESH,
            },
        ],
        empty: {
            text: '网关暂未上报发现的子设备',
            hint: '网关通过 thing/list/found 上报发现的子设备后，可在此添加',
        },
    },
};

const filesList: Section = {
    kind: 'list',
    list: {
        title: '文件列表',
        source: { call: 'files', params: (scope) => ({ deviceId: device(scope).deviceId }) },
        rowId: 'fileId',
        urlPrefix: 'file',
        perPage: FILE_PAGE_SIZE,
        columns: [
            ['fileId', { label: '文件ID' }],
            ['fileName', { label: '文件名称' }],
            ['size', { label: '文件大小', render: (r) => humanSize(r.size) }],
            ['createTime', { label: '上传时间', render: (r) => dash(r.createTime) }],
        ],
        toolbar: [
            {
                kind: 'upload',
                label: '上传文件',
                right: 'device.edit',
                icon: UploadIcon,
                variant: 'contained',
                call: {
                    call: 'uploadFile',
                    params: (scope) => ({ deviceId: device(scope).deviceId, file: scope.values?.file }),
                },
                accept: [...FILE_EXTENSIONS],
                maxSize: FILE_MAX_BYTES,
                check: (file) => fileProblem(file),
                note: FILE_RULE_TEXT,
                success: FILE_MESSAGES.uploaded,
                failure: '文件上传失败',
                refresh: [DETAIL],
            },
        ],
        rowActions: [
            {
                kind: 'download',
                label: '下载',
                call: { call: 'downloadFile', params: ({ record }) => ({ fileId: record.fileId }) },
            },
            {
                kind: 'call',
                label: '删除',
                right: 'device.edit',
                color: 'error',
                call: { call: 'deleteFile', params: ({ record }) => ({ fileId: record.fileId }) },
                confirm: ({ record }) => `${FILE_MESSAGES.deleteConfirm} ${String(record.fileName)}`,
                success: FILE_MESSAGES.deleted,
                failure: '删除失败',
                refresh: [DETAIL],
            },
        ],
        empty: { text: '暂无文件，点击“上传文件”添加。' },
    },
};

/**
 * Every tab a device detail shows, by what it holds; each route names its tabs by its own keys (SPEC.md: the
 * instance detail's sub-routes, /devices' 1-based checkIdx, the sub-device's own names).
 */
const TAB = {
    info: { label: '设备信息', sections: infoSections },
    topic: {
        label: 'Topic列表',
        sections: topicSections(({ record }) => ({ productKey: record.productKey, deviceName: record.deviceName })),
    },
    thingModelData: {
        label: '物模型数据',
        sections: [
            {
                kind: 'tabs',
                param: 'dataTab',
                label: '物模型数据',
                tabs: [
                    { key: 'property', label: '属性', sections: [propertiesList] },
                    { key: 'event', label: '事件', sections: [eventsList] },
                    { key: 'service', label: '服务', sections: servicesSections },
                ],
            },
        ],
    },
    runStatus: {
        label: '运行状态',
        sections: [reported('运行状态', 'thing.event.property.post', NO_PROPERTY_DATA, NO_PROPERTY_DATA)],
    },
    eventManage: { label: '事件管理', sections: [reported('事件管理', 'thing.event.*', '暂无事件上报')] },
    serviceCall: { label: '服务调用', sections: servicesSections },
    subDevices: { label: '子设备管理', when: isGateway, sections: [subDevicesList, foundList] },
    files: { label: '文件管理', sections: [filesList] },
    ota: { label: '固件升级', sections: otaSections },
    shadow: { label: '设备影子', sections: shadowSections([DETAIL]) },
    subscription: {
        label: '数据订阅',
        sections: [
            {
                kind: 'list',
                list: {
                    // The subscriptions of the device's product and the consumer groups they send to (issue 11).
                    source: { call: 'subscriptions', params: ({ record }) => ({ deviceId: record.deviceId }) },
                    label: '数据订阅',
                    urlPrefix: 'sub',
                    rowId: 'id',
                    paging: false,
                    columns: [
                        ['productName', { label: '产品名称' }],
                        ['msgType', { label: '订阅类型' }],
                        ['groupName', { label: '消费者组' }],
                        ['groupId', { label: '消费者组ID' }],
                        ['createTime', { label: '创建时间', type: 'datetime' }],
                    ],
                    rowActions: [
                        {
                            kind: 'link',
                            label: '查看消费者组',
                            to: ({ record }) => `/consumerGroup/detail?id=${String(record.groupId)}`,
                        },
                    ],
                    empty: {
                        text: '暂无数据订阅',
                        hint: ({ record }) =>
                            `还没有服务端订阅投递设备 ${String(record.deviceName ?? '')} 所属产品的消息。可在“服务端订阅”中为该产品新建订阅。`,
                    },
                },
            },
        ],
    },
} satisfies Record<string, Omit<TabSpec, 'key'>>;

const tab = (key: string, of: keyof typeof TAB): TabSpec => ({ key, ...TAB[of] });

/** The device as the page's record: its status in the console's words, the product's node type. */
function deviceRecord(answer: unknown): Row {
    const body = (answer ?? {}) as { device?: Row; product?: Row };
    const found = body.device ?? (answer as Row) ?? {};
    return {
        ...found,
        status: normaliseStatus(found.status),
        nodeType: body.product?.nodeType ?? found.nodeType,
        productName: body.product?.productName ?? found.productName,
    };
}

const invalidId = ({ route }: Scope) =>
    /^\d+$/.test(route.deviceId ?? '') && Number(route.deviceId) > 0
        ? undefined
        : `设备ID“${route.deviceId ?? ''}”无效`;

const byId = {
    call: 'detail',
    params: ({ route }: Scope) => ({ deviceId: route.deviceId }),
    missing: invalidId,
    map: deviceRecord,
    loading: '设备信息加载中…',
    notFound: '该设备不存在或已被删除',
    notFoundTitle: '设备不存在',
};

const header: PageSpec['header'] = {
    title: ({ record }) => String(record.deviceName ?? ''),
    status: 'status',
    fields: [
        ['productName', { label: '产品', type: 'link', linkTo: (r) => `/productDetail/${String(r.productId)}` }],
        'productKey',
    ],
};

const fields: Record<string, FieldDefinition> = {
    productName: { label: '产品名称' },
    productKey: { label: 'ProductKey' },
    nodeType: {
        label: '节点类型',
        render: (r) => NODE_TYPES.find((n) => n.id === Number(r.nodeType))?.name ?? '网关',
    },
    deviceName: { label: 'DeviceName' },
    remark: { label: '备注名称', render: (r) => dash(r.remark) },
    createTime: { label: '添加时间', render: (r) => dash(r.createTime) },
    lastTime: { label: '最后上线时间', render: (r) => dash(r.lastTime) },
    status: { label: '当前状态', type: 'status', choices: [...DEVICE_STATUSES] },
    username: { label: '用户名', copy: true },
    location: { label: '物理位置', render: location },
    clientId: { label: 'ClientId', copy: true },
    secret: { label: '密码', masked: true, copy: true },
};

export default defineResource({
    name: DETAIL,
    label: '设备详情',
    hidden: true,
    fields,
    views: { list: false, show: false, edit: false, create: false },
    pages: [
        {
            // /devices/{productKey}/{deviceName}?devicesId=&checkIdx=: the path names the device; checkIdx is the tab's
            // 1-based place (5 = 子设备管理, a gateway's only); one that does not apply opens the info.
            path: '/devices/:productKey/:deviceName/*',
            title: '设备详情',
            back: { label: '设备管理', to: '/devices' },
            record: {
                call: 'getInfo',
                params: ({ route }) => ({ productKey: route.productKey, deviceName: route.deviceName }),
                map: deviceRecord,
                loading: '设备信息加载中…',
                notFound: '该设备不存在或已被删除',
                notFoundTitle: '设备不存在',
            },
            header,
            tabParam: { query: 'checkIdx', indexBase: 1 },
            tabs: [
                tab('1', 'info'),
                tab('2', 'topic'),
                tab('3', 'thingModelData'),
                tab('4', 'files'),
                tab('5', 'subDevices'),
                tab('6', 'subscription'),
                tab('7', 'ota'),
                tab('8', 'shadow'),
            ],
        },
        {
            // Each tab a sub-route; without one the info opens, or the sub-devices with ?child=true (the list's 子设备 link).
            path: '/devInstanceDetail/:productId/:deviceId/*',
            title: '设备详情',
            back: { label: '设备管理', to: '/deviceInstance' },
            record: byId,
            header,
            tabParam: { fallback: ({ query }) => (query.child === 'true' ? 'childDevice' : undefined) },
            tabs: [
                tab('list', 'info'),
                tab('topic', 'topic'),
                tab('runStatus', 'runStatus'),
                tab('event', 'eventManage'),
                tab('service', 'serviceCall'),
                tab('childDevice', 'subDevices'),
                tab('ota', 'ota'),
                tab('shadow', 'shadow'),
            ],
        },
        {
            path: '/childDeviceDetail/:productId/:deviceId/*',
            title: '设备详情',
            back: { label: '设备管理', to: '/deviceInstance' },
            record: byId,
            header,
            tabs: [
                tab('childDeviceView', 'info'),
                tab('childDeviceTopic', 'topic'),
                tab('childRunStatus', 'runStatus'),
                tab('childShadow', 'shadow'),
            ],
        },
    ],
    api: {
        success: 'code0',
        custom: {
            /** `{ device, product }` by deviceId. */
            detail: { get: '/api/device/detail', read: 'data' },
            /** The subscriptions and consumer groups receiving the device's messages (server-side subscription). */
            subscriptions: {
                get: '/api/subscription/device',
                read: 'data.records',
                total: 'data.total',
                success: 'code200',
            },
            /** The device by productKey and deviceName. */
            getInfo: { get: '/api/device/getInfo', read: 'data' },
            updateRemark: {
                post: '/api/device/UpdateDeviceNickname',
                params: (r) => ({ deviceId: r.deviceId, remark: r.remark }),
                success: 'returnCode1111',
                read: 'data',
            },
            getStatus: { post: '/api/device/getStatus', read: 'data' },
            tags: {
                get: '/api/tag/get',
                params: (r) => ({ type: r.type, objectId: r.objectId }),
                success: 'code200',
                read: 'data.list',
            },
            saveTags: {
                post: '/api/tag/save',
                params: (r) => ({ type: r.type, objectId: r.objectId, items: r.items, addr: r.addr }),
                success: 'code200',
                read: 'data.list',
            },
            deleteTag: {
                post: '/api/tag/delete',
                params: (r) => ({ id: r.id, objectId: r.objectId, type: r.type }),
                success: 'code200',
                failure: '删除失败',
            },
            ...OTA_DEVICE_CALLS,
            ...SHADOW_CALLS,
            files: {
                get: '/api/device/file/list',
                paging: ['pageNumber', 'pageSize'],
                read: 'data.records',
                total: 'data.total',
            },
            uploadFile: { post: '/api/device/file/upload', read: 'data', failure: '文件上传失败' },
            downloadFile: { get: '/api/device/file/download', params: (r) => ({ fileId: r.fileId }) },
            deleteFile: { post: '/api/device/file/delete', params: (r) => ({ fileId: r.fileId }), failure: '删除失败' },
            /** Latest value of every property of the product's thing model. */
            properties: { get: '/api/device/properties', read: 'data.properties' },
            /**
             * deviceId, identifier, pageNumber, pageSize (10 / 20 / 50), asc, and the window [now - range, now] in epoch
             * ms, fixed when asked (range 'hour' or 'day'; SPEC.md: the last hour or the last 24 hours).
             */
            propertyHistory: {
                get: '/api/device/propertyHistory',
                paging: ['pageNumber', 'pageSize'],
                params: (r) => {
                    const endTime = Date.now();
                    const span = r.range === 'day' ? 24 * 60 * 60 * 1000 : 60 * 60 * 1000;
                    return {
                        deviceId: r.deviceId,
                        identifier: r.identifier,
                        pageNumber: r.pageNumber,
                        pageSize: r.pageSize,
                        asc: r.asc === 'true' || r.asc === true ? 'true' : 'false',
                        startTime: endTime - span,
                        endTime,
                    };
                },
                read: 'data.list',
                total: 'data.total',
            },
            /** deviceId, timeType (hour / day / week / month), nextPage, pageSize (50). */
            events: {
                get: '/api/device/events',
                paging: ['nextPage', 'pageSize'],
                read: 'data.resultList',
                total: 'data.totalCount',
            },
            /** Run status and event records: productKey, deviceName, size, method ('thing.event.*' is a prefix). */
            listProperty: { post: '/api/function/ListProperty', read: 'data.list' },
            /** The product's services (the thing-model family answers code 200). */
            services: {
                get: '/api/function/list',
                params: ({ productId }) => ({ productId, type: 'service', pageNumber: 1, pageSize: 100 }),
                read: 'data.records',
                total: 'data.total',
                success: 'code200',
            },
            subDevices: {
                get: '/api/device/subDevice/list',
                paging: ['pageNumber', 'pageSize'],
                read: 'data.records',
                total: 'data.total',
                transform: (r) => ({ ...r, status: normaliseStatus(r.status) }),
            },
            subDeviceCandidates: {
                get: '/api/device/subDevice/candidates',
                paging: ['pageNumber', 'pageSize'],
                read: 'data.records',
                total: 'data.total',
            },
            /** deviceId travels comma-joined: one form key however many devices are chosen. */
            addSubDevices: { post: '/api/device/subDevice/add', arrays: 'comma', read: 'data' },
            removeSubDevice: { post: '/api/device/subDevice/remove', read: 'data' },
            /** Sub-devices the gateway reported it found (thing/list/found). */
            foundSubDevices: {
                get: '/api/device/subDevice/found',
                paging: ['pageNumber', 'pageSize'],
                read: 'data.records',
                total: 'data.total',
            },
            addFoundSubDevice: { post: '/api/device/subDevice/found/add', read: 'data' },
            removeFoundSubDevice: { post: '/api/device/subDevice/found/remove', read: 'data' },
        },
    },
});
