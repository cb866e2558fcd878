import { Hono } from 'hono';
import type { AppEnv } from '../deps';
import { ok } from '../http/envelope';
import { paging } from '../http/input';

/**
 * Video devices (SPEC.md "/api/video-device/*"). The reference platform keeps no video devices yet: its list
 * answers an empty page (so the console's video list shows its empty state, not a failure); the other video calls
 * are not served until video devices are stored.
 */
export function videoDeviceRoutes() {
    const app = new Hono<AppEnv>();
    app.get('/list', (c) => {
        // The paging params are read as every list reads them (a malformed one is refused the same way).
        paging(c.req.query('pageNumber'), c.req.query('pageSize'));
        return ok(c, { records: [], total: 0 });
    });
    return app;
}
