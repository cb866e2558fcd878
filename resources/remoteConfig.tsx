import { Box } from '@mui/material';
import type { ApiCall, ContractPaths } from '../dataProvider/types';
import {
    CONFIG_FORMATS,
    CONFIG_MAX_BYTES,
    CONFIG_PUSH_SCOPES,
    CONFIG_PUSH_STATES,
    configPushSchema,
    configSaveSchema,
    formatBytes,
    utf8Size,
} from '../schemas/remoteConfig';
import type { FieldDefinition } from '../src/engine/types';
import type { Action, Scope, Section } from '../src/engine/vocabulary';

/**
 * The product page's 远程配置 tab (resources/products.tsx; docs/device-access.md "远程配置"): the current configuration
 * file with 编辑, 历史版本 (查看, 恢复) and 批量推送 (全部设备 or a group), then the pushes and each device's state.
 */

const list = { paging: ['pageNumber', 'pageSize'] as [string, string], read: 'data.records', total: 'data.total' };

export const REMOTE_CONFIG_CALLS: Record<string, ApiCall<ContractPaths>> = {
    configCurrent: { get: '/api/product/config', read: 'data' },
    configSave: { post: '/api/product/config/save', body: 'json', read: 'data' },
    configVersions: { get: '/api/product/config/versions', ...list },
    configVersion: { get: '/api/product/config/version', read: 'data' },
    configRestore: { post: '/api/product/config/restore', body: 'json', read: 'data' },
    configPush: { post: '/api/product/config/push', body: 'json', read: 'data' },
    configPushes: { get: '/api/product/config/pushes', ...list },
    configPushDevices: { get: '/api/product/config/push/devices', ...list },
    configGroups: {
        get: '/api/group/list',
        params: () => ({ pageNumber: 1, pageSize: 1000 }),
        read: 'data.records',
        success: 'returnCode1111',
    },
};

/** The product of the page: the record of the tab, or the page's record under a section's own. */
const productIdOf = ({ page, record }: Scope) => (page ?? record).productId;

/** The file as written, in a scrolling monospace block. */
const contentBlock = (r: Record<string, unknown>) => (
    <Box
        component="pre"
        sx={{ m: 0, maxHeight: 360, overflow: 'auto', fontFamily: 'monospace', fontSize: 13, whiteSpace: 'pre-wrap' }}
    >
        {String(r.content ?? '')}
    </Box>
);

const versionFields: Array<[string, FieldDefinition]> = [
    ['version', { label: '版本', render: (r) => `v${String(r.version)}` }],
    ['format', { label: '格式', type: 'select', choices: [...CONFIG_FORMATS] }],
    ['size', { label: '大小', render: (r) => formatBytes(Number(r.size)) }],
    ['createTime', { label: '更新时间' }],
    ['sign', { label: '签名（SHA-256）', copy: true }],
    ['remark', { label: '备注', render: (r) => (r.remark ? String(r.remark) : '-') }],
];

const edit: Action = {
    kind: 'form',
    label: '编辑',
    right: 'product.edit',
    title: '编辑配置文件',
    width: 'md',
    fields: [
        ['format', { label: '格式', type: 'select', input: 'radio', choices: [...CONFIG_FORMATS], required: true }],
        [
            'content',
            {
                label: '配置内容',
                type: 'longText',
                required: true,
                formHelperText: (v) =>
                    `${formatBytes(utf8Size(String(v.content ?? '')))} / ${formatBytes(CONFIG_MAX_BYTES)}`,
            },
        ],
        ['remark', { label: '备注', maxLength: 100 }],
    ],
    schema: configSaveSchema,
    liveSchema: configSaveSchema,
    defaults: ({ record }) => ({
        format: record.format ?? 'json',
        content: record.content ?? '',
        remark: '',
    }),
    submit: {
        call: 'configSave',
        params: (scope) => ({ productId: productIdOf(scope), ...scope.values }),
    },
    note: '保存后生成新版本，设备请求配置时获得新版本；已在线的设备需“批量推送”才会收到。',
    success: (answer) => `已保存为版本 v${String((answer as { version?: number }).version ?? '')}`,
    refresh: ['products'],
};

const viewVersion: Action = {
    kind: 'dialog',
    label: '查看',
    ariaLabel: ({ record }) => `查看版本 v${String(record.version)}`,
    title: ({ record }) => `配置版本 v${String(record.version)}`,
    width: 'md',
    sections: [
        {
            kind: 'fields',
            columns: 1,
            source: {
                call: 'configVersion',
                params: ({ record, page }) => ({ productId: page?.productId, versionId: record.versionId }),
            },
            fields: [...versionFields, ['content', { label: '配置内容', render: contentBlock }]],
        },
    ],
};

const restore: Action = {
    kind: 'call',
    label: '恢复',
    right: 'product.edit',
    ariaLabel: ({ record }) => `恢复版本 v${String(record.version)}`,
    call: {
        call: 'configRestore',
        params: ({ record, page }) => ({ productId: page?.productId, versionId: record.versionId }),
    },
    confirmTitle: '恢复配置',
    confirm: ({ record }) =>
        `确定恢复为版本 v${String(record.version)} 的内容吗？\n将以它的内容保存为新版本，历史版本不会被删除。`,
    success: (answer) => `已恢复，当前版本 v${String((answer as { version?: number }).version ?? '')}`,
    refresh: ['products'],
};

const history: Action = {
    kind: 'dialog',
    label: '历史版本',
    title: '历史版本',
    width: 'md',
    when: ({ record }) => !!record.versionId,
    sections: [
        {
            kind: 'list',
            list: {
                source: { call: 'configVersions', params: (scope) => ({ productId: productIdOf(scope) }) },
                label: '历史版本',
                urlPrefix: 'cfgV',
                rowId: 'versionId',
                perPage: 10,
                columns: versionFields.filter(([k]) => k !== 'sign'),
                rowActions: [viewVersion, restore],
                empty: { text: '暂无历史版本' },
            },
        },
    ],
};

