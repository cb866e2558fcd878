import { Hono } from 'hono';
import type { AppEnv, Services } from '../deps';

/** /api/device: devices per category and the device map (docs/platform-api.md "Dashboard"). Issue 5. */
export function deviceStatsRoutes(services: Services) {
    const app = new Hono<AppEnv>();
    void services;
    return app;
}
