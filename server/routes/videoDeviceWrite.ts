import { eq } from 'drizzle-orm';
import type { Context } from 'hono';
import { DEVICE_NAME_TAKEN } from '../../schemas/device';
import {
    DEFAULT_RTSP_URI,
    gbDeviceAddSchema,
    gbDeviceEditSchema,
    rtspDeviceEditSchema,
    rtspDeviceSchema,
    videoPlaceSchema,
} from '../../schemas/videoDevice';
import { devices, projects, videoDevices } from '../db/schema';
import type { AppEnv, Services } from '../deps';
import { productById } from '../domain/devices';
import { insertDevices } from '../domain/deviceWrite';
import { codeNames, gbCode, getVideo, streamSource } from '../domain/videoDevices';
import { ok } from '../http/envelope';
import { badRequest, conflict, isUniqueViolation, notFound } from '../http/errors';
import { positiveInt, readBody, validate } from '../http/input';
import { rtspSource } from '../video/testPattern';
import { requireVideo, sipOf, toolsOf } from './videoCommon';

/** Adding and editing rtsp and gb28181 cameras (/api/video-device/add-*, edit-*). */

type C = Context<AppEnv>;
type Camera = Omit<typeof videoDevices.$inferInsert, 'deviceId'>;

/** Adds the device row and its camera row in one transaction. */
export async function addCamera(
    s: Services,
    c: C,
    body: Record<string, unknown>,
    base: { productId: number; deviceName: string; remark?: string },
    camera: Camera,
) {
    const { db } = s;
    const place = await validate(videoPlaceSchema, body);
    const projectId =
        body.projectId === undefined || body.projectId === ''
            ? undefined
            : positiveInt(body.projectId, '项目ID必须是正整数');
    const product = await productById(db, base.productId);
    if (!product) throw notFound('产品不存在');
    const names = await codeNames(db, place);
    const id = await db.transaction(async (tx) => {
        if (projectId !== undefined) {
            const [p] = await tx.select({ id: projects.id }).from(projects).where(eq(projects.id, projectId));
            if (!p) throw notFound('项目不存在');
        }
        const [row] = await insertDevices(tx, product, [
            {
                deviceName: base.deviceName,
                remark: base.remark || null,
                longitude: place.longitude ?? null,
                latitude: place.latitude ?? null,
                addr: place.address || null,
            },
        ]);
        if (!row) throw conflict(DEVICE_NAME_TAKEN);
        if (projectId !== undefined) await tx.update(devices).set({ projectId }).where(eq(devices.id, row.id));
        const codes = {
            tcode: place.tcode || null,
            icode: place.icode || null,
            ncode: place.ncode || null,
            pcode: place.pcode || null,
            ccode: place.ccode || null,
            acode: place.acode || null,
        };
        await tx.insert(videoDevices).values({
            ...camera,
            ...codes,
            ...names,
            deviceId: row.id,
            gbId: camera.protocol === 'gb28181' ? gbCode({ ...place }, row.id) : null,
        });
        return row.id;
    });
    return ok(c, await getVideo(db, id, s.config.timeZone, sipOf(s, c)));
}

export async function addRtsp(s: Services, c: C) {
    const body = await readBody(c);
    const input = await validate(rtspDeviceSchema, { ...body, protocol: body.protocol ?? 'rtsp' });
    return addCamera(s, c, body, input, {
        protocol: 'rtsp',
        host: input.host,
        port: input.port,
        username: input.username || null,
        password: input.password || null,
        uri: input.uri || DEFAULT_RTSP_URI,
    });
}

export async function addGb28181(s: Services, c: C) {
    const body = await readBody(c);
    const input = await validate(gbDeviceAddSchema, { ...body, protocol: body.protocol ?? 'gb28181' });
    return addCamera(s, c, body, input, {
        protocol: 'gb28181',
        manufacturer: input.manufacturer || null,
        password: input.password,
        uri: '',
    });
}

/** The device row's changes of an edit: the remark, and with a new name its MQTT username and client id. */
async function deviceChanges(s: Services, deviceId: number, deviceName: string, remark: string | undefined) {
    const [current] = await s.db
        .select({ productId: devices.productId, deviceName: devices.deviceName })
        .from(devices)
        .where(eq(devices.id, deviceId));
    const changes: Partial<typeof devices.$inferInsert> = { remark: remark || null };
    if (deviceName !== current.deviceName) {
        const product = await productById(s.db, current.productId);
        Object.assign(changes, {
            deviceName,
            username: `${deviceName}&${product!.productKey}`,
            clientId: `${product!.productKey}.${deviceName}`,
        });
    }
    return changes;
}

/** Writes an edit's device row and camera row together; a name taken in the product is 409. */
async function saveEdit(
    s: Services,
    deviceId: number,
    input: { deviceName: string; remark?: string },
    camera: Partial<Camera>,
) {
    const changes = await deviceChanges(s, deviceId, input.deviceName, input.remark);
    try {
        await s.db.transaction(async (tx) => {
            await tx.update(devices).set(changes).where(eq(devices.id, deviceId));
            await tx.update(videoDevices).set(camera).where(eq(videoDevices.deviceId, deviceId));
        });
    } catch (err) {
        if (isUniqueViolation(err, 'devices_product_name_uq')) throw conflict(DEVICE_NAME_TAKEN);
        throw err;
    }
}

export async function editRtsp(s: Services, c: C) {
    const body = await readBody(c);
    const deviceId = positiveInt(body.deviceId ?? body.id, '缺少设备ID');
    const source = await requireVideo(s.db, deviceId);
    if (source.protocol !== 'rtsp') throw badRequest('该设备不是RTSP设备，不能按RTSP编辑');
    // Product and protocol are locked in edit mode: whatever the call sends, they stay.
    const [device] = await s.db.select({ productId: devices.productId }).from(devices).where(eq(devices.id, deviceId));
    const input = await validate(rtspDeviceEditSchema, { ...body, productId: device.productId, protocol: 'rtsp' });
    await saveEdit(s, deviceId, input, {
        host: input.host,
        port: input.port,
        username: input.username || null,
        uri: input.uri || DEFAULT_RTSP_URI,
        // An empty password keeps the stored one (it is never answered back, so the form cannot show it).
        ...(input.password ? { password: input.password } : {}),
    });
    // A pushing camera with a new address is pulled from there at once.
    const after = await streamSource(s.db, deviceId);
    if (after.pushing === 1) s.video?.start(deviceId, rtspSource({ ...after, host: after.host ?? '' }, toolsOf(s)));
    return ok(c, await getVideo(s.db, deviceId, s.config.timeZone, sipOf(s, c)));
}

export async function editGb28181(s: Services, c: C) {
    const body = await readBody(c);
    const deviceId = positiveInt(body.id ?? body.deviceId, '缺少设备ID');
    const input = await validate(gbDeviceEditSchema, body);
    const source = await requireVideo(s.db, deviceId);
    if (source.protocol !== 'gb28181') throw badRequest('该设备不是GB28181设备，不能按GB28181编辑');
    await saveEdit(s, deviceId, input, { manufacturer: input.manufacturer || null });
    return ok(c, await getVideo(s.db, deviceId, s.config.timeZone, sipOf(s, c)));
}
