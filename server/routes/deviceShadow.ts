import { eq } from 'drizzle-orm';
import { Hono } from 'hono';
import type { Db } from '../db/client';
import { devices, products } from '../db/schema';
import type { AppEnv, Services } from '../deps';
import { changeShadow, loadShadow, ShadowRefusal, shadowBody, type Shadow } from '../domain/shadow';
import { checkDesired, parseDesired } from '../../schemas/deviceShadow';
import { ok } from '../http/envelope';
import { badRequest, conflict, notFound } from '../http/errors';
import { positiveInt, readBody } from '../http/input';
import { formatTime } from '../http/time';
import type { AccessHub } from '../mqtt/access';
import { controlMessage, shadowGetTopic } from '../mqtt/shadow';

/**
 * The device shadow from the console and the API (Alibaba's GetDeviceShadow / UpdateDeviceShadow):
 * `GET /api/device/shadow?deviceId` answers the document; `POST /api/device/shadow/update` (deviceId, desired: the
 * whole desired state as a JSON object, `{}` clears it; version optional, larger than the document's) stores it and
 * sends it to the device as `control` when it is connected (in a cluster, the broker carries it to the process that
 * holds the connection); a device not connected gets it when it next subscribes (server/mqtt/shadow.ts).
 */

/** The device's productKey and deviceName (its shadow topics), or 404. */
async function deviceOf(db: Db, deviceId: number) {
    const [row] = await db
        .select({ productKey: products.productKey, deviceName: devices.deviceName, status: devices.status })
        .from(devices)
        .innerJoin(products, eq(products.id, devices.productId))
        .where(eq(devices.id, deviceId));
    if (!row) throw notFound('设备不存在');
    return row;
}

/** The desired state of the request: a JSON object (as text or as JSON), or a 400 saying what is wrong. */
export function desiredOf(raw: unknown): Record<string, unknown> {
    const parsed =
        typeof raw === 'string' ? parseDesired(raw) : raw === undefined ? parseDesired('') : checkDesired(raw);
    if ('error' in parsed) throw badRequest(parsed.error);
    return parsed.value;
}

/** The optional version: an integer larger than the document's (the check is the store's), or -1. */
export function versionOf(raw: unknown): number | undefined {
    if (raw === undefined || raw === null || raw === '') return undefined;
    const n =
        typeof raw === 'number' ? raw : typeof raw === 'string' && /^-?\d{1,16}$/.test(raw.trim()) ? Number(raw) : NaN;
    if (!Number.isSafeInteger(n) || n < -1) throw badRequest('version 须为整数（大于当前版本，或 -1 重置）');
    return n;
}

/** The document as the API answers it (`exists: false` and version 0 for a device without a shadow). */
function answer(deviceId: number, doc: Shadow | undefined, timeZone: string) {
    if (!doc) {
        return {
            deviceId,
            exists: false,
            state: { reported: {}, desired: {} },
            metadata: { reported: {}, desired: {} },
            version: 0,
            timestamp: null,
            updateTime: null,
        };
    }
    return { deviceId, exists: true, ...shadowBody(doc), updateTime: formatTime(doc.updateTime, timeZone) };
}

/** Sends the document's desired state to the device if it is connected here or anywhere in the cluster. */
async function pushControl(
    access: AccessHub | undefined,
    device: { productKey: string; deviceName: string },
    doc: Shadow,
) {
    const backend = access?.backend;
    if (!backend?.publishDown) return false;
    await backend.publishDown(shadowGetTopic(device), JSON.stringify(controlMessage(doc)));
    return true;
}

export function deviceShadowRoutes({ db, access, config }: Services) {
    const app = new Hono<AppEnv>();

    app.get('/api/device/shadow', async (c) => {
        const deviceId = positiveInt(c.req.query('deviceId'), '缺少设备ID');
        await deviceOf(db, deviceId);
        return ok(c, answer(deviceId, await loadShadow(db, deviceId), config.timeZone));
    });

    app.post('/api/device/shadow/update', async (c) => {
        const body = await readBody(c);
        const deviceId = positiveInt(body.deviceId, '缺少设备ID');
        const desired = desiredOf(body.desired);
        const version = versionOf(body.version);
        const device = await deviceOf(db, deviceId);
        let doc: Shadow;
        try {
            doc = await changeShadow(db, deviceId, { kind: 'desired', replace: desired }, version);
        } catch (err) {
            if (!(err instanceof ShadowRefusal)) throw err;
            throw err.code === 409 ? conflict(`${err.message}，请刷新后重试`) : badRequest(err.message);
        }
        // Connected here, or ONLINE in the table (connected to another process of the cluster).
        const online = (access?.isOnline(deviceId) ?? false) || device.status === 'ONLINE';
        const sent = online && Object.keys(doc.desired).length > 0 && (await pushControl(access, device, doc));
        return ok(c, { ...answer(deviceId, doc, config.timeZone), sent, online });
    });

    return app;
}
