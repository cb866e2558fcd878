import AddIcon from '@mui/icons-material/Add';
import DevicesOtherIcon from '@mui/icons-material/DevicesOther';
import DownloadIcon from '@mui/icons-material/Download';
import FileDownloadIcon from '@mui/icons-material/FileDownload';
import LinkIcon from '@mui/icons-material/Link';
import LinkOffIcon from '@mui/icons-material/LinkOff';
import PlaylistAddIcon from '@mui/icons-material/PlaylistAdd';
import UploadFileIcon from '@mui/icons-material/UploadFile';
import VideoCameraBackIcon from '@mui/icons-material/VideoCameraBack';
import * as yup from 'yup';
import { defineResource, type Action, type ListSpec, type Row, type Scope } from '../src/engine/types';
import { requiredInt } from '../schemas/rules';
import {
    DEVICE_NAME_RULE_TEXT,
    DEVICE_STATUSES,
    IMPORT_COLUMNS,
    IMPORT_MAX_BYTES,
    IMPORT_MAX_ROWS,
    MAX_BATCH_AMOUNT,
    batchRegisterSchema,
    checkBind,
    checkUnbind,
    deviceCreateSchema,
    deviceNameRule,
    normaliseStatus,
} from '../schemas/device';
import { videoDeviceList } from './videoDevices';

/** The /devices add dialog sends productId (SaveDevice); SPEC.md's generic form says '请选择产品!' there. */
export const saveDeviceSchema = yup.object({
    productId: requiredInt('请选择产品!'),
    deviceName: deviceNameRule,
    remark: yup.string().trim().max(100, '备注不得超过100个字符').optional(),
});

/** The import dialog's product (the file names the devices, the upload names the product once). */
const importSchema = yup.object({ productKey: yup.string().trim().required('请选择产品!') });

/** SPEC.md §9: the scenes the bind dialog filters by. */
const BIND_SCENES = ['全部', '智慧办公', '智慧城市', '智慧车辆', '工业互联网'].map((s) => ({ id: s, name: s }));

const productChoices = (optionValue: 'productKey' | 'productId') => ({
    call: 'listAll',
    resource: 'products',
    optionValue,
    optionText: 'productName',
});

const normalise = (row: Record<string, unknown>) => ({ ...row, status: normaliseStatus(row.status) });

/** Every product, loaded once by each device screen: the filter's choices and the product a URL names. */
const PRODUCTS = { products: { call: 'listAll', resource: 'products' } };
const productsOf = (scope: Scope) => (Array.isArray(scope.data?.products) ? (scope.data.products as Row[]) : []);
/** /deviceInstance/{productId}: the product of the path, once the products are known. */
const productOfPath = (scope: Scope) => productsOf(scope).find((p) => String(p.productId) === scope.route.productId);
/** /devices?pk=: the product of the query. */
const productOfQuery = (scope: Scope) => productsOf(scope).find((p) => p.productKey === scope.query.pk);

const bound = (row: Row) => row.projectId !== null && row.projectId !== undefined && row.projectId !== '';
const MAX_MB = Math.round(IMPORT_MAX_BYTES / 1024 / 1024);
const deleteDevice: Action = {
    kind: 'call',
    label: '删除',
    right: 'device.delete',
    color: 'error',
    call: { call: 'delete', params: ({ record }) => ({ id: record.id }) },
    confirm: '是否删除此设备?',
    confirmTitle: '提示',
    success: '设备删除成功',
    failure: '删除失败',
};

// /deviceInstance (SPEC.md "Device management (deviceInstance)"): the product filter is the path.

const addDevice: Action = {
    kind: 'form',
    label: '添加设备',
    right: 'device.create',
    variant: 'contained',
    icon: AddIcon,
    fields: ['productKey', 'deviceName', 'remark', 'longitude', 'latitude', 'addr'],
    schema: deviceCreateSchema,
    defaults: (scope) => ({ productKey: productOfPath(scope)?.productKey ?? '' }),
    // In the add-device dialog the product is locked when a product filter is already chosen (SPEC.md §4).
    lock: (scope) => (productOfPath(scope) ? ['productKey'] : []),
    submit: { call: 'create', params: ({ values }) => ({ ...values }) },
    success: '添加成功',
    failure: '系统错误',
};

