import AssessmentIcon from '@mui/icons-material/Assessment';
import FileDownloadIcon from '@mui/icons-material/FileDownload';
import { defineResource } from '../src/engine/types';
import type { Row, Scope } from '../src/engine/vocabulary';

/**
 * /report (SPEC.md names the route without its content): the platform's statistics over a chosen range, from
 * GET /api/report/daily (device_messages, alert_events, device_counts, device_presence), as charts, with the CSV export.
 */
const range = ({ query }: Scope) => ({
    ...(query.startTime ? { startTime: query.startTime } : {}),
    ...(query.endTime ? { endTime: query.endTime } : {}),
});

const daily = { call: 'daily', params: range };

export default defineResource({
    name: 'reports',
    label: '统计报表',
    hidden: true,
    menu: { label: '统计报表', to: '/report', order: 45, icon: AssessmentIcon },
    icon: AssessmentIcon,
    fields: {},
    views: { list: false, show: false, edit: false, create: false },
    pages: [
        {
            path: '/report',
            title: '统计报表',
            params: [{ source: 'startTime', to: 'endTime', label: '时间', input: 'dateRange' }],
            sections: [
                {
                    kind: 'actions',
                    title: '报表',
                    text: '默认统计最近 7 天，最长 92 天；消息和活跃设备来自消息日志（保留 LOG_RETENTION_DAYS 天）。在线率：当天各设备在线的时长之和占其当天存在时长之和的比例（按设备上下线记录计算，今天算到此刻）。',
                    actions: [
                        {
                            kind: 'download',
                            label: '导出 CSV',
                            variant: 'contained',
                            icon: FileDownloadIcon,
                            call: { call: 'export', params: range },
                        },
                    ],
                },
                {
                    kind: 'counters',
                    call: daily,
                    items: [
                        { label: '设备总数', value: 'deviceTotal' },
                        { label: '当前在线', value: 'onlineTotal' },
                        { label: '当前在线率(%)', value: 'onlineRate' },
                        { label: '上行消息', value: 'upTotal' },
                        { label: '告警', value: 'alertTotal' },
                    ],
                },
                {
                    kind: 'row',
                    sections: [
                        {
                            kind: 'chart',
                            title: '每日在线率（%）',
                            chart: {
                                kind: 'line',
                                call: daily,
                                rows: 'days',
                                x: 'day',
                                series: [{ field: 'onlineRate', label: '在线率' }],
                                yRange: [0, 100],
                                empty: '该时间范围内没有设备活动',
                                height: 260,
                            },
                        },
                        {
                            kind: 'chart',
                            title: '每日告警（按级别）',
                            chart: {
                                kind: 'bar',
                                call: daily,
                                rows: 'days',
                                x: 'day',
                                series: [
                                    { field: 'urgent', label: '紧急', color: '#d32f2f' },
                                    { field: 'severe', label: '严重', color: '#ed6c02' },
                                    { field: 'general', label: '一般', color: '#0288d1' },
                                ],
                                empty: '该时间范围内没有告警',
                                height: 260,
                            },
                        },
                    ],
                },
                {
                    kind: 'row',
                    sections: [
                        {
                            kind: 'chart',
                            title: '每日消息数',
                            chart: {
                                kind: 'bar',
                                call: daily,
                                rows: 'days',
                                x: 'day',
                                series: [
                                    { field: 'up', label: '上行' },
                                    { field: 'down', label: '下行' },
                                ],
                                empty: '该时间范围内没有消息',
                                height: 260,
                            },
                        },
                        {
                            kind: 'chart',
                            title: '各产品消息数',
                            chart: {
                                kind: 'bar',
                                call: daily,
                                rows: 'products',
                                x: 'productName',
                                series: [
                                    { field: 'up', label: '上行' },
                                    { field: 'down', label: '下行' },
                                ],
                                empty: '该时间范围内没有消息',
                                height: 260,
                            },
                        },
                    ],
                },
                {
                    kind: 'list',
                    title: '各产品每日统计',
                    list: {
                        source: daily,
                        rows: (_s: Scope, answer?: unknown) =>
                            ((answer as { data?: { rows?: Row[] } } | undefined)?.data?.rows ??
                                (answer as { rows?: Row[] } | undefined)?.rows) as Row[] | undefined,
                        rowId: 'key',
                        map: (r: Row) => ({ ...r, key: `${String(r.day)}/${String(r.productKey)}` }),
                        columns: [
                            ['day', { label: '日期' }],
                            ['productName', { label: '产品名称' }],
                            ['up', { label: '上行消息', type: 'number' }],
                            ['down', { label: '下行消息', type: 'number' }],
                            ['activeDevices', { label: '活跃设备', type: 'number' }],
                            ['deviceTotal', { label: '设备总数', type: 'number' }],
                            ['urgent', { label: '紧急告警', type: 'number' }],
                            ['severe', { label: '严重告警', type: 'number' }],
                            ['general', { label: '一般告警', type: 'number' }],
                        ],
                        empty: { text: '该时间范围内没有数据' },
                        dense: true,
                        height: 420,
                    },
                },
            ],
        },
    ],
    api: {
        success: 'code200',
        custom: {
            daily: { get: '/api/report/daily', read: 'data' },
            export: { get: '/api/report/export' },
        },
    },
});
