import AccountCircleIcon from '@mui/icons-material/AccountCircle';
import AddIcon from '@mui/icons-material/Add';
import { SUBSCRIPTION_MESSAGES as M } from '../schemas/subscription';
import { changePasswordSchema, profileSchema } from '../schemas/user';
import { defineResource, type Action, type TabSpec } from '../src/engine/types';

/**
 * The user centre (/usercenter): the signed-in user's own profile (name, mobile) and password (changing it ends the
 * user's other sessions; this one stays), and the user's AccessKey pairs, with which server-side subscription
 * consumers sign in over AMQP (docs/amqp.md): the secret is answered once, when the pair is created, and shown in a
 * dialog with a copy button; lists never carry it. Any signed-in user (x-right: signedIn).
 */

const editProfile: Action = {
    kind: 'form',
    label: '编辑资料',
    title: '编辑个人资料',
    variant: 'contained',
    fields: ['displayName', 'mobile'],
    schema: profileSchema,
    defaults: ({ record }) => ({ displayName: record.displayName ?? '', mobile: record.mobile ?? '' }),
    submit: { call: 'updateProfile', params: ({ values }) => ({ ...values }) },
    success: '修改成功',
    refresh: ['page'],
};

const changePassword: Action = {
    kind: 'form',
    label: '修改密码',
    title: '修改密码',
    variant: 'contained',
    fields: ['oldPassword', 'newPassword', 'confirmPassword'],
    schema: changePasswordSchema,
    defaults: () => ({ oldPassword: '', newPassword: '', confirmPassword: '' }),
    submit: { call: 'changePassword', params: ({ values }) => ({ ...values }) },
    success: (answer) => {
        const ended = Number((answer as { endedSessions?: number } | undefined)?.endedSessions ?? 0);
        return ended > 0 ? `密码已修改，已注销其他 ${ended} 个登录会话` : '密码已修改';
    },
    note: '密码至少6位。修改后，您在其他浏览器或设备上的登录会话将立即失效，当前会话保持登录。',
    refresh: [],
};

const REFRESH = ['userCenter'];

const createKey: Action = {
    kind: 'call',
    label: '创建访问密钥',
    icon: AddIcon,
    variant: 'contained',
    call: { call: 'createKey', params: () => ({}) },
    success: '创建成功',
    refresh: REFRESH,
    reveal: {
        title: 'AccessKey 创建成功',
        note: 'AccessKey Secret 只在此时显示一次，关闭后无法再次查看，请立即复制并妥善保存。遗失后请删除此 AccessKey 并重新创建。',
        fields: [
            { label: 'AccessKey ID', path: 'accessKey', copy: true },
            { label: 'AccessKey Secret', path: 'accessSecret', copy: true },
        ],
    },
};

const disableKey: Action = {
    kind: 'call',
    label: '禁用',
    color: 'warning',
    when: ({ record }) => !!record.enabled,
    ariaLabel: ({ record }) => `禁用 ${String(record.accessKey)}`,
    call: { call: 'enableKey', params: ({ record }) => ({ id: record.id, enabled: 'false' }) },
    confirm: '确认禁用该 AccessKey 吗？使用它的消费端将无法再登录。',
    success: '已禁用',
    refresh: REFRESH,
};

const enableKey: Action = {
    kind: 'call',
    label: '启用',
    when: ({ record }) => !record.enabled,
    ariaLabel: ({ record }) => `启用 ${String(record.accessKey)}`,
    call: { call: 'enableKey', params: ({ record }) => ({ id: record.id, enabled: 'true' }) },
    success: '已启用',
    refresh: REFRESH,
};

const removeKey: Action = {
    kind: 'call',
    label: '删除',
    color: 'error',
    ariaLabel: ({ record }) => `删除 ${String(record.accessKey)}`,
    call: { call: 'removeKey', params: ({ record }) => ({ id: record.id }) },
    confirm: M.accessKeyDeleteConfirm,
    success: '删除成功',
    failure: '删除失败',
    refresh: REFRESH,
};

