import { lazy } from 'react';
import { defineResource } from '../src/engine/types';

const DeviceDetailPage = lazy(() => import('../src/pages/deviceDetail/DeviceDetailPage'));
const DevInstanceDetailPage = lazy(() => import('../src/pages/deviceDetail/DevInstanceDetailPage'));
const ChildDeviceDetailPage = lazy(() => import('../src/pages/deviceDetail/ChildDeviceDetailPage'));

/**
 * The device detail screens (SPEC.md "Device instance detail", "Device detail") and the calls of their info, tag,
 * file and data-subscription parts (docs/platform-api.md "Device detail"). Issue 4.
 */
export default defineResource({
    name: 'deviceDetail',
    label: '设备详情',
    hidden: true,
    fields: {},
    views: { list: false, show: false, edit: false, create: false },
    routes: [
        { path: '/devices/:productKey/:deviceName/*', element: DeviceDetailPage },
        { path: '/devInstanceDetail/:productId/:deviceId/*', element: DevInstanceDetailPage },
        { path: '/childDeviceDetail/:productId/:deviceId/*', element: ChildDeviceDetailPage },
    ],
    api: {
        success: 'code0',
        custom: {},
    },
});
