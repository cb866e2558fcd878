import { Hono } from 'hono';
import type { AppEnv, Services } from '../deps';

/** /api/groups: a group's devices (docs/platform-api.md "Groups"). Issue 5. */
export function groupDeviceRoutes(services: Services) {
    const app = new Hono<AppEnv>();
    void services;
    return app;
}
