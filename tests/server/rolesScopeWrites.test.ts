// @vitest-environment node
import { and, eq, ne, notExists } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATOR_ROLE_ID } from '../../schemas/rights';
import {
    alertEvents,
    consumerGroups,
    deviceGroups,
    devices,
    edgeInstances,
    products,
    projects,
    rules,
    simulations,
    subscriptions,
} from '../../server/db/schema';
import { NAMES, type ReferenceKind } from '../../server/rights/references';
import { createTestServer, type TestServer } from '../../server/testing';
import { protectedOperations, rowCounts, spec } from './support';
import { as, makeUser } from './rolesSupport';

/**
 * A 运维 user, staff of project A only, names records of other projects in the bodies (and queries) of writes: every
 * write of openapi.yaml, every field whose name (or the operation's x-references) says it names a record. Each is
 * answered 403 (the role lacks the right) or 404 with the words of a missing record, and nothing changes.
 */

type Json = Record<string, unknown>;
let s: TestServer;
let call: (target: string, init?: RequestInit) => Promise<Response>;
let projectA: { id: number; code: string };
const foreign = {} as Record<ReferenceKind, string>;
const mine = {} as Record<ReferenceKind, string>;

const NOT_FOUND = [
    '项目不存在',
    '设备不存在',
    '产品不存在',
    '分组不存在',
    '告警不存在',
    '规则不存在',
    '订阅不存在',
    '消费者组不存在',
    '模拟不存在',
    '边缘实例不存在',
];

beforeAll(async () => {
    s = await createTestServer();
    const operator = await makeUser(s, { username: 'scopedOps', roleId: OPERATOR_ROLE_ID, projectCodes: ['P2024001'] });
    call = as(s, operator.token);
    [projectA] = await s.db
        .select({ id: projects.id, code: projects.code })
        .from(projects)
        .where(eq(projects.code, 'P2024001'));
    const [outside] = await s.db
        .select({ id: devices.id, projectId: devices.projectId })
        .from(devices)
        .where(ne(devices.projectId, projectA.id))
        .limit(1);
    const [projectB] = await s.db.select().from(projects).where(eq(projects.id, outside.projectId!));
    const [product] = await s.db
        .select({ id: products.id, productKey: products.productKey })
        .from(products)
        .where(
            and(
                ne(products.projectCode, projectA.code),
                notExists(
                    s.db
                        .select({ id: devices.id })
                        .from(devices)
                        .where(and(eq(devices.productId, products.id), eq(devices.projectId, projectA.id))),
                ),
            ),
        )
        .limit(1);
    const [group] = await s.db
        .select({ id: deviceGroups.id })
        .from(deviceGroups)
        .where(ne(deviceGroups.projectCode, projectA.code))
        .limit(1);
    const [alert] = await s.db
        .insert(alertEvents)
        .values({ type: 1, projectId: projectB.id, deviceId: outside.id, deviceName: 'b-device' })
        .returning({ id: alertEvents.id });
    // Project B's rule, subscription, consumer group (its default one) and a simulation of B's product.
    const [rule] = await s.db
        .insert(rules)
        .values({ name: 'b-rule', projectId: projectB.id, productId: product.id })
        .returning({ id: rules.id });
    const [consumerGroup] = await s.db
        .select({ id: consumerGroups.id })
        .from(consumerGroups)
        .where(eq(consumerGroups.projectCode, projectB.code))
        .limit(1);
    const [subscription] = await s.db
        .insert(subscriptions)
        .values({ productId: product.id, projectCode: projectB.code })
        .returning({ id: subscriptions.id });
    const [simulation] = await s.db
        .insert(simulations)
        .values({ productId: product.id, intervalSeconds: 5, mode: 'random' })
        .returning({ id: simulations.id });
    // An edge instance on project B's device (its gateway): it belongs to project B.
    const [edge] = await s.db
        .insert(edgeInstances)
        .values({ name: 'b-edge', gatewayId: outside.id })
        .returning({ id: edgeInstances.id });
    Object.assign(foreign, {
        edgeInstance: String(edge.id),
        rule: String(rule.id),
        subscription: String(subscription.id),
        consumerGroup: String(consumerGroup.id),
        simulation: String(simulation.id),
        project: String(projectB.id),
        projectCode: projectB.code,
        device: String(outside.id),
        product: String(product.id),
        productKey: product.productKey,
        group: String(group.id),
        alert: String(alert.id),
    });
    const [own] = await s.db
        .select({ id: devices.id, productId: devices.productId })
        .from(devices)
        .where(eq(devices.projectId, projectA.id))
        .limit(1);
    Object.assign(mine, { project: String(projectA.id), device: String(own.id) });
});
afterAll(() => s?.close());

