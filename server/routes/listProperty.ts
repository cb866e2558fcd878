import { Hono } from 'hono';
import type { AppEnv, Services } from '../deps';

/** /api/function/ListProperty: the messages a device reported (run status, events). Issue 4. */
export function listPropertyRoutes(services: Services) {
    const app = new Hono<AppEnv>();
    void services;
    return app;
}
