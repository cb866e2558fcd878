import { Hono } from 'hono';
import type { AppEnv, Services } from '../deps';

/** /api/overview: one project's charts and alerts (docs/platform-api.md "Projects"). Issue 5. */
export function overviewRoutes(services: Services) {
    const app = new Hono<AppEnv>();
    void services;
    return app;
}
