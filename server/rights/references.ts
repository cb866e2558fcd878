import { inArray, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { ApiError } from '../http/errors';
import {
    alertEvents,
    consumerGroups,
    deviceGroups,
    devices,
    edgeInstances,
    products,
    rules,
    simulations,
    subscriptions,
} from '../db/schema';
import { productScopeSql } from '../domain/products';
import { currentScope, inScope } from './scope';

/**
 * A scoped user (not an administrator) may name only records of their projects. The lists filter themselves
 * (scope.ts); this is the same rule for a call that names records, once here for every path: in its query and, for a
 * write, in its body (form or JSON, nested objects, arrays and comma-joined lists included). A record outside the
 * user's projects is answered 404 with the words of a record that does not exist. A value that is malformed or names
 * nothing is left to the route (its own 400 or 404).
 *
 * What a field names comes from its name (`NAMES`, on every path, at any depth of the body), or, for a name that
 * means different things on different paths (`id`, `ids`, `pid`), from the operation's `x-references` in
 * openapi.yaml (`x-references: { id: group }`, top-level fields only).
 */
export const REFERENCE_KINDS = [
    'project',
    'projectCode',
    'device',
    'product',
    'productKey',
    'group',
    'alert',
    'rule',
    'subscription',
    'consumerGroup',
    'simulation',
    'edgeInstance',
] as const;
export type ReferenceKind = (typeof REFERENCE_KINDS)[number];

export const NAMES: Record<string, ReferenceKind> = {
    projectId: 'project',
    projectCode: 'projectCode',
    deviceId: 'device',
    devicesId: 'device',
    deviceIds: 'device',
    deviceList: 'device',
    gwId: 'device',
    productId: 'product',
    productKey: 'productKey',
    groupId: 'group',
    ruleId: 'rule',
    instanceId: 'edgeInstance',
};

/** What the answer says: the same as for a record that does not exist, so a scope does not tell what is outside it. */
const NOT_FOUND: Record<ReferenceKind, string> = {
    project: '项目不存在',
    projectCode: '项目不存在',
    device: '设备不存在',
    product: '产品不存在',
    productKey: '产品不存在',
    group: '分组不存在',
    alert: '告警不存在',
    rule: '规则不存在',
    subscription: '订阅不存在',
    consumerGroup: '消费者组不存在',
    simulation: '模拟不存在',
    edgeInstance: '边缘实例不存在',
};

type Named = Map<ReferenceKind, Set<string>>;

const ids = (values: Set<string>) => [...values].filter((v) => /^\d{1,15}$/.test(v)).map(Number);

/** Whether every named record of the kind that exists lies within the current scope. */
async function allVisible(db: Db, kind: ReferenceKind, values: Set<string>): Promise<boolean> {
    const scope = currentScope()!;
    switch (kind) {
        case 'project':
            return ids(values).every((n) => inScope(n));
        case 'projectCode':
            return [...values].every((v) => !v || scope.projectCodes.includes(v));
        case 'device': {
            const list = ids(values);
            if (!list.length) return true;
            const rows = await db
                .select({ projectId: devices.projectId })
                .from(devices)
                .where(inArray(devices.id, list));
            return rows.every((r) => inScope(r.projectId));
        }
        case 'product':
        case 'productKey': {
            const list = kind === 'product' ? ids(values) : [...values].filter(Boolean);
            if (!list.length) return true;
            const rows = await db
                .select({ visible: sql<boolean>`coalesce(${productScopeSql() ?? sql`true`}, false)` })
                .from(products)
                .where(
                    kind === 'product'
                        ? inArray(products.id, list as number[])
                        : inArray(products.productKey, list as string[]),
                );
            return rows.every((r) => r.visible);
        }
        case 'group': {
            const list = ids(values);
            if (!list.length) return true;
            const rows = await db
                .select({ projectCode: deviceGroups.projectCode })
                .from(deviceGroups)
                .where(inArray(deviceGroups.id, list));
            return rows.every((r) => scope.projectCodes.includes(r.projectCode));
        }
        case 'rule': {
            // Scene linkage and alert rules alike (one table); a rule without a project is an administrator's.
            const list = ids(values);
            if (!list.length) return true;
            const rows = await db.select({ projectId: rules.projectId }).from(rules).where(inArray(rules.id, list));
            return rows.every((r) => inScope(r.projectId));
        }
        case 'subscription':
        case 'consumerGroup': {
            const list = ids(values);
            if (!list.length) return true;
            const table = kind === 'subscription' ? subscriptions : consumerGroups;
            const rows = await db.select({ projectCode: table.projectCode }).from(table).where(inArray(table.id, list));
            return rows.every((r) => scope.projectCodes.includes(r.projectCode));
        }
        case 'simulation': {
            // A simulation belongs to its product: visible with the product.
            const list = ids(values);
            if (!list.length) return true;
            const rows = await db
                .select({ visible: sql<boolean>`coalesce(${productScopeSql() ?? sql`true`}, false)` })
                .from(simulations)
                .innerJoin(products, sql`${products.id} = ${simulations.productId}`)
                .where(inArray(simulations.id, list));
            return rows.every((r) => r.visible);
        }
        case 'edgeInstance': {
            // An edge instance belongs to its gateway device's project, and so do its functions, jobs and routes.
            const list = ids(values);
            if (!list.length) return true;
            const rows = await db
                .select({ projectId: devices.projectId })
                .from(edgeInstances)
                .innerJoin(devices, sql`${devices.id} = ${edgeInstances.gatewayId}`)
                .where(inArray(edgeInstances.id, list));
            return rows.every((r) => inScope(r.projectId));
        }
        case 'alert': {
            const list = ids(values);
            if (!list.length) return true;
            const rows = await db
                .select({ projectId: alertEvents.projectId })
                .from(alertEvents)
                .where(inArray(alertEvents.id, list));
            return rows.every((r) => inScope(r.projectId));
        }
    }
}

/** A field's own name: `deviceId[]` → deviceId, `devices[0][deviceId]` and `devices.0.deviceId` → deviceId. */
function fieldName(key: string): string {
    const parts = key.split(/[[\].]+/).filter((p) => p !== '' && !/^\d+$/.test(p));
    return parts[parts.length - 1] ?? key;
}

const MAX_DEPTH = 8;

/** Collects the values of named fields: scalars, arrays, comma-joined lists and JSON text (a form's `list`). */
function collect(named: Named, value: unknown, kind: ReferenceKind | undefined, depth: number): void {
    if (depth > MAX_DEPTH || value === null || value === undefined) return;
    if (typeof value === 'string') {
        const text = value.trim();
        if (text.startsWith('[') || text.startsWith('{')) {
            try {
                collect(named, JSON.parse(text), kind, depth + 1);
                return;
            } catch {
                // Not JSON: taken as a value.
            }
        }
        if (!kind) return;
        const set = named.get(kind) ?? new Set<string>();
        for (const part of text.split(',')) set.add(part.trim());
        named.set(kind, set);
    } else if (typeof value === 'number') {
        if (kind) collect(named, String(value), kind, depth);
    } else if (Array.isArray(value)) {
        for (const item of value) collect(named, item, kind, depth + 1);
    } else if (typeof value === 'object' && !(value instanceof Blob)) {
        for (const [key, inner] of Object.entries(value)) collect(named, inner, NAMES[fieldName(key)], depth + 1);
    }
}

type OwnNames = Record<string, ReferenceKind> | undefined;

/** The named records of a set of top-level fields (a query, a form or a JSON object). */
function namedIn(fields: Iterable<[string, unknown]>, own: OwnNames): Named {
    const named: Named = new Map();
    for (const [key, value] of fields) {
        const name = fieldName(key);
        collect(named, value, own?.[name] ?? NAMES[name], 0);
    }
    return named;
}

async function firstOutside(db: Db, named: Named): Promise<string | undefined> {
    for (const kind of REFERENCE_KINDS) {
        const values = named.get(kind);
        if (values?.size && !(await allVisible(db, kind, values))) return NOT_FOUND[kind];
    }
    return undefined;
}

/** The not-found message for the first query parameter naming a record outside the current scope; undefined if none. */
export async function referenceOutOfScope(
    db: Db,
    query: URLSearchParams,
    own?: Record<string, ReferenceKind>,
): Promise<string | undefined> {
    if (!currentScope()) return undefined;
    return firstOutside(db, namedIn(query.entries(), own));
}

/** The same for a parsed body: a form (values or lists of values) or a JSON value. */
export async function bodyReferenceOutOfScope(
    db: Db,
    body: unknown,
    own?: Record<string, ReferenceKind>,
): Promise<string | undefined> {
    if (!currentScope() || !body || typeof body !== 'object') return undefined;
    if (Array.isArray(body)) return firstOutside(db, namedIn([['', body]], own));
    return firstOutside(db, namedIn(Object.entries(body), own));
}

/** For a route that reads its own body (the uploads with their own limit): the same check, answered 404. */
export async function refuseOutOfScope(db: Db, body: unknown): Promise<void> {
    const outside = await bodyReferenceOutOfScope(db, body);
    if (outside) throw new ApiError(404, outside);
}
