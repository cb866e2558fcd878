import { defineResource, type Row, type Scope, type Section } from '../src/engine/types';

/** The platform's topic classes, in its order; each answers `{ name, topics }`. */
const CLASSES = [
    { key: 'basic', name: '基础通信Topic', empty: '暂无数据' },
    { key: 'thingModel', name: '物模型通信Topic', empty: '暂无数据' },
    { key: 'custom', name: '自定义Topic', empty: '暂无数据' },
    { key: 'gateway', name: '网关通信Topic', empty: '仅网关产品有子设备上下线的 Topic' },
];

/**
 * The Topic类列表 sections: a radio between the topic classes (kept in ?topicType=) and the chosen class's table.
 * `keys` takes the productKey (and a device's deviceName; without it the topics show `${deviceName}`) from the
 * scope, so the product detail and the device detail show the same sections.
 */
export function topicSections(keys: (scope: Scope) => { productKey: unknown; deviceName?: unknown }): Section[] {
    return [
        {
            kind: 'switch',
            label: 'Topic类型',
            param: 'topicType',
            options: CLASSES.map(({ key, name, empty }) => ({
                key,
                label: name,
                sections: [
                    {
                        kind: 'list',
                        list: {
                            source: { resource: 'topics', call: 'list', params: keys },
                            // One answer holds every class; the table shows this one's topics.
                            rows: (_scope, answer) =>
                                Array.isArray(answer)
                                    ? (((answer as Row[]).find((g) => g.name === name)?.topics as Row[]) ?? [])
                                    : [],
                            columns: ['name', 'topic', 'permission', 'description'],
                            rowId: 'topic',
                            label: name,
                            empty: { text: empty },
                        },
                    },
                ],
            })),
        },
    ];
}

/** Communication topics of a product (deviceName omitted: the topic shows `${deviceName}`) or of one device. */
export default defineResource({
    name: 'topics',
    label: 'Topic',
    hidden: true,
    fields: {
        name: { label: '功能' },
        topic: { label: 'Topic' },
        permission: { label: '操作权限' },
        description: { label: '描述', render: (r) => (r.description ? String(r.description) : '-') },
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
