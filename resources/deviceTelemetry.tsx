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
        custom: {},
    },
});