const batchAdd: Action = {
    kind: 'form',
    label: '批量添加',
    right: 'device.create',
    variant: 'outlined',
    icon: PlaylistAddIcon,
    fields: ['productId', 'amount'],
    schema: batchRegisterSchema,
    defaults: (scope) => ({ productId: productOfPath(scope)?.productId ?? '' }),
    lock: (scope) => (productOfPath(scope) ? ['productId'] : []),
    submit: { call: 'batchRegister', params: ({ values }) => ({ ...values }) },
    success: (answer) => `批量添加成功，共添加${(answer as { count?: number } | undefined)?.count ?? 0}个设备`,
};

const instanceDetail = (r: Row) => `/devInstanceDetail/${String(r.productId)}/${String(r.deviceId)}`;

const deviceInstanceList: ListSpec = {
    subject: '设备列表',
    // The list waits for the product of the path (the section's `when`), so no unfiltered page is asked for.
    source: {
        call: 'getList',
        params: (scope) => {
            const product = productOfPath(scope);
            return product ? { productKey: product.productKey } : {};
        },
    },
    columns: ['deviceName', 'productName', 'status', 'remark', 'projectName', 'createTime', 'lastTime'],
    // SPEC.md §9: the platform device page lists 10 a page, with 5, 10 and 20 offered.
    perPage: 10,
    perPageOptions: [5, 10, 20],
    // Nine columns and the row's actions fit a 1440 px (and, for /deviceInstance, a 1280 px) screen.
    compactCells: true,
    filters: [
        {
            source: 'productId',
            label: '产品',
            input: 'select',
            allLabel: '全部产品',
            choicesFrom: { ...productChoices('productId') },
            path: {
                param: 'productId',
                // Another product starts at its first page; the page size stays.
                to: (value, { query }) =>
                    `/deviceInstance${value ? `/${value}` : ''}${query.perPage ? `?perPage=${query.perPage}` : ''}`,
            },
        },
    ],
    counters: {
        call: {
            call: 'statistics',
            params: (scope) => {
                const product = productOfPath(scope);
                return product ? { productKey: product.productKey } : {};
            },
        },
        items: [
            { label: '设备总数', value: 'total' },
            { label: '在线', value: 'onlineTotal', color: '#2e7d32' },
        ],
    },
    toolbar: [addDevice, batchAdd],
    rowActions: [
        { kind: 'link', label: '查看', to: ({ record }) => instanceDetail(record) },
        {
            kind: 'link',
            label: '子设备',
            when: ({ record }) => Number(record.nodeType) === 1,
            to: ({ record }) => `${instanceDetail(record)}?child=true`,
        },
        deleteDevice,
    ],
    empty: { text: '暂无设备' },
};

/** The path names a product the platform does not have (any more). */
const unknownProduct = (scope: Scope) =>
    !!scope.route.productId && Array.isArray(scope.data?.products) && !productOfPath(scope);

// /devices (SPEC.md "Device management with tabs"): ?pk= filters, ?type=program opens the add dialog.

const addDeviceById: Action = {
    kind: 'form',
    label: '添加设备',
    right: 'device.create',
    variant: 'contained',
    icon: AddIcon,
    fields: ['productId', 'deviceName', 'remark'],
    schema: saveDeviceSchema,
    defaults: (scope) => ({ productId: productOfQuery(scope)?.productId ?? '' }),
    lock: (scope) => (productOfQuery(scope) ? ['productId'] : []),
    openWith: { query: 'type', value: 'program' },
    submit: { call: 'saveDevice', params: ({ values }) => ({ ...values }) },
    success: '添加成功',
    failure: '系统错误',
};

const importDevices: Action = {
    kind: 'upload',
    label: '批量导入',
    right: 'device.create',
    title: '批量导入',
    variant: 'outlined',
    icon: UploadFileIcon,
    call: { call: 'importFile' },
    fields: [
        ['productKey', { label: '产品', input: 'select', required: true, choicesFrom: productChoices('productKey') }],
    ],
    schema: importSchema,
    defaults: ({ query }) => ({ productKey: query.pk ?? '' }),
    accept: ['csv'],
    maxSize: IMPORT_MAX_BYTES,
    refusals: {
        type: '仅支持CSV格式的文件（.csv）',
        size: `文件大小不能超过${MAX_MB}MB`,
        empty: '文件为空，请按模板填写后上传',
    },
    note:
        `列：${IMPORT_COLUMNS.join(', ')}（仅 deviceName 必填）。仅支持CSV文件（UTF-8编码），大小不超过${MAX_MB}MB，` +
        `最多${IMPORT_MAX_ROWS.toLocaleString('zh-CN')}行；校验不通过的行不会写入，其余行正常导入。`,
    success: '文件上传成功!',
    failure: '文件上传失败',
    result: 'deviceImportResult',
    again: '继续导入',
    doneLabel: '完成',
    extra: [{ kind: 'download', label: '下载模板', icon: DownloadIcon, call: { call: 'importTemplate' } }],
};

