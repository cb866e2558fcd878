import { and, asc, eq, sql, type SQL } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import { Hono, type Context } from 'hono';
import type { AnyObjectSchema } from 'yup';
import {
    ENV_MAX,
    ENV_NAME,
    ENV_NAME_TEXT,
    edgeFunctionSchema,
    edgeRouteSchema,
    edgeStreamSchema,
} from '../../schemas/edge';
import type { Db } from '../db/client';
import { devices, edgeFunctions, edgeRoutes, edgeStreams } from '../db/schema';
import type { AppEnv, Services } from '../deps';
import { countWhere, optionalId, pageOf, requireInstance, type InstanceRef } from '../domain/edgeRecords';
import { ok } from '../http/envelope';
import { badRequest, conflict, isUniqueViolation, notFound } from '../http/errors';
import { positiveInt, readBody, validate } from '../http/input';
import { formatTime } from '../http/time';

/**
 * The edge instance detail's 函数计算 / 流数据分析 / 消息路由 tabs: an instance's functions, stream jobs and message
 * routes, each listed (/instance/{path}s), saved (/instance/{path}/save) and deleted (/instance/{path}/delete) only
 * through its own instance. A function or job a route or job names keeps its name and stays while named.
 */

type C = Context<AppEnv>;

/** The environment variables of a function: a JSON object of names to text values. */
export function envOf(raw: unknown): Record<string, string> {
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

/** What a route or job may name besides devices. */
type Named = 'function' | 'stream';
const isNamed = (kind: string): kind is Named => kind === 'function' || kind === 'stream';
const namedTable = (kind: Named) => (kind === 'function' ? edgeFunctions : edgeStreams);

/** A function or stream job of this instance by name (a route's or job's target), or 400. */
export async function requireNamed(db: Db, instanceId: number, kind: string, name: string | undefined) {
    if (!isNamed(kind)) return null;
    const table = namedTable(kind);
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
export async function inUse(db: Db, instanceId: number, kind: Named, name: string) {
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
    if (route) return true;
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
    return !!job;
}

const IN_USE: Record<Named, string> = {
    function: '该函数正被消息路由或流数据分析任务使用',
    stream: '该任务正被消息路由或其他流数据分析任务使用',
};

/**
 * Refuses to rename (newName given) or delete a function or job that a route or job names; other parts and records
 * not found pass (the write then answers for them).
 */
async function refuseInUse(db: Db, kind: string, instanceId: number, id: number, newName?: unknown) {
    if (!isNamed(kind)) return;
    const table = namedTable(kind);
    const [row] = await db
        .select({ name: table.name })
        .from(table)
        .where(and(eq(table.id, id), eq(table.instanceId, instanceId)));
    if (!row || (newName !== undefined && row.name === newName)) return;
    if (await inUse(db, instanceId, kind, row.name))
        throw badRequest(`${IN_USE[kind]}，${newName === undefined ? '不能删除' : '不能改名'}`);
}

export interface Part {
    /** The path segment: /instance/{path}s lists, /instance/{path}/save, /instance/{path}/delete. */
    path: string;
    table: PgTable & { id: PgColumn; instanceId: PgColumn; createTime: PgColumn };
    schema: AnyObjectSchema;
    notFound: string;
    duplicate?: string;
    /** The stored values of a validated body (throws 400 for what only the instance can tell). */
    values: (
        db: Db,
        input: Record<string, unknown>,
        body: Record<string, unknown>,
        instance: InstanceRef,
    ) => Promise<object>;
    order: SQL | PgColumn;
}

/** A message route's source: the gateway or one of its sub-devices by name, all devices, or a function or job. */
async function routeSource(db: Db, input: Record<string, unknown>, instance: InstanceRef) {
    if (input.sourceType === 'allDevices') return null;
    if (input.sourceType !== 'device')
        return requireNamed(db, instance.id, String(input.sourceType), input.sourceName as string);
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
    return String(input.sourceName);
}

export const PARTS: Part[] = [
    {
        path: 'function',
        table: edgeFunctions,
        schema: edgeFunctionSchema,
        notFound: '函数不存在',
        duplicate: '该实例已有同名函数',
        order: asc(edgeFunctions.name),
        values: async (_db, input, body) => ({
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
        values: async (db, input, _body, instance) => ({
            name: input.name,
            sourceTopic: input.sourceTopic,
            windowType: input.windowType,
            windowSeconds: input.windowType === 'none' ? 0 : input.windowSeconds,
            statement: input.statement,
            targetType: input.targetType,
            targetName: await requireNamed(db, instance.id, String(input.targetType), input.targetName as string),
            description: input.description || null,
        }),
    },
    {
        path: 'route',
        table: edgeRoutes,
        schema: edgeRouteSchema,
        notFound: '消息路由不存在',
        order: asc(edgeRoutes.id),
        values: async (db, input, _body, instance) => {
            const sourceName = await routeSource(db, input, instance);
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
                targetName: await requireNamed(db, instance.id, String(input.targetType), input.targetName as string),
                qos: input.qos,
            };
        },
    },
];

/** A stored row as answered: env as JSON text, createTime formatted. */
export function partRow(r: Record<string, unknown>, tz: string) {
    const { createTime, env, ...rest } = r;
    return {
        ...rest,
        ...(env === undefined ? {} : { env: JSON.stringify(env ?? {}) }),
        createTime: formatTime(createTime as Date, tz),
    };
}

export async function listPart(s: Services, part: Part, c: C) {
    const instanceId = positiveInt(c.req.query('instanceId'), '缺少实例ID');
    const { size, offset } = pageOf(c);
    await requireInstance(s.db, s.config.timeZone, instanceId);
    const where = eq(part.table.instanceId, instanceId);
    const rows = await s.db.select().from(part.table).where(where).orderBy(part.order).limit(size).offset(offset);
    const total = await countWhere(s.db, part.table, where);
    return ok(c, { records: rows.map((r) => partRow(r as Record<string, unknown>, s.config.timeZone)), total });
}

export async function savePart(s: Services, part: Part, c: C) {
    const { db } = s;
    const { table } = part;
    const body = await readBody(c);
    const instanceId = positiveInt(body.instanceId, '缺少实例ID');
    const id = optionalId(body.id, 'ID必须是正整数');
    const input = (await validate(part.schema, body)) as Record<string, unknown>;
    const instance = await requireInstance(db, s.config.timeZone, instanceId);
    const values = await part.values(db, input, body, instance);
    if (id !== undefined) await refuseInUse(db, part.path, instanceId, id, input.name);
    try {
        const [row] =
            id === undefined
                ? await db
                      .insert(table)
                      .values({ ...values, instanceId } as never)
                      .returning()
                : await db
                      .update(table)
                      .set(values as never)
                      .where(and(eq(table.id, id), eq(table.instanceId, instanceId)))
                      .returning();
        if (!row) throw notFound(part.notFound);
        return ok(c, partRow(row as Record<string, unknown>, s.config.timeZone));
    } catch (err) {
        if (part.duplicate && isUniqueViolation(err)) throw conflict(part.duplicate);
        throw err;
    }
}

export async function deletePart(s: Services, part: Part, c: C) {
    const body = await readBody(c);
    const instanceId = positiveInt(body.instanceId, '缺少实例ID');
    const id = positiveInt(body.id, '缺少ID');
    await requireInstance(s.db, s.config.timeZone, instanceId);
    await refuseInUse(s.db, part.path, instanceId, id);
    const gone = await s.db
        .delete(part.table)
        .where(and(eq(part.table.id, id), eq(part.table.instanceId, instanceId)))
        .returning({ id: part.table.id });
    if (!gone.length) throw notFound(part.notFound);
    return ok(c, null);
}

export function edgePartRoutes(s: Services) {
    const app = new Hono<AppEnv>();
    for (const part of PARTS) {
        app.get(`/${part.path}s`, (c) => listPart(s, part, c));
        app.post(`/${part.path}/save`, (c) => savePart(s, part, c));
        app.post(`/${part.path}/delete`, (c) => deletePart(s, part, c));
    }
    return app;
}
