import { defineResource } from '../src/engine/types';

/**
 * Calls of the device detail's thing-model data, property history, run status, events and sub-devices
 * (docs/platform-api.md "Device detail"). Data only: src/pages/deviceDetail/telemetry shows them. Issue 4.
 */
export default defineResource({
    name: 'deviceTelemetry',
    label: '设备数据',
    hidden: true,
    fields: {},
    views: { list: false, show: false, edit: false, create: false },
    api: {
        success: 'code0',
        custom: {
            /** Latest value of every property of the product's thing model. */
            properties: { get: '/api/device/properties', read: 'data.properties' },
            /** deviceId, identifier, pageNumber, pageSize (10 / 20 / 50), asc, startTime, endTime (epoch ms). */
            propertyHistory: { get: '/api/device/propertyHistory', read: 'data' },
            /** deviceId, timeType (hour / day / week / month), nextPage, pageSize (50), method. */
            events: { get: '/api/device/events', read: 'data' },
            /** Run status and event records: productKey, deviceName, size, method ('thing.event.*' is a prefix). */
            listProperty: { post: '/api/function/ListProperty', read: 'data.list' },
            /** The product's services (the thing-model family answers code 200). */
            services: {
                get: '/api/function/list',
                params: ({ productId }) => ({ productId, type: 'service', pageNumber: 1, pageSize: 100 }),
                read: 'data',
                success: 'code200',
            },
            subDevices: { get: '/api/device/subDevice/list', read: 'data' },
            subDeviceCandidates: { get: '/api/device/subDevice/candidates', read: 'data' },
            /** deviceId travels comma-joined: one form key however many devices are chosen. */
            addSubDevices: { post: '/api/device/subDevice/add', arrays: 'comma', read: 'data' },
            removeSubDevice: { post: '/api/device/subDevice/remove', read: 'data' },
        },
    },
});
