import { Hono } from 'hono';
import type { AppEnv, Services } from '../deps';

/** /api/device/file: files attached to a device (docs/platform-api.md "Device detail"). Issue 4. */
export function deviceFileRoutes(services: Services) {
    const app = new Hono<AppEnv>();
    void services;
    return app;
}
