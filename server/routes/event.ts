import { Hono } from 'hono';
import type { AppEnv, Services } from '../deps';

/** /api/event: alert events (docs/platform-api.md "Dashboard"). Issue 5. */
export function eventRoutes(services: Services) {
    const app = new Hono<AppEnv>();
    void services;
    return app;
}
