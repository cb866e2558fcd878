import SystemUpdateAltIcon from '@mui/icons-material/SystemUpdateAlt';
import * as yup from 'yup';
import { defineResource, type Action, type FieldDefinition } from '../src/engine/types';
import type { ListSpec, Scope } from '../src/engine/vocabulary';
import {
    OTA_BATCH_STATUSES,
    OTA_DEFAULT_MAX_MB,
    OTA_EXTENSIONS,
    OTA_MESSAGES,
    OTA_SCOPES,
    OTA_SIGN_METHODS,
    OTA_STATES,
    OTA_VERIFY_MAX,
    otaBatchSchema,
    otaPackageSchema,
} from '../schemas/ota';

/**
 * OTA firmware upgrades (/ota, calls under /api/ota; docs/ota.md), after Alibaba Cloud IoT's 固件升级: the package
 * list with 上传固件, 验证, 批量升级 and 删除; a package's page with its batches; a batch's page with its devices,
 * their states, progress and 取消. Writes need the ota.* rights (运维 has them but delete; 只读 sees).
 */

const REFRESH = ['ota'];
const packagePath = (r: Record<string, unknown>) => `/ota/package/${String(r.id)}`;
const batchPath = (r: Record<string, unknown>) => `/ota/batch/${String(r.id)}`;
const packageIdOf = (scope: Scope) => scope.record?.packageId ?? scope.record?.id;

const FILE_NOTE = `固件文件支持 ${OTA_EXTENSIONS.map((e) => `.${e}`).join('、')}，不超过${OTA_DEFAULT_MAX_MB}MB；上传时平台计算其 MD5 与 SHA256，设备下载后据此校验。`;

/** 上传固件 is the generated create dialog: the package's fields and its file, with the upload bar while it travels. */
const createSchema = otaPackageSchema.shape({ file: yup.mixed().required(OTA_MESSAGES.fileRequired) });

/** The device picker of a package's product (the batch form and 验证). */
const devicePicker = (label: string) =>
    [
        'deviceIds',
        {
            label,
            input: 'picker',
            picker: {
                source: { call: 'devices', params: (scope: Scope) => ({ productKey: scope.record?.productKey }) },
                rowId: 'deviceId',
                // Each row's checkbox is named by its device (选择 SL-BJ-0001), not its id.
                rowLabel: 'deviceName',
                perPage: 5,
                columns: [
                    ['deviceName', { label: 'DeviceName' }],
                    ['status', { label: '状态' }],
                ],
                filters: [{ source: 'deviceName', label: '搜索设备' }],
            },
        },
    ] as [string, Record<string, unknown>];

const ids = (v: unknown) => (Array.isArray(v) ? v.join(',') : String(v ?? ''));

const verifySchema = yup.object({
    deviceIds: yup.array().min(1, '请选择设备').max(OTA_VERIFY_MAX, OTA_MESSAGES.verifyMax),
    timeoutMinutes: otaBatchSchema.fields.timeoutMinutes,
});

const verify: Action = {
    kind: 'form',
    label: '验证',
    title: '验证固件',
    right: 'ota.deploy',
    fields: [devicePicker(`验证设备（最多${OTA_VERIFY_MAX}台）`) as never, 'timeoutMinutes'],
    schema: verifySchema,
    defaults: () => ({ deviceIds: [], timeoutMinutes: 60 }),
    submit: {
        call: 'createBatch',
        params: ({ record, values }) => ({
            packageId: record.id,
            kind: 'verify',
            scope: 'devices',
            deviceIds: ids(values?.deviceIds),
            timeoutMinutes: values?.timeoutMinutes,
        }),
    },
    success: '验证任务已创建',
    refresh: REFRESH,
};

const batchFormSchema = otaBatchSchema.omit(['packageId', 'kind', 'deviceIds']).shape({
    deviceIds: yup.array().when('scope', {
        is: 'devices',
        then: (s) => s.min(1, '请选择设备'),
    }),
});

