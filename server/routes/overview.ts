import type { Context } from 'hono';
import { Hono } from 'hono';
import type { AppEnv, Services } from '../deps';
import { listAlerts, pendingByType, projectHealth } from '../domain/alerts';
import { projectDevicesByCategory, projectDevicesByStatus } from '../domain/dashboard';
import { requireProjectId } from '../domain/projects';
import { ok } from '../http/envelope';
import { badRequest } from '../http/errors';
import { paging, positiveInt } from '../http/input';

export const HEALTH_DAYS = { default: 7, max: 30 } as const;

/** /api/overview: one project's charts and alerts (docs/platform-api.md "Projects"). */
export function overviewRoutes(services: Services) {
    const { db, config } = services;
    const app = new Hono<AppEnv>();

    const project = async (c: Context) =>
        (await requireProjectId(db, positiveInt(c.req.query('projectId'), '缺少项目ID'))).id;

    app.get('/deviceStatus', async (c) => ok(c, { list: await projectDevicesByStatus(db, await project(c)) }));

    app.get('/deviceType', async (c) => {
        const rows = await projectDevicesByCategory(db, await project(c));
        return ok(c, { list: rows.map((r) => ({ type: r.categoryName, amount: r.total })) });
    });

    app.get('/alertType', async (c) => ok(c, { list: await pendingByType(db, await project(c)) }));

    app.get('/alertList', async (c) => {
        const projectId = await project(c);
        const { page, size } = paging(c.req.query('pageNumber'), c.req.query('pageSize'));
        return ok(c, await listAlerts(db, { projectId }, page, size, config.timeZone));
    });

    app.get('/health', async (c) => {
        const projectId = await project(c);
        const raw = c.req.query('days')?.trim();
        const days = raw ? positiveInt(raw, '天数必须是正整数') : HEALTH_DAYS.default;
        if (days > HEALTH_DAYS.max) throw badRequest(`天数不能超过${HEALTH_DAYS.max}`);
        return ok(c, { list: await projectHealth(db, projectId, days, config.timeZone, services.now()) });
    });

    return app;
}