function deref(node: unknown): Json | undefined {
    let n = node as Json | undefined;
    while (n && typeof n.$ref === 'string')
        n = (n.$ref as string)
            .split('/')
            .slice(1)
            .reduce<Json | undefined>((a, p) => a?.[p.replace(/~1/g, '/')] as Json | undefined, spec);
    return n;
}

/** Top-level properties of a schema (allOf / oneOf merged), with their schemas. */
function properties(schema: unknown): Array<[string, Json]> {
    const s = deref(schema);
    if (!s) return [];
    const out: Array<[string, Json]> = [];
    for (const k of ['allOf', 'oneOf', 'anyOf'])
        for (const part of (s[k] as unknown[]) ?? []) out.push(...properties(part));
    for (const [name, p] of Object.entries((s.properties as Json) ?? {})) out.push([name, deref(p) ?? {}]);
    return out;
}

interface Probe {
    name: string;
    /** The request naming this record (built when the test runs, after the records are found). */
    request: (value: string) => { target: string; init: RequestInit };
    kind: ReferenceKind;
}

/** One request per id-named field of the write, naming the foreign record of that field's kind. */
function probes(): Probe[] {
    const out: Probe[] = [];
    for (const o of protectedOperations.filter((op) => op.method !== 'GET')) {
        const own = (o.op['x-references'] as Record<string, ReferenceKind> | undefined) ?? {};
        const kindOf = (name: string) => own[name] ?? NAMES[name];
        const params = ((o.op.parameters as unknown[]) ?? []).map(deref).filter((p) => p?.in === 'query');
        for (const p of params) {
            const kind = kindOf(String(p!.name));
            if (kind)
                out.push({
                    name: `${o.method} ${o.path} ?${String(p!.name)}`,
                    kind,
                    request: (value) => ({
                        target: `${o.path}?${new URLSearchParams({ [String(p!.name)]: value })}`,
                        init: { method: o.method },
                    }),
                });
        }
        const content = (deref(o.op.requestBody)?.content as Record<string, Json> | undefined) ?? {};
        const type = ['application/x-www-form-urlencoded', 'application/json', 'multipart/form-data'].find(
            (t) => content[t],
        );
        if (!type) continue;
        for (const [field, schema] of properties(content[type].schema)) {
            const items = schema.type === 'array' ? deref(schema.items) : undefined;
            const fields: Array<[string[], ReferenceKind]> = [];
            if (kindOf(field)) fields.push([[field], kindOf(field)]);
            // One level into arrays of objects (a rule's actions[].productKey).
            for (const [inner] of properties(items)) if (NAMES[inner]) fields.push([[field, inner], NAMES[inner]]);
            for (const [names, kind] of fields) {
                const request = (value: string) => {
                    let body: BodyInit;
                    if (type === 'application/json') {
                        const leaf = schema.type === 'array' && names.length === 1 ? [value] : value;
                        body = JSON.stringify(
                            names.length === 1 ? { [field]: leaf } : { [field]: [{ [names[1]]: leaf }] },
                        );
                    } else {
                        const key = names.length === 1 ? field : `${field}[0][${names[1]}]`;
                        body = type === 'multipart/form-data' ? new FormData() : new URLSearchParams();
                        body.append(key, value);
                    }
                    const headers = type === 'application/json' ? { 'content-type': type } : undefined;
                    return { target: o.path, init: { method: o.method, body, headers } };
                };
                out.push({ name: `${o.method} ${o.path} ${names.join('[].')} (${type.split('/')[1]})`, kind, request });
            }
        }
    }
    return out;
}

/** Project B's records as stored, and every table's row count. */
async function snapshot() {
    return {
        counts: await rowCounts(s.db),
        edge: await s.db
            .select()
            .from(edgeInstances)
            .where(eq(edgeInstances.id, Number(foreign.edgeInstance))),
        device: await s.db
            .select()
            .from(devices)
            .where(eq(devices.id, Number(foreign.device))),
        project: await s.db
            .select()
            .from(projects)
            .where(eq(projects.id, Number(foreign.project))),
        product: await s.db
            .select()
            .from(products)
            .where(eq(products.id, Number(foreign.product))),
        group: await s.db
            .select()
            .from(deviceGroups)
            .where(eq(deviceGroups.id, Number(foreign.group))),
        alert: await s.db
            .select()
            .from(alertEvents)
            .where(eq(alertEvents.id, Number(foreign.alert))),
    };
}

