import AppsIcon from '@mui/icons-material/Apps';
import DashboardIcon from '@mui/icons-material/Dashboard';
import DevicesOtherIcon from '@mui/icons-material/DevicesOther';
import Inventory2Icon from '@mui/icons-material/Inventory2';
import PendingActionsIcon from '@mui/icons-material/PendingActions';
import WorkspacesIcon from '@mui/icons-material/Workspaces';
import { defineResource } from '../src/engine/types';

/** SPEC.md §9: alert levels 1 urgent, 2 severe, 3 general. */
const ALERT_LEVELS = [
    { key: '1', label: '紧急', color: '#e8684a' },
    { key: '2', label: '严重', color: '#f0a23b' },
    { key: '3', label: '一般', color: '#4e9bf5' },
];

/**
 * The landing dashboard /introduce (SPEC.md "Dashboard (introduce)"; docs/platform-api.md "Dashboard"): the
 * overview counts, the device status, type and pending-alert pies, 我的项目, the alert events and the device map.
 * The general family answers code 200; the /api/device/* calls answer code 0.
 */
export default defineResource({
    name: 'dashboard',
    label: '概览',
    menu: { label: '概览', to: '/introduce', order: 10, icon: DashboardIcon },
    fields: {
        type: {
            label: '告警级别',
            type: 'status',
            choices: [
                { id: 1, name: '紧急', color: 'error' },
                { id: 2, name: '严重', color: 'warning' },
                { id: 3, name: '一般', color: 'info' },
            ],
        },
        deviceName: { label: '设备名称' },
        params: { label: '告警内容' },
        projectName: { label: '所属项目' },
        // SPEC.md §9: the alert time is shown with its last 4 characters (the milliseconds, '.SSS') trimmed.
        timestamp: {
            label: '告警时间',
            render: (r) => {
                const t = r.timestamp;
                return typeof t === 'string' && t.length > 4 ? t.slice(0, -4) : String(t ?? '');
            },
        },
        status: {
            label: '状态',
            type: 'status',
            choices: [
                { id: 0, name: '待处理', color: 'warning' },
                { id: 1, name: '已处理', color: 'success' },
            ],
        },
    },
    views: { list: false, show: false, edit: false, create: false },
    pages: [
        {
            path: '/introduce',
            title: '概览',
            sections: [
                {
                    kind: 'counters',
                    title: '统计',
                    call: { call: 'counts', params: () => ({}) },
                    items: [
                        {
                            label: '场景项目',
                            value: 'projectCount',
                            to: () => '/programList',
                            icon: WorkspacesIcon,
                            color: '#5470c6',
                        },
                        {
                            label: '产品总数',
                            value: 'productCount',
                            to: () => '/product',
                            icon: Inventory2Icon,
                            color: '#3ba272',
                        },
                        {
                            label: '设备总数',
                            value: 'deviceCount',
                            to: () => '/deviceInstance',
                            icon: DevicesOtherIcon,
                            color: '#4e9bf5',
                        },
                        { label: '已用应用', value: 'appUsedCount', icon: AppsIcon, color: '#fc8452' },
                        { label: '待用应用', value: 'appToUseCount', icon: PendingActionsIcon, color: '#9a60b4' },
                    ],
                },
                {
                    kind: 'row',
                    sections: [
                        {
                            kind: 'chart',
                            title: '设备状态',
                            chart: {
                                kind: 'pie',
                                call: { call: 'deviceTotal', params: () => ({}) },
                                // A disabled device counts as offline (docs/platform-api.md "Devices").
                                slices: [
                                    { key: 'onlineTotal', label: '在线', color: '#2fb344' },
                                    { key: 'offlineTotal', label: '离线', color: '#8c96a3' },
                                    { key: 'inActiveTotal', label: '未激活', color: '#4e9bf5' },
                                ],
                                empty: '暂无设备',
                            },
                        },
                        {
                            kind: 'chart',
                            title: '设备类型',
                            chart: {
                                kind: 'pie',
                                call: { call: 'devicesByCategory', params: () => ({}) },
                                name: 'categoryName',
                                value: 'total',
                                empty: '暂无设备',
                            },
                        },
                        {
                            kind: 'chart',
                            title: '待处理告警',
                            chart: {
                                kind: 'pie',
                                call: { call: 'alertsByLevel', params: () => ({}) },
                                name: 'type',
                                value: 'amount',
                                slices: ALERT_LEVELS,
                                empty: '暂无待处理告警',
                            },
                        },
                    ],
                },
                { kind: 'widget', widget: 'projectCards' },
                {
                    kind: 'list',
                    title: '告警事件',
                    list: {
                        source: { call: 'alertEvents', params: () => ({}) },
                        columns: ['type', 'deviceName', 'params', 'projectName', 'timestamp', 'status'],
                        // ?alertPage=3 opens a bookmarked page of alerts.
                        urlPrefix: 'alert',
                        perPage: 10,
                        empty: { text: '暂无告警事件' },
                        dense: true,
                    },
                },
                { kind: 'widget', widget: 'deviceMap' },
            ],
        },
    ],
    api: {
        success: 'code200',
        custom: {
            /** { projectCount, productCount, deviceCount, appUsedCount, appToUseCount } */
            counts: { get: '/api/dashboard/count', read: 'data' },
            /** { onlineTotal, offlineTotal, inActiveTotal } */
            deviceTotal: { get: '/api/device/total', read: 'data', success: 'code0' },
            /** [ { categoryId, categoryName, total } ] */
            devicesByCategory: { get: '/api/device/getCntGroupByCate', read: 'data.records', success: 'code0' },
            /** [ { type, amount } ]: pending alerts by level 1, 2, 3 */
            alertsByLevel: { get: '/api/event/countByType', read: 'data.list' },
            /** { records, total, size, current }; params pageNumber, pageSize */
            alertEvents: {
                get: '/api/event/list',
                paging: ['pageNumber', 'pageSize'],
                read: 'data.records',
                total: 'data.total',
            },
            /** { list: [ { deviceId, productId, deviceName, longitude, latitude, status } ], total } */
            deviceLocations: { get: '/api/device/queryLonLatList', read: 'data', success: 'code0' },
            /**
             * { total, zoom, clusters, devices, truncated, rebuilding, whole? }; params zoom, bbox (the map's view), and
             * whole (every device at once, whole: true, when at most that many are located)
             */
            deviceClusters: { get: '/api/device/queryLonLatClusters', read: 'data', success: 'code0' },
            /** { records, total }: the 我的项目 cards (params page, size) */
            projects: { get: '/api/project/list', read: 'data' },
        },
    },
});
