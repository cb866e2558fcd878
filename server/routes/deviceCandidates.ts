import { Hono } from 'hono';
import type { AppEnv, Services } from '../deps';

/** /api/device/candidates: devices that may join a group (docs/platform-api.md "Groups"). Issue 5. */
export function deviceCandidateRoutes(services: Services) {
    const app = new Hono<AppEnv>();
    void services;
    return app;
}
