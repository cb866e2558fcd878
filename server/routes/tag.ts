import { Hono } from 'hono';
import type { AppEnv, Services } from '../deps';

/** /api/tag: device tags (docs/platform-api.md "Device detail"). Issue 4. */
export function tagRoutes(services: Services) {
    const app = new Hono<AppEnv>();
    void services;
    return app;
}
