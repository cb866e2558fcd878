import { and, eq, sql } from 'drizzle-orm';
import { Hono } from 'hono';
import * as yup from 'yup';
import {
    batchRegisterSchema,
    DEVICE_NAME_TAKEN,
    deviceCreateByIdSchema,
    deviceCreateSchema,
    deviceEditSchema,
    deviceNameRule,
} from '../../schemas/device';
import type { Db } from '../db/client';
import { devices } from '../db/schema';
import type { AppEnv, Services } from '../deps';
import {
    deviceCredentials,
    deviceIdByName,
    getDevice,
    productById,
    productByKey,
    type ProductRef,
} from '../domain/devices';
import { requireProject } from '../domain/deviceProject';
import { batchRegister, insertDevices, type NewDevice } from '../domain/deviceWrite';
import { ok } from '../http/envelope';
import { badRequest, conflict, isUniqueViolation, notFound } from '../http/errors';
import { positiveInt, readBody, validate } from '../http/input';

const BATCH_NAMES_SHOWN = 100;

const renameSchema = yup.object({ newDeviceName: deviceNameRule });

/**
 * Adds one device; with a projectId (the project overview's 添加设备) the device joins that project in the same
 * transaction, so it is never left outside the project it was added from.
 */
async function createDevice(db: Db, product: ProductRef, input: NewDevice, timeZone: string, projectId?: number) {
    // Without a project, the one INSERT is all there is to it: atomic alone, and one statement where a transaction
    // costs the embedded database BEGIN and COMMIT besides, on its slower path for statements inside one.
    const [row] =
        projectId === undefined
            ? await insertDevices(db, product, [input])
            : await db.transaction(async (tx) => {
                  await requireProject(tx, projectId);
                  const inserted = await insertDevices(tx, product, [input]);
                  if (inserted[0]) await tx.update(devices).set({ projectId }).where(eq(devices.id, inserted[0].id));
                  return inserted;
              });
    if (!row) throw conflict(DEVICE_NAME_TAKEN);
    return getDevice(db, row.id, timeZone);
}

/** The optional projectId of an add: absent or empty means none; anything else must be a positive integer. */
function projectOf(body: Record<string, unknown>): number | undefined {
    const raw = body.projectId;
    if (raw === undefined || raw === null || raw === '') return undefined;
    return positiveInt(raw, '项目ID必须是正整数');
}

async function deleteDevice(db: Db, deviceId: number) {
    const deleted = await db.delete(devices).where(eq(devices.id, deviceId)).returning({ id: devices.id });
    if (deleted.length === 0) throw notFound('设备不存在');
}

/** Remark edits share one rule (required, at most 100) across the three paths that make them. */
export async function updateRemark(db: Db, body: Record<string, unknown>) {
    const deviceId = positiveInt(body.deviceId, '缺少设备ID');
    const { remark } = await validate(deviceEditSchema, body);
    const updated = await db
        .update(devices)
        .set({ remark })
        .where(eq(devices.id, deviceId))
        .returning({ id: devices.id });
    if (updated.length === 0) throw notFound('设备不存在');
    return deviceId;
}

