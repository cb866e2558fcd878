import { defineResource } from '../src/engine/types';

/**
 * Communication topics of a product (deviceName omitted: the topic shows `${deviceName}`) or of one device.
 * Data only: src/components/thingModel/TopicTable.tsx shows them on the product and device screens.
 */
export default defineResource({
    name: 'topics',
    label: 'Topic',
    hidden: true,
    fields: {
        name: { label: '功能' },
        topic: { label: 'Topic' },
        permission: { label: '操作权限' },
        description: { label: '描述' },
    },
    views: { list: false, show: false, edit: false, create: false },
    api: {
        success: 'code200',
        custom: {
            list: {
                get: '/api/topic/list',
                // deviceName only when given, so the server answers the product's `${deviceName}` form.
                params: ({ productKey, deviceName }) => (deviceName ? { productKey, deviceName } : { productKey }),
                read: 'data',
            },
        },
    },
});
