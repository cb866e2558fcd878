import { Hono } from 'hono';
import type { AppEnv, Services } from '../deps';
import { deviceIdByName, productByKey } from '../domain/devices';
import { latestMessages, parseMethodFilter } from '../domain/telemetry';
import { ok } from '../http/envelope';
import { badRequest, notFound } from '../http/errors';
import { readBody } from '../http/input';
import { detailPageSize } from './telemetry';

/**
 * /api/function/ListProperty (the device family's envelope, code 0): the latest messages a device reported, for run
 * status (thing.event.property.post) and the device's events (thing.event.*). Mounted before the thing-model router.
 */
export function listPropertyRoutes(services: Services) {
    const { db, config } = services;
    const app = new Hono<AppEnv>();

    app.post('/ListProperty', async (c) => {
        const body = await readBody(c);
        const text = (name: string) => {
            const value = body[name];
            return typeof value === 'string' ? value.trim() : typeof value === 'number' ? String(value) : undefined;
        };
        const productKey = text('productKey');
        const deviceName = text('deviceName');
        if (!productKey) throw badRequest('请选择产品');
        if (!deviceName) throw badRequest('请输入deviceName!');
        const size = detailPageSize(text('size'), 10, '条数须为1~100的整数');
        const filter = parseMethodFilter(text('method'));
        const product = await productByKey(db, productKey);
        if (!product) throw notFound('产品不存在');
        const deviceId = await deviceIdByName(db, product.id, deviceName);
        if (deviceId === undefined) throw notFound('设备不存在');
        const bound = { now: services.now(), retentionDays: config.logRetentionDays };
        return ok(c, { list: await latestMessages(db, deviceId, filter, size, config.timeZone, bound) });
    });

    return app;
}
