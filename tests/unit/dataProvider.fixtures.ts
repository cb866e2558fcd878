import type { ApiResource } from '../../dataProvider/types';

/** Definitions in the shape resources/ declares, covering each family's paging, bodies and success rule. */
export const products: ApiResource = {
    name: 'products',
    api: {
        success: 'code200',
        idField: 'productId',
        getList: { get: '/api/product', paging: ['pageNumber', 'pageSize'], filters: { q: 'productName' } },
        getOne: { get: '/api/product/detail' },
        create: { post: '/api/product/save' },
        update: {
            post: '/api/product/update',
            params: ({ id, productName, remark }) => ({ productId: id, productName, remark }),
        },
        delete: { delete: '/api/product' },
    },
    messages: { createFailed: '系统错误', deleteFailed: '删除失败' },
};

export const productLogs: ApiResource = {
    name: 'productLogs',
    api: {
        success: 'code200',
        getList: { post: '/ms3/productLog/find', paging: ['page', 'size'] },
        create: { post: '/ms3/productLog/save' },
        delete: { post: '/ms3/productLog/delete', params: ({ id }) => ({ id }) },
    },
};

export const thingFunctions: ApiResource = {
    name: 'thingFunctions',
    api: {
        success: 'code200',
        getList: { get: '/api/function/list', paging: ['pageNumber', 'pageSize'], sort: ['orderBy', 'order'] },
        getOne: { get: '/api/function/get' },
        create: { post: '/api/function/save', body: 'json' },
        update: { post: '/api/function/save', body: 'json' },
        delete: { delete: '/api/function/delete' },
        custom: {
            import: { post: '/api/function/import', body: 'json' },
            export: { get: '/api/function/export' },
        },
    },
};

export const devices: ApiResource = {
    name: 'devices',
    api: {
        success: 'code0',
        idField: 'deviceId',
        getList: {
            get: '/api/device/list',
            paging: ['pageNumber', 'pageSize'],
            read: 'data.records',
            total: 'data.count',
            transform: (row) => ({ ...row, online: row.status === 1 }),
        },
        getOne: { get: '/api/device/detail/{deviceId}', read: 'data.device' },
        getMany: { get: '/api/device/listByIds', arrays: 'comma' },
        getManyReference: {
            get: '/api/device/sub/list',
            paging: ['pageNumber', 'pageSize'],
            filters: { gatewayId: 'gwId' },
        },
        update: { post: '/ms4/device/update', success: 'returnCode0', failure: '系统错误' },
        updateMany: { put: '/api/device/status', body: 'json' },
        deleteMany: { post: '/api/device/RemoveDevice', arrays: 'comma' },
        custom: {
            info: { get: '/api/device/getInfo', body: 'segments', segments: ['productKey', 'deviceName'] },
            import: { post: '/api/device/import', read: 'data' },
            template: { get: '/api/device/template/{productKey}' },
            events: { get: '/api/device/events', transform: (row) => ({ ...row, seen: true }) },
        },
    },
};

export const groups: ApiResource = {
    name: 'groups',
    api: {
        success: 'returnCode1111',
        idField: 'groupId',
        getList: { get: '/api/groups/list', paging: ['pageNumber', 'pageSize'] },
        getOne: { get: '/api/groups/detail' },
        delete: { get: '/api/group/delete', params: ({ id }) => ({ groupId: id }) },
        update: { post: '/api/group/update', params: ({ id, remark }) => ({ groupId: id, remark }) },
    },
};

/** A picker resource with a list call only. */
export const projects: ApiResource = {
    name: 'projects',
    api: { success: 'code200', idField: 'code', getList: { get: '/api/project/listAll' } },
};

export const all = [products, productLogs, thingFunctions, devices, groups, projects, { name: 'notes' }];
