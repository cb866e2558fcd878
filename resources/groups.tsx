import AccountTreeIcon from '@mui/icons-material/AccountTree';
import AddIcon from '@mui/icons-material/Add';
import EditIcon from '@mui/icons-material/Edit';
import LinkOffIcon from '@mui/icons-material/LinkOff';
import { DEVICE_STATUSES } from '../schemas/device';
import {
    GROUP_DEVICE_PAGE_SIZE,
    GROUP_MESSAGES,
    GROUP_PAGE_SIZE,
    GROUP_PAGE_SIZES,
    MAX_GROUP_LEVEL,
    TREE_CHILD_LOAD_DELAY_MS,
    groupLiveSchema,
    groupRemarkSchema,
    groupSaveSchema,
    groupTagFilterSchema,
} from '../schemas/group';
import {
    defineResource,
    type Action,
    type FieldDefinition,
    type FormValues,
    type PageSpec,
    type Row,
    type Scope,
} from '../src/engine/types';

/**
 * Device groups, three levels (SPEC.md "Groups"; docs/platform-api.md "Groups"): the list at /groups, and the
 * detail at /groups/detail?groupId= and /groupDetail/{id} with tabs 分组信息, 设备列表 and 子分组 (below level 3)
 * in ?tab=.
 */

/** The "no parent" choice: the new group becomes a level-1 group (pid 0). */
const ROOT_OPTION = '无（作为一级分组）';

const GROUP_LEVELS = [
    { id: 1, name: '一级分组' },
    { id: 2, name: '二级分组' },
    { id: 3, name: '三级分组' },
];

const list = { paging: ['pageNumber', 'pageSize'] as [string, string], read: 'data.records', total: 'data.total' };

const isLeafLevel = (node: Row, level: number) => Number(node.level ?? level) >= MAX_GROUP_LEVEL;

/** The parent picker: the project's level-1 groups, children loaded on expand (300 ms), level 3 shown but refused. */
const parentField: FieldDefinition = {
    label: '父级分组',
    input: 'tree',
    required: true,
    nameField: 'parentName',
    tree: {
        roots: { call: 'tree', params: ({ values }) => ({ projectCode: values?.projectCode }) },
        source: { call: 'children' },
        parentParam: 'parentId',
        optionValue: 'groupId',
        optionText: 'groupName',
        hasChildren: (node, level) => !node.isLeaf && !isLeafLevel(node, level),
        disabled: isLeafLevel,
        note: (node, level) => (isLeafLevel(node, level) ? '第三级分组，不能作为父组' : undefined),
        emptyOption: { id: 0, name: ROOT_OPTION },
        delay: TREE_CHILD_LOAD_DELAY_MS,
        blocked: (values: FormValues) => (values.projectCode ? undefined : '选择项目后可选择该项目的分组'),
    },
};

const nameField: FieldDefinition = {
    label: '分组名称',
    required: true,
    maxLength: 30,
    helperText: '4~30个字符，中文算2位；支持中文、英文字母、数字和下划线',
};

const remarkInput: FieldDefinition = { label: '描述', input: 'textarea', maxLength: 200 };

/** The new-group form's call: the values as the platform takes them. */
const save = (values: FormValues | undefined) => ({
    projectCode: values?.projectCode,
    pid: values?.pid,
    name: values?.name,
    remark: values?.remark ?? '',
});

/** 新建分组 (SPEC.md "Groups"): project, parent tree select, name with its three rules, description. */
const newGroup: Action = {
    kind: 'form',
    label: '新建分组',
    right: 'group.create',
    icon: AddIcon,
    variant: 'contained',
    fields: [
        [
            'projectCode',
            {
                label: '所属项目',
                input: 'select',
                required: true,
                choicesFrom: { call: 'projects', optionValue: 'code', optionText: 'projectName' },
                // The parent belongs to a project: choose it again in the new one.
                resets: { pid: '', parentName: '' },
            },
        ],
        ['pid', parentField],
        ['name', nameField],
        ['remark', remarkInput],
    ],
    schema: groupSaveSchema,
    liveSchema: groupLiveSchema,
    defaults: () => ({ projectCode: '', pid: '', name: '', remark: '' }),
    submit: { call: 'save', params: ({ values }) => save(values) },
    success: GROUP_MESSAGES.created,
};

