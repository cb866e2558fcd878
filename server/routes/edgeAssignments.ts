import { and, asc, desc, eq, inArray, notInArray, sql } from 'drizzle-orm';
import { Hono, type Context } from 'hono';
import { edgeInstanceDriverSchema } from '../../schemas/edge';
import { devices, edgeDrivers, edgeInstanceDevices, edgeInstanceDrivers, products } from '../db/schema';
import type { AppEnv, Services } from '../deps';
import { DRIVER_NOT_FOUND, countWhere, pageOf, parseJson, requireInstance } from '../domain/edgeRecords';
import { ok } from '../http/envelope';
import { badRequest, notFound } from '../http/errors';
import { idList, positiveInt, readBody, readListBody, validate } from '../http/input';

/**
 * What an edge instance runs (/api/edge/instance/...): its drivers with their configuration, and the gateway's
 * sub-devices assigned to them (deviceList1: assigned, deviceList2: the gateway's candidates).
 */

type C = Context<AppEnv>;

const subColumns = {
    deviceId: devices.id,
    deviceName: devices.deviceName,
    productName: products.productName,
    productKey: products.productKey,
    status: devices.status,
};

const instanceIdOf = (c: C) => positiveInt(c.req.query('instanceId'), '缺少实例ID');

export async function listInstanceDrivers(s: Services, c: C) {
    const instanceId = instanceIdOf(c);
    const rows = await s.db
        .select({
            driverId: edgeDrivers.id,
            name: edgeDrivers.name,
            version: edgeDrivers.version,
            protocol: edgeDrivers.protocol,
            config: edgeInstanceDrivers.config,
            deviceCount: sql<number>`(SELECT count(*)::int FROM edge_instance_devices x WHERE x.instance_id = ${instanceId} AND x.driver_id = ${edgeDrivers.id})`,
        })
        .from(edgeInstanceDrivers)
        .innerJoin(edgeDrivers, eq(edgeDrivers.id, edgeInstanceDrivers.driverId))
        .where(eq(edgeInstanceDrivers.instanceId, instanceId))
        .orderBy(asc(edgeDrivers.name));
    return ok(c, {
        records: rows.map((r) => ({
            ...r,
            config: JSON.stringify(r.config ?? {}),
            deviceCount: Number(r.deviceCount),
        })),
        total: rows.length,
    });
}

export async function saveInstanceDriver(s: Services, c: C) {
    const body = await readBody(c);
    const instanceId = positiveInt(body.instanceId, '缺少实例ID');
    const input = await validate(edgeInstanceDriverSchema, body);
    await requireInstance(s.db, s.config.timeZone, instanceId);
    const [driver] = await s.db
        .select({ id: edgeDrivers.id })
        .from(edgeDrivers)
        .where(eq(edgeDrivers.id, input.driverId));
    if (!driver) throw notFound(DRIVER_NOT_FOUND);
    const config = parseJson(input.config);
    await s.db
        .insert(edgeInstanceDrivers)
        .values({ instanceId, driverId: input.driverId, config })
        .onConflictDoUpdate({
            target: [edgeInstanceDrivers.instanceId, edgeInstanceDrivers.driverId],
            set: { config },
        });
    return ok(c, null);
}

/** The driver leaves the instance with the sub-devices assigned to it. */
export async function removeInstanceDriver(s: Services, c: C) {
    const body = await readBody(c);
    const instanceId = positiveInt(body.instanceId, '缺少实例ID');
    const driverId = positiveInt(body.driverId, '请选择驱动');
    await s.db
        .delete(edgeInstanceDevices)
        .where(and(eq(edgeInstanceDevices.instanceId, instanceId), eq(edgeInstanceDevices.driverId, driverId)));
    const gone = await s.db
        .delete(edgeInstanceDrivers)
        .where(and(eq(edgeInstanceDrivers.instanceId, instanceId), eq(edgeInstanceDrivers.driverId, driverId)))
        .returning({ id: edgeInstanceDrivers.driverId });
    if (!gone.length) throw notFound('该实例未使用此驱动');
    return ok(c, null);
}

