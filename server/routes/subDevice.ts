import { Hono } from 'hono';
import type { AppEnv, Services } from '../deps';

/** /api/device/subDevice: a gateway's sub-devices (docs/platform-api.md "Device detail"). Issue 4. */
export function subDeviceRoutes(services: Services) {
    const app = new Hono<AppEnv>();
    void services;
    return app;
}
