import { and, count, desc, eq, ilike, inArray, type SQL } from 'drizzle-orm';
import * as yup from 'yup';
import type { Db } from '../db/client';
import { forwardDestinations, forwardFlows, forwardRoutes, projects } from '../db/schema';
import { badRequest, isUniqueViolation, notFound } from '../http/errors';
import { validate } from '../http/input';
import { formatTime } from '../http/time';
import { inScope, scopeByProjectId } from '../rights/scope';
import { DESTINATION_KINDS } from './destinations';
import type { DestinationKind } from './destinations/types';
import type { SecretBox } from './secrets';

/**
 * 数据目的地 (docs/forwarding.md): saved with their kind's checks, secrets sealed (secrets.ts) and answered as
 * MASK; a secret sent back as MASK or empty keeps the stored one. A destination flows use cannot be deleted.
 */

export const MASK = '******';

const saveSchema = yup.object({
    id: yup.number().integer().positive('目的地ID不正确').optional(),
    projectId: yup.number().typeError('请选择项目').integer().positive('请选择项目').required('请选择项目'),
    name: yup.string().trim().required('请填写目的地名称').max(64, '目的地名称不得超过64个字符'),
    kind: yup.string().trim().required('请选择目的地类型'),
    // mixed, not object(): the route's validate strips unknown keys, and an object() without a shape knows none.
    config: yup
        .mixed<Record<string, unknown>>()
        .required('请填写目的地配置')
        .test('object', '目的地配置应为对象', (v) => typeof v === 'object' && v !== null && !Array.isArray(v)),
    remark: yup.string().trim().max(200, '备注不得超过200个字符').optional(),
});

export type DestinationRow = typeof forwardDestinations.$inferSelect;

export function kindOf(kind: string): DestinationKind {
    const k = DESTINATION_KINDS.get(kind);
    if (!k) throw badRequest(`不支持的目的地类型：${kind}`);
    return k;
}

/** Checks the configuration with its kind's schema; secrets sent as MASK or '' take the stored ones. */
export async function checkedConfig(
    kind: DestinationKind,
    config: Record<string, unknown>,
    stored?: Record<string, unknown>,
) {
    const merged: Record<string, unknown> = { ...config };
    for (const f of kind.secretFields)
        if (merged[f] === MASK || merged[f] === '' || merged[f] === undefined) merged[f] = stored?.[f];
    try {
        return (await kind.schema.validate(merged, { abortEarly: true })) as Record<string, unknown>;
    } catch (err) {
        if (err instanceof yup.ValidationError) throw badRequest(err.errors[0] ?? err.message);
        throw err;
    }
}

/** Splits a checked configuration into what is stored plainly and the sealed secrets. */
function split(kind: DestinationKind, config: Record<string, unknown>, box: SecretBox) {
    const plain: Record<string, unknown> = {};
    const secrets: Record<string, string> = {};
    for (const [k, v] of Object.entries(config)) {
        if ((kind.secretFields as readonly string[]).includes(k)) {
            if (v !== undefined && v !== null && v !== '') secrets[k] = typeof v === 'string' ? v : JSON.stringify(v);
        } else plain[k] = v;
    }
    return { plain, sealed: Object.keys(secrets).length ? box.seal(secrets) : null };
}

export async function destinationOf(db: Db, id: number): Promise<DestinationRow> {
    const [row] = await db.select().from(forwardDestinations).where(eq(forwardDestinations.id, id));
    if (!row || !inScope(row.projectId)) throw notFound('目的地不存在');
    return row;
}

export async function saveDestination(db: Db, box: SecretBox, input: unknown): Promise<number> {
    const body = await validate(saveSchema, input);
    if (!inScope(body.projectId)) throw notFound('项目不存在');
    const existing = body.id ? await destinationOf(db, body.id) : undefined;
    if (existing && existing.kind !== body.kind) throw badRequest('目的地类型不能修改：请新建一个目的地');
    const kind = kindOf(body.kind);
    const stored = existing?.secrets ? parseSecrets(box.open(existing.secrets), kind) : undefined;
    const config = await checkedConfig(kind, body.config as Record<string, unknown>, stored);
    const { plain, sealed } = split(kind, config, box);
    const values = {
        projectId: body.projectId,
        name: body.name,
        kind: body.kind,
        config: plain,
        secrets: sealed,
        remark: body.remark ?? null,
    };
    try {
        if (existing) {
            await db
                .update(forwardDestinations)
                .set({ ...values, updateTime: new Date() })
                .where(eq(forwardDestinations.id, existing.id));
            return existing.id;
        }
        const [row] = await db.insert(forwardDestinations).values(values).returning({ id: forwardDestinations.id });
        return row.id;
    } catch (err) {
        if (isUniqueViolation(err)) throw badRequest('该项目下已有同名目的地');
        throw err;
    }
}