/** 新建子分组: a child of the page's group, its project and parent shown but fixed. */
const newChild: Action = {
    kind: 'form',
    label: '新建子分组',
    right: 'group.create',
    icon: AddIcon,
    variant: 'contained',
    fields: [
        ['projectName', { label: '所属项目', locked: true }],
        ['pid', { ...parentField, locked: true }],
        ['name', nameField],
        ['remark', remarkInput],
    ],
    schema: groupSaveSchema,
    liveSchema: groupLiveSchema,
    defaults: ({ record }) => ({
        projectCode: record.projectCode,
        projectName: record.projectName ?? record.projectCode,
        pid: record.groupId,
        parentName: record.groupName,
        name: '',
        remark: '',
    }),
    submit: {
        call: 'save',
        params: ({ record, values }) => save({ ...values, projectCode: record.projectCode, pid: record.groupId }),
    },
    success: GROUP_MESSAGES.created,
};

/** 编辑分组: the description (the name is shown, not changed). */
const edit: Action = {
    kind: 'form',
    label: '编辑',
    right: 'group.edit',
    icon: EditIcon,
    variant: 'outlined',
    title: '编辑分组',
    mode: 'edit',
    fields: [
        ['groupName', { label: '分组名称', locked: true }],
        ['remark', { ...remarkInput, helperText: '不超过200个字符' }],
    ],
    schema: groupRemarkSchema,
    defaults: ({ record }) => ({ groupName: record.groupName, remark: record.remark ?? '' }),
    submit: {
        call: 'edit',
        params: ({ record, values }) => ({ groupId: record.groupId, remark: values?.remark ?? '' }),
    },
    success: '修改成功',
};

const view: Action = {
    kind: 'link',
    label: '查看',
    to: ({ record }) => `/groups/detail?groupId=${String(record.groupId)}`,
};

const remove: Action = {
    kind: 'call',
    label: '删除',
    right: 'group.delete',
    color: 'error',
    call: { call: 'remove', params: ({ record }) => ({ id: record.groupId }) },
    confirm: GROUP_MESSAGES.deleteConfirm,
    success: '删除成功',
    failure: '删除失败',
};

const DEVICE_COLUMNS: Array<[string, FieldDefinition]> = [
    ['deviceName', { label: 'DeviceName' }],
    ['productName', { label: '所属产品' }],
    ['status', { label: '状态', type: 'status', choices: [...DEVICE_STATUSES] }],
    ['remark', { label: '备注' }],
    ['lastTime', { label: '最后上线时间', type: 'datetime' }],
];

/** 添加设备: pick a product, then its devices not yet in the group, across pages. */
const addDevices: Action = {
    kind: 'form',
    label: '添加设备',
    right: 'group.bind',
    icon: AddIcon,
    variant: 'contained',
    width: 'md',
    fields: [
        [
            'deviceList',
            {
                label: '可添加的设备',
                input: 'picker',
                picker: {
                    source: { call: 'candidates', params: ({ record }) => ({ groupId: record.groupId }) },
                    rowId: 'deviceId',
                    rowLabel: 'deviceName',
                    columns: DEVICE_COLUMNS,
                    perPage: GROUP_DEVICE_PAGE_SIZE,
                    filters: [
                        {
                            source: 'productId',
                            label: '产品',
                            input: 'select',
                            allLabel: false,
                            required: '请先选择产品，再勾选要加入分组的设备',
                            choicesFrom: { call: 'products', optionValue: 'productId', optionText: 'productName' },
                        },
                        { source: 'deviceName', label: 'DeviceName' },
                    ],
                    selectedText: (n) => `已选择 ${n} 个设备`,
                    empty: '该产品下没有可添加的设备',
                },
            },
        ],
    ],
    defaults: () => ({ deviceList: [] }),
    ready: (values) => Array.isArray(values.deviceList) && values.deviceList.length > 0,
    submit: {
        call: 'addDevices',
        params: ({ record, values }) => ({ groupId: record.groupId, deviceList: values?.deviceList }),
    },
    success: '添加成功',
};

