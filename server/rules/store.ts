import { and, count, desc, eq, ilike, type SQL } from 'drizzle-orm';
import dayjs from 'dayjs';
import type { Db } from '../db/client';
import { devices, products, projects, rules } from '../db/schema';
import '../http/time';
import { scopeByProjectId } from '../rights/scope';
import { forgetHolds } from './holdStore';
import type { RuleDefinition, StoredRule } from './types';

/** Rules in the database: what the routes write and the engine loads. */

const columns = {
    id: rules.id,
    name: rules.name,
    type: rules.type,
    projectId: rules.projectId,
    projectName: projects.name,
    productId: rules.productId,
    productKey: products.productKey,
    productName: products.productName,
    deviceId: rules.deviceId,
    deviceName: devices.deviceName,
    enabled: rules.enabled,
    description: rules.description,
    triggers: rules.triggers,
    match: rules.match,
    conditions: rules.conditions,
    durationSeconds: rules.durationSeconds,
    timeWindow: rules.timeWindow,
    actions: rules.actions,
    autoClear: rules.autoClear,
    createTime: rules.createTime,
    updateTime: rules.updateTime,
};

type Row = {
    [K in keyof typeof columns]: unknown;
};

function toRule(r: Row): StoredRule & { projectName: string | null; createTime: Date; updateTime: Date } {
    return {
        id: Number(r.id),
        name: r.name as string,
        type: Number(r.type) as 1 | 2,
        projectId: r.projectId === null ? null : Number(r.projectId),
        projectName: (r.projectName as string | null) ?? null,
        productId: Number(r.productId),
        productKey: r.productKey as string,
        productName: r.productName as string,
        deviceId: r.deviceId === null ? null : Number(r.deviceId),
        deviceName: (r.deviceName as string | null) ?? null,
        enabled: r.enabled as boolean,
        description: r.description as string | null,
        triggers: r.triggers as StoredRule['triggers'],
        match: r.match as 'all' | 'any',
        conditions: r.conditions as StoredRule['conditions'],
        durationSeconds: Number(r.durationSeconds),
        timeWindow: (r.timeWindow as StoredRule['timeWindow']) ?? null,
        actions: r.actions as StoredRule['actions'],
        autoClear: r.autoClear as boolean,
        createTime: r.createTime as Date,
        updateTime: r.updateTime as Date,
    };
}

const base = (db: Db) =>
    db
        .select(columns)
        .from(rules)
        .innerJoin(products, eq(products.id, rules.productId))
        .leftJoin(devices, eq(devices.id, rules.deviceId))
        .leftJoin(projects, eq(projects.id, rules.projectId));

export async function enabledRules(db: Db): Promise<StoredRule[]> {
    return (await base(db).where(eq(rules.enabled, true))).map(toRule);
}

export async function ruleById(db: Db, id: number, type?: 1 | 2) {
    const [row] = await base(db).where(type ? and(eq(rules.id, id), eq(rules.type, type)) : eq(rules.id, id));
    return row ? toRule(row) : undefined;
}

export interface RuleFilter {
    type?: 1 | 2;
    name?: string;
    projectId?: number;
    productKey?: string;
}

export async function listRules(db: Db, filter: RuleFilter, limit: number, offset: number) {
    const parts: SQL[] = [];
    if (filter.type) parts.push(eq(rules.type, filter.type));
    if (filter.name) parts.push(ilike(rules.name, `%${filter.name.replace(/[\\%_]/g, (m) => `\\${m}`)}%`));
    if (filter.projectId) parts.push(eq(rules.projectId, filter.projectId));
    if (filter.productKey) parts.push(eq(products.productKey, filter.productKey));
    // A scoped user sees the rules of their projects (docs/roles.md "Project scoping").
    const scoped = scopeByProjectId(rules.projectId);
    if (scoped) parts.push(scoped);
    const where = parts.length ? and(...parts) : undefined;
    const [rows, [{ n }]] = await Promise.all([
        base(db).where(where).orderBy(desc(rules.id)).limit(limit).offset(offset),
        db.select({ n: count() }).from(rules).innerJoin(products, eq(products.id, rules.productId)).where(where),
    ]);
    return { rows: rows.map(toRule), total: Number(n) };
}

export async function insertRule(db: Db, def: RuleDefinition): Promise<number> {
    const [row] = await db.insert(rules).values(def).returning({ id: rules.id });
    return row.id;
}

export async function updateRule(db: Db, id: number, def: RuleDefinition): Promise<boolean> {
    const rows = await db
        .update(rules)
        .set({ ...def, updateTime: new Date() })
        .where(and(eq(rules.id, id), eq(rules.type, def.type)))
        .returning({ id: rules.id });
    if (rows.length) await forgetHolds(db, id);
    return rows.length > 0;
}

export async function setEnabled(db: Db, id: number, enabled: boolean, type?: 1 | 2): Promise<boolean> {
    const rows = await db
        .update(rules)
        .set({ enabled, updateTime: new Date() })
        .where(type ? and(eq(rules.id, id), eq(rules.type, type)) : eq(rules.id, id))
        .returning({ id: rules.id });
    if (rows.length) await forgetHolds(db, id);
    return rows.length > 0;
}

export async function deleteRule(db: Db, id: number, type?: 1 | 2): Promise<boolean> {
    const rows = await db
        .delete(rules)
        .where(type ? and(eq(rules.id, id), eq(rules.type, type)) : eq(rules.id, id))
        .returning({ id: rules.id });
    return rows.length > 0;
}

/** Removes one trigger, condition or action row by its id; false when the rule or the row is not there. */
export async function deleteRow(db: Db, id: number, kind: 'triggers' | 'conditions' | 'actions', rowId: string) {
    const [rule] = await db.select({ rows: rules[kind] }).from(rules).where(eq(rules.id, id));
    if (!rule) return { found: false as const };
    const rows = rule.rows as Array<{ id: string }>;
    const kept = rows.filter((r) => r.id !== rowId);
    if (kept.length === rows.length) return { found: false as const };
    return {
        found: true as const,
        kept: kept.length,
        apply: async () => {
            await db
                .update(rules)
                .set({ [kind]: kept, updateTime: new Date() })
                .where(eq(rules.id, id));
            await forgetHolds(db, id);
        },
    };
}

/** The answer shape of a rule: its rows, names for the lists and times as text. */
export function ruleAnswer(r: Awaited<ReturnType<typeof ruleById>> & object, timeZone: string) {
    const { createTime, updateTime, ...rest } = r;
    return {
        ...rest,
        status: r.enabled ? 1 : 0,
        createTime: dayjs(createTime).tz(timeZone).format('YYYY-MM-DD HH:mm:ss'),
        updateTime: dayjs(updateTime).tz(timeZone).format('YYYY-MM-DD HH:mm:ss'),
    };
}
