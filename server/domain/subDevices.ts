import { and, desc, eq, inArray, isNotNull, isNull, sql, type SQL } from 'drizzle-orm';
import type { DeviceStatus } from '../../schemas/device';
import type { Db, Tx } from '../db/client';
import { deviceCounts, devices, products } from '../db/schema';
import { badRequest, notFound } from '../http/errors';
import { formatTime } from '../http/time';

export const SUB_DEVICE_MESSAGES = {
    gatewayNotFound: '网关设备不存在',
    notGateway: '该设备不是网关设备',
    gatewayAsChild: '网关设备不能作为子设备',
    otherGateway: '设备已挂载到其他网关',
    deviceNotFound: '设备不存在',
    notChild: '该设备不是此网关的子设备',
    noneSelected: '请选择子设备',
    tooMany: '一次最多选择10000个设备',
} as const;

export const SUB_DEVICE_MAX = 10000;

/** nodeType of a directly connected device's product (SPEC: 0 device, otherwise gateway). */
const DEVICE = 0;

const columns = {
    deviceId: devices.id,
    deviceName: devices.deviceName,
    productId: devices.productId,
    productName: products.productName,
    productKey: products.productKey,
    nodeType: products.nodeType,
    status: devices.status,
    createTime: devices.createTime,
    remark: devices.remark,
};

type Row = Omit<{ [K in keyof typeof columns]: (typeof columns)[K]['_']['data'] }, 'remark'> & {
    remark: string | null;
};

function toRecord(row: Row, timeZone: string) {
    const deviceId = Number(row.deviceId);
    return {
        deviceId,
        subDeviceId: deviceId,
        deviceName: row.deviceName,
        productId: Number(row.productId),
        productName: row.productName,
        productKey: row.productKey,
        nodeType: row.nodeType,
        status: row.status as DeviceStatus,
        createTime: formatTime(row.createTime, timeZone),
        remark: row.remark,
    };
}

export type SubDevice = ReturnType<typeof toRecord>;

/** The gateway of a call: 404 网关设备不存在, or 该设备不是网关设备 when its product is not a gateway product. */
export async function gatewayOf(db: Db | Tx, gwId: number, lock = false): Promise<number> {
    const query = db
        .select({ id: devices.id, nodeType: products.nodeType })
        .from(devices)
        .innerJoin(products, eq(products.id, devices.productId))
        .where(eq(devices.id, gwId));
    const [row] = lock ? await query.for('update', { of: devices }) : await query;
    if (!row) throw notFound(SUB_DEVICE_MESSAGES.gatewayNotFound);
    if (row.nodeType === DEVICE) throw badRequest(SUB_DEVICE_MESSAGES.notGateway);
    return Number(row.id);
}

async function pageRecords(db: Db, where: SQL | undefined, limit: number, offset: number, timeZone: string) {
    const rows = await db
        .select(columns)
        .from(devices)
        .innerJoin(products, eq(products.id, devices.productId))
        .where(where)
        .orderBy(desc(devices.id))
        .limit(limit)
        .offset(offset);
    return rows.map((r) => toRecord(r, timeZone));
}

async function countWhere(db: Db, where: SQL | undefined): Promise<number> {
    const [count] = await db
        .select({ n: sql<number>`count(*)::int` })
        .from(devices)
        .innerJoin(products, eq(products.id, devices.productId))
        .where(where);
    return Number(count.n);
}

/** A literal, case-sensitive substring of deviceName, like the device list's search. */
const nameContains = (q: string | undefined) => (q ? sql`strpos(${devices.deviceName}, ${q}) > 0` : undefined);

export interface SubDeviceQuery {
    gwId: number;
    deviceName?: string;
    limit: number;
    offset: number;
}

/** The gateway's sub-devices, newest first. */
export async function listSubDevices(db: Db, q: SubDeviceQuery, timeZone: string) {
    await gatewayOf(db, q.gwId);
    const where = and(eq(devices.gwId, q.gwId), nameContains(q.deviceName));
    return { records: await pageRecords(db, where, q.limit, q.offset, timeZone), total: await countWhere(db, where) };
}

/**
 * Candidates without a name search are counted from device_counts (devices of non-gateway products) minus the
 * attached ones (the partial index on gw_id holds only those), never by a scan of the devices table.
 */
