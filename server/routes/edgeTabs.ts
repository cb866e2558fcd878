import { and, asc, desc, eq, isNull, notInArray, sql } from 'drizzle-orm';
import { Hono, type Context } from 'hono';
import { edgeSettingsSchema } from '../../schemas/edge';
import { devices, edgeFunctions, edgeInstanceRules, edgeInstances, edgeStreams, products, rules } from '../db/schema';
import type { AppEnv, Services } from '../deps';
import { requireInstance, settingsOf, type InstanceRef } from '../domain/edgeRecords';
import { monitorFigures } from '../domain/edgeMonitor';
import { ok } from '../http/envelope';
import { badRequest, notFound } from '../http/errors';
import { positiveInt, readBody, validate } from '../http/input';
import { edgePartRoutes } from './edgeParts';

/**
 * The edge instance detail's tabs under /api/edge/instance: 函数计算 / 流数据分析 / 消息路由 (edgeParts.ts), what
 * they may name, 场景联动, 设置 and 监控. Every call names its instance (instanceId, which the rights check scopes
 * to the gateway's project).
 */

type C = Context<AppEnv>;

const instanceOf = (s: Services, raw: unknown) =>
    requireInstance(s.db, s.config.timeZone, positiveInt(raw, '缺少实例ID'));

/** What a route or job may name: the gateway and its sub-devices, or the instance's functions or jobs. */
export async function listEndpoints(s: Services, c: C) {
    const instance = await instanceOf(s, c.req.query('instanceId'));
    const kind = c.req.query('kind') ?? '';
    if (kind === 'device') {
        const rows = await s.db
            .select({ name: devices.deviceName, gateway: sql<boolean>`${devices.id} = ${instance.gatewayId}` })
            .from(devices)
            .where(sql`(${devices.id} = ${instance.gatewayId} OR ${devices.gwId} = ${instance.gatewayId})`)
            .orderBy(desc(sql`${devices.id} = ${instance.gatewayId}`), asc(devices.deviceName))
            .limit(500);
        return ok(
            c,
            rows.map((r) => ({ name: r.name, label: r.gateway ? `${r.name}（网关）` : r.name })),
        );
    }
    if (kind !== 'function' && kind !== 'stream') throw badRequest('kind只能是device、function或stream');
    const table = kind === 'function' ? edgeFunctions : edgeStreams;
    const rows = await s.db
        .select({ name: table.name })
        .from(table)
        .where(eq(table.instanceId, instance.id))
        .orderBy(asc(table.name));
    return ok(
        c,
        rows.map((r) => ({ name: r.name, label: r.name })),
    );
}

// ---- 场景联动: the platform's scene linkage rules (type 1) of the gateway's project, run at the edge ----

async function gatewayProject(s: Services, instance: InstanceRef) {
    const [row] = await s.db
        .select({ projectId: devices.projectId })
        .from(devices)
        .where(eq(devices.id, instance.gatewayId));
    return row?.projectId ?? null;
}

const sameProject = (projectId: number | null) =>
    projectId === null ? isNull(rules.projectId) : eq(rules.projectId, projectId);

export async function listEdgeRules(s: Services, c: C) {
    const instance = await instanceOf(s, c.req.query('instanceId'));
    const rows = await s.db
        .select({
            ruleId: rules.id,
            name: rules.name,
            enabled: rules.enabled,
            productName: products.productName,
            description: rules.description,
        })
        .from(edgeInstanceRules)
        .innerJoin(rules, eq(rules.id, edgeInstanceRules.ruleId))
        .innerJoin(products, eq(products.id, rules.productId))
        .where(eq(edgeInstanceRules.instanceId, instance.id))
        .orderBy(asc(rules.name));
    return ok(c, { records: rows, total: rows.length });
}

/** Scene rules of the gateway's project that the instance does not run yet. */
export async function edgeRuleOptions(s: Services, c: C) {
    const instance = await instanceOf(s, c.req.query('instanceId'));
    const taken = s.db
        .select({ id: edgeInstanceRules.ruleId })
        .from(edgeInstanceRules)
        .where(eq(edgeInstanceRules.instanceId, instance.id));
    const rows = await s.db
        .select({ id: rules.id, name: rules.name })
        .from(rules)
        .where(and(eq(rules.type, 1), sameProject(await gatewayProject(s, instance)), notInArray(rules.id, taken)))
        .orderBy(desc(rules.id))
        .limit(500);
    return ok(
        c,
        rows.map((r) => ({ id: r.id, label: r.name })),
    );
}

export async function addEdgeRule(s: Services, c: C) {
    const body = await readBody(c);
    const instanceId = positiveInt(body.instanceId, '缺少实例ID');
    const ruleId = positiveInt(body.ruleId, '请选择场景联动规则');
    const instance = await requireInstance(s.db, s.config.timeZone, instanceId);
    const [rule] = await s.db
        .select({ type: rules.type, projectId: rules.projectId })
        .from(rules)
        .where(eq(rules.id, ruleId));
    if (!rule) throw notFound('规则不存在');
    if (rule.type !== 1) throw badRequest('只能添加场景联动规则');
    if (rule.projectId !== (await gatewayProject(s, instance))) throw badRequest('只能添加网关所属项目的场景联动规则');
    await s.db.insert(edgeInstanceRules).values({ instanceId, ruleId }).onConflictDoNothing();
    return ok(c, null);
}

export async function removeEdgeRule(s: Services, c: C) {
    const body = await readBody(c);
    const instanceId = positiveInt(body.instanceId, '缺少实例ID');
    const ruleId = positiveInt(body.ruleId, '缺少规则ID');
    await requireInstance(s.db, s.config.timeZone, instanceId);
    const gone = await s.db
        .delete(edgeInstanceRules)
        .where(and(eq(edgeInstanceRules.instanceId, instanceId), eq(edgeInstanceRules.ruleId, ruleId)))
        .returning({ id: edgeInstanceRules.ruleId });
    if (!gone.length) throw notFound('该实例未使用此规则');
    return ok(c, null);
}

// ---- 设置 and 监控 ----

export async function saveSettings(s: Services, c: C) {
    const body = await readBody(c);
    const instanceId = positiveInt(body.instanceId ?? body.id, '缺少实例ID');
    const settings = await validate(edgeSettingsSchema, body);
    await requireInstance(s.db, s.config.timeZone, instanceId);
    await s.db.update(edgeInstances).set({ settings }).where(eq(edgeInstances.id, instanceId));
    return ok(c, settingsOf(settings));
}

export async function monitor(s: Services, c: C) {
    const instance = await instanceOf(s, c.req.query('instanceId'));
    return ok(c, await monitorFigures(s.db, instance.gatewayId, s.now(), s.config.timeZone));
}

export function edgeTabRoutes(s: Services) {
    return new Hono<AppEnv>()
        .route('/', edgePartRoutes(s))
        .get('/endpoints', (c) => listEndpoints(s, c))
        .get('/rules', (c) => listEdgeRules(s, c))
        .get('/ruleOptions', (c) => edgeRuleOptions(s, c))
        .post('/rule/add', (c) => addEdgeRule(s, c))
        .post('/rule/remove', (c) => removeEdgeRule(s, c))
        .post('/settings/save', (c) => saveSettings(s, c))
        .get('/monitor', (c) => monitor(s, c));
}