const push: Action = {
    kind: 'form',
    label: '批量推送',
    right: 'product.edit',
    variant: 'contained',
    title: '批量推送配置',
    when: ({ record }) => !!record.versionId,
    fields: [
        [
            'scope',
            {
                label: '推送范围',
                type: 'select',
                input: 'radio',
                choices: [...CONFIG_PUSH_SCOPES],
                required: true,
                defaultValue: 'all',
            },
        ],
        [
            'groupId',
            {
                label: '设备分组',
                input: 'select',
                choicesFrom: { call: 'configGroups', optionValue: 'id', optionText: 'groupName' },
                visibleWhen: (v) => v.scope === 'group',
            },
        ],
    ],
    schema: configPushSchema,
    defaults: () => ({ scope: 'all' }),
    submit: {
        call: 'configPush',
        params: (scope) => ({
            productId: productIdOf(scope),
            scope: scope.values?.scope,
            ...(scope.values?.scope === 'group' ? { groupId: scope.values.groupId } : {}),
        }),
    },
    note: ({ record }) =>
        `推送当前版本 v${String(record.version)}：在线设备立即收到 thing/config/push，离线设备记为“离线未推送”（上线后可请求配置）。`,
    confirmTitle: '批量推送',
    confirm: ({ record, values }) =>
        `确定将配置版本 v${String(record.version)} 推送给${values?.scope === 'group' ? '所选分组中本产品的' : '本产品的全部'}设备吗？`,
    success: (answer) => {
        const a = answer as { total?: number; pushing?: number; offline?: number };
        return `已推送：共 ${a.total ?? 0} 台，在线推送 ${a.pushing ?? 0} 台，离线未推送 ${a.offline ?? 0} 台`;
    },
    refresh: ['products'],
};

const pushDevicesDialog: Action = {
    kind: 'dialog',
    label: '设备状态',
    ariaLabel: ({ record }) => `推送 ${String(record.createTime)} 的设备状态`,
    title: ({ record }) => `推送设备状态（v${String(record.version)}，${String(record.createTime)}）`,
    width: 'md',
    sections: [
        {
            kind: 'list',
            list: {
                source: {
                    call: 'configPushDevices',
                    params: ({ record, page }) => ({ productId: page?.productId, pushId: record.pushId }),
                    every: 3,
                },
                label: '推送设备状态',
                urlPrefix: 'cfgD',
                rowId: 'deviceId',
                perPage: 10,
                refresh: '刷新设备状态',
                filters: [
                    {
                        source: 'state',
                        label: '状态',
                        input: 'buttons',
                        choices: CONFIG_PUSH_STATES.map((x) => ({ id: x.id, name: x.name })),
                    },
                ],
                columns: [
                    ['deviceName', { label: '设备名称' }],
                    ['state', { label: '状态', type: 'status', choices: [...CONFIG_PUSH_STATES] }],
                    ['code', { label: '设备应答码', render: (r) => (r.code === null ? '-' : String(r.code)) }],
                    ['message', { label: '说明', render: (r) => (r.message ? String(r.message) : '-') }],
                    ['replyTime', { label: '应答时间', render: (r) => (r.replyTime ? String(r.replyTime) : '-') }],
                ],
                empty: { text: '该状态下没有设备', filtered: '该状态下没有设备' },
            },
        },
    ],
};

const progressOf = (r: Record<string, unknown>) => {
    const done = Number(r.succeeded) + Number(r.failed);
    const sent = Number(r.total) - Number(r.offline);
    return sent ? `${done} / ${sent}（${Math.round((done / sent) * 100)}%）` : '-';
};

export const remoteConfigSections: Section[] = [
    {
        kind: 'fields',
        title: '当前配置',
        // One pair a row: the SHA-256 and the file need the width.
        columns: 1,
        source: { call: 'configCurrent', params: ({ record }) => ({ productId: record.productId }) },
        fields: [...versionFields, ['content', { label: '配置内容', render: contentBlock }]],
        empty: {
            text: '该产品还没有配置文件',
            hint: '点击“编辑”写入配置（JSON 或文本，不超过 64KB）。设备通过 thing/config/get 获取，或在“批量推送”后收到。',
        },
        actions: [edit, history, push],
    },
    {
        kind: 'list',
        title: '推送记录',
        list: {
            source: { call: 'configPushes', params: ({ record }) => ({ productId: record.productId }), every: 5 },
            label: '推送记录',
            urlPrefix: 'cfgP',
            rowId: 'pushId',
            perPage: 5,
            perPageOptions: [5, 10, 20],
            refresh: '刷新推送记录',
            columns: [
                ['createTime', { label: '推送时间' }],
                ['version', { label: '配置版本', render: (r) => `v${String(r.version)}` }],
                [
                    'scope',
                    {
                        label: '推送范围',
                        render: (r) => (r.scope === 'group' ? `分组：${String(r.groupName)}` : '全部设备'),
                    },
                ],
                ['total', { label: '设备数' }],
                ['succeeded', { label: '成功' }],
                ['failed', { label: '失败' }],
                ['pushing', { label: '推送中' }],
                ['offline', { label: '离线未推送' }],
                ['timeout', { label: '未应答' }],
                ['progress', { label: '应答进度', render: progressOf }],
            ],
            rowActions: [pushDevicesDialog],
            empty: { text: '暂无推送记录', hint: '保存配置后点击“批量推送”' },
        },
    },
];
