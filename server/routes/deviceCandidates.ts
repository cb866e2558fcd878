import { Hono } from 'hono';
import type { AppEnv, Services } from '../deps';
import { productById } from '../domain/devices';
import { candidateDevices } from '../domain/groupDevices';
import { getGroup } from '../domain/groups';
import { ok } from '../http/envelope';
import { notFound } from '../http/errors';
import { paging, positiveInt } from '../http/input';

/** /api/device/candidates: devices that may join a group (docs/platform-api.md "Groups"; code 0 family). */
export function deviceCandidateRoutes({ db, config }: Services) {
    const app = new Hono<AppEnv>();
    const tz = config.timeZone;

    app.get('/candidates', async (c) => {
        const productId = positiveInt(c.req.query('productId'), '请选择产品');
        const rawGroup = c.req.query('groupId');
        const groupId = rawGroup ? positiveInt(rawGroup, '分组ID必须是正整数') : undefined;
        const { size, offset } = paging(c.req.query('pageNumber'), c.req.query('pageSize'));
        if (!(await productById(db, productId))) throw notFound('产品不存在');
        if (groupId !== undefined) await getGroup(db, groupId, tz);
        const deviceName = c.req.query('deviceName')?.trim() || undefined;
        return ok(c, await candidateDevices(db, tz, { productId, groupId, deviceName, limit: size, offset }));
    });

    return app;
}
