import { defineResource } from '../src/engine/types';
import { thingFunctionSchema } from '../schemas/thingModel';

/**
 * The functions (properties, events, services) of one product's thing model. Hidden: the product detail's
 * 功能定义 tab is its only screen (src/components/thingModel), so no generated views.
 */
export default defineResource({
    name: 'thingFunctions',
    label: '物模型功能',
    hidden: true,
    idField: 'id',
    fields: {
        type: {
            label: '功能类型',
            type: 'select',
            choices: [
                { id: 'property', name: '属性' },
                { id: 'event', name: '事件' },
                { id: 'service', name: '服务' },
            ],
        },
        name: { label: '功能名称' },
        identifier: { label: '标识符' },
        description: { label: '描述', type: 'longText' },
        createTime: { label: '创建时间', type: 'datetime', format: 'YYYY-MM-DD HH:mm:ss', readOnly: true },
    },
    schema: thingFunctionSchema,
    views: { list: false, show: false, edit: false, create: false },
    api: {
        success: 'code200',
        idField: 'id',
        getList: {
            get: '/api/function/list',
            paging: ['pageNumber', 'pageSize'],
            filters: { productId: 'productId', type: 'type' },
            read: 'data.records',
            total: 'data.total',
        },
        getOne: { get: '/api/function/get', params: (input) => ({ id: input.id }), read: 'data' },
        create: {
            post: '/api/function/save',
            body: 'json',
            params: (input) => input.data as Record<string, unknown>,
            read: 'data',
        },
        update: {
            post: '/api/function/save',
            body: 'json',
            params: (input) => ({ ...(input.data as Record<string, unknown>), id: input.id }),
            read: 'data',
        },
        delete: { delete: '/api/function/delete', params: (input) => ({ id: input.id }) },
        custom: {
            dataTypes: { get: '/api/function/data-types', read: 'data' },
            units: { get: '/api/function/units', read: 'data' },
            standard: { get: '/api/function/standard', read: 'data' },
            import: { post: '/api/function/import', body: 'json', read: 'data' },
            export: { get: '/api/function/export', read: 'data' },
        },
    },
});
