import { and, asc, eq, inArray } from 'drizzle-orm';
import { Hono } from 'hono';
import { products, thingFunctions } from '../db/schema';
import type { AppEnv, Services } from '../deps';
import { ok } from '../http/envelope';
import { badRequest, notFound } from '../http/errors';

export type Permission = '发布' | '订阅';

export interface TopicRow {
    name: string;
    topic: string;
    permission: Permission;
    description: string;
}

/**
 * The topics a device of the product talks on, in Alibaba Cloud IoT's layout (devices already speak it).
 * `发布` means the device publishes, `订阅` that it subscribes.
 */
export function basicTopics(pk: string, dn: string): TopicRow[] {
    return [
        {
            name: '配置推送',
            topic: `/sys/${pk}/${dn}/thing/config/push`,
            permission: '订阅',
            description: '云端主动下推配置信息',
        },
        {
            name: '配置获取',
            topic: `/sys/${pk}/${dn}/thing/config/get`,
            permission: '发布',
            description: '设备端查询配置信息',
        },
        {
            name: '配置获取响应',
            topic: `/sys/${pk}/${dn}/thing/config/get_reply`,
            permission: '订阅',
            description: '云端响应配置信息',
        },
        {
            name: '设备标签上报',
            topic: `/sys/${pk}/${dn}/thing/deviceinfo/update`,
            permission: '发布',
            description: '设备上报标签信息',
        },
        {
            name: '设备标签上报响应',
            topic: `/sys/${pk}/${dn}/thing/deviceinfo/update_reply`,
            permission: '订阅',
            description: '云端响应标签上报',
        },
        {
            name: '固件版本上报',
            topic: `/ota/device/inform/${pk}/${dn}`,
            permission: '发布',
            description: '设备上报固件升级信息',
        },
        {
            name: '固件升级',
            topic: `/ota/device/upgrade/${pk}/${dn}`,
            permission: '订阅',
            description: '固件升级信息下行',
        },
        {
            name: 'NTP 时钟同步请求',
            topic: `/ext/ntp/${pk}/${dn}/request`,
            permission: '发布',
            description: 'NTP 时钟同步请求',
        },
        {
            name: 'NTP 时钟同步响应',
            topic: `/ext/ntp/${pk}/${dn}/response`,
            permission: '订阅',
            description: 'NTP 时钟同步响应',
        },
    ];
}

export function thingModelTopics(pk: string, dn: string, events: string[], services: string[]): TopicRow[] {
    const base = `/sys/${pk}/${dn}/thing`;
    return [
        { name: '属性上报', topic: `${base}/event/property/post`, permission: '发布', description: '设备属性上报' },
        {
            name: '属性上报响应',
            topic: `${base}/event/property/post_reply`,
            permission: '订阅',
            description: '云端响应属性上报',
        },
        { name: '属性设置', topic: `${base}/service/property/set`, permission: '订阅', description: '设备属性设置' },
        ...events.flatMap((id): TopicRow[] => [
            {
                name: `事件上报（${id}）`,
                topic: `${base}/event/${id}/post`,
                permission: '发布',
                description: '设备事件上报',
            },
            {
                name: `事件上报响应（${id}）`,
                topic: `${base}/event/${id}/post_reply`,
                permission: '订阅',
                description: '云端响应事件上报',
            },
        ]),
        ...services.flatMap((id): TopicRow[] => [
            {
                name: `服务调用（${id}）`,
                topic: `${base}/service/${id}`,
                permission: '订阅',
                description: '设备服务调用',
            },
            {
                name: `服务调用响应（${id}）`,
                topic: `${base}/service/${id}_reply`,
                permission: '发布',
                description: '设备端响应服务调用',
            },
        ]),
    ];
}

/** /api/topic: topic lists of a product (and of one device when deviceName is given). */
export function topicRoutes({ db }: Services) {
    const app = new Hono<AppEnv>();

    app.get('/list', async (c) => {
        const productKey = c.req.query('productKey')?.trim();
        if (!productKey) throw badRequest('缺少productKey');
        const deviceName = c.req.query('deviceName')?.trim() || '${deviceName}';
        const [product] = await db
            .select({ id: products.id })
            .from(products)
            .where(eq(products.productKey, productKey));
        if (!product) throw notFound('产品不存在');
        const functions = await db
            .select({ type: thingFunctions.type, identifier: thingFunctions.identifier })
            .from(thingFunctions)
            .where(and(eq(thingFunctions.productId, product.id), inArray(thingFunctions.type, ['event', 'service'])))
            .orderBy(asc(thingFunctions.id));
        const ids = (type: string) => functions.filter((f) => f.type === type).map((f) => f.identifier);
        return ok(c, [
            { name: '基础通信Topic', topics: basicTopics(productKey, deviceName) },
            {
                name: '物模型通信Topic',
                topics: thingModelTopics(productKey, deviceName, ids('event'), ids('service')),
            },
        ]);
    });

    return app;
}