const exportDevices: Action = {
    kind: 'download',
    label: '导出',
    variant: 'outlined',
    icon: FileDownloadIcon,
    call: { call: 'export', params: ({ query }) => (query.pk ? { productKey: query.pk } : {}) },
};

/**
 * 关联项目: the selection is checked first (SPEC.md's messages, schemas/device.ts), then a project is picked under
 * a scene; bind's projectId is the project's id, as device rows carry it.
 */
const bindProject: Action = {
    kind: 'form',
    label: '关联项目',
    right: 'device.bind',
    variant: 'outlined',
    icon: LinkIcon,
    guard: ({ selected = [], values }) =>
        // Before the dialog only the selection can be wrong; on submit the chosen project too.
        checkBind(
            selected as unknown as Parameters<typeof checkBind>[0],
            values ? values.projectId : 'chosen-in-dialog',
        ),
    fields: [
        [
            'scene',
            { label: '场景', input: 'toggle', choices: BIND_SCENES, defaultValue: '全部', resets: { projectId: '' } },
        ],
        [
            'projectId',
            {
                label: '项目',
                input: 'radio',
                row: false,
                choicesFrom: {
                    call: 'projects',
                    optionValue: 'id',
                    optionLabel: (p) => `${String(p.projectName)}（${String(p.sceneName)}）`,
                    keep: (p, values) => !values.scene || values.scene === '全部' || p.sceneName === values.scene,
                },
            },
        ],
    ],
    note: ({ selected = [] }) => `将所选的 ${selected.length} 个设备关联到项目（一个设备只能属于一个项目）`,
    submit: {
        call: 'bind',
        params: ({ selected = [], values }) => ({
            projectId: values?.projectId,
            deviceId: selected.map((d) => d.deviceId),
        }),
    },
    success: '关联成功',
    failure: '系统错误',
};

const unbindProject: Action = {
    kind: 'call',
    label: '解绑项目',
    right: 'device.bind',
    variant: 'outlined',
    icon: LinkOffIcon,
    guard: ({ selected = [] }) => checkUnbind(selected as unknown as Parameters<typeof checkUnbind>[0]),
    confirm: ({ selected = [] }) =>
        `确定将所选的 ${selected.length} 个设备从项目「${String(selected[0]?.projectName ?? '')}」解绑吗？`,
    // One projectId per deviceId, in the same order: the pairs hold whether the server zips or collects them.
    call: {
        call: 'unbind',
        params: ({ selected = [] }) => ({
            projectId: selected.map((d) => d.projectId),
            deviceId: selected.map((d) => d.deviceId),
        }),
    },
    success: '解绑成功',
    failure: '系统错误',
};

/** Enable / disable through PUT /api/device/update; disabling cuts the device off, so it asks first. */
const enableSwitch: Action = {
    kind: 'switch',
    label: ({ record }) => (record.status !== 'DISABLE' ? '已启用，点击禁用' : '已禁用，点击启用'),
    // The switch is named by what turning it does (its `label` above is the tooltip of its state).
    ariaLabel: ({ record }) => `${record.status !== 'DISABLE' ? '禁用' : '启用'}设备 ${String(record.deviceName)}`,
    right: 'device.edit',
    checked: ({ record }) => record.status !== 'DISABLE',
    on: {
        kind: 'call',
        label: ({ record }) => `启用设备 ${String(record.deviceName)}`,
        call: { call: 'setEnabled', params: ({ record }) => ({ deviceId: record.deviceId, action: 'enable' }) },
        success: '操作成功',
        failure: '系统错误',
    },
    off: {
        kind: 'call',
        label: ({ record }) => `禁用设备 ${String(record.deviceName)}`,
        call: { call: 'setEnabled', params: ({ record }) => ({ deviceId: record.deviceId, action: 'disable' }) },
        confirm: ({ record }) => `确定禁用设备 ${String(record.deviceName)} 吗？禁用后该设备将无法接入平台。`,
        success: '操作成功',
        failure: '系统错误',
    },
};