async function candidateTotal(db: Db, productId: number | undefined): Promise<number> {
    const [all] = await db
        .select({ n: sql<number>`coalesce(sum(${deviceCounts.total}), 0)::bigint` })
        .from(deviceCounts)
        .innerJoin(products, eq(products.id, deviceCounts.productId))
        .where(and(eq(products.nodeType, DEVICE), productId === undefined ? undefined : eq(products.id, productId)));
    const [attached] = await db
        .select({ n: sql<number>`count(*)::bigint` })
        .from(devices)
        .innerJoin(products, eq(products.id, devices.productId))
        .where(
            and(
                isNotNull(devices.gwId),
                eq(products.nodeType, DEVICE),
                productId === undefined ? undefined : eq(devices.productId, productId),
            ),
        );
    return Number(all.n) - Number(attached.n);
}

/** Devices that may become the gateway's sub-devices: of a non-gateway product, attached to no gateway. */
export async function listCandidates(db: Db, q: SubDeviceQuery & { productKey?: string }, timeZone: string) {
    await gatewayOf(db, q.gwId);
    let productId: number | undefined;
    if (q.productKey) {
        const [product] = await db
            .select({ id: products.id })
            .from(products)
            .where(eq(products.productKey, q.productKey));
        if (!product) return { records: [], total: 0 };
        productId = product.id;
    }
    const where = and(
        eq(products.nodeType, DEVICE),
        isNull(devices.gwId),
        productId === undefined ? undefined : eq(devices.productId, productId),
        nameContains(q.deviceName),
    );
    const records = await pageRecords(db, where, q.limit, q.offset, timeZone);
    // A name search scans anyway (like the device list's); without one the counters answer.
    const total = q.deviceName ? await countWhere(db, where) : await candidateTotal(db, productId);
    return { records, total };
}

/**
 * Attaches the devices to the gateway, all or nothing. Devices already under this gateway are accepted (count is every
 * device named, all now under the gateway); `remark`, when given, replaces the remark of every listed device.
 */
export async function addSubDevices(db: Db, gwId: number, deviceIds: number[], remark: string | undefined) {
    if (deviceIds.length === 0) throw badRequest(SUB_DEVICE_MESSAGES.noneSelected);
    if (deviceIds.length > SUB_DEVICE_MAX) throw badRequest(SUB_DEVICE_MESSAGES.tooMany);
    return db.transaction(async (tx) => {
        await gatewayOf(tx, gwId, true);
        const rows = await tx
            .select({ id: devices.id, gwId: devices.gwId, nodeType: products.nodeType })
            .from(devices)
            .innerJoin(products, eq(products.id, devices.productId))
            .where(inArray(devices.id, deviceIds))
            .for('update', { of: devices });
        if (rows.length !== deviceIds.length) throw notFound(SUB_DEVICE_MESSAGES.deviceNotFound);
        if (rows.some((r) => r.nodeType !== DEVICE)) throw badRequest(SUB_DEVICE_MESSAGES.gatewayAsChild);
        if (rows.some((r) => r.gwId !== null && Number(r.gwId) !== gwId)) {
            throw badRequest(SUB_DEVICE_MESSAGES.otherGateway);
        }
        await tx
            .update(devices)
            .set(remark === undefined ? { gwId } : { gwId, remark })
            .where(inArray(devices.id, deviceIds));
        return { count: deviceIds.length };
    });
}

/** Detaches the devices from the gateway, all or nothing: each must be its sub-device. */
export async function removeSubDevices(db: Db, gwId: number, deviceIds: number[]) {
    if (deviceIds.length === 0) throw badRequest(SUB_DEVICE_MESSAGES.noneSelected);
    if (deviceIds.length > SUB_DEVICE_MAX) throw badRequest(SUB_DEVICE_MESSAGES.tooMany);
    await db.transaction(async (tx) => {
        await gatewayOf(tx, gwId, true);
        const rows = await tx
            .select({ id: devices.id, gwId: devices.gwId })
            .from(devices)
            .where(inArray(devices.id, deviceIds))
            .for('update');
        if (rows.length !== deviceIds.length) throw notFound(SUB_DEVICE_MESSAGES.deviceNotFound);
        if (rows.some((r) => r.gwId === null || Number(r.gwId) !== gwId)) {
            throw badRequest(SUB_DEVICE_MESSAGES.notChild);
        }
        await tx.update(devices).set({ gwId: null }).where(inArray(devices.id, deviceIds));
    });
}