const batchUpgrade: Action = {
    kind: 'form',
    label: '批量升级',
    title: '批量升级',
    right: 'ota.deploy',
    fields: [
        'scope',
        [
            devicePicker('升级设备')[0],
            { ...devicePicker('升级设备')[1], visibleWhen: (v: Record<string, unknown>) => v.scope === 'devices' },
        ] as never,
        [
            'groupId',
            {
                label: '设备分组',
                input: 'select',
                choicesFrom: { call: 'groups', optionValue: 'id', optionText: 'groupName' },
                visibleWhen: (v) => v.scope === 'group',
            },
        ],
        [
            'projectId',
            {
                label: '项目',
                input: 'select',
                choicesFrom: { call: 'projects', optionValue: 'id', optionText: 'projectName' },
                visibleWhen: (v) => v.scope === 'project',
            },
        ],
        'sourceVersions',
        'dynamic',
        // The batch's window in the engine's Chinese pickers; the value stays the text the schema and server read.
        [
            'startTime',
            {
                label: '开始时间',
                input: 'datetime',
                dates: { valueFormat: 'YYYY-MM-DD HH:mm', min: 'now', shortcuts: true },
                helperText: '留空立即开始',
            },
        ],
        [
            'endTime',
            {
                label: '结束时间',
                input: 'datetime',
                dates: { valueFormat: 'YYYY-MM-DD HH:mm', min: (v) => (v.startTime as string) || 'now' },
                helperText: '留空不限；到时未推送的设备取消',
            },
        ],
        'ratePerMinute',
        'timeoutMinutes',
        'retries',
    ],
    schema: batchFormSchema,
    defaults: () => ({
        scope: 'product',
        deviceIds: [],
        sourceVersions: '',
        dynamic: false,
        timeoutMinutes: 60,
        retries: 0,
    }),
    submit: {
        call: 'createBatch',
        params: ({ record, values }) => ({
            ...values,
            packageId: record.id,
            kind: 'batch',
            deviceIds: ids(values?.deviceIds),
        }),
    },
    success: (answer) => {
        const d = ((answer as { data?: unknown })?.data ?? answer) as { devices?: number };
        return `批次已创建，覆盖 ${String(d?.devices ?? 0)} 台设备`;
    },
    refresh: REFRESH,
};

/** 删除 on a package's page (the list's 删除 is the generated one, with the same confirmation), then back to /ota. */
const remove: Action = {
    kind: 'call',
    label: '删除',
    color: 'error',
    right: 'ota.delete',
    call: { call: 'delete', params: ({ record }) => ({ id: record.id }) },
    confirm: ({ record }) => `确定删除固件“${String(record.name)} ${String(record.version)}”吗？其升级记录将一并删除。`,
    confirmTitle: '提示',
    success: '删除成功',
    refresh: REFRESH,
    then: () => '/ota',
};

const cancelBatch: Action = {
    kind: 'call',
    label: '取消',
    color: 'error',
    right: 'ota.edit',
    when: ({ record }) => record.status === 'running',
    call: { call: 'cancelBatch', params: ({ record }) => ({ id: record.id }) },
    confirm: '确定取消该批次吗？未完成的设备将标记为已取消。',
    success: '已取消',
    refresh: REFRESH,
};

const countOf = (r: Record<string, unknown>, state: string) =>
    Number((r.counts as Record<string, number> | undefined)?.[state] ?? 0);
const finishedPercent = (r: Record<string, unknown>) => {
    const total = Number(r.total ?? 0);
    const finished = countOf(r, 'succeeded') + countOf(r, 'failed') + countOf(r, 'cancelled');
    return total ? Math.round((finished / total) * 100) : 0;
};
/** A batch's finished share (成功 + 失败 + 已取消 of all) as a bar; the counts per state stand in their own field. */
const batchProgress: FieldDefinition = {
    label: '进度',
    type: 'progress',
    progress: {
        value: (r) => finishedPercent(r),
        text: (r) => `${finishedPercent(r)}%（共 ${String(r.total ?? 0)} 台）`,
        color: (r) => (countOf(r, 'failed') > 0 ? 'warning' : 'primary'),
    },
};

const batchesList: ListSpec = {
    source: { call: 'batches', params: (scope) => ({ packageId: packageIdOf(scope) }) },
    label: '升级批次',
    urlPrefix: 'b',
    rowId: 'id',
    perPage: 10,
    refresh: true,
    columns: [
        ['id', { label: '批次ID', type: 'link', linkTo: batchPath }],
        [
            'kind',
            { label: '类型', render: (r) => (r.kind === 'verify' ? '验证' : r.dynamic ? '动态升级' : '静态升级') },
        ],
        ['scope', { label: '范围', type: 'select', choices: [...OTA_SCOPES] }],
        ['status', { label: '批次状态', type: 'status', choices: [...OTA_BATCH_STATUSES] }],
        ['total', { label: '设备数' }],
        ['counts', batchProgress],
        ['summary', { label: '各状态设备数' }],
        ['createTime', { label: '创建时间', type: 'datetime' }],
    ],
    rowActions: [{ kind: 'link', label: '查看', to: ({ record }) => batchPath(record) }, cancelBatch],
    empty: { text: '暂无升级批次' },
};

