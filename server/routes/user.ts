import { Hono } from 'hono';
import type { AppEnv, Services } from '../deps';

/** /api/user: user search for project staff. Issue 5. */
export function userRoutes(services: Services) {
    const app = new Hono<AppEnv>();
    void services;
    return app;
}
