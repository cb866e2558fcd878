import PeopleIcon from '@mui/icons-material/People';
import { defineResource, type Action, type Row } from '../src/engine/types';
import { userCreateSchema, userUpdateSchema } from '../schemas/user';

/**
 * People (/personnelManage, docs/roles.md): the users who sign in, each with one role. Staff candidates of projects
 * are these users. Administrators only (the server answers 403 to anyone else).
 */

const STATUSES = [
    { id: 1, name: '启用', color: 'success' as const },
    { id: 0, name: '停用', color: 'default' as const },
];

const enable: Action = {
    kind: 'call',
    label: ({ record }) => (record.enabled ? '停用' : '启用'),
    ariaLabel: ({ record }) => `${record.enabled ? '停用' : '启用'} ${String(record.username)}`,
    call: { call: 'enable', params: ({ record }) => ({ id: record.id, enabled: record.enabled ? 0 : 1 }) },
    confirm: ({ record }) =>
        record.enabled
            ? `确定停用「${String(record.displayName)}」吗？停用后其登录会话立即失效，且无法再登录。`
            : `确定启用「${String(record.displayName)}」吗？`,
    success: (answer) => ((answer as Row | undefined)?.enabled ? '已启用' : '已停用'),
    refresh: ['users'],
};

const resetPassword: Action = {
    kind: 'call',
    label: '重置密码',
    ariaLabel: ({ record }) => `重置密码 ${String(record.username)}`,
    call: { call: 'resetPassword', params: ({ record }) => ({ id: record.id }) },
    confirm: ({ record }) => `确定重置「${String(record.displayName)}」的密码吗？其登录会话将立即失效。`,
    success: '密码已重置',
    reveal: {
        title: '新密码',
        note: '新密码只显示这一次，请复制后告知本人，并提醒其登录后在个人中心修改密码。',
        fields: [{ label: '新密码', path: 'password', copy: true }],
        closeLabel: '关闭',
    },
    refresh: [],
};

export default defineResource({
    name: 'users',
    label: '人员管理',
    path: 'personnelManage',
    menu: { label: '人员管理', section: '系统管理', order: 1, icon: PeopleIcon },
    icon: PeopleIcon,
    fields: {
        displayName: { label: '姓名', required: true, maxLength: 30 },
        username: {
            label: '登录名',
            required: true,
            maxLength: 30,
            helperText: '以字母开头，字母、数字和下划线，4~30位',
            inputFilter: 'ascii',
            perView: { edit: { locked: true } },
        },
        mobile: { label: '手机号', required: true, maxLength: 11, inputFilter: 'digits' },
        password: {
            label: '初始密码',
            type: 'password',
            required: true,
            maxLength: 64,
            helperText: '至少6位',
            views: ['create'],
        },
        roleId: {
            label: '角色',
            type: 'select',
            required: true,
            views: ['create', 'edit'],
            choicesFrom: { call: 'roles', optionValue: 'id', optionText: 'name' },
        },
        roleName: { label: '角色', readOnly: true, views: ['list'] },
        status: { label: '状态', type: 'status', choices: STATUSES, readOnly: true },
        createTime: { label: '创建时间', type: 'datetime', format: 'YYYY-MM-DD HH:mm:ss', readOnly: true },
    },
    schema: userCreateSchema,
    editSchema: userUpdateSchema,
    list: {
        perPage: 10,
        perPageOptions: [10, 20, 30, 40],
        filters: [{ source: 'keyword', label: '姓名/登录名/手机号', alwaysOn: true }],
        show: false,
        createInDialog: true,
        createLabel: '新增人员',
        editInDialog: true,
        rowActions: [enable, resetPassword],
        deleteConfirmOf: (r) => `确定删除人员「${String(r.displayName)}」（${String(r.username)}）吗？`,
        empty: '暂无人员',
    },
    messages: { created: '添加成功', updated: '修改成功', deleted: '删除成功' },
    api: {
        success: 'code200',
        getList: {
            get: '/api/users/list',
            paging: ['pageNumber', 'pageSize'],
            read: 'data.records',
            total: 'data.total',
        },
        create: {
            post: '/api/users/save',
            params: (r) => ({
                displayName: r.displayName,
                username: r.username,
                mobile: r.mobile,
                password: r.password,
                roleId: r.roleId,
            }),
            read: 'data',
        },
        update: {
            post: '/api/users/update',
            params: (r) => ({ id: r.id, displayName: r.displayName, mobile: r.mobile, roleId: r.roleId }),
            read: 'data',
        },
        delete: { delete: '/api/users/delete', params: (r) => ({ id: r.id }) },
        custom: {
            roles: { get: '/api/role/list', read: 'data.records' },
            enable: { post: '/api/users/enable', read: 'data' },
            resetPassword: { post: '/api/users/resetPassword', read: 'data' },
        },
    },
});
