import { Hono } from 'hono';
import type { AppEnv, Services } from '../deps';

/** /api/group: the three-level group tree (docs/platform-api.md "Groups"). Issue 5. */
export function groupRoutes(services: Services) {
    const app = new Hono<AppEnv>();
    void services;
    return app;
}
