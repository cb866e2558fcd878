import type { Context } from 'hono';
import { Hono } from 'hono';
import { and, asc, count, desc, eq, gte, lte, type SQL } from 'drizzle-orm';
import type { AppEnv, Services } from '../deps';
import { ruleLogs, thingFunctions } from '../db/schema';
import { productByKey } from '../domain/devices';
import { ok } from '../http/envelope';
import { badRequest, notFound } from '../http/errors';
import { paging, positiveInt, refuseNul } from '../http/input';
import { formatTime } from '../http/time';
import { createDirectory } from '../mqtt/directory';
import { deleteRow, listRules, ruleAnswer } from '../rules/store';
import { validateRule } from '../rules/validate';
import { enableRule, idOf, input, listQuery, removeRule, ruleDetail, saveRule, type RuleScope } from './ruleHandlers';

/**
 * /api/rule: scene linkage rules (场景联动, /ruleEngine Linkedge and /rule/list), their trigger / condition / action
 * row deletes, the thing-model choices of the editor, and the rule journal; /ms6/rule: the rule chains and rule logs
 * (docs/platform-api.md "Rules"). General family (code 200).
 */

const scope: RuleScope = { notFound: '规则不存在', answer: ruleAnswer };

/** Journal rows, newest first: GET /api/rule/log/list and /ms6/rule/log/list. */
async function journal(services: Services, c: Context) {
    const { db, config } = services;
    const q = c.req.query();
    for (const [k, v] of Object.entries(q)) refuseNul(k, v);
    const { size, offset } = paging(q.pageNumber, q.pageSize);
    const parts: SQL[] = [];
    if (q.ruleId) parts.push(eq(ruleLogs.ruleId, idOf(q.ruleId)));
    if (q.deviceName?.trim()) parts.push(eq(ruleLogs.deviceName, q.deviceName.trim()));
    if (q.productKey?.trim()) parts.push(eq(ruleLogs.productKey, q.productKey.trim()));
    if (q.projectId) parts.push(eq(ruleLogs.projectId, positiveInt(q.projectId, '项目ID必须是正整数')));
    if (q.success === '1' || q.success === 'true') parts.push(eq(ruleLogs.success, true));
    else if (q.success === '0' || q.success === 'false') parts.push(eq(ruleLogs.success, false));
    else if (q.success) throw badRequest('参数 success 应为 1 或 0');
    const ms = (raw: string, name: string) => {
        if (!/^\d{1,15}$/.test(raw.trim())) throw badRequest(`${name}应为毫秒时间戳`);
        return new Date(Number(raw));
    };
    if (q.start) parts.push(gte(ruleLogs.ts, ms(q.start, '开始时间')));
    if (q.end) parts.push(lte(ruleLogs.ts, ms(q.end, '结束时间')));
    const where = parts.length ? and(...parts) : undefined;
    const [rows, [{ n }]] = await Promise.all([
        db
            .select()
            .from(ruleLogs)
            .where(where)
            .orderBy(desc(ruleLogs.ts), desc(ruleLogs.id))
            .limit(size)
            .offset(offset),
        db.select({ n: count() }).from(ruleLogs).where(where),
    ]);
    return {
        records: rows.map((r) => ({
            id: Number(r.id),
            ruleId: r.ruleId,
            ruleName: r.ruleName,
            deviceName: r.deviceName,
            productKey: r.productKey,
            triggerType: r.triggerType,
            input: r.input,
            results: r.results,
            success: r.success,
            time: formatTime(r.ts, config.timeZone),
        })),
        total: Number(n),
    };
}

