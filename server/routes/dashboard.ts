import { Hono } from 'hono';
import type { AppEnv, Services } from '../deps';

/** /api/dashboard: the landing dashboard counts (docs/platform-api.md "Dashboard"). Issue 5. */
export function dashboardRoutes(services: Services) {
    const app = new Hono<AppEnv>();
    void services;
    return app;
}
