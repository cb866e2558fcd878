import { and, asc, desc, eq, isNull, notInArray, sql, type SQL } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import { Hono } from 'hono';
import type { AnyObjectSchema } from 'yup';
import {
    EDGE_SETTINGS_DEFAULTS,
    ENV_MAX,
    ENV_NAME,
    ENV_NAME_TEXT,
    edgeFunctionSchema,
    edgeRouteSchema,
    edgeSettingsSchema,
    edgeStreamSchema,
} from '../../schemas/edge';
import {
    devices,
    edgeFunctions,
    edgeInstanceRules,
    edgeInstances,
    edgeRoutes,
    edgeStreams,
    products,
    rules,
} from '../db/schema';
import type { AppEnv, Services } from '../deps';
import { monitorFigures } from '../domain/edgeMonitor';
import { ok } from '../http/envelope';
import { badRequest, conflict, isUniqueViolation, notFound } from '../http/errors';
import { paging, positiveInt, readBody, validate } from '../http/input';
import { formatTime } from '../http/time';

/** What the instance routes know of an instance: its gateway and the gateway's project. */
export interface InstanceRef {
    id: number;
    gatewayId: number;
}

/** The environment variables of a function: a JSON object of names to text values. */
function envOf(raw: unknown): Record<string, string> {
    if (raw === undefined || raw === null || raw === '') return {};
    let value: unknown = raw;
    if (typeof raw === 'string') {
        try {
            value = JSON.parse(raw);
        } catch {
            throw badRequest('环境变量必须是JSON对象');
        }
    }
    if (!value || typeof value !== 'object' || Array.isArray(value)) throw badRequest('环境变量必须是JSON对象');
    const entries = Object.entries(value as Record<string, unknown>);
    if (entries.length > ENV_MAX) throw badRequest(`环境变量最多${ENV_MAX}个`);
    for (const [k, v] of entries) {
        if (!ENV_NAME.test(k)) throw badRequest(ENV_NAME_TEXT);
        if (v !== null && typeof v === 'object') throw badRequest('环境变量的值必须是文本');
        if (String(v ?? '').length > 1000) throw badRequest('变量值不得超过1000个字符');
    }
    return Object.fromEntries(entries.map(([k, v]) => [k, String(v ?? '')]));
}

/** The instance's settings with the defaults for what it has not saved. */
export const settingsOf = (stored: unknown) => ({
    ...EDGE_SETTINGS_DEFAULTS,
    ...((stored && typeof stored === 'object' ? stored : {}) as Partial<typeof EDGE_SETTINGS_DEFAULTS>),
});

interface Part {
    /** The path segment: /instance/{path}s lists, /instance/{path}/save, /instance/{path}/delete. */
    path: string;
    table: PgTable & { id: PgColumn; instanceId: PgColumn; createTime: PgColumn };
    schema: AnyObjectSchema;
    notFound: string;
    duplicate?: string;
    /** The stored values of a validated body (throws 400 for what only the instance can tell). */
    values: (input: Record<string, unknown>, body: Record<string, unknown>, instance: InstanceRef) => Promise<object>;
    order: SQL | PgColumn;
}

/**
 * The edge instance detail's 场景联动 / 函数计算 / 流数据分析 / 消息路由 / 设置 / 监控 tabs under /api/edge/instance. Every
 * call names its instance (instanceId, which the rights check scopes to the gateway's project); a function, job or
 * route is changed only through its own instance.
 */
