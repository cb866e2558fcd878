import ReportIcon from '@mui/icons-material/Report';
import { FORWARD_MESSAGES as M } from '../schemas/forwardForms';
import { defineResource, type Action, type Row } from '../src/engine/types';

/**
 * 死信 (dead letters, /forward/deadLetter): rows a destination refused for good or after its retries, kept with the
 * error; 重新投递 sends the selected ones again, 删除 drops them. Paths: openapi.yaml's tag forward.
 */

const REFRESH = ['forwardDeadLetters'];
const list = { paging: ['pageNumber', 'pageSize'] as [string, string], read: 'data.records', total: 'data.total' };

const idsOf = (selected: Row[] | undefined) => (selected ?? []).map((r) => Number(r.id));

interface RedeliverAnswer {
    sent?: number;
    failed?: Array<{ id: unknown; error: string }>;
}

/** 已重新投递 N 条, and the first refusals when some failed again. */
function redelivered(answer: unknown): string {
    const a = (answer ?? {}) as RedeliverAnswer;
    const failed = a.failed ?? [];
    const head = `已重新投递 ${a.sent ?? 0} 条`;
    if (!failed.length) return head;
    const reasons = failed
        .slice(0, 3)
        .map((f) => `#${String(f.id)} ${f.error}`)
        .join('；');
    return `${head}，${failed.length} 条仍失败：${reasons}`;
}

const redeliver: Action = {
    kind: 'call',
    label: '重新投递',
    right: 'forward.deploy',
    call: { call: 'redeliver', params: ({ selected }) => ({ ids: idsOf(selected) }) },
    confirm: ({ selected }) => `${M.deadRedeliverConfirm}\n共 ${selected?.length ?? 0} 条。`,
    success: redelivered,
    refresh: REFRESH,
};

const remove: Action = {
    kind: 'call',
    label: '删除',
    color: 'error',
    right: 'forward.delete',
    call: { call: 'remove', params: ({ selected }) => ({ ids: idsOf(selected) }) },
    confirm: ({ selected }) => `${M.deadDeleteConfirm}\n共 ${selected?.length ?? 0} 条。`,
    success: '删除成功',
    failure: '删除失败',
    refresh: REFRESH,
};

export default defineResource({
    name: 'forwardDeadLetters',
    label: '死信',
    path: 'forward/deadLetter',
    icon: ReportIcon,
    menu: { label: '死信', section: '规则引擎', order: 6, icon: ReportIcon, to: '/forward/deadLetter' },
    rightFamily: 'forward',
    fields: {
        id: { label: 'ID', type: 'number', number: { grouping: false } },
        flowName: { label: '流转规则' },
        destinationName: { label: '数据目的地' },
        device: {
            label: '设备',
            render: (r) => (r.deviceName ? `${String(r.productKey ?? '')}/${String(r.deviceName)}` : '—'),
        },
        error: { label: '错误', ellipsis: 240 },
        attempts: { label: '尝试次数', type: 'number' },
        createTime: { label: '时间', type: 'datetime' },
        rowJson: { label: '数据行', ellipsis: 240, render: (r) => JSON.stringify(r.row ?? null) },
    },
    views: { list: false, show: false, edit: false, create: false },
    pages: [
        {
            path: '/forward/deadLetter',
            title: '死信',
            sections: [
                {
                    kind: 'list',
                    list: {
                        source: { call: 'list' },
                        label: '死信列表',
                        rowId: 'id',
                        columns: [
                            'flowName',
                            'destinationName',
                            'device',
                            'error',
                            'attempts',
                            'createTime',
                            'rowJson',
                        ],
                        compactCells: true,
                        perPage: 20,
                        perPageOptions: [10, 20, 50],
                        filters: [
                            {
                                source: 'projectId',
                                label: '项目',
                                input: 'select',
                                choicesFrom: { call: 'projects', optionValue: 'id', optionText: 'projectName' },
                            },
                            {
                                source: 'flowId',
                                label: '流转规则',
                                input: 'select',
                                choicesFrom: { call: 'flows', optionValue: 'id', optionText: 'name' },
                            },
                        ],
                        bulkActions: [redeliver, remove],
                        refresh: '刷新死信',
                        empty: {
                            text: '暂无死信',
                            hint: '目的地多次发送失败或拒收的数据行保存在这里，可重新投递',
                            filtered: '没有符合条件的死信',
                        },
                    },
                },
            ],
        },
    ],
    api: {
        success: 'code200',
        custom: {
            list: { get: '/api/forward/dead-letter/list', ...list },
            redeliver: { post: '/api/forward/dead-letter/redeliver', body: 'json', read: 'data' },
            remove: { post: '/api/forward/dead-letter/delete', body: 'json' },
            flows: {
                get: '/api/forward/flow/list',
                read: 'data.records',
                params: () => ({ pageNumber: 1, pageSize: 500 }),
            },
            projects: { get: '/api/project/listAll', read: 'data.list' },
        },
    },
});