export function ruleRoutes(services: Services) {
    const { db, config } = services;
    const directory = createDirectory(db);
    const app = new Hono<AppEnv>();
    const refresh = () => services.rules?.changed();

    app.get('/list', async (c) => {
        const { q, size, offset, projectId } = listQuery(c);
        const type = q.type ? Number(q.type) : undefined;
        if (type !== undefined && type !== 1 && type !== 2)
            throw badRequest('规则类型应为 1（场景联动）或 2（告警规则）');
        const { rows, total } = await listRules(
            db,
            { type: type as 1 | 2 | undefined, name: q.name?.trim(), projectId, productKey: q.productKey?.trim() },
            size,
            offset,
        );
        return ok(c, { records: rows.map((r) => ruleAnswer(r, config.timeZone)), total });
    });

    app.get('/detail', (c) => ruleDetail(services, scope, c));
    app.post('/save', async (c) => {
        const body = await input(c);
        return saveRule(services, scope, c, body, await validateRule({ db, directory }, body, 1));
    });
    app.post('/delete', (c) => removeRule(services, scope, c));
    app.post('/enable', (c) => enableRule(services, scope, c));

    // SPEC's trigger, condition and action deletes: one row of a rule by its id. A rule keeps at least one trigger
    // and one action.
    for (const [path, kind, label] of [
        ['trigger', 'triggers', '触发条件'],
        ['condition', 'conditions', '过滤条件'],
        ['action', 'actions', '执行动作'],
    ] as const) {
        app.post(`/${path}/delete`, async (c) => {
            const body = await input(c);
            const ruleId = idOf(body.ruleId);
            const rowId = typeof body.id === 'string' ? body.id.trim() : '';
            if (!rowId) throw badRequest(`缺少${label}ID`);
            const r = await deleteRow(db, ruleId, kind, rowId);
            if (!r.found) throw notFound(`${label}不存在`);
            if (kind !== 'conditions' && r.kept === 0) throw badRequest(`规则至少需要一条${label}`);
            await r.apply();
            await refresh();
            return ok(c, null);
        });
    }

    /** The editor's choices: the product's properties, events (with output fields) and services (with inputs). */
    app.get('/model', async (c) => {
        const productKey = c.req.query('productKey')?.trim() ?? '';
        refuseNul('productKey', productKey);
        // No product chosen yet (the editor asks before one is): nothing to choose from.
        if (!productKey) return ok(c, { productKey, properties: [], events: [], services: [], eventFields: [] });
        const product = await productByKey(db, productKey);
        if (!product) throw notFound('产品不存在');
        const rows = await db
            .select({
                type: thingFunctions.type,
                identifier: thingFunctions.identifier,
                name: thingFunctions.name,
                dataType: thingFunctions.dataType,
                accessMode: thingFunctions.accessMode,
                inputData: thingFunctions.inputData,
                outputData: thingFunctions.outputData,
            })
            .from(thingFunctions)
            .where(eq(thingFunctions.productId, product.id))
            .orderBy(asc(thingFunctions.id));
        const of = (type: string) => rows.filter((r) => r.type === type);
        return ok(c, {
            productKey,
            properties: of('property').map((r) => ({
                identifier: r.identifier,
                name: r.name,
                dataType: r.dataType,
                accessMode: r.accessMode,
            })),
            events: of('event').map((r) => ({
                identifier: r.identifier,
                name: r.name,
                outputData: r.outputData ?? [],
            })),
            services: of('service').map((r) => ({
                identifier: r.identifier,
                name: r.name,
                inputData: r.inputData ?? [],
            })),
            // Every event's output fields in one list, for a select that keeps those of the chosen event.
            eventFields: of('event').flatMap((r) =>
                ((r.outputData ?? []) as Array<{ identifier: string; name?: string; dataType?: unknown }>).map((o) => ({
                    event: r.identifier,
                    identifier: o.identifier,
                    name: o.name ?? o.identifier,
                    dataType: o.dataType,
                })),
            ),
        });
    });

    app.get('/log/list', async (c) => ok(c, await journal(services, c)));

    return app;
}

/** /ms6/rule: the rule chains (each rule as trigger → condition → action) and the rule logs. */
export function ms6RuleRoutes(services: Services) {
    const { db, config } = services;
    const app = new Hono<AppEnv>();
    app.get('/chain/list', async (c) => {
        const q = c.req.query();
        for (const [k, v] of Object.entries(q)) refuseNul(k, v);
        const { size, offset } = paging(q.pageNumber, q.pageSize);
        const { rows, total } = await listRules(db, {}, size, offset);
        return ok(c, {
            records: rows.map((r) => ({
                id: r.id,
                name: r.name,
                type: r.type,
                enabled: r.enabled,
                chain: [
                    { node: 'trigger', rows: r.triggers },
                    {
                        node: 'condition',
                        match: r.match,
                        durationSeconds: r.durationSeconds,
                        timeWindow: r.timeWindow,
                        rows: r.conditions,
                    },
                    { node: 'action', rows: r.actions },
                ],
                updateTime: formatTime(r.updateTime, config.timeZone),
            })),
            total,
        });
    });
    app.get('/log/list', async (c) => ok(c, await journal(services, c)));
    return app;
}
