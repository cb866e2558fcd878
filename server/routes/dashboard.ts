import { Hono } from 'hono';
import type { AppEnv, Services } from '../deps';
import { dashboardCounts } from '../domain/dashboard';
import { ok } from '../http/envelope';

/** /api/dashboard: the landing dashboard counts (docs/platform-api.md "Dashboard"). */
export function dashboardRoutes({ db }: Services) {
    const app = new Hono<AppEnv>();
    app.get('/count', async (c) => ok(c, await dashboardCounts(db)));
    return app;
}
