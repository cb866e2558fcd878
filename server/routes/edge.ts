import { rm } from 'node:fs/promises';
import path from 'node:path';
import { and, asc, desc, eq, getTableColumns, ilike, inArray, isNull, notInArray, sql } from 'drizzle-orm';
import { Hono } from 'hono';
import { edgeDriverSchema, edgeInstanceDriverSchema, edgeInstanceSchema } from '../../schemas/edge';
import {
    devices,
    edgeDeployments,
    edgeDrivers,
    edgeInstanceDevices,
    edgeInstanceDrivers,
    edgeInstances,
    products,
} from '../db/schema';
import type { AppEnv, Services } from '../deps';
import { createDeployer, deploymentRows } from '../domain/edge';
import { ok } from '../http/envelope';
import { badRequest, conflict, isUniqueViolation, notFound } from '../http/errors';
import { paging, positiveInt, idList, readBody, readListBody, validate } from '../http/input';
import { formatTime } from '../http/time';
import { scopeByProjectId } from '../rights/scope';
import { edgeDriverFileRoutes, packageDir } from './edgeDriverFiles';
import { edgeTabRoutes, settingsOf } from './edgeTabs';

const INSTANCE_NOT_FOUND = '边缘实例不存在';
const DRIVER_NOT_FOUND = '驱动不存在';

const parseJson = (text: string | undefined) => (text && text.trim() ? (JSON.parse(text) as object) : {});
const escapeLike = (s: string) => s.replace(/[\\%_]/g, (m) => `\\${m}`);

/**
 * /api/edge (general family, code 200): edge drivers (versioned packages for a protocol with a configuration schema),
 * edge instances bound to one gateway device each (its live status is the gateway's MQTT presence), the drivers
 * and sub-devices an instance runs, and deployment of the whole configuration to the gateway (server/domain/edge.ts).
 */
