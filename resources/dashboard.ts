import DashboardIcon from '@mui/icons-material/Dashboard';
import { defineResource } from '../src/engine/types';

/**
 * Calls of the landing dashboard (SPEC.md "Dashboard (introduce)"; docs/platform-api.md "Dashboard"). Issue 5.
 * The screen is /introduce (src/pages/Introduce.tsx); it reads everything through `invoke('dashboard', call)`.
 * The general family answers code 200; the /api/device/* calls answer code 0.
 */
export default defineResource({
    name: 'dashboard',
    label: '概览',
    menu: { label: '概览', to: '/introduce', order: 10, icon: DashboardIcon },
    hidden: true,
    fields: {},
    views: { list: false, show: false, edit: false, create: false },
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
            alertEvents: { get: '/api/event/list', read: 'data' },
            /** { list: [ { deviceId, productId, deviceName, longitude, latitude, status } ], total } */
            deviceLocations: { get: '/api/device/queryLonLatList', read: 'data', success: 'code0' },
            /** { total, zoom, clusters, devices, truncated, rebuilding }; params zoom, bbox (the map's view) */
            deviceClusters: { get: '/api/device/queryLonLatClusters', read: 'data', success: 'code0' },
            /** { records, total }: the 我的项目 cards (params page, size) */
            projects: { get: '/api/project/list', read: 'data' },
        },
    },
});
