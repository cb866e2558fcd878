import ExtensionIcon from '@mui/icons-material/Extension';
import { defineResource, type Action } from '../src/engine/types';
import { EDGE_PROTOCOLS, edgeDriverSchema } from '../schemas/edge';

/**
 * Edge drivers (/edge/driver, calls under /api/edge/driver/*): a driver is a named, versioned package for one
 * protocol with the configuration schema each instance fills in (Alibaba Link IoT Edge's drivers), uploaded with its
 * package file (上传驱动: size and SHA-256 kept, 下载 gives it back). A driver an instance uses cannot be deleted.
 */

const REFRESH = ['edgeDrivers'];
/** The platform's general body limit (10 MB) less room for the form's other fields. */
const PACKAGE_MAX_BYTES = 10 * 1024 * 1024 - 64 * 1024;
const FIELDS = ['name', 'version', 'protocol', 'description', 'configSchema'];

const create: Action = {
    kind: 'form',
    label: '新建驱动',
    variant: 'contained',
    fields: FIELDS,
    schema: edgeDriverSchema,
    defaults: () => ({ protocol: 'modbus_tcp', version: '1.0.0', configSchema: '{}' }),
    submit: { call: 'save' },
    success: '创建成功',
    refresh: REFRESH,
};

/** A new version with its package (multipart; the platform keeps its size and SHA-256). */
const uploadVersion: Action = {
    kind: 'upload',
    label: '上传驱动',
    title: '上传驱动',
    right: 'edge.edit',
    variant: 'outlined',
    call: { call: 'upload' },
    fields: FIELDS,
    schema: edgeDriverSchema,
    defaults: () => ({ protocol: 'modbus_tcp', version: '1.0.0', configSchema: '{}' }),
    maxSize: PACKAGE_MAX_BYTES,
    refusals: { size: '驱动包不能超过10MB', empty: '驱动包文件为空' },
    note: '驱动包（zip、tar.gz、jar等）不超过10MB；平台保存其大小与SHA-256，网关下载后据此校验。同名驱动的每个版本单独保存。',
    success: '上传成功',
    failure: '上传失败',
    refresh: REFRESH,
};

const download: Action = {
    kind: 'download',
    label: '下载',
    when: ({ record }) => Boolean(record.fileName),
    call: { call: 'download', params: ({ record }) => ({ id: record.id }) },
};

const edit: Action = {
    kind: 'form',
    label: '编辑',
    title: '编辑驱动',
    mode: 'edit',
    fields: FIELDS,
    schema: edgeDriverSchema,
    defaults: ({ record }) => ({
        name: record.name,
        version: record.version,
        protocol: record.protocol,
        description: record.description ?? '',
        configSchema: record.configSchema ?? '{}',
    }),
    submit: { call: 'save', params: ({ record, values }) => ({ ...values, id: record.id }) },
    success: '修改成功',
    refresh: REFRESH,
};

const remove: Action = {
    kind: 'call',
    label: '删除',
    color: 'error',
    call: { call: 'delete', params: ({ record }) => ({ id: record.id }) },
    confirm: ({ record }) => `确定删除驱动“${String(record.name)} ${String(record.version)}”吗？`,
    confirmTitle: '提示',
    success: '删除成功',
    refresh: REFRESH,
};

export default defineResource({
    name: 'edgeDrivers',
    label: '驱动管理',
    icon: ExtensionIcon,
    recordRepresentation: 'name',
    menu: { label: '驱动管理', to: '/edge/driver', section: '边缘计算', order: 2, icon: ExtensionIcon },
    fields: {
        id: { label: '驱动ID', readOnly: true },
        name: { label: '驱动名称', required: true, maxLength: 64 },
        version: { label: '版本', required: true, maxLength: 32, helperText: '格式为x.y.z，例如1.0.0' },
        protocol: { label: '协议类型', type: 'select', choices: [...EDGE_PROTOCOLS], required: true },
        description: { label: '描述', type: 'longText', maxLength: 200 },
        configSchema: {
            label: '配置模板',
            type: 'longText',
            helperText: 'JSON Schema：实例使用该驱动时填写的配置项',
        },
        fileName: { label: '驱动包', readOnly: true },
        fileSize: { label: '大小（字节）', type: 'number', readOnly: true },
        sha256: { label: 'SHA-256', readOnly: true },
        instanceCount: { label: '使用实例数', type: 'number', readOnly: true },
        createTime: { label: '创建时间', type: 'datetime', format: 'YYYY-MM-DD HH:mm:ss', readOnly: true },
    },
    views: { list: false, show: false, edit: false, create: false },
    pages: [
        {
            path: '/edge/driver',
            title: '驱动管理',
            sections: [
                {
                    kind: 'list',
                    list: {
                        columns: ['name', 'version', 'protocol', 'fileName', 'fileSize', 'instanceCount', 'createTime'],
                        perPage: 10,
                        perPageOptions: [10, 20, 30, 40],
                        filters: [{ source: 'name', label: '驱动名称' }],
                        toolbar: [create, uploadVersion],
                        rowActions: [download, edit, remove],
                        empty: { text: '暂无驱动', action: create },
                    },
                },
            ],
        },
    ],
    api: {
        success: 'code200',
        getList: {
            get: '/api/edge/driver/list',
            paging: ['pageNumber', 'pageSize'],
            read: 'data.records',
            total: 'data.total',
        },
        delete: { delete: '/api/edge/driver/delete', params: (r) => ({ id: r.id }) },
        custom: {
            save: { post: '/api/edge/driver/save', read: 'data' },
            upload: { post: '/api/edge/driver/upload', read: 'data', failure: '上传失败' },
            download: { get: '/api/edge/driver/download', params: (r) => ({ id: r.id }) },
            delete: { delete: '/api/edge/driver/delete' },
        },
    },
});