/** Sealed secrets are strings; a secret field holding an object (Kafka's sasl) was sealed as JSON. */
function parseSecrets(secrets: Record<string, string>, kind: DestinationKind): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const f of kind.secretFields) {
        const v = secrets[f];
        if (v === undefined) continue;
        out[f] = v.startsWith('{') ? safeJson(v) : v;
    }
    return out;
}

function safeJson(text: string): unknown {
    try {
        return JSON.parse(text);
    } catch {
        return text;
    }
}

/** The configuration with each secret opened, as the sender takes it. */
export function senderConfig(row: DestinationRow, box: SecretBox): Record<string, unknown> {
    const kind = kindOf(row.kind);
    return {
        ...(row.config as Record<string, unknown>),
        ...(row.secrets ? parseSecrets(box.open(row.secrets), kind) : {}),
    };
}

export async function deleteDestination(db: Db, id: number): Promise<void> {
    await destinationOf(db, id);
    const users = await db
        .select({ name: forwardFlows.name })
        .from(forwardRoutes)
        .innerJoin(forwardFlows, eq(forwardFlows.id, forwardRoutes.flowId))
        .where(eq(forwardRoutes.destinationId, id));
    if (users.length)
        throw badRequest(`目的地正被流转规则使用：${users.map((u) => u.name).join('、')}，请先从这些规则中移除`);
    await db.delete(forwardDestinations).where(eq(forwardDestinations.id, id));
}

export interface DestinationQuery {
    projectId?: number;
    kind?: string;
    name?: string;
    size: number;
    offset: number;
}

export async function listDestinations(db: Db, q: DestinationQuery, timeZone: string) {
    const parts: SQL[] = [];
    const scope = scopeByProjectId(forwardDestinations.projectId);
    if (scope) parts.push(scope);
    if (q.projectId) parts.push(eq(forwardDestinations.projectId, q.projectId));
    if (q.kind) parts.push(eq(forwardDestinations.kind, q.kind));
    if (q.name) parts.push(ilike(forwardDestinations.name, `%${q.name.replace(/[\\%_]/g, '\\$&')}%`));
    const where = parts.length ? and(...parts) : undefined;
    const [rows, [{ n }]] = await Promise.all([
        db
            .select()
            .from(forwardDestinations)
            .where(where)
            .orderBy(desc(forwardDestinations.id))
            .limit(q.size)
            .offset(q.offset),
        db.select({ n: count() }).from(forwardDestinations).where(where),
    ]);
    return { records: await destinationViews(db, rows, timeZone), total: Number(n) };
}

/** Destinations as the API answers them: secrets masked, project name and the number of flows using each. */
export async function destinationViews(db: Db, rows: DestinationRow[], timeZone: string) {
    if (!rows.length) return [];
    const ids = rows.map((r) => r.id);
    const [names, uses] = await Promise.all([
        db
            .select({ id: projects.id, name: projects.name })
            .from(projects)
            .where(inArray(projects.id, [...new Set(rows.map((r) => r.projectId))])),
        db
            .select({ id: forwardRoutes.destinationId, n: count() })
            .from(forwardRoutes)
            .where(inArray(forwardRoutes.destinationId, ids))
            .groupBy(forwardRoutes.destinationId),
    ]);
    const projectName = new Map(names.map((p) => [p.id, p.name]));
    const flowCount = new Map(uses.map((u) => [u.id, Number(u.n)]));
    return rows.map((r) => view(r, projectName.get(r.projectId) ?? '', flowCount.get(r.id) ?? 0, timeZone));
}

function view(r: DestinationRow, projectName: string, flowCount: number, timeZone: string) {
    const kind = DESTINATION_KINDS.get(r.kind);
    const config: Record<string, unknown> = { ...(r.config as Record<string, unknown>) };
    if (r.secrets) for (const f of kind?.secretFields ?? []) config[f] = MASK;
    return {
        id: r.id,
        projectId: r.projectId,
        projectName,
        name: r.name,
        kind: r.kind,
        kindLabel: kind?.label ?? r.kind,
        config,
        remark: r.remark,
        flowCount,
        createTime: formatTime(r.createTime, timeZone),
        updateTime: formatTime(r.updateTime, timeZone),
    };
}

export const destinationKindsView = () =>
    [...DESTINATION_KINDS.values()].map((k) => ({ kind: k.kind, label: k.label, secretFields: [...k.secretFields] }));