const removeConfirm = (group: Row | undefined, devices: Row[]) =>
    devices.length === 1
        ? `确定将设备 ${String(devices[0].deviceName)} 移出分组「${String(group?.groupName ?? '')}」吗？`
        : `确定将所选的 ${devices.length} 个设备移出分组「${String(group?.groupName ?? '')}」吗？`;

const removeOne: Action = {
    kind: 'call',
    label: '移除',
    right: 'group.bind',
    color: 'error',
    call: {
        call: 'removeDevices',
        params: ({ record, page }) => ({ groupId: page?.groupId, deviceList: [record.deviceId] }),
    },
    confirm: ({ record, page }) => removeConfirm(page, [record]),
    success: '操作成功',
};

const removeSelected: Action = {
    kind: 'call',
    label: '移除设备',
    right: 'group.bind',
    icon: LinkOffIcon,
    color: 'error',
    call: {
        call: 'removeDevices',
        params: ({ record, selected }) => ({ groupId: record.groupId, deviceList: selected?.map((r) => r.deviceId) }),
    },
    confirm: ({ record, selected }) => removeConfirm(record, selected ?? []),
    success: '操作成功',
};

const tagChip = (v: Record<string, string>) => `标签：${v.tagKey}${v.tagValue ? ` = ${v.tagValue}` : ''}`;

/** The group id a detail URL names: a positive integer, or nothing. */
const validId = (raw: string | undefined) => (raw && /^\d{1,9}$/.test(raw) && Number(raw) > 0 ? raw : undefined);

/** The group detail at one of its two routes; `id` reads the group id from the URL. */
function detailPage(path: string, id: (scope: Scope) => string | undefined): PageSpec {
    return {
        path,
        title: '分组详情',
        back: { label: '分组管理', to: '/groups' },
        record: {
            call: 'detail',
            params: (scope) => ({ groupId: validId(id(scope)) }),
            missing: (scope) => (validId(id(scope)) ? undefined : '缺少分组ID，请从分组列表进入'),
            notFound: '该分组不存在或已被删除',
            notFoundTitle: '分组不存在',
        },
        header: {
            title: ({ record }) => String(record.groupName ?? ''),
            status: 'level',
            subtitle: ({ record }) => {
                const path = Array.isArray(record.hierarchy) ? (record.hierarchy as string[]) : [];
                return path.length > 1 ? path.join(' / ') : undefined;
            },
            actions: [edit],
        },
        tabParam: { query: 'tab', fallback: 'info' },
        tabs: [
            {
                key: 'info',
                label: '分组信息',
                sections: [
                    {
                        kind: 'fields',
                        columns: 2,
                        fields: [
                            'groupName',
                            'groupId',
                            'projectName',
                            'level',
                            'hierarchy',
                            'devices',
                            'childCount',
                            'createTime',
                            'remark',
                        ],
                    },
                ],
            },
            {
                key: 'devices',
                label: '设备列表',
                sections: [
                    {
                        kind: 'list',
                        list: {
                            source: { call: 'devices', params: ({ record }) => ({ groupId: record.groupId }) },
                            label: '分组设备',
                            rowId: 'deviceId',
                            columns: DEVICE_COLUMNS,
                            perPage: GROUP_DEVICE_PAGE_SIZE,
                            filters: [
                                {
                                    source: 'tagKey',
                                    label: '标签筛选',
                                    input: 'dialog',
                                    dialog: {
                                        fields: [
                                            ['tagKey', { label: '标签Key', required: true }],
                                            ['tagValue', { label: '标签Value' }],
                                        ],
                                        schema: groupTagFilterSchema,
                                        note: '只显示带有此标签的设备；不填 Value 时匹配该 Key 的任意值。',
                                        chip: tagChip,
                                    },
                                },
                            ],
                            counters: {
                                title: '设备统计',
                                items: [
                                    { label: '设备总数：', value: 'deviceTotal' },
                                    { label: '在线：', value: 'deviceOnline' },
                                ],
                            },
                            toolbar: [addDevices],
                            rowActions: [removeOne],
                            bulkActions: [removeSelected],
                            empty: { text: '该分组暂无设备', action: addDevices, filtered: '没有带此标签的设备' },
                        },
                    },
                ],
            },
            {
                key: 'children',
                label: '子分组',
                when: ({ record }) => Number(record.level) < MAX_GROUP_LEVEL,
                sections: [
                    {
                        kind: 'list',
                        list: {
                            source: { call: 'childList', params: ({ record }) => ({ parentId: record.groupId }) },
                            label: '子分组',
                            urlPrefix: 'c',
                            rowId: 'groupId',
                            columns: ['groupId', 'groupName', ['remark', { label: '描述' }], 'createTime'],
                            perPage: GROUP_PAGE_SIZE,
                            perPageOptions: [...GROUP_PAGE_SIZES],
                            jumper: true,
                            toolbar: [newChild],
                            rowActions: [view, remove],
                            empty: { text: '暂无子分组' },
                        },
                    },
                ],
            },
        ],
    };
}

