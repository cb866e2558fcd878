import AdminPanelSettingsIcon from '@mui/icons-material/AdminPanelSettings';
import * as yup from 'yup';
import { MENU, SYSTEM_SECTION } from '../schemas/menu';
import { defineResource, type Row } from '../src/engine/types';
import { RIGHT_ACTIONS, RIGHT_FAMILIES, rightLabel } from '../schemas/rights';
import { roleSaveSchema } from '../schemas/user';

/**
 * Roles (/roleList, docs/roles.md): 管理员, 运维 and 只读 from the start, more can be made. A role grants menu entries
 * and rights per family (create, edit, delete, bind, push, deploy, downlink); the server enforces the rights on every
 * call (openapi.yaml x-right), the menu and the buttons follow them. Administrators only.
 */

const RIGHT_GROUPS = RIGHT_FAMILIES.map((f) => ({
    label: f.name,
    options: f.actions.map((a) => ({ id: `${f.id}.${a}`, name: RIGHT_ACTIONS[a] })),
}));

/** The menu entries a role may be granted: the menu's own entries (schemas/menu.ts), 系统管理 aside (administrators only). */
const MENU_GROUPS = [
    {
        label: '常用',
        options: (MENU.children ?? []).filter((n) => !n.children).map(({ id, name }) => ({ id, name })),
    },
    ...(MENU.children ?? [])
        .filter((n) => n.children && n.id !== SYSTEM_SECTION)
        .map((section) => ({
            label: section.name,
            options: (section.children ?? []).map(({ id, name }) => ({ id, name })),
        })),
];

const ALL_MENUS = [
    { id: 1, name: '全部业务菜单（含以后新增的）' },
    { id: 0, name: '指定菜单' },
];

const summary = (r: Row) => {
    if (r.isAdmin) return '全部权限';
    const rights = (r.rights as string[] | undefined) ?? [];
    return rights.length ? rights.map(rightLabel).join('、') : '只能查看';
};

export default defineResource({
    name: 'roles',
    label: '角色管理',
    path: 'roleList',
    menu: { label: '角色管理', section: '系统管理', order: 2, icon: AdminPanelSettingsIcon },
    icon: AdminPanelSettingsIcon,
    fields: {
        name: { label: '角色名称', required: true, maxLength: 20 },
        remark: { label: '说明', type: 'longText', maxLength: 200 },
        allMenus: {
            label: '菜单',
            input: 'radio',
            choices: ALL_MENUS,
            defaultValue: 1,
            views: ['create', 'edit'],
        },
        menus: {
            label: '可见菜单',
            input: 'widget',
            widget: 'checkGroups',
            // Beside schemas/menu.ts's entries, every right a definition's `menu` declares (an integrator's new entry).
            widgetProps: { groups: MENU_GROUPS, declared: { topLabel: '常用', skipSection: SYSTEM_SECTION } },
            views: ['create', 'edit'],
            visibleWhen: (v) => Number(v.allMenus) === 0,
        },
        rights: {
            label: '操作权限',
            input: 'widget',
            widget: 'checkGroups',
            widgetProps: { groups: RIGHT_GROUPS },
            helperText: '未勾选的操作对该角色隐藏，服务端也会拒绝（403）；查看不需要权限',
            render: summary,
            views: ['list', 'create', 'edit'],
        },
        builtin: {
            label: '类型',
            type: 'status',
            choices: [
                { id: 'true', name: '内置', color: 'primary' },
                { id: 'false', name: '自定义', color: 'default' },
            ],
            render: (r) => (r.builtin ? '内置' : '自定义'),
            readOnly: true,
        },
        userCount: { label: '人员数', type: 'number', readOnly: true },
        createTime: { label: '创建时间', type: 'datetime', format: 'YYYY-MM-DD HH:mm:ss', readOnly: true },
    },
    schema: roleSaveSchema.shape({
        menus: yup.array().of(yup.string().required()).optional(),
        rights: yup.array().of(yup.string().required()).optional(),
    }),
    list: {
        perPage: 10,
        perPageOptions: [10, 20, 30, 40],
        show: false,
        createInDialog: true,
        createLabel: '新增角色',
        createTitle: '新增角色',
        editInDialog: true,
        deleteConfirmOf: (r) => `确定删除角色「${String(r.name)}」吗？`,
        empty: '暂无角色',
    },
    messages: { created: '添加成功', updated: '修改成功', deleted: '删除成功' },
    api: {
        success: 'code200',
        getList: {
            get: '/api/role/list',
            read: 'data.records',
            total: 'data.total',
            transform: (r) => ({ ...r, allMenus: r.allMenus ? 1 : 0, menus: r.menus ?? [] }),
        },
        create: {
            post: '/api/role/save',
            params: (r) => roleForm(r),
            read: 'data',
        },
        update: {
            post: '/api/role/update',
            params: (r) => ({ id: r.id, ...roleForm(r) }),
            read: 'data',
        },
        delete: { delete: '/api/role/delete', params: (r) => ({ id: r.id }) },
    },
});

function roleForm(r: Record<string, unknown>) {
    const all = Number(r.allMenus) !== 0;
    return {
        name: r.name,
        remark: r.remark ?? '',
        allMenus: all ? 1 : 0,
        menus: JSON.stringify(all ? [] : ((r.menus as string[] | undefined) ?? [])),
        rights: JSON.stringify((r.rights as string[] | undefined) ?? []),
    };
}
