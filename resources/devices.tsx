import DevicesOtherIcon from '@mui/icons-material/DevicesOther';
import VideoCameraBackIcon from '@mui/icons-material/VideoCameraBack';
import { lazy } from 'react';
import * as yup from 'yup';
import { defineResource } from '../src/engine/types';
import { requiredInt } from '../schemas/rules';
import {
    DEVICE_NAME_RULE_TEXT,
    DEVICE_STATUSES,
    MAX_BATCH_AMOUNT,
    deviceCreateSchema,
    deviceNameRule,
    normaliseStatus,
} from '../schemas/device';

const DevicesPage = lazy(() => import('../src/pages/devices/DevicesPage'));
const DeviceInstancePage = lazy(() => import('../src/pages/devices/DeviceInstancePage'));

/** The /devices add dialog sends productId (SaveDevice); SPEC.md's generic form says '请选择产品!' there. */
export const saveDeviceSchema = yup.object({
    productId: requiredInt('请选择产品!'),
    deviceName: deviceNameRule,
    remark: yup.string().trim().max(100, '备注不得超过100个字符').optional(),
});

const productChoices = (optionValue: 'productKey' | 'productId') => ({
    call: 'listAll',
    resource: 'products',
    optionValue,
    optionText: 'productName',
});

const normalise = (row: Record<string, unknown>) => ({ ...row, status: normaliseStatus(row.status) });

/**
 * Device instances (SPEC.md "Device management (deviceInstance)" and "Device management with tabs (/devices)";
 * docs/platform-api.md "Devices"). One definition serves both screens: /devices is its list view and
 * /deviceInstance (optionally /deviceInstance/{productId}) a route of its own, each with the dialogs and columns
 * its screen has; both read the fields and calls declared here.
 */
export default defineResource({
    name: 'devices',
    label: '设备管理',
    menu: [
        {
            label: '设备管理',
            to: '/deviceInstance',
            section: '设备接入',
            order: 2,
            icon: DevicesOtherIcon,
            related: ['/devInstanceDetail', '/childDeviceDetail'],
        },
        { label: '设备与视频流', to: '/devices', section: '设备接入', order: 3, icon: VideoCameraBackIcon },
    ],
    icon: DevicesOtherIcon,
    path: 'devices',
    idField: 'deviceId',
    recordRepresentation: 'deviceName',
    views: { list: DevicesPage, show: false, edit: false, create: false },
    routes: [
        { path: '/deviceInstance', element: DeviceInstancePage },
        { path: '/deviceInstance/:id', element: DeviceInstancePage },
    ],
    fields: {
        deviceName: {
            label: 'DeviceName',
            required: true,
            maxLength: 100,
            helperText: DEVICE_NAME_RULE_TEXT,
        },
        productKey: {
            label: '所属产品',
            input: 'select',
            views: ['create'],
            required: true,
            choicesFrom: productChoices('productKey'),
        },
        // The same choice by id, for the calls that take productId (SaveDevice, BatchRegisterDevice).
        productId: {
            label: '所属产品',
            input: 'select',
            views: [],
            required: true,
            choicesFrom: productChoices('productId'),
        },
        productName: {
            label: '所属产品',
            type: 'link',
            readOnly: true,
            linkTo: (r) => `/productDetail/view?productId=${r.productId}`,
        },
        status: { label: '状态', type: 'status', choices: [...DEVICE_STATUSES], readOnly: true },
        remark: { label: '备注', maxLength: 100 },
        projectName: { label: '所属项目', readOnly: true },
        createTime: { label: '添加时间', type: 'datetime', format: 'YYYY-MM-DD HH:mm:ss', readOnly: true },
        lastTime: { label: '最后上线时间', type: 'datetime', format: 'YYYY-MM-DD HH:mm:ss', readOnly: true },
        longitude: { label: '经度', views: ['create', 'show'], helperText: '选填，-180~180' },
        latitude: { label: '纬度', views: ['create', 'show'], helperText: '选填，-90~90' },
        addr: { label: '详细地址', views: ['create', 'show'], maxLength: 200 },
        amount: {
            label: '添加数量',
            type: 'number',
            views: [],
            required: true,
            helperText: `单次最多添加${MAX_BATCH_AMOUNT}个设备，DeviceName 由平台生成`,
        },
    },
    schema: deviceCreateSchema,
    list: {
        perPage: 5,
        perPageOptions: [5, 10, 20],
        deleteConfirm: '是否删除此设备?',
        deleteConfirmTitle: '提示',
        empty: '暂无设备',
    },
    messages: { created: '添加成功', deleted: '设备删除成功', createFailed: '系统错误', deleteFailed: '删除失败' },
    api: {
        success: 'code0',
        idField: 'deviceId',
        getList: {
            get: '/api/device/list',
            paging: ['pageNumber', 'pageSize'],
            read: 'data.records',
            total: 'data.total',
            transform: normalise,
        },
        getOne: { get: '/api/device/detail', params: (r) => ({ deviceId: r.id }), read: 'data.device' },
        create: {
            post: '/api/device/save',
            params: (r) => ({
                productKey: r.productKey,
                deviceName: r.deviceName,
                remark: r.remark ?? '',
                longitude: r.longitude,
                latitude: r.latitude,
                addr: r.addr,
            }),
            read: 'data',
        },
        delete: {
            post: '/api/device/RemoveDevice',
            params: (r) => ({ productKey: r.productKey, deviceName: r.deviceName }),
        },
        custom: {
            statistics: { get: '/api/device/statistics', read: 'data' },
            saveDevice: {
                post: '/api/device/SaveDevice',
                params: (r) => ({ productId: r.productId, deviceName: r.deviceName, remark: r.remark ?? '' }),
                read: 'data',
            },
            batchRegister: {
                post: '/api/device/BatchRegisterDevice',
                params: (r) => ({ productId: r.productId, amount: r.amount }),
                read: 'data',
            },
            setEnabled: {
                put: '/api/device/update',
                params: (r) => ({ deviceId: r.deviceId, action: r.action }),
                read: 'data',
            },
            bind: { post: '/api/device/bind', read: 'data' },
            unbind: { post: '/api/device/unbind', read: 'data' },
            removeFromProject: { get: '/api/device/removeFromProject', read: 'data' },
            importFile: { post: '/api/device/import', read: 'data' },
            importTemplate: { get: '/api/device/import/template' },
            export: { get: '/api/device/export' },
            // The project family answers code 200.
            projects: { get: '/api/project/listAll', read: 'data.list', success: 'code200' },
        },
    },
});