/** The AccessKey tab. */
const accessKeyTab: TabSpec = {
    key: 'accessKey',
    label: 'AccessKey 管理',
    sections: [
        {
            kind: 'notice',
            severity: 'info',
            text: 'AccessKey 用于服务端订阅的 AMQP 消费端签名登录（authId 为 AccessKey ID，用 AccessKey Secret 计算签名）。每个用户最多 5 个；Secret 仅在创建时显示一次。',
        },
        {
            kind: 'list',
            list: {
                source: { call: 'keys' },
                label: 'AccessKey 列表',
                rowId: 'id',
                paging: false,
                columns: ['accessKey', 'status', 'createTime', 'lastUsedTime'],
                toolbar: [createKey],
                rowActions: [disableKey, enableKey, removeKey],
                empty: { text: '暂无 AccessKey', hint: '创建后即可用于服务端订阅的消费端登录', action: createKey },
            },
        },
    ],
};

export default defineResource({
    name: 'userCenter',
    label: '个人中心',
    path: 'usercenter',
    menu: false,
    icon: AccountCircleIcon,
    fields: {
        displayName: { label: '姓名', required: true, maxLength: 30 },
        loginName: { label: '登录名' },
        mobile: { label: '手机号', required: true, maxLength: 11, inputFilter: 'digits' },
        roleName: { label: '角色' },
        userCode: { label: '用户编号' },
        oldPassword: { label: '原密码', type: 'password', required: true, maxLength: 64 },
        newPassword: { label: '新密码', type: 'password', required: true, maxLength: 64, helperText: '至少6位' },
        confirmPassword: { label: '确认新密码', type: 'password', required: true, maxLength: 64 },
        accessKey: { label: 'AccessKey ID', copy: true },
        status: {
            label: '状态',
            type: 'status',
            choices: [
                { id: '启用', name: '启用', color: 'success' },
                { id: '禁用', name: '禁用', color: 'default' },
            ],
        },
        createTime: { label: '创建时间', type: 'datetime' },
        lastUsedTime: { label: '最后使用时间', type: 'datetime' },
    },
    pages: [
        {
            path: '/usercenter/*',
            title: '个人中心',
            record: {
                call: 'me',
                loading: '个人信息加载中…',
                map: (answer) => {
                    const a = (answer ?? {}) as {
                        userInfo?: { userId?: number; userName?: string; loginName?: string };
                        mobilePhone?: string;
                        code?: string;
                        role?: { name?: string };
                    };
                    return {
                        id: a.userInfo?.userId,
                        displayName: a.userInfo?.userName ?? '',
                        loginName: a.userInfo?.loginName ?? '',
                        mobile: a.mobilePhone ?? '',
                        userCode: a.code ?? '',
                        roleName: a.role?.name ?? '',
                    };
                },
            },
            tabs: [
                {
                    key: 'profile',
                    label: '个人资料',
                    sections: [
                        {
                            kind: 'fields',
                            title: '个人资料',
                            fields: ['displayName', 'loginName', 'mobile', 'roleName', 'userCode'],
                            columns: 2,
                            actions: [editProfile],
                        },
                    ],
                },
                {
                    key: 'password',
                    label: '修改密码',
                    sections: [
                        {
                            kind: 'actions',
                            title: '修改密码',
                            text: '为了账号安全，请定期修改密码。修改后其他登录会话将被注销。',
                            actions: [changePassword],
                        },
                    ],
                },
                accessKeyTab,
            ],
        },
    ],
    api: {
        success: 'code200',
        custom: {
            me: { get: '/api/sso/getUserInfo', read: 'data' },
            updateProfile: { post: '/api/sso/updateProfile', read: 'data' },
            changePassword: { post: '/api/sso/changePassword', read: 'data' },
            keys: { get: '/api/accessKey/list', read: 'data.records', total: 'data.total' },
            createKey: { post: '/api/accessKey/create', read: 'data' },
            enableKey: { post: '/api/accessKey/enable', read: 'data' },
            removeKey: { post: '/api/accessKey/delete' },
        },
    },
});
