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
        custom: {
            /** `{ device, product }` by deviceId. */
            detail: { get: '/api/device/detail', read: 'data' },
            /** The device by productKey and deviceName. */
            getInfo: { get: '/api/device/getInfo', read: 'data' },
            updateRemark: {
                post: '/api/device/UpdateDeviceNickname',
                params: (r) => ({ deviceId: r.deviceId, remark: r.remark }),
                success: 'returnCode1111',
                read: 'data',
            },
            getStatus: { post: '/api/device/getStatus', read: 'data' },
            tags: {
                get: '/api/tag/get',
                params: (r) => ({ type: r.type, objectId: r.objectId }),
                success: 'code200',
                read: 'data.list',
            },
            saveTags: {
                post: '/api/tag/save',
                params: (r) => ({ type: r.type, objectId: r.objectId, items: r.items, addr: r.addr }),
                success: 'code200',
                read: 'data.list',
            },
            deleteTag: {
                post: '/api/tag/delete',
                params: (r) => ({ id: r.id, objectId: r.objectId, type: r.type }),
                success: 'code200',
                failure: '删除失败',
            },
            files: {
                get: '/api/device/file/list',
                params: (r) => ({ deviceId: r.deviceId, pageNumber: r.pageNumber, pageSize: r.pageSize }),
                read: 'data',
            },
            uploadFile: { post: '/api/device/file/upload', read: 'data', failure: '文件上传失败' },
            downloadFile: { get: '/api/device/file/download', params: (r) => ({ fileId: r.fileId }) },
            deleteFile: { post: '/api/device/file/delete', params: (r) => ({ fileId: r.fileId }), failure: '删除失败' },
        },
    },
});