/** Adding, editing, enabling and deleting devices. */
export function deviceEditRoutes({ db, config, now, maintenance, access }: Services) {
    const tz = config.timeZone;
    const app = new Hono<AppEnv>();

    app.post('/save', async (c) => {
        const body = await readBody(c);
        const input = await validate(deviceCreateSchema, body);
        const product = await productByKey(db, input.productKey);
        if (!product) throw notFound('产品不存在');
        return ok(c, await createDevice(db, product, input, tz, projectOf(body)));
    });

    app.post('/SaveDevice', async (c) => {
        const body = await readBody(c);
        const input = await validate(deviceCreateByIdSchema, body);
        const product = await productById(db, input.productId);
        if (!product) throw notFound('产品不存在');
        return ok(c, await createDevice(db, product, input, tz, projectOf(body)));
    });

    app.post('/update', async (c) => {
        const body = await readBody(c);
        const deviceId = positiveInt(body.deviceId, '缺少设备ID');
        const { remark } = await validate(deviceEditSchema, body);
        const rawName = typeof body.newDeviceName === 'string' ? body.newDeviceName.trim() : '';
        const newName = rawName ? (await validate(renameSchema, { newDeviceName: rawName })).newDeviceName : undefined;
        const current = await getDevice(db, deviceId, tz);
        const changes: Partial<typeof devices.$inferInsert> = { remark };
        if (newName !== undefined && newName !== current.deviceName) {
            const taken = await deviceIdByName(db, current.productId, newName);
            if (taken !== undefined) throw conflict(DEVICE_NAME_TAKEN);
            Object.assign(changes, { deviceName: newName, ...deviceCredentials(current.productKey, newName) });
        }
        try {
            await db.update(devices).set(changes).where(eq(devices.id, deviceId));
        } catch (err) {
            if (isUniqueViolation(err, 'devices_product_name_uq')) throw conflict(DEVICE_NAME_TAKEN);
            throw err;
        }
        // A renamed device signs in with its new name: the old connection's credentials no longer hold.
        if (changes.deviceName !== undefined) access?.disconnect([deviceId]);
        return ok(c, await getDevice(db, deviceId, tz));
    });

    // Enable / disable: one call with an action, as SPEC.md says. Repeating an action changes nothing (enabling an
    // enabled ONLINE device must not knock it OFFLINE).
    app.put('/update', async (c) => {
        const body = { ...c.req.query(), ...(await readBody(c)) };
        const deviceId = positiveInt(body.deviceId, '缺少设备ID');
        const action = typeof body.action === 'string' ? body.action.trim() : '';
        if (action !== 'enable' && action !== 'disable') throw badRequest('action 只能是 enable 或 disable');
        await getDevice(db, deviceId, tz);
        const at = now();
        if (action === 'disable') {
            await db
                .update(devices)
                .set({ enabled: false, status: 'DISABLE', statusTime: at })
                .where(and(eq(devices.id, deviceId), eq(devices.enabled, true)));
            access?.disconnect([deviceId]);
        } else {
            // Back to OFFLINE, or INACTIVE when it never connected (no lastTime).
            await db
                .update(devices)
                .set({
                    enabled: true,
                    status: sql`CASE WHEN ${devices.lastTime} IS NULL THEN 'INACTIVE' ELSE 'OFFLINE' END`,
                    statusTime: at,
                })
                .where(and(eq(devices.id, deviceId), eq(devices.enabled, false)));
        }
        return ok(c, await getDevice(db, deviceId, tz));
    });

    app.post('/UpdateDeviceNickname', async (c) => {
        const deviceId = await updateRemark(db, await readBody(c));
        return ok(c, await getDevice(db, deviceId, tz));
    });

    app.post('/BatchRegisterDevice', async (c) => {
        const input = await validate(batchRegisterSchema, await readBody(c));
        const product = await productById(db, input.productId);
        if (!product) throw notFound('产品不存在');
        const names = await db.transaction((tx) => batchRegister(tx, product, input.amount));
        maintenance?.noteDeviceWrites(names.length);
        return ok(c, { count: names.length, deviceNames: names.slice(0, BATCH_NAMES_SHOWN) });
    });

    app.post('/RemoveDevice', async (c) => {
        const body = await readBody(c);
        const productKey = typeof body.productKey === 'string' ? body.productKey.trim() : '';
        const deviceName = typeof body.deviceName === 'string' ? body.deviceName.trim() : '';
        if (!productKey) throw badRequest('请选择产品');
        if (!deviceName) throw badRequest('请输入deviceName!');
        const product = await productByKey(db, productKey);
        if (!product) throw notFound('产品不存在');
        const deviceId = await deviceIdByName(db, product.id, deviceName);
        if (deviceId === undefined) throw notFound('设备不存在');
        await deleteDevice(db, deviceId);
        access?.disconnect([deviceId]);
        return ok(c, null);
    });

    app.delete('/', async (c) => {
        const deviceId = positiveInt(c.req.query('deviceId'), '缺少设备ID');
        await deleteDevice(db, deviceId);
        access?.disconnect([deviceId]);
        return ok(c, null);
    });

    return app;
}
