import AddIcon from '@mui/icons-material/Add';
import KeyIcon from '@mui/icons-material/Key';
import { SUBSCRIPTION_MESSAGES as M } from '../schemas/subscription';
import { defineResource, type Action, type TabSpec } from '../src/engine/types';

/**
 * 用户中心 /usercenter. This file's part is the AccessKey tab (issue 11): the signed-in user's AccessKey pairs, with
 * which server-side subscription consumers sign in over AMQP (docs/amqp.md). The secret is answered once, when the
 * pair is created, and shown in a dialog with a copy button; lists never carry it.
 */

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

/** The AccessKey tab (other tabs of 用户中心 live beside it in `tabs`). */
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
    label: '用户中心',
    icon: KeyIcon,
    fields: {
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
    views: { list: false, show: false, edit: false, create: false },
    pages: [
        {
            path: '/usercenter',
            title: '用户中心',
            tabParam: { query: 'tab', fallback: 'accessKey' },
            tabs: [accessKeyTab],
        },
    ],
    api: {
        success: 'code200',
        custom: {
            keys: { get: '/api/accessKey/list', read: 'data.records', total: 'data.total' },
            createKey: { post: '/api/accessKey/create', read: 'data' },
            enableKey: { post: '/api/accessKey/enable', read: 'data' },
            removeKey: { post: '/api/accessKey/delete' },
        },
    },
});
