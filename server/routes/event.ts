import { Hono } from 'hono';
import type { AppEnv, Services } from '../deps';
import { listAlerts, pendingByType } from '../domain/alerts';
import { requireProjectId } from '../domain/projects';
import { ok } from '../http/envelope';
import { badRequest } from '../http/errors';
import { paging, positiveInt } from '../http/input';

/** An optional project filter: absent or empty means every project; an unknown project is refused (404). */
async function projectFilter(db: Services['db'], raw: string | undefined): Promise<number | undefined> {
    const value = raw?.trim();
    if (!value) return undefined;
    return (await requireProjectId(db, positiveInt(value, '项目ID必须是正整数'))).id;
}

/** /api/event: alert events (docs/platform-api.md "Dashboard"). */
export function eventRoutes({ db, config }: Services) {
    const app = new Hono<AppEnv>();

    app.get('/countByType', async (c) => {
        const projectId = await projectFilter(db, c.req.query('projectId'));
        return ok(c, { list: await pendingByType(db, projectId) });
    });

    app.get('/list', async (c) => {
        const { page, size } = paging(c.req.query('pageNumber'), c.req.query('pageSize'));
        const projectId = await projectFilter(db, c.req.query('projectId'));
        const rawStatus = c.req.query('status')?.trim();
        if (rawStatus && rawStatus !== '0' && rawStatus !== '1') throw badRequest('状态只能是0（未处理）或1（已处理）');
        const status = rawStatus ? Number(rawStatus) : undefined;
        return ok(c, await listAlerts(db, { projectId, status }, page, size, config.timeZone));
    });

    return app;
}
