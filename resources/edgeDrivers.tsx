import ExtensionIcon from '@mui/icons-material/Extension';
import { defineResource, type Action } from '../src/engine/types';
import { EDGE_PROTOCOLS, edgeDriverSchema } from '../schemas/edge';

/**
 * Edge drivers (/edge/driver, calls under /api/edge/driver/*): a driver is a named, versioned package for one
 * protocol with the configuration schema each instance fills in (Alibaba Link IoT Edge's drivers). A driver an
 * instance uses cannot be deleted.
 */

const REFRESH = ['edgeDrivers'];
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
                        columns: ['name', 'version', 'protocol', 'instanceCount', 'description', 'createTime'],
                        perPage: 10,
                        perPageOptions: [10, 20, 30, 40],
                        filters: [{ source: 'name', label: '驱动名称' }],
                        toolbar: [create],
                        rowActions: [edit, remove],
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
            delete: { delete: '/api/edge/driver/delete' },
        },
    },
});