/** 移出项目: a device without a project says 未关联项目 (SPEC.md "Devices"). */
const removeFromProject: Action = {
    kind: 'call',
    label: '移出项目',
    right: 'device.bind',
    guard: ({ record }) => (bound(record) ? undefined : '未关联项目'),
    confirm: ({ record }) =>
        `确定将设备 ${String(record.deviceName)} 移出项目「${String(record.projectName ?? '')}」吗？`,
    call: {
        call: 'removeFromProject',
        params: ({ record }) => ({ projectId: record.projectId, deviceId: record.deviceId }),
    },
    success: '操作成功',
    failure: '系统错误',
};

const devicesList: ListSpec = {
    subject: '设备列表',
    columns: ['deviceName', 'productName', 'status', 'projectName', 'remark', 'createTime', 'lastTime'],
    // SPEC.md §9 says 5 for this list; issue 9: every device list shows 10 a page, with 5, 10 and 20 offered.
    perPage: 10,
    perPageOptions: [5, 10, 20],
    // Nine columns and the row's actions fit a 1440 px (and, for /deviceInstance, a 1280 px) screen.
    compactCells: true,
    filters: [
        {
            source: 'productKey',
            label: '产品',
            input: 'select',
            allLabel: '全部产品',
            param: 'pk',
            choicesFrom: { ...productChoices('productKey') },
        },
    ],
    counters: {
        call: { call: 'statistics', params: ({ query }) => (query.pk ? { productKey: query.pk } : {}) },
        items: [
            { label: '设备总数', value: 'total' },
            { label: '在线', value: 'onlineTotal', color: '#2e7d32' },
            { label: '未激活', value: 'inActiveTotal' },
        ],
    },
    toolbar: [addDeviceById, importDevices, exportDevices],
    bulkActions: [bindProject, unbindProject],
    bulkInToolbar: true,
    rowActions: [
        enableSwitch,
        {
            kind: 'link',
            label: '查看',
            to: ({ record }) =>
                `/devices/${encodeURIComponent(String(record.productKey))}/${encodeURIComponent(String(record.deviceName))}` +
                `?devicesId=${encodeURIComponent(String(record.deviceId))}`,
        },
        removeFromProject,
        deleteDevice,
    ],
    empty: { text: '暂无设备' },
};

/**
 * Device instances (SPEC.md "Device management (deviceInstance)" and "Device management with tabs (/devices)";
 * docs/platform-api.md "Devices"). Two declared screens read the fields and calls declared here:
 * /deviceInstance[/{productId}] and /devices with its device and video tabs.
 */
