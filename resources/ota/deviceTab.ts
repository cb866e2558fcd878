import { OTA_STATES } from '../../schemas/ota';
import type { ApiCall, ContractPaths } from '../../dataProvider/types';
import type { Section } from '../../src/engine/vocabulary';

/**
 * The device page's 固件升级 tab (resources/deviceDetail.tsx): each module's version as the device last informed it,
 * and its OTA history (the batches that reached it, newest first), from GET /api/ota/device.
 */

export const OTA_DEVICE_CALLS: Record<string, ApiCall<ContractPaths>> = {
    otaModules: { get: '/api/ota/device', read: 'data.modules', success: 'code200' },
    otaHistory: { get: '/api/ota/device', read: 'data.history', success: 'code200' },
};

export const otaSections: Section[] = [
    {
        kind: 'list',
        title: '模块版本',
        list: {
            source: { call: 'otaModules', params: ({ record }) => ({ deviceId: record.deviceId }) },
            label: '模块版本',
            urlPrefix: 'otaM',
            rowId: 'module',
            paging: false,
            columns: [
                ['module', { label: '模块' }],
                ['version', { label: '当前版本' }],
                ['updatedAt', { label: '上报时间', type: 'datetime' }],
            ],
            empty: { text: '设备尚未上报固件版本' },
        },
    },
    {
        kind: 'list',
        title: '升级记录',
        list: {
            source: { call: 'otaHistory', params: ({ record }) => ({ deviceId: record.deviceId }) },
            label: '升级记录',
            urlPrefix: 'otaH',
            rowId: 'id',
            paging: false,
            columns: [
                ['packageName', { label: '固件名称' }],
                ['module', { label: '模块' }],
                ['fromVersion', { label: '原版本' }],
                ['version', { label: '目标版本' }],
                ['state', { label: '状态', type: 'status', choices: [...OTA_STATES] }],
                [
                    'step',
                    {
                        label: '进度',
                        render: (r) => (r.state === 'succeeded' ? '100%' : r.step ? `${String(r.step)}%` : '-'),
                    },
                ],
                ['reason', { label: '原因' }],
                ['updatedAt', { label: '更新时间', type: 'datetime' }],
            ],
            empty: { text: '暂无升级记录' },
        },
    },
];
