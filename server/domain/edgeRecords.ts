import { and, eq, sql, type SQL } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';
import type { Context } from 'hono';
import { EDGE_SETTINGS_DEFAULTS } from '../../schemas/edge';
import type { Db } from '../db/client';
import { devices, edgeDrivers, edgeInstances, products } from '../db/schema';
import { notFound } from '../http/errors';
import { paging, positiveInt } from '../http/input';
import { formatTime } from '../http/time';
import { scopeByProjectId } from '../rights/scope';

/** Edge drivers and instances as /api/edge answers them, and the lookups its routes share. */

export const INSTANCE_NOT_FOUND = '边缘实例不存在';
export const DRIVER_NOT_FOUND = '驱动不存在';

/** What the instance routes know of an instance: its gateway and the gateway's project. */
export interface InstanceRef {
    id: number;
    gatewayId: number;
}

/** A JSON text field of a form ('' or absent: {}). */
export const parseJson = (text: string | undefined) => (text && text.trim() ? (JSON.parse(text) as object) : {});
export const escapeLike = (s: string) => s.replace(/[\\%_]/g, (m) => `\\${m}`);

/** The page the query asks for (pageNumber, pageSize). */
export const pageOf = (c: Context) => paging(c.req.query('pageNumber'), c.req.query('pageSize'));

/** An id in the body that may be absent (a new record) or must be a positive integer. */
export const optionalId = (raw: unknown, message: string) =>
    raw === undefined || raw === '' ? undefined : positiveInt(raw, message);

/** The number of rows of a table that match. */
export async function countWhere(db: Db, table: PgTable, where: SQL | undefined): Promise<number> {
    const [{ n }] = await db
        .select({ n: sql<number>`count(*)::int` })
        .from(table)
        .where(where);
    return Number(n);
}

/** How many instances run a driver version. */
export const driverUsedBy = sql<number>`(SELECT count(*)::int FROM edge_instance_drivers x WHERE x.driver_id = ${edgeDrivers.id})`;

type DriverRaw = typeof edgeDrivers.$inferSelect & { instanceCount?: number };

/** A driver as the driver list and form answer it. */
export const driverRow = (r: DriverRaw, tz: string) => ({
    id: r.id,
    name: r.name,
    version: r.version,
    protocol: r.protocol,
    description: r.description,
    configSchema: JSON.stringify(r.configSchema ?? {}),
    fileName: r.fileName,
    fileSize: r.fileSize === null ? null : Number(r.fileSize),
    sha256: r.fileSha256,
    instanceCount: Number(r.instanceCount ?? 0),
    createTime: formatTime(r.createTime, tz),
});

/** A driver version with its package's size and SHA-256 (the versions list and an upload's answer). */
export const driverVersionRow = (r: DriverRaw, tz: string) => {
    const { description: _description, configSchema: _configSchema, ...row } = driverRow(r, tz);
    return row;
};

/** The instance's settings with the defaults for what it has not saved. */
export const settingsOf = (stored: unknown) => ({
    ...EDGE_SETTINGS_DEFAULTS,
    ...((stored && typeof stored === 'object' ? stored : {}) as Partial<typeof EDGE_SETTINGS_DEFAULTS>),
});

const instanceColumns = {
    id: edgeInstances.id,
    name: edgeInstances.name,
    spec: edgeInstances.spec,
    remark: edgeInstances.remark,
    version: edgeInstances.version,
    settings: edgeInstances.settings,
    createTime: edgeInstances.createTime,
    gatewayId: edgeInstances.gatewayId,
    gatewayName: devices.deviceName,
    productKey: products.productKey,
    productName: products.productName,
    status: devices.status,
    lastTime: devices.lastTime,
    driverCount: sql<number>`(SELECT count(*)::int FROM edge_instance_drivers x WHERE x.instance_id = ${edgeInstances.id})`,
    deviceCount: sql<number>`(SELECT count(*)::int FROM edge_instance_devices x WHERE x.instance_id = ${edgeInstances.id})`,
    deployStatus: sql<
        string | null
    >`(SELECT status FROM edge_deployments x WHERE x.instance_id = ${edgeInstances.id} ORDER BY version DESC LIMIT 1)`,
};
type InstanceRaw = { [K in keyof typeof instanceColumns]: unknown };

export const instanceRow = ({ settings, ...r }: InstanceRaw, tz: string) => ({
    ...r,
    // 设置 (the settings tab reads them from the record).
    ...settingsOf(settings),
    id: Number(r.id),
    gatewayId: Number(r.gatewayId),
    driverCount: Number(r.driverCount),
    deviceCount: Number(r.deviceCount),
    createTime: formatTime(r.createTime as Date, tz),
    // The last heartbeat: the gateway's last sign-in or message.
    lastTime: formatTime(r.lastTime as Date | null, tz),
});
export type InstanceRecord = ReturnType<typeof instanceRow>;

/** Instances with their gateway and its product. */
export const instanceQuery = (db: Db) =>
    db
        .select(instanceColumns)
        .from(edgeInstances)
        .innerJoin(devices, eq(devices.id, edgeInstances.gatewayId))
        .innerJoin(products, eq(products.id, devices.productId));

/** The instance, or 404; outside the user's projects (the gateway's) it does not exist for them. */
export async function requireInstance(db: Db, tz: string, id: number): Promise<InstanceRecord> {
    const [row] = await instanceQuery(db).where(and(eq(edgeInstances.id, id), scopeByProjectId(devices.projectId)));
    if (!row) throw notFound(INSTANCE_NOT_FOUND);
    return instanceRow(row, tz);
}
