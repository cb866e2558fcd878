import SecurityIcon from '@mui/icons-material/Security';
import { defineResource, type Action } from '../src/engine/types';

/**
 * The security centre (/safetybutler, docs/roles.md): who signed in from where and with what result, the sessions
 * still alive (each can be ended at once), and what the sign-on page enforces (lock-out after wrong passwords per
 * account and address, the password rule, the session lifetime). Administrators only.
 */

const RESULTS = [
    { id: 'true', name: '成功', color: 'success' as const },
    { id: 'false', name: '失败', color: 'error' as const },
];

const revoke: Action = {
    kind: 'call',
    label: '强制下线',
    color: 'error',
    ariaLabel: ({ record }) => `强制下线 ${String(record.username)} ${String(record.address)}`,
    when: ({ record }) => !record.current,
    call: { call: 'revokeSession', params: ({ record }) => ({ id: record.id }) },
    confirm: ({ record }) =>
        `确定让「${String(record.displayName)}」在 ${String(record.address || '未知地址')} 的会话下线吗？其下一次操作将要求重新登录。`,
    success: '已强制下线',
    refresh: ['security'],
};

export default defineResource({
    name: 'security',
    label: '安全管家',
    path: 'safetybutler',
    menu: { label: '安全管家', to: '/safetybutler', section: '系统管理', order: 3, icon: SecurityIcon },
    icon: SecurityIcon,
    fields: {},
    pages: [
        {
            path: '/safetybutler/*',
            title: '安全管家',
            tabs: [
                {
                    key: 'history',
                    label: '登录记录',
                    sections: [
                        {
                            kind: 'list',
                            list: {
                                source: { call: 'loginHistory' },
                                urlPrefix: 'h_',
                                label: '登录记录',
                                subject: '登录记录',
                                filters: [
                                    { source: 'username', label: '登录名', input: 'search' },
                                    {
                                        source: 'success',
                                        label: '结果',
                                        input: 'select',
                                        choices: [
                                            { id: '1', name: '成功' },
                                            { id: '0', name: '失败' },
                                        ],
                                    },
                                ],
                                columns: [
                                    ['time', { label: '时间' }],
                                    ['username', { label: '登录名' }],
                                    ['address', { label: '地址' }],
                                    [
                                        'success',
                                        {
                                            label: '结果',
                                            type: 'status',
                                            choices: RESULTS,
                                            render: (r) => (r.success ? '成功' : '失败'),
                                        },
                                    ],
                                    ['result', { label: '说明' }],
                                    ['userAgent', { label: '浏览器', ellipsis: 260 }],
                                ],
                                rowId: 'id',
                                refresh: '刷新登录记录',
                                empty: { text: '暂无登录记录' },
                            },
                        },
                    ],
                },
                {
                    key: 'sessions',
                    label: '在线会话',
                    sections: [
                        {
                            kind: 'list',
                            list: {
                                source: { call: 'sessions' },
                                urlPrefix: 's_',
                                label: '在线会话',
                                subject: '在线会话',
                                columns: [
                                    ['displayName', { label: '姓名' }],
                                    ['username', { label: '登录名' }],
                                    ['address', { label: '地址' }],
                                    ['createTime', { label: '登录时间' }],
                                    ['expiresAt', { label: '过期时间' }],
                                    [
                                        'current',
                                        { label: '当前会话', render: (r) => (r.current ? '是（本浏览器）' : '') },
                                    ],
                                    ['userAgent', { label: '浏览器', ellipsis: 220 }],
                                ],
                                rowId: 'id',
                                rowActions: [revoke],
                                refresh: '刷新在线会话',
                                empty: { text: '暂无在线会话' },
                            },
                        },
                    ],
                },
                {
                    key: 'policy',
                    label: '安全策略',
                    sections: [
                        {
                            kind: 'counters',
                            title: '登录锁定（按账号与登录地址计）',
                            call: { call: 'settings' },
                            items: [
                                { label: '连续失败次数上限', value: 'lockout.threshold' },
                                { label: '统计时间窗（秒）', value: 'lockout.windowSeconds' },
                                { label: '首次锁定（秒）', value: 'lockout.baseLockSeconds' },
                                { label: '最长锁定（秒）', value: 'lockout.maxLockSeconds' },
                                { label: '同一地址失败上限', value: 'lockout.addressThreshold' },
                            ],
                        },
                        {
                            kind: 'counters',
                            title: '密码与会话',
                            call: { call: 'settings' },
                            items: [
                                { label: '密码最少位数', value: 'password.minLength' },
                                { label: '密码最多位数', value: 'password.maxLength' },
                                { label: '会话有效期（秒）', value: 'sessionSeconds' },
                            ],
                        },
                        {
                            kind: 'note',
                            text: '同一账号在同一地址连续输错密码达到上限后被锁定，锁定时间逐次加倍直至上限；在其他地址登录不受影响。',
                            hint: '修改密码、重置密码或停用账号会使该账号的其他会话立即失效；退出登录会在服务端注销会话。',
                        },
                    ],
                },
            ],
        },
    ],
    api: {
        success: 'code200',
        custom: {
            loginHistory: {
                get: '/api/security/loginHistory',
                paging: ['pageNumber', 'pageSize'],
                read: 'data.records',
                total: 'data.total',
            },
            sessions: {
                get: '/api/security/sessions',
                paging: ['pageNumber', 'pageSize'],
                read: 'data.records',
                total: 'data.total',
            },
            revokeSession: { post: '/api/security/revokeSession' },
            settings: { get: '/api/security/settings', read: 'data' },
        },
    },
});