export function edgeTabRoutes(services: Services, requireInstance: (id: number) => Promise<InstanceRef>) {
    const { db, config } = services;
    const tz = config.timeZone;
    const app = new Hono<AppEnv>();

    /** A function or stream job of this instance by name (a route's or job's target), or 400. */
    async function requireNamed(instanceId: number, kind: string, name: string | undefined) {
        if (kind !== 'function' && kind !== 'stream') return null;
        const table = kind === 'function' ? edgeFunctions : edgeStreams;
        const [row] = await db
            .select({ id: table.id })
            .from(table)
            .where(and(eq(table.instanceId, instanceId), eq(table.name, name ?? '')));
        if (!row)
            throw badRequest(
                kind === 'function' ? `该实例没有名为“${name}”的函数` : `该实例没有名为“${name}”的流数据分析任务`,
            );
        return name ?? null;
    }

    /** Whether a route or job of the instance names this function or job (then it stays, under its name). */
    async function inUse(instanceId: number, kind: string, name: string) {
        if (kind !== 'function' && kind !== 'stream') return false;
        const [route] = await db
            .select({ id: edgeRoutes.id })
            .from(edgeRoutes)
            .where(
                and(
                    eq(edgeRoutes.instanceId, instanceId),
                    sql`((${edgeRoutes.sourceType} = ${kind} AND ${edgeRoutes.sourceName} = ${name}) OR (${edgeRoutes.targetType} = ${kind} AND ${edgeRoutes.targetName} = ${name}))`,
                ),
            )
            .limit(1);
        const [job] = await db
            .select({ id: edgeStreams.id })
            .from(edgeStreams)
            .where(
                and(
                    eq(edgeStreams.instanceId, instanceId),
                    eq(edgeStreams.targetType, kind),
                    eq(edgeStreams.targetName, name),
                ),
            )
            .limit(1);
        return !!route || !!job;
    }
    const IN_USE: Record<string, string> = {
        function: '该函数正被消息路由或流数据分析任务使用',
        stream: '该任务正被消息路由或其他流数据分析任务使用',
    };
    const tableOf = (kind: string) => (kind === 'function' ? edgeFunctions : edgeStreams);

    const parts: Part[] = [
        {
            path: 'function',
            table: edgeFunctions,
            schema: edgeFunctionSchema,
            notFound: '函数不存在',
            duplicate: '该实例已有同名函数',
            order: asc(edgeFunctions.name),
            values: async (input, body) => ({
                name: input.name,
                runtime: input.runtime,
                handler: input.handler,
                code: input.code ?? '',
                memoryMb: input.memoryMb,
                timeoutSeconds: input.timeoutSeconds,
                mode: input.mode,
                env: envOf(body.env),
                description: input.description || null,
            }),
        },
        {
            path: 'stream',
            table: edgeStreams,
            schema: edgeStreamSchema,
            notFound: '流数据分析任务不存在',
            duplicate: '该实例已有同名任务',
            order: asc(edgeStreams.name),
            values: async (input, _body, instance) => ({
                name: input.name,
                sourceTopic: input.sourceTopic,
                windowType: input.windowType,
                windowSeconds: input.windowType === 'none' ? 0 : input.windowSeconds,
                statement: input.statement,
                targetType: input.targetType,
                targetName: await requireNamed(instance.id, String(input.targetType), input.targetName as string),
                description: input.description || null,
            }),
        },
        {
            path: 'route',
            table: edgeRoutes,
            schema: edgeRouteSchema,
            notFound: '消息路由不存在',
            order: asc(edgeRoutes.id),
            values: async (input, _body, instance) => {
                let sourceName: string | null = null;
                if (input.sourceType === 'device') {
                    // The gateway itself or one of its sub-devices.
                    const [device] = await db
                        .select({ id: devices.id })
                        .from(devices)
                        .where(
                            and(
                                eq(devices.deviceName, String(input.sourceName)),
                                sql`(${devices.id} = ${instance.gatewayId} OR ${devices.gwId} = ${instance.gatewayId})`,
                            ),
                        );
                    if (!device) throw badRequest('来源设备必须是该网关或其子设备');
                    sourceName = String(input.sourceName);
                } else if (input.sourceType !== 'allDevices') {
                    sourceName = await requireNamed(instance.id, String(input.sourceType), input.sourceName as string);
                }
                if (
                    input.sourceType === input.targetType &&
                    input.sourceType !== 'device' &&
                    sourceName === input.targetName
                )
                    throw badRequest('消息来源与目标不能相同');
                return {
                    sourceType: input.sourceType,
                    sourceName,
                    topicFilter: input.topicFilter,
                    targetType: input.targetType,
                    targetName: await requireNamed(instance.id, String(input.targetType), input.targetName as string),
                    qos: input.qos,
                };
            },
        },
    ];

    for (const part of parts) {
        const { table } = part;
        const shape = (r: Record<string, unknown>) => {
            const { createTime, env, ...rest } = r;
            return {
                ...rest,
                ...(env === undefined ? {} : { env: JSON.stringify(env ?? {}) }),
                createTime: formatTime(createTime as Date, tz),
            };
        };

        app.get(`/${part.path}s`, async (c) => {
            const instanceId = positiveInt(c.req.query('instanceId'), '缺少实例ID');
            const { size, offset } = paging(c.req.query('pageNumber'), c.req.query('pageSize'));
            await requireInstance(instanceId);
            const where = eq(table.instanceId, instanceId);
            const rows = await db.select().from(table).where(where).orderBy(part.order).limit(size).offset(offset);
            const [{ n }] = await db
                .select({ n: sql<number>`count(*)::int` })
                .from(table)
                .where(where);
            return ok(c, { records: rows.map((r) => shape(r as Record<string, unknown>)), total: Number(n) });
        });

        app.post(`/${part.path}/save`, async (c) => {
            const body = await readBody(c);
            const instanceId = positiveInt(body.instanceId, '缺少实例ID');
            const id = body.id === undefined || body.id === '' ? undefined : positiveInt(body.id, 'ID必须是正整数');
            const input = (await validate(part.schema, body)) as Record<string, unknown>;
            const instance = await requireInstance(instanceId);
            const values = await part.values(input, body, instance);
            if (id !== undefined && IN_USE[part.path]) {
                const table = tableOf(part.path);
                const [before] = await db
                    .select({ name: table.name })
                    .from(table)
                    .where(and(eq(table.id, id), eq(table.instanceId, instanceId)));
                if (before && before.name !== input.name && (await inUse(instanceId, part.path, before.name)))
                    throw badRequest(`${IN_USE[part.path]}，不能改名`);
            }
            try {
                if (id === undefined) {
                    const [row] = await db
                        .insert(table)
                        .values({ ...values, instanceId } as never)
                        .returning();
                    return ok(c, shape(row as Record<string, unknown>));
                }
                const [row] = await db
                    .update(table)
                    .set(values as never)
                    .where(and(eq(table.id, id), eq(table.instanceId, instanceId)))
                    .returning();
                if (!row) throw notFound(part.notFound);
                return ok(c, shape(row as Record<string, unknown>));
            } catch (err) {
                if (part.duplicate && isUniqueViolation(err)) throw conflict(part.duplicate);
                throw err;
            }
        });

        app.post(`/${part.path}/delete`, async (c) => {
            const body = await readBody(c);
            const instanceId = positiveInt(body.instanceId, '缺少实例ID');
            const id = positiveInt(body.id, '缺少ID');
            await requireInstance(instanceId);
            if (IN_USE[part.path]) {
                const named = tableOf(part.path);
                const [row] = await db
                    .select({ name: named.name })
                    .from(named)
                    .where(and(eq(named.id, id), eq(named.instanceId, instanceId)));
                if (row && (await inUse(instanceId, part.path, row.name)))
                    throw badRequest(`${IN_USE[part.path]}，不能删除`);
            }
            const gone = await db
                .delete(table)
                .where(and(eq(table.id, id), eq(table.instanceId, instanceId)))
                .returning({ id: table.id });
            if (!gone.length) throw notFound(part.notFound);
            return ok(c, null);
        });
    }

    /** What a route or job may name: the gateway and its sub-devices, or the instance's functions or jobs. */
    app.get('/endpoints', async (c) => {
        const instanceId = positiveInt(c.req.query('instanceId'), '缺少实例ID');
        const kind = c.req.query('kind') ?? '';
        const instance = await requireInstance(instanceId);
        if (kind === 'device') {
            const rows = await db
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
        const rows = await db
            .select({ name: table.name })
            .from(table)
            .where(eq(table.instanceId, instanceId))
            .orderBy(asc(table.name));
        return ok(
            c,
            rows.map((r) => ({ name: r.name, label: r.name })),
        );
    });

    // ---- 场景联动: the platform's scene linkage rules (type 1) of the gateway's project, run at the edge ----
    const gatewayProject = async (instance: InstanceRef) => {
        const [row] = await db
            .select({ projectId: devices.projectId })
            .from(devices)
            .where(eq(devices.id, instance.gatewayId));
        return row?.projectId ?? null;
    };
    const sameProject = (projectId: number | null) =>
        projectId === null ? isNull(rules.projectId) : eq(rules.projectId, projectId);
    const ruleColumns = {
        ruleId: rules.id,
        name: rules.name,
        enabled: rules.enabled,
        productName: products.productName,
        description: rules.description,
    };

    app.get('/rules', async (c) => {
        const instanceId = positiveInt(c.req.query('instanceId'), '缺少实例ID');
        await requireInstance(instanceId);
        const rows = await db
            .select(ruleColumns)
            .from(edgeInstanceRules)
            .innerJoin(rules, eq(rules.id, edgeInstanceRules.ruleId))
            .innerJoin(products, eq(products.id, rules.productId))
            .where(eq(edgeInstanceRules.instanceId, instanceId))
            .orderBy(asc(rules.name));
        return ok(c, { records: rows, total: rows.length });
    });

    app.get('/ruleOptions', async (c) => {
        const instanceId = positiveInt(c.req.query('instanceId'), '缺少实例ID');
        const instance = await requireInstance(instanceId);
        const taken = db
            .select({ id: edgeInstanceRules.ruleId })
            .from(edgeInstanceRules)
            .where(eq(edgeInstanceRules.instanceId, instanceId));
        const rows = await db
            .select({ id: rules.id, name: rules.name })
            .from(rules)
            .where(and(eq(rules.type, 1), sameProject(await gatewayProject(instance)), notInArray(rules.id, taken)))
            .orderBy(desc(rules.id))
            .limit(500);
        return ok(
            c,
            rows.map((r) => ({ id: r.id, label: r.name })),
        );
    });

    app.post('/rule/add', async (c) => {
        const body = await readBody(c);
        const instanceId = positiveInt(body.instanceId, '缺少实例ID');
        const ruleId = positiveInt(body.ruleId, '请选择场景联动规则');
        const instance = await requireInstance(instanceId);
        const [rule] = await db
            .select({ type: rules.type, projectId: rules.projectId })
            .from(rules)
            .where(eq(rules.id, ruleId));
        if (!rule) throw notFound('规则不存在');
        if (rule.type !== 1) throw badRequest('只能添加场景联动规则');
        if (rule.projectId !== (await gatewayProject(instance))) throw badRequest('只能添加网关所属项目的场景联动规则');
        await db.insert(edgeInstanceRules).values({ instanceId, ruleId }).onConflictDoNothing();
        return ok(c, null);
    });

    app.post('/rule/remove', async (c) => {
        const body = await readBody(c);
        const instanceId = positiveInt(body.instanceId, '缺少实例ID');
        const ruleId = positiveInt(body.ruleId, '缺少规则ID');
        await requireInstance(instanceId);
        const gone = await db
            .delete(edgeInstanceRules)
            .where(and(eq(edgeInstanceRules.instanceId, instanceId), eq(edgeInstanceRules.ruleId, ruleId)))
            .returning({ id: edgeInstanceRules.ruleId });
        if (!gone.length) throw notFound('该实例未使用此规则');
        return ok(c, null);
    });

    // ---- 设置 ----
    app.post('/settings/save', async (c) => {
        const body = await readBody(c);
        const instanceId = positiveInt(body.instanceId ?? body.id, '缺少实例ID');
        const settings = await validate(edgeSettingsSchema, body);
        await requireInstance(instanceId);
        await db.update(edgeInstances).set({ settings }).where(eq(edgeInstances.id, instanceId));
        return ok(c, settingsOf(settings));
    });

    // ---- 监控 ----
    app.get('/monitor', async (c) => {
        const instanceId = positiveInt(c.req.query('instanceId'), '缺少实例ID');
        const instance = await requireInstance(instanceId);
        return ok(c, await monitorFigures(db, instance.gatewayId, services.now(), tz));
    });

    return app;
}
