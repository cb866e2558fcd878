import type { FieldDefinition, Row } from '../../src/engine/types';
import type { ListSpec } from '../../src/engine/vocabulary';

/**
 * The cluster's members as /platform, /vaServices and /monitor/real list them (server/cluster/figures.ts): each
 * server process with its id, host and process id, since when it runs, its last heartbeat, whether it takes traffic,
 * its connections and messages per second and its share of the cluster's. One process lists itself.
 */

const STATES: Record<string, string> = {
    ready: '就绪',
    draining: '排空中（不再接入）',
    notReady: '未就绪',
    unknown: '无数据（未发布指标）',
};

const num = (v: unknown) => Number(v ?? 0);

export const memberColumns: Array<[string, FieldDefinition]> = [
    ['nodeId', { label: '节点ID', render: (r: Row) => `${String(r.nodeId)}${r.self ? '（本实例）' : ''}` }],
    ['address', { label: '主机:进程号' }],
    ['startedAt', { label: '启动时间' }],
    ['heartbeatAt', { label: '最近心跳', render: (r: Row) => String(r.heartbeatAt ?? '单实例，无需心跳') }],
    ['state', { label: '状态', render: (r: Row) => STATES[String(r.state)] ?? String(r.state ?? '') }],
    ['connected', { label: '连接数', type: 'number' }],
    ['upPerSecond', { label: '上行消息/秒', type: 'number' }],
    ['downPerSecond', { label: '下行消息/秒', type: 'number' }],
    [
        'share',
        {
            label: '份额',
            render: (r: Row) => `连接 ${num(r.connectedShare)}%，上行 ${num(r.upShare)}%`,
        },
    ],
];

/** The members list of a page, from a call answering `data.nodes` of GET /api/platform/info or /api/monitor/real. */
export function memberList(call: string): ListSpec {
    return {
        source: { call, every: 5 },
        columns: memberColumns,
        rowId: 'nodeId',
        paging: false,
        empty: { text: '暂无成员信息', columns: true },
        dense: true,
    };
}