const messageOf = (body: Json) => String(body.msg ?? body.returnMessage ?? '');

describe("ids of another project's records in a write (body or query) are refused to a scoped user", () => {
    const all = probes();

    it('finds the id-named fields of the contract', () => {
        expect(all.length).toBeGreaterThan(60);
    });

    it.each(all.map((p) => [p.name, p] as const))('%s', async (_name, p) => {
        const before = await snapshot();
        const { target, init } = p.request(foreign[p.kind]);
        const res = await call(target, init);
        const body = (await res.json()) as Json;
        expect([403, 404], JSON.stringify(body)).toContain(res.status);
        if (res.status === 404) expect(NOT_FOUND).toContain(messageOf(body));
        expect(await snapshot()).toEqual(before);
    });

    it("lists no rule, subscription, consumer group, simulation or edge instance of another project's", async () => {
        const lists: Array<[string, ReferenceKind]> = [
            ['/api/rule/list?pageNumber=1&pageSize=100', 'rule'],
            ['/api/subscription/list?pageNumber=1&pageSize=100', 'subscription'],
            ['/api/consumerGroup/list?pageNumber=1&pageSize=100', 'consumerGroup'],
            ['/api/simulation/list?pageNumber=1&pageSize=100', 'simulation'],
            ['/api/edge/instance/list?pageNumber=1&pageSize=100', 'edgeInstance'],
        ];
        for (const [target, kind] of lists) {
            const res = await call(target);
            expect(res.status, target).toBe(200);
            const body = (await res.json()) as { data: Json };
            const data = body.data;
            const records = (data.records ?? data.list ?? data.rows ?? []) as Json[];
            expect(Array.isArray(records), target).toBe(true);
            expect(
                records.map((r) => String(r.id)),
                target,
            ).not.toContain(foreign[kind]);
            // As an administrator the same list has it: the record is there, only outside the operator's scope.
            const all = (await (await s.fetch(target)).json()) as { data: Json };
            const allRecords = (all.data.records ?? all.data.list ?? all.data.rows ?? []) as Json[];
            expect(
                allRecords.map((r) => String(r.id)),
                target,
            ).toContain(foreign[kind]);
        }
    });

    it('reads ids nested in a form: bracketed keys, comma-joined lists and JSON text', async () => {
        const cases: Array<[string, Record<string, string>, string]> = [
            ['/api/device/bind', { projectId: mine.project, 'devices[0][deviceId]': foreign.device }, '设备不存在'],
            [
                '/api/device/bind',
                { projectId: mine.project, deviceId: `${mine.device},${foreign.device}` },
                '设备不存在',
            ],
            [
                '/api/project-user/addUser',
                { list: JSON.stringify([{ projectCode: foreign.projectCode, userId: 1 }]) },
                '项目不存在',
            ],
        ];
        for (const [path, fields, msg] of cases) {
            const before = await snapshot();
            const res = await call(path, { method: 'POST', body: new URLSearchParams(fields) });
            expect(res.status, path).toBe(404);
            expect(messageOf((await res.json()) as Json)).toBe(msg);
            expect(await snapshot()).toEqual(before);
        }
    });

    it('serves the same writes naming its own records', async () => {
        // The device's own project, named by the body as the check reads it (comma-joined, JSON text).
        for (const remark of ['运维改的备注', '再改一次']) {
            const res = await call('/api/device/UpdateDeviceNickname', {
                method: 'POST',
                body: new URLSearchParams({ deviceId: mine.device, remark }),
            });
            expect(res.status, await res.clone().text()).toBe(200);
            const [row] = await s.db
                .select()
                .from(devices)
                .where(eq(devices.id, Number(mine.device)));
            expect(row.remark).toBe(remark);
        }
        const json = await call('/api/device/bind', {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ projectId: mine.project, deviceId: [Number(mine.device)] }),
        });
        // Past the scope check: the route's own answer (the device is already in a project).
        expect(messageOf((await json.json()) as Json)).toBe('请选择未关联项目的设备进行关联');
    });
});