export function edgeRoutes(services: Services) {
    const { db, config } = services;
    const tz = config.timeZone;
    const deployer = createDeployer(db, services.access, services.now);
    const app = new Hono<AppEnv>();

    // ---- drivers ----
    app.route('/driver', edgeDriverFileRoutes(services));
    const driverRow = (r: typeof edgeDrivers.$inferSelect & { instanceCount?: number }) => ({
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
    const usedBy = sql<number>`(SELECT count(*)::int FROM edge_instance_drivers x WHERE x.driver_id = ${edgeDrivers.id})`;

    app.get('/driver/list', async (c) => {
        const { size, offset } = paging(c.req.query('pageNumber'), c.req.query('pageSize'));
        const name = c.req.query('name')?.trim();
        const where = name ? ilike(edgeDrivers.name, `%${escapeLike(name)}%`) : undefined;
        const rows = await db
            .select({ ...getTableColumns(edgeDrivers), instanceCount: usedBy })
            .from(edgeDrivers)
            .where(where)
            .orderBy(desc(edgeDrivers.id))
            .limit(size)
            .offset(offset);
        const [{ n }] = await db
            .select({ n: sql<number>`count(*)::int` })
            .from(edgeDrivers)
            .where(where);
        return ok(c, { records: rows.map(driverRow), total: Number(n) });
    });

    app.get('/driver/options', async (c) => {
        const rows = await db.select().from(edgeDrivers).orderBy(asc(edgeDrivers.name), desc(edgeDrivers.id));
        return ok(
            c,
            rows.map((r) => ({ id: r.id, label: `${r.name} ${r.version}`, protocol: r.protocol })),
        );
    });

    app.post('/driver/save', async (c) => {
        const body = await readBody(c);
        const input = await validate(edgeDriverSchema, body);
        const id = body.id === undefined || body.id === '' ? undefined : positiveInt(body.id, '驱动ID必须是正整数');
        const values = {
            name: input.name,
            version: input.version,
            protocol: input.protocol,
            description: input.description || null,
            configSchema: parseJson(input.configSchema),
        };
        try {
            if (id === undefined) {
                const [row] = await db.insert(edgeDrivers).values(values).returning();
                return ok(c, driverRow(row));
            }
            const [row] = await db.update(edgeDrivers).set(values).where(eq(edgeDrivers.id, id)).returning();
            if (!row) throw notFound(DRIVER_NOT_FOUND);
            return ok(c, driverRow(row));
        } catch (err) {
            if (isUniqueViolation(err)) throw conflict('该驱动的此版本已存在');
            throw err;
        }
    });

    app.delete('/driver/delete', async (c) => {
        const id = positiveInt(c.req.query('id'), '缺少驱动ID');
        const [row] = await db
            .select({ n: usedBy, storedName: edgeDrivers.storedName })
            .from(edgeDrivers)
            .where(eq(edgeDrivers.id, id));
        if (!row) throw notFound(DRIVER_NOT_FOUND);
        if (Number(row.n) > 0) throw badRequest(`该驱动正被${row.n}个边缘实例使用，不能删除`);
        await db.delete(edgeDrivers).where(eq(edgeDrivers.id, id));
        // The package goes with its version (after the row: a failed delete keeps both).
        if (row.storedName) await rm(path.join(packageDir(config.filesDir), row.storedName), { force: true });
        return ok(c, null);
    });

    // ---- instances ----
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
    const instanceRow = ({ settings, ...r }: InstanceRaw) => ({
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
    const instances = () =>
        db
            .select(instanceColumns)
            .from(edgeInstances)
            .innerJoin(devices, eq(devices.id, edgeInstances.gatewayId))
            .innerJoin(products, eq(products.id, devices.productId));

    async function requireInstance(id: number) {
        // Outside the user's projects (the gateway's) it does not exist for them.
        const [row] = await instances().where(and(eq(edgeInstances.id, id), scopeByProjectId(devices.projectId)));
        if (!row) throw notFound(INSTANCE_NOT_FOUND);
        return instanceRow(row);
    }

    app.get('/instance/list', async (c) => {
        const { size, offset } = paging(c.req.query('pageNumber'), c.req.query('pageSize'));
        const name = c.req.query('name')?.trim();
        const where = and(
            name ? ilike(edgeInstances.name, `%${escapeLike(name)}%`) : undefined,
            scopeByProjectId(devices.projectId),
        );
        const rows = await instances().where(where).orderBy(desc(edgeInstances.id)).limit(size).offset(offset);
        const [{ n }] = await db
            .select({ n: sql<number>`count(*)::int` })
            .from(edgeInstances)
            .innerJoin(devices, eq(devices.id, edgeInstances.gatewayId))
            .where(where);
        return ok(c, { records: rows.map(instanceRow), total: Number(n) });
    });

    app.get('/instance/get', async (c) => ok(c, await requireInstance(positiveInt(c.req.query('id'), '缺少实例ID'))));

    /** Gateways (devices of gateway products) not bound to an instance yet, for the instance form. */
    app.get('/instance/gateways', async (c) => {
        const rows = await db
            .select({ deviceId: devices.id, deviceName: devices.deviceName, productName: products.productName })
            .from(devices)
            .innerJoin(products, eq(products.id, devices.productId))
            .leftJoin(edgeInstances, eq(edgeInstances.gatewayId, devices.id))
            .where(and(eq(products.nodeType, 1), isNull(edgeInstances.id), scopeByProjectId(devices.projectId)))
            .orderBy(desc(devices.id))
            .limit(500);
        return ok(
            c,
            rows.map((r) => ({ deviceId: Number(r.deviceId), label: `${r.deviceName}（${r.productName}）` })),
        );
    });

    app.post('/instance/save', async (c) => {
        const body = await readBody(c);
        const input = await validate(edgeInstanceSchema, body);
        const id = body.id === undefined || body.id === '' ? undefined : positiveInt(body.id, '实例ID必须是正整数');
        const [gateway] = await db
            .select({ nodeType: products.nodeType })
            .from(devices)
            .innerJoin(products, eq(products.id, devices.productId))
            .where(eq(devices.id, input.gatewayId));
        if (!gateway) throw notFound('网关设备不存在');
        if (gateway.nodeType !== 1) throw badRequest('所选设备不是网关设备');
        const values = {
            name: input.name,
            spec: input.spec || null,
            gatewayId: input.gatewayId,
            remark: input.remark || null,
        };
        let saved: number;
        try {
            if (id === undefined) {
                [{ id: saved }] = await db.insert(edgeInstances).values(values).returning({ id: edgeInstances.id });
            } else {
                const current = await requireInstance(id);
                if (current.gatewayId !== input.gatewayId) {
                    // Its sub-devices came from the old gateway: they go with it.
                    await db.delete(edgeInstanceDevices).where(eq(edgeInstanceDevices.instanceId, id));
                }
                await db.update(edgeInstances).set(values).where(eq(edgeInstances.id, id));
                saved = id;
            }
        } catch (err) {
            if (isUniqueViolation(err, 'edge_instances_name_unique')) throw conflict('实例名称已存在');
            if (isUniqueViolation(err)) throw conflict('该网关已绑定其他边缘实例');
            throw err;
        }
        return ok(c, await requireInstance(saved));
    });

    app.delete('/instance/delete', async (c) => {
        const id = positiveInt(c.req.query('id'), '缺少实例ID');
        await requireInstance(id);
        await db.delete(edgeInstances).where(eq(edgeInstances.id, id));
        return ok(c, null);
    });

    // ---- an instance's drivers ----
    app.get('/instance/drivers', async (c) => {
        const instanceId = positiveInt(c.req.query('instanceId'), '缺少实例ID');
        const rows = await db
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
    });

    app.post('/instance/driver/save', async (c) => {
        const body = await readBody(c);
        const instanceId = positiveInt(body.instanceId, '缺少实例ID');
        const input = await validate(edgeInstanceDriverSchema, body);
        await requireInstance(instanceId);
        const [driver] = await db
            .select({ id: edgeDrivers.id })
            .from(edgeDrivers)
            .where(eq(edgeDrivers.id, input.driverId));
        if (!driver) throw notFound(DRIVER_NOT_FOUND);
        const config = parseJson(input.config);
        await db
            .insert(edgeInstanceDrivers)
            .values({ instanceId, driverId: input.driverId, config })
            .onConflictDoUpdate({
                target: [edgeInstanceDrivers.instanceId, edgeInstanceDrivers.driverId],
                set: { config },
            });
        return ok(c, null);
    });

    app.post('/instance/driver/remove', async (c) => {
        const body = await readBody(c);
        const instanceId = positiveInt(body.instanceId, '缺少实例ID');
        const driverId = positiveInt(body.driverId, '请选择驱动');
        await db
            .delete(edgeInstanceDevices)
            .where(and(eq(edgeInstanceDevices.instanceId, instanceId), eq(edgeInstanceDevices.driverId, driverId)));
        const gone = await db
            .delete(edgeInstanceDrivers)
            .where(and(eq(edgeInstanceDrivers.instanceId, instanceId), eq(edgeInstanceDrivers.driverId, driverId)))
            .returning({ id: edgeInstanceDrivers.driverId });
        if (!gone.length) throw notFound('该实例未使用此驱动');
        return ok(c, null);
    });

    // ---- sub-devices: deviceList1 (assigned to a driver), deviceList2 (the gateway's candidates) ----
    const subColumns = {
        deviceId: devices.id,
        deviceName: devices.deviceName,
        productName: products.productName,
        productKey: products.productKey,
        status: devices.status,
    };

    app.get('/instance/devices', async (c) => {
        const instanceId = positiveInt(c.req.query('instanceId'), '缺少实例ID');
        const { size, offset } = paging(c.req.query('pageNumber'), c.req.query('pageSize'));
        const driverRaw = c.req.query('driverId');
        const where = and(
            eq(edgeInstanceDevices.instanceId, instanceId),
            driverRaw ? eq(edgeInstanceDevices.driverId, positiveInt(driverRaw, '驱动ID必须是正整数')) : undefined,
        );
        const rows = await db
            .select({ ...subColumns, driverId: edgeDrivers.id, driverName: edgeDrivers.name })
            .from(edgeInstanceDevices)
            .innerJoin(devices, eq(devices.id, edgeInstanceDevices.deviceId))
            .innerJoin(products, eq(products.id, devices.productId))
            .innerJoin(edgeDrivers, eq(edgeDrivers.id, edgeInstanceDevices.driverId))
            .where(where)
            .orderBy(desc(devices.id))
            .limit(size)
            .offset(offset);
        const [{ n }] = await db
            .select({ n: sql<number>`count(*)::int` })
            .from(edgeInstanceDevices)
            .where(where);
        return ok(c, { records: rows.map((r) => ({ ...r, deviceId: Number(r.deviceId) })), total: Number(n) });
    });

    app.get('/instance/candidates', async (c) => {
        const instanceId = positiveInt(c.req.query('instanceId'), '缺少实例ID');
        const { size, offset } = paging(c.req.query('pageNumber'), c.req.query('pageSize'));
        const instance = await requireInstance(instanceId);
        const assigned = db.select({ id: edgeInstanceDevices.deviceId }).from(edgeInstanceDevices);
        const where = and(eq(devices.gwId, instance.gatewayId), notInArray(devices.id, assigned));
        const rows = await db
            .select(subColumns)
            .from(devices)
            .innerJoin(products, eq(products.id, devices.productId))
            .where(where)
            .orderBy(desc(devices.id))
            .limit(size)
            .offset(offset);
        const [{ n }] = await db
            .select({ n: sql<number>`count(*)::int` })
            .from(devices)
            .where(where);
        return ok(c, { records: rows.map((r) => ({ ...r, deviceId: Number(r.deviceId) })), total: Number(n) });
    });

    app.post('/instance/device/assign', async (c) => {
        const body = await readListBody(c);
        const instanceId = positiveInt(body.instanceId, '缺少实例ID');
        const driverId = positiveInt(body.driverId, '请选择驱动');
        const ids = idList(body.deviceId ?? body.deviceIds, '设备ID必须是正整数');
        if (!ids.length) throw badRequest('请选择要分配的子设备');
        const instance = await requireInstance(instanceId);
        const [used] = await db
            .select({ id: edgeInstanceDrivers.driverId })
            .from(edgeInstanceDrivers)
            .where(and(eq(edgeInstanceDrivers.instanceId, instanceId), eq(edgeInstanceDrivers.driverId, driverId)));
        if (!used) throw badRequest('请先为实例添加该驱动');
        const subs = await db
            .select({ id: devices.id, gwId: devices.gwId })
            .from(devices)
            .where(inArray(devices.id, ids));
        if (subs.length !== ids.length) throw notFound('设备不存在');
        if (subs.some((s) => Number(s.gwId) !== instance.gatewayId)) throw badRequest('只能分配该网关下的子设备');
        await db
            .insert(edgeInstanceDevices)
            .values(ids.map((deviceId) => ({ deviceId, instanceId, driverId })))
            .onConflictDoUpdate({ target: edgeInstanceDevices.deviceId, set: { instanceId, driverId } });
        return ok(c, null);
    });

    app.post('/instance/device/remove', async (c) => {
        const body = await readBody(c);
        const instanceId = positiveInt(body.instanceId, '缺少实例ID');
        const deviceId = positiveInt(body.deviceId, '缺少设备ID');
        const gone = await db
            .delete(edgeInstanceDevices)
            .where(and(eq(edgeInstanceDevices.instanceId, instanceId), eq(edgeInstanceDevices.deviceId, deviceId)))
            .returning({ id: edgeInstanceDevices.deviceId });
        if (!gone.length) throw notFound('该设备未分配给此实例');
        return ok(c, null);
    });

    // ---- 场景联动, 函数计算, 流数据分析, 消息路由, 设置, 监控 ----
    app.route('/instance', edgeTabRoutes(services, requireInstance));

    // ---- deployment ----
    app.post('/instance/deploy', async (c) => {
        const body = await readBody(c);
        const instanceId = positiveInt(body.id ?? body.instanceId, '缺少实例ID');
        await requireInstance(instanceId);
        const id = await deployer.deploy(instanceId);
        const [row] = await db.select().from(edgeDeployments).where(eq(edgeDeployments.id, id));
        return ok(c, {
            id: row.id,
            version: row.version,
            status: row.status,
            message: row.message,
            createTime: formatTime(row.createTime, tz),
            answerTime: formatTime(row.answerTime, tz),
        });
    });

    app.get('/instance/deployments', async (c) => {
        const instanceId = positiveInt(c.req.query('instanceId'), '缺少实例ID');
        const { size, offset } = paging(c.req.query('pageNumber'), c.req.query('pageSize'));
        return ok(c, await deploymentRows(db, instanceId, size, offset, tz));
    });

    return app;
}
