import { Hono } from 'hono';
import type { AppEnv, Services } from '../deps';
import { devicesByCategory, locatedDevicesJson, type Bbox } from '../domain/dashboard';
import { DeviceMapCache } from '../domain/deviceMapCache';
import { ok } from '../http/envelope';
import { badRequest } from '../http/errors';

const BBOX_MESSAGE = 'bbox 格式应为 西经,南纬,东经,北纬（如 73,18,135,54）';

/** `w,s,e,n` in degrees, west ≤ east and south ≤ north; absent or empty means the whole map. */
export function parseBbox(raw: string | undefined): Bbox | undefined {
    const value = raw?.trim();
    if (!value) return undefined;
    const parts = value.split(',').map((p) => p.trim());
    if (parts.length !== 4 || parts.some((p) => !/^-?\d+(\.\d+)?$/.test(p))) throw badRequest(BBOX_MESSAGE);
    const [w, s, e, n] = parts.map(Number);
    const lngOk = (v: number) => v >= -180 && v <= 180;
    const latOk = (v: number) => v >= -90 && v <= 90;
    if (!lngOk(w) || !lngOk(e) || !latOk(s) || !latOk(n) || w > e || s > n) throw badRequest(BBOX_MESSAGE);
    return [w, s, e, n];
}

/** /api/device: devices per category and the device map (docs/platform-api.md "Dashboard"). */
export function deviceStatsRoutes({ db }: Services) {
    const app = new Hono<AppEnv>();
    const mapCache = new DeviceMapCache();

    app.get('/getCntGroupByCate', async (c) => ok(c, { records: await devicesByCategory(db) }));

    // The database writes the list as JSON text; it goes into the envelope as is. The whole map (no bbox) is cached
    // until a device changes (domain/deviceMapCache.ts).
    app.get('/queryLonLatList', async (c) => {
        const bbox = parseBbox(c.req.query('bbox'));
        const data = bbox ? await locatedDevicesJson(db, bbox) : await mapCache.get(db, () => locatedDevicesJson(db));
        return c.body(`{"code":0,"msg":"success","data":${data}}`, 200, {
            'content-type': 'application/json; charset=UTF-8',
        });
    });

    return app;
}
