import { Hono } from 'hono';
import type { AppEnv, Services } from '../deps';
import { DAY_MS } from '../db/partitions';
import { deviceIdByName, productByKey } from '../domain/devices';
import { queryMessageLog, type Direction } from '../domain/messageLog';
import { ok } from '../http/envelope';
import { badRequest, notFound } from '../http/errors';
import { paging, refuseNul } from '../http/input';
import { formatTime } from '../http/time';
import { listNotifications } from '../rules/notify';

const DIRECTIONS = new Set<Direction>(['up', 'down', 'status']);

/** Epoch milliseconds, or undefined when absent; anything else is 400 naming the param. */
function epochMs(raw: string | undefined, label: string): Date | undefined {
    const s = raw?.trim() ?? '';
    if (s === '') return undefined;
    if (!/^\d{1,15}$/.test(s)) throw badRequest(`${label}格式不正确：应为毫秒时间戳`);
    const d = new Date(Number(s));
    if (Number.isNaN(d.getTime())) throw badRequest(`${label}格式不正确：应为毫秒时间戳`);
    return d;
}

/** /api/log: the message log query (device family envelope: code 0 / 1). */
export function messageLogRoutes({ db, config, now }: Services) {
    // Without a start time, the log reads back over the retention (LOG_RETENTION_DAYS and the day a partition drop
    // keeps beyond it): older rows are the sweep's to drop, and the bound prunes the day partitions outside it.
    const retained = () => new Date(now().getTime() - (config.logRetentionDays + 1) * DAY_MS);

    const app = new Hono<AppEnv>();

    app.get('/messages', async (c) => {
        const q = c.req.query();
        for (const [key, value] of Object.entries(q)) refuseNul(key, value);
        const productKey = q.productKey?.trim() ?? '';
        if (!productKey) throw badRequest('请选择产品');
        if (productKey.length > 64) throw badRequest('产品不存在');
        const direction = (q.direction?.trim() || 'up') as Direction;
        if (!DIRECTIONS.has(direction)) throw badRequest('消息方向只能是 up、down 或 status');
        const start = epochMs(q.startTime, '开始时间');
        const end = epochMs(q.endTime, '结束时间');
        if (start && end && start > end) throw badRequest('开始时间不能晚于结束时间');
        const deviceName = q.deviceName?.trim() || undefined;
        if (deviceName && deviceName.length > 100) throw badRequest('设备名称不能超过100个字符');
        const messageId = q.messageId?.trim() || undefined;
        if (messageId && messageId.length > 64) throw badRequest('消息ID不能超过64个字符');
        const { size, offset } = paging(q.pageNumber, q.pageSize);

        const product = await productByKey(db, productKey);
        if (!product) throw notFound('产品不存在');
        let deviceId: number | undefined;
        if (deviceName) {
            deviceId = await deviceIdByName(db, product.id, deviceName);
            if (deviceId === undefined) return ok(c, { records: [], total: 0 });
        }
        const data = await queryMessageLog(
            db,
            {
                productId: product.id,
                productKey: product.productKey,
                direction,
                deviceId,
                deviceName,
                start: start ?? retained(),
                end,
                messageId,
                limit: size,
                offset,
            },
            config.timeZone,
        );
        return ok(c, data);
    });

    /**
     * Alert notifications (告警消息: app, notification type, message type, recipient, content, time): what the rule
     * engine sent (server/rules/notify.ts), newest first, optionally of one product (productKey).
     */
    app.get('/alerts', async (c) => {
        const q = c.req.query();
        for (const [key, value] of Object.entries(q)) refuseNul(key, value);
        const { size, offset } = paging(q.pageNumber, q.pageSize);
        const productKey = q.productKey?.trim() || undefined;
        return ok(
            c,
            await listNotifications(db, { productKey, since: retained() }, size, offset, (d) =>
                formatTime(d, config.timeZone),
            ),
        );
    });

    return app;
}