export default defineResource({
    name: 'devices',
    label: '设备管理',
    menu: [
        {
            label: '设备管理',
            to: '/deviceInstance',
            section: '设备接入',
            order: 2,
            icon: DevicesOtherIcon,
            // A device's detail pages belong here, /devices/{productKey}/{deviceName} included.
            related: ['/devInstanceDetail', '/childDeviceDetail', '/devices/:productKey/:deviceName'],
        },
        { label: '设备与视频流', to: '/devices', section: '设备接入', order: 3, icon: VideoCameraBackIcon },
    ],
    icon: DevicesOtherIcon,
    path: 'devices',
    idField: 'deviceId',
    recordRepresentation: 'deviceName',
    views: { list: false, show: false, edit: false, create: false },
    pages: [
        {
            path: '/deviceInstance/:productId?',
            title: '设备管理',
            load: PRODUCTS,
            sections: [
                {
                    kind: 'notice',
                    severity: 'warning',
                    when: unknownProduct,
                    text: ({ route }) => `未找到ID为 ${route.productId} 的产品，该产品不存在或已被删除。`,
                    actions: [{ kind: 'link', label: '查看全部产品的设备', to: () => '/deviceInstance' }],
                },
                {
                    kind: 'list',
                    when: (scope) => !scope.route.productId || !!productOfPath(scope),
                    list: deviceInstanceList,
                },
            ],
        },
        {
            path: '/devices',
            title: '设备管理',
            load: PRODUCTS,
            tabParam: { query: 'tab', fallback: 'list', omitFallback: true },
            tabs: [
                { key: 'list', label: '设备列表', sections: [{ kind: 'list', list: devicesList }] },
                {
                    key: 'video',
                    label: '视频流列表',
                    // The video list itself (resources/videoDevices.tsx), its URL state under video_.
                    sections: [
                        { kind: 'list', list: { ...videoDeviceList, resource: 'videoDevices', urlPrefix: 'video_' } },
                    ],
                },
            ],
        },
    ],
    fields: {
        deviceName: {
            label: 'DeviceName',
            required: true,
            maxLength: 100,
            helperText: DEVICE_NAME_RULE_TEXT,
            ellipsis: 160,
        },
        productKey: {
            label: '所属产品',
            input: 'select',
            views: ['create'],
            required: true,
            choicesFrom: productChoices('productKey'),
        },
        // The same choice by id, for the calls that take productId (SaveDevice, BatchRegisterDevice).
        productId: {
            label: '所属产品',
            input: 'select',
            views: [],
            required: true,
            choicesFrom: productChoices('productId'),
        },
        productName: {
            label: '所属产品',
            type: 'link',
            readOnly: true,
            linkTo: (r) => `/productDetail/view?productId=${r.productId}`,
            ellipsis: 130,
        },
        status: { label: '状态', type: 'status', choices: [...DEVICE_STATUSES], readOnly: true },
        remark: { label: '备注', maxLength: 100, ellipsis: 100 },
        projectName: { label: '所属项目', readOnly: true, ellipsis: 100 },
        createTime: { label: '添加时间', type: 'datetime', format: 'YYYY-MM-DD HH:mm:ss', readOnly: true },
        lastTime: { label: '最后上线时间', type: 'datetime', format: 'YYYY-MM-DD HH:mm:ss', readOnly: true },
        longitude: { label: '经度', views: ['create', 'show'], helperText: '选填，-180~180' },
        latitude: { label: '纬度', views: ['create', 'show'], helperText: '选填，-90~90' },
        addr: { label: '详细地址', views: ['create', 'show'], maxLength: 200 },
        amount: {
            label: '添加数量',
            type: 'number',
            views: [],
            required: true,
            helperText: `单次最多添加${MAX_BATCH_AMOUNT}个设备，DeviceName 由平台生成`,
        },
    },
    schema: deviceCreateSchema,
    messages: { created: '添加成功', deleted: '设备删除成功', createFailed: '系统错误', deleteFailed: '删除失败' },
    api: {
        success: 'code0',
        idField: 'deviceId',
        getList: {
            get: '/api/device/list',
            paging: ['pageNumber', 'pageSize'],
            read: 'data.records',
            total: 'data.total',
            transform: normalise,
        },
        getOne: { get: '/api/device/detail', params: (r) => ({ deviceId: r.id }), read: 'data.device' },
        create: {
            post: '/api/device/save',
            params: (r) => ({
                productKey: r.productKey,
                deviceName: r.deviceName,
                remark: r.remark ?? '',
                longitude: r.longitude,
                latitude: r.latitude,
                addr: r.addr,
            }),
            read: 'data',
        },
        delete: {
            post: '/api/device/RemoveDevice',
            params: (r) => ({ productKey: r.productKey, deviceName: r.deviceName }),
        },
        custom: {
            statistics: { get: '/api/device/statistics', read: 'data' },
            saveDevice: {
                post: '/api/device/SaveDevice',
                params: (r) => ({ productId: r.productId, deviceName: r.deviceName, remark: r.remark ?? '' }),
                read: 'data',
            },
            batchRegister: {
                post: '/api/device/BatchRegisterDevice',
                params: (r) => ({ productId: r.productId, amount: r.amount }),
                read: 'data',
            },
            setEnabled: {
                put: '/api/device/update',
                params: (r) => ({ deviceId: r.deviceId, action: r.action }),
                read: 'data',
            },
            bind: { post: '/api/device/bind', read: 'data' },
            unbind: { post: '/api/device/unbind', read: 'data' },
            removeFromProject: { get: '/api/device/removeFromProject', read: 'data' },
            importFile: { post: '/api/device/import', read: 'data' },
            importTemplate: { get: '/api/device/import/template' },
            export: { get: '/api/device/export' },
            // The project family answers code 200.
            projects: { get: '/api/project/listAll', read: 'data.list', success: 'code200' },
        },
    },
});
