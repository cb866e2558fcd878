import { Hono } from 'hono';
import type { AppEnv, Services } from '../deps';

/** /api/project-user: project staff (docs/platform-api.md "Projects"). Issue 5. */
export function projectUserRoutes(services: Services) {
    const app = new Hono<AppEnv>();
    void services;
    return app;
}