export async function listAssignedDevices(s: Services, c: C) {
    const instanceId = instanceIdOf(c);
    const { size, offset } = pageOf(c);
    const driverRaw = c.req.query('driverId');
    const where = and(
        eq(edgeInstanceDevices.instanceId, instanceId),
        driverRaw ? eq(edgeInstanceDevices.driverId, positiveInt(driverRaw, '驱动ID必须是正整数')) : undefined,
    );
    const rows = await s.db
        .select({ ...subColumns, driverId: edgeDrivers.id, driverName: edgeDrivers.name })
        .from(edgeInstanceDevices)
        .innerJoin(devices, eq(devices.id, edgeInstanceDevices.deviceId))
        .innerJoin(products, eq(products.id, devices.productId))
        .innerJoin(edgeDrivers, eq(edgeDrivers.id, edgeInstanceDevices.driverId))
        .where(where)
        .orderBy(desc(devices.id))
        .limit(size)
        .offset(offset);
    const total = await countWhere(s.db, edgeInstanceDevices, where);
    return ok(c, { records: rows.map((r) => ({ ...r, deviceId: Number(r.deviceId) })), total });
}

/** The gateway's sub-devices not assigned to any instance. */
export async function listCandidates(s: Services, c: C) {
    const instanceId = instanceIdOf(c);
    const { size, offset } = pageOf(c);
    const instance = await requireInstance(s.db, s.config.timeZone, instanceId);
    const assigned = s.db.select({ id: edgeInstanceDevices.deviceId }).from(edgeInstanceDevices);
    const where = and(eq(devices.gwId, instance.gatewayId), notInArray(devices.id, assigned));
    const rows = await s.db
        .select(subColumns)
        .from(devices)
        .innerJoin(products, eq(products.id, devices.productId))
        .where(where)
        .orderBy(desc(devices.id))
        .limit(size)
        .offset(offset);
    const total = await countWhere(s.db, devices, where);
    return ok(c, { records: rows.map((r) => ({ ...r, deviceId: Number(r.deviceId) })), total });
}

export async function assignDevices(s: Services, c: C) {
    const body = await readListBody(c);
    const instanceId = positiveInt(body.instanceId, '缺少实例ID');
    const driverId = positiveInt(body.driverId, '请选择驱动');
    const ids = idList(body.deviceId ?? body.deviceIds, '设备ID必须是正整数');
    if (!ids.length) throw badRequest('请选择要分配的子设备');
    const instance = await requireInstance(s.db, s.config.timeZone, instanceId);
    const [used] = await s.db
        .select({ id: edgeInstanceDrivers.driverId })
        .from(edgeInstanceDrivers)
        .where(and(eq(edgeInstanceDrivers.instanceId, instanceId), eq(edgeInstanceDrivers.driverId, driverId)));
    if (!used) throw badRequest('请先为实例添加该驱动');
    const subs = await s.db
        .select({ id: devices.id, gwId: devices.gwId })
        .from(devices)
        .where(inArray(devices.id, ids));
    if (subs.length !== ids.length) throw notFound('设备不存在');
    if (subs.some((d) => Number(d.gwId) !== instance.gatewayId)) throw badRequest('只能分配该网关下的子设备');
    await s.db
        .insert(edgeInstanceDevices)
        .values(ids.map((deviceId) => ({ deviceId, instanceId, driverId })))
        .onConflictDoUpdate({ target: edgeInstanceDevices.deviceId, set: { instanceId, driverId } });
    return ok(c, null);
}

export async function removeDevice(s: Services, c: C) {
    const body = await readBody(c);
    const instanceId = positiveInt(body.instanceId, '缺少实例ID');
    const deviceId = positiveInt(body.deviceId, '缺少设备ID');
    const gone = await s.db
        .delete(edgeInstanceDevices)
        .where(and(eq(edgeInstanceDevices.instanceId, instanceId), eq(edgeInstanceDevices.deviceId, deviceId)))
        .returning({ id: edgeInstanceDevices.deviceId });
    if (!gone.length) throw notFound('该设备未分配给此实例');
    return ok(c, null);
}

export function edgeAssignmentRoutes(s: Services) {
    return new Hono<AppEnv>()
        .get('/drivers', (c) => listInstanceDrivers(s, c))
        .post('/driver/save', (c) => saveInstanceDriver(s, c))
        .post('/driver/remove', (c) => removeInstanceDriver(s, c))
        .get('/devices', (c) => listAssignedDevices(s, c))
        .get('/candidates', (c) => listCandidates(s, c))
        .post('/device/assign', (c) => assignDevices(s, c))
        .post('/device/remove', (c) => removeDevice(s, c));
}