const devicesList: ListSpec = {
    // Asked again every 2 s while shown: the bars move as devices report, no 刷新 needed.
    source: {
        call: 'batchDevices',
        params: ({ record, route }) => ({ batchId: record?.id ?? route.batchId }),
        every: 2,
    },
    label: '升级设备',
    urlPrefix: 'd',
    rowId: 'id',
    perPage: 20,
    refresh: true,
    filters: [{ source: 'state', label: '状态', input: 'select', choices: [...OTA_STATES] }],
    columns: [
        ['deviceName', { label: 'DeviceName' }],
        ['fromVersion', { label: '原版本' }],
        ['state', { label: '状态', type: 'status', choices: [...OTA_STATES] }],
        [
            'progress',
            {
                label: '进度',
                type: 'progress',
                progress: {
                    // A finished device is at 100 whatever step it last reported; a failed one keeps its last step.
                    value: (r) => (r.state === 'succeeded' ? 100 : Number(r.progress ?? 0)),
                    text: (r) => `${r.state === 'succeeded' ? 100 : Number(r.progress ?? 0)}%`,
                    color: (r) => (r.state === 'failed' ? 'error' : r.state === 'succeeded' ? 'success' : 'primary'),
                },
            },
        ],
        ['reason', { label: '原因' }],
        ['attempts', { label: '推送次数' }],
        ['updatedAt', { label: '更新时间', type: 'datetime' }],
    ],
    rowActions: [
        {
            kind: 'call',
            label: '取消',
            color: 'error',
            right: 'ota.edit',
            when: ({ record }) => ['pending', 'pushed', 'upgrading'].includes(String(record.state)),
            call: { call: 'cancelTask', params: ({ record }) => ({ id: record.id }) },
            confirm: ({ record }) => `确定取消设备 ${String(record.deviceName)} 的升级吗？`,
            success: '已取消',
            refresh: REFRESH,
        },
    ],
    empty: { text: '暂无设备' },
};

