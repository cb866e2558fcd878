import AccountCircleIcon from '@mui/icons-material/AccountCircle';
import { defineResource, type Action } from '../src/engine/types';
import { changePasswordSchema, profileSchema } from '../schemas/user';

/**
 * The user centre (/usercenter): the signed-in user's own profile (name, mobile) and password. Changing the password
 * ends the user's other sessions (this one stays). Any signed-in user (x-right: signedIn).
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
            ],
        },
    ],
    api: {
        success: 'code200',
        custom: {
            me: { get: '/api/sso/getUserInfo', read: 'data' },
            updateProfile: { post: '/api/sso/updateProfile', read: 'data' },
            changePassword: { post: '/api/sso/changePassword', read: 'data' },
        },
    },
});
