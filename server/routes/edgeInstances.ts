import { and, desc, eq, ilike, isNull, sql } from 'drizzle-orm';
import { Hono, type Context } from 'hono';
import { edgeInstanceSchema } from '../../schemas/edge';
import { devices, edgeDeployments, edgeInstanceDevices, edgeInstances, products } from '../db/schema';
import type { AppEnv, Services } from '../deps';
import { createDeployer, deploymentRows, type Deployer } from '../domain/edge';
import { escapeLike, instanceQuery, instanceRow, optionalId, pageOf, requireInstance } from '../domain/edgeRecords';
import { ok } from '../http/envelope';
import { badRequest, conflict, isUniqueViolation, notFound } from '../http/errors';
import { positiveInt, readBody, validate } from '../http/input';
import { formatTime } from '../http/time';
import { scopeByProjectId } from '../rights/scope';

/**
 * /api/edge/instance: edge instances bound to one gateway device each (its live status is the gateway's MQTT
 * presence), and deployment of the whole configuration to the gateway (server/domain/edge.ts).
 */

type C = Context<AppEnv>;

export async function listInstances(s: Services, c: C) {
    const { size, offset } = pageOf(c);
    const name = c.req.query('name')?.trim();
    const where = and(
        name ? ilike(edgeInstances.name, `%${escapeLike(name)}%`) : undefined,
        scopeByProjectId(devices.projectId),
    );
    const rows = await instanceQuery(s.db).where(where).orderBy(desc(edgeInstances.id)).limit(size).offset(offset);
    const [{ n }] = await s.db
        .select({ n: sql<number>`count(*)::int` })
        .from(edgeInstances)
        .innerJoin(devices, eq(devices.id, edgeInstances.gatewayId))
        .where(where);
    return ok(c, { records: rows.map((r) => instanceRow(r, s.config.timeZone)), total: Number(n) });
}

export async function getInstance(s: Services, c: C) {
    return ok(c, await requireInstance(s.db, s.config.timeZone, positiveInt(c.req.query('id'), '缺少实例ID')));
}

/** Gateways (devices of gateway products) not bound to an instance yet, for the instance form. */
export async function freeGateways(s: Services, c: C) {
    const rows = await s.db
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
}

/** The device must exist and be a gateway (node type 1). */
async function requireGateway(s: Services, deviceId: number) {
    const [gateway] = await s.db
        .select({ nodeType: products.nodeType })
        .from(devices)
        .innerJoin(products, eq(products.id, devices.productId))
        .where(eq(devices.id, deviceId));
    if (!gateway) throw notFound('网关设备不存在');
    if (gateway.nodeType !== 1) throw badRequest('所选设备不是网关设备');
}

export async function saveInstance(s: Services, c: C) {
    const { db } = s;
    const tz = s.config.timeZone;
    const body = await readBody(c);
    const input = await validate(edgeInstanceSchema, body);
    const id = optionalId(body.id, '实例ID必须是正整数');
    await requireGateway(s, input.gatewayId);
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
            const current = await requireInstance(db, tz, id);
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
    return ok(c, await requireInstance(db, tz, saved));
}

export async function deleteInstance(s: Services, c: C) {
    const id = positiveInt(c.req.query('id'), '缺少实例ID');
    await requireInstance(s.db, s.config.timeZone, id);
    await s.db.delete(edgeInstances).where(eq(edgeInstances.id, id));
    return ok(c, null);
}

export async function deployInstance(s: Services, deployer: Deployer, c: C) {
    const tz = s.config.timeZone;
    const body = await readBody(c);
    const instanceId = positiveInt(body.id ?? body.instanceId, '缺少实例ID');
    await requireInstance(s.db, tz, instanceId);
    const id = await deployer.deploy(instanceId);
    const [row] = await s.db.select().from(edgeDeployments).where(eq(edgeDeployments.id, id));
    return ok(c, {
        id: row.id,
        version: row.version,
        status: row.status,
        message: row.message,
        createTime: formatTime(row.createTime, tz),
        answerTime: formatTime(row.answerTime, tz),
    });
}

export async function listDeployments(s: Services, c: C) {
    const instanceId = positiveInt(c.req.query('instanceId'), '缺少实例ID');
    const { size, offset } = pageOf(c);
    return ok(c, await deploymentRows(s.db, instanceId, size, offset, s.config.timeZone));
}

export function edgeInstanceRoutes(s: Services) {
    const deployer = createDeployer(s.db, s.access, s.now);
    return new Hono<AppEnv>()
        .get('/list', (c) => listInstances(s, c))
        .get('/get', (c) => getInstance(s, c))
        .get('/gateways', (c) => freeGateways(s, c))
        .post('/save', (c) => saveInstance(s, c))
        .delete('/delete', (c) => deleteInstance(s, c))
        .post('/deploy', (c) => deployInstance(s, deployer, c))
        .get('/deployments', (c) => listDeployments(s, c));
}
