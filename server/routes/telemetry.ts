import { Hono } from 'hono';
import type { AppEnv, Services } from '../deps';

/** /api/device: properties, property history and events of one device (docs/platform-api.md "Device detail"). Issue 4. */
export function telemetryRoutes(services: Services) {
    const app = new Hono<AppEnv>();
    void services;
    return app;
}