export default defineResource({
    name: 'groups',
    label: '分组管理',
    menu: { label: '分组管理', section: '设备接入', order: 4, icon: AccountTreeIcon, related: ['/groupDetail'] },
    hidden: true,
    idField: 'groupId',
    recordRepresentation: 'groupName',
    fields: {
        groupId: { label: '分组ID', readOnly: true },
        groupName: { label: '分组名称', readOnly: true },
        createTime: { label: '添加时间', type: 'datetime', readOnly: true },
        projectName: {
            label: '所属项目',
            readOnly: true,
            render: (r) => String(r.projectName ?? r.projectCode ?? ''),
        },
        level: { label: '分组层级', type: 'select', choices: GROUP_LEVELS, readOnly: true },
        hierarchy: {
            label: '分组路径',
            readOnly: true,
            render: (r) => (Array.isArray(r.hierarchy) ? (r.hierarchy as string[]).join(' / ') : ''),
        },
        devices: {
            label: '设备数',
            readOnly: true,
            render: (r) => `${String(r.deviceTotal ?? 0)}（在线 ${String(r.deviceOnline ?? 0)}）`,
        },
        childCount: { label: '子分组数', type: 'number', readOnly: true },
        remark: { label: '描述', type: 'longText', readOnly: true, render: (r) => String(r.remark || '—') },
    },
    messages: { created: GROUP_MESSAGES.created, deleted: '删除成功', updated: '修改成功' },
    views: { list: false, show: false, edit: false, create: false },
    pages: [
        {
            path: '/groups',
            title: '分组管理',
            sections: [
                {
                    kind: 'list',
                    list: {
                        columns: ['groupId', 'groupName', 'createTime'],
                        rowId: 'groupId',
                        perPage: GROUP_PAGE_SIZE,
                        perPageOptions: [...GROUP_PAGE_SIZES],
                        jumper: true,
                        toolbar: [newGroup],
                        refresh: true,
                        rowActions: [view, remove],
                        empty: { text: '暂无分组', action: newGroup },
                    },
                },
            ],
        },
        detailPage('/groups/detail', ({ query }) => query.groupId),
        detailPage('/groupDetail/:id', ({ route }) => route.id),
    ],
    api: {
        success: 'returnCode1111',
        getList: { get: '/api/group/list', ...list },
        delete: { post: '/api/group/delete', params: (r) => ({ id: r.id }) },
        custom: {
            tree: { get: '/api/group/tree', read: 'data.list' },
            children: { get: '/api/group/children', read: 'data.list' },
            save: { post: '/api/group/save', read: 'data' },
            edit: { post: '/api/group/update', read: 'data' },
            remove: { post: '/api/group/delete' },
            detail: { get: '/api/group/detail', read: 'data' },
            childList: { get: '/api/group/childList', ...list },
            devices: {
                get: '/api/groups/devices',
                paging: ['pageNumber', 'pageSize'],
                read: 'data.deviceList',
                total: 'data.total',
            },
            addDevices: { post: '/api/groups/addDevices', read: 'data', arrays: 'comma' },
            removeDevices: { post: '/api/groups/removeDevices', read: 'data', arrays: 'comma' },
            candidates: {
                get: '/api/device/candidates',
                paging: ['pageNumber', 'pageSize'],
                read: 'data.list',
                total: 'data.total',
                success: 'code0',
            },
            projects: { get: '/api/project/listAll', read: 'data.list', success: 'code200' },
            products: { get: '/api/product/list-product', read: 'data.list', success: 'code200' },
        },
    },
});