export default defineResource({
    name: 'ota',
    label: '固件升级',
    icon: SystemUpdateAltIcon,
    recordRepresentation: 'name',
    menu: {
        label: '固件升级',
        to: '/ota',
        section: '设备接入',
        order: 8,
        icon: SystemUpdateAltIcon,
        related: ['/ota/package', '/ota/batch'],
    },
    fields: {
        id: { label: '固件ID', readOnly: true },
        name: { label: '固件名称', type: 'link', linkTo: packagePath, required: true, maxLength: 40 },
        productId: {
            label: '所属产品',
            input: 'select',
            required: true,
            choicesFrom: { call: 'products', optionValue: 'productId', optionText: 'productName' },
        },
        productName: { label: '所属产品', readOnly: true },
        module: { label: '模块', maxLength: 64, helperText: '留空为 default', defaultValue: 'default' },
        version: { label: '版本号', required: true, maxLength: 64, helperText: '字母、数字、下划线、中划线和点号' },
        sourceVersions: {
            label: '待升级版本',
            helperText: '只升级这些版本的设备，逗号分隔；留空不限',
            render: (r) =>
                Array.isArray(r.sourceVersions) && r.sourceVersions.length ? r.sourceVersions.join('、') : '不限',
        },
        signMethod: {
            label: '签名算法',
            type: 'select',
            choices: [...OTA_SIGN_METHODS],
            required: true,
            defaultValue: 'MD5',
        },
        file: {
            label: '固件文件',
            input: 'file',
            required: true,
            views: ['create'],
            helperText: FILE_NOTE,
            file: {
                accept: [...OTA_EXTENSIONS],
                maxSize: OTA_DEFAULT_MAX_MB * 1024 * 1024,
                refusals: {
                    type: OTA_MESSAGES.type,
                    size: OTA_MESSAGES.tooLarge(OTA_DEFAULT_MAX_MB),
                    empty: OTA_MESSAGES.empty,
                },
            },
        },
        description: { label: '固件描述', type: 'longText', maxLength: 100 },
        fileName: { label: '文件', readOnly: true },
        size: { label: '大小（字节）', type: 'number', readOnly: true },
        md5: { label: 'MD5', readOnly: true },
        sha256: { label: 'SHA256', readOnly: true },
        verified: { label: '验证', readOnly: true, render: (r) => (r.verified ? '已验证' : '未验证') },
        createTime: { label: '上传时间', type: 'datetime', format: 'YYYY-MM-DD HH:mm:ss', readOnly: true },
        // The batch form's fields: no column of the package list, no input of its create dialog.
        scope: {
            label: '升级范围',
            type: 'select',
            input: 'radio',
            choices: [...OTA_SCOPES],
            required: true,
            views: [],
        },
        dynamic: { label: '动态升级（之后上线或符合条件的设备也升级）', type: 'boolean', views: [] },
        ratePerMinute: { label: '每分钟推送数量', type: 'number', helperText: '留空不限', views: [] },
        timeoutMinutes: { label: '设备升级超时（分钟）', type: 'number', views: [] },
        retries: { label: '失败重试次数', type: 'number', views: [] },
    },
    // The generated list (its 上传固件 create dialog and 删除) with a second tab of every batch; a package's page
    // and a batch's page are declared pages.
    views: { show: false, edit: false },
    rightFamily: 'ota',
    messages: { created: '上传成功', createFailed: '上传失败', deleted: '删除成功' },
    schema: createSchema,
    list: {
        columns: ['name', 'productName', 'module', 'version', 'signMethod', 'size', 'verified', 'createTime'],
        perPage: 10,
        perPageOptions: [10, 20, 30, 40],
        filters: [{ source: 'name', label: '固件名称' }],
        createInDialog: true,
        createLabel: '上传固件',
        show: false,
        rowActions: [verify, batchUpgrade],
        deleteConfirmOf: (r) => `确定删除固件“${String(r.name)} ${String(r.version)}”吗？其升级记录将一并删除。`,
        empty: '暂无固件',
        tabs: {
            listLabel: '固件列表',
            tabs: [
                {
                    key: 'batches',
                    label: '升级批次',
                    sections: [
                        {
                            kind: 'list',
                            list: {
                                ...batchesList,
                                columns: [
                                    batchesList.columns![0],
                                    [
                                        'packageId',
                                        {
                                            label: '固件ID',
                                            type: 'link',
                                            linkTo: (r) => `/ota/package/${String(r.packageId)}`,
                                        },
                                    ],
                                    ...batchesList.columns!.slice(1),
                                ],
                            },
                        },
                    ],
                },
            ],
        },
    },
    pages: [
        {
            path: '/ota/package/:packageId/*',
            title: '固件详情',
            back: { label: '固件升级', to: '/ota' },
            record: {
                call: 'getOne',
                params: ({ route }) => ({ id: route.packageId }),
                notFound: '该固件不存在或已被删除',
                notFoundTitle: '固件不存在',
            },
            header: {
                title: ({ record }) => `${String(record.name ?? '')} ${String(record.version ?? '')}`,
                fields: ['productName', 'module', 'verified'],
                actions: [verify, batchUpgrade, remove],
            },
            tabs: [
                {
                    key: 'info',
                    label: '固件信息',
                    sections: [
                        {
                            kind: 'fields',
                            columns: 2,
                            fields: [
                                'name',
                                'productName',
                                'module',
                                'version',
                                'sourceVersions',
                                'signMethod',
                                'fileName',
                                'size',
                                'md5',
                                'sha256',
                                'description',
                                'createTime',
                            ],
                        },
                        { kind: 'list', title: '升级批次', list: batchesList },
                    ],
                },
            ],
        },
        {
            path: '/ota/batch/:batchId/*',
            title: '批次详情',
            back: { label: '固件升级', to: '/ota' },
            record: {
                call: 'batch',
                params: ({ route }) => ({ id: route.batchId }),
                every: 2,
                notFound: '该批次不存在',
                notFoundTitle: '批次不存在',
            },
            header: {
                title: ({ record }) =>
                    `批次 ${String(record.id)}：${String(record.packageName ?? '')} ${String(record.version ?? '')}`,
                fields: [
                    ['status', { label: '批次状态', type: 'status', choices: [...OTA_BATCH_STATUSES] }],
                    ['counts', batchProgress],
                    ['summary', { label: '各状态设备数' }],
                ],
                actions: [cancelBatch],
            },
            tabs: [{ key: 'devices', label: '升级设备', sections: [{ kind: 'list', list: devicesList }] }],
        },
    ],
    api: {
        success: 'code200',
        getList: {
            get: '/api/ota/package',
            paging: ['pageNumber', 'pageSize'],
            read: 'data.records',
            total: 'data.total',
        },
        getOne: { get: '/api/ota/package/detail', params: (r) => ({ id: r.id }), read: 'data' },
        // The file is the body, the package's fields the query; the form shows how far it has travelled.
        create: { post: '/api/ota/package/upload', body: 'file', read: 'data' },
        delete: { post: '/api/ota/package/delete', body: 'json', params: (r) => ({ id: r.id }) },
        custom: {
            createBatch: { post: '/api/ota/batch', body: 'json', read: 'data' },
            batches: {
                get: '/api/ota/batch',
                paging: ['pageNumber', 'pageSize'],
                read: 'data.records',
                total: 'data.total',
            },
            batch: { get: '/api/ota/batch/detail', read: 'data' },
            batchDevices: {
                get: '/api/ota/batch/devices',
                paging: ['pageNumber', 'pageSize'],
                read: 'data.records',
                total: 'data.total',
            },
            cancelBatch: { post: '/api/ota/batch/cancel', body: 'json' },
            cancelTask: { post: '/api/ota/task/cancel', body: 'json' },
            products: { get: '/api/product/list-product', read: 'data.list' },
            groups: {
                get: '/api/group/list',
                params: () => ({ pageNumber: 1, pageSize: 1000 }),
                read: 'data.records',
                success: 'returnCode1111',
            },
            projects: { get: '/api/project/listAll', read: 'data.list' },
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
