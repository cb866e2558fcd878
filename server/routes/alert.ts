import { Hono } from 'hono';
import { and, count, desc, eq, gte, isNull, lte, type SQL } from 'drizzle-orm';
import { CHANNEL_TYPES, RULE_LIMITS, RULE_MESSAGES } from '../../schemas/ruleEngine';
import type { AppEnv, Services } from '../deps';
import { alertEvents, notifyChannels, projects, rules } from '../db/schema';
import { formatAlertTime } from '../domain/alerts';
import { ok } from '../http/envelope';
import { badRequest, notFound } from '../http/errors';
import { idList, paging, positiveInt, refuseNul, type FormValue } from '../http/input';
import { formatTime } from '../http/time';
import { createDirectory } from '../mqtt/directory';
import { handleAlerts } from '../rules/alertLifecycle';
import { listRules, ruleAnswer } from '../rules/store';
import type { StoredRule } from '../rules/types';
import { validateRule } from '../rules/validate';
import { input, listQuery, removeRule, enableRule, ruleDetail, saveRule, type RuleScope } from './ruleHandlers';

/**
 * /api/alert-rule: alert rules (a rule whose action is an alert of a level with a content template, and the
 * notification channels to tell) and the channels themselves; /api/alert-log: alert events (the same alert_events the
 * dashboard reads) with filters and handling (处理) in bulk. General family (code 200). docs/rules.md.
 */

function channelIdsOf(raw: unknown): number[] {
    if (raw === undefined || raw === null || raw === '') return [];
    const values = Array.isArray(raw) ? raw.map(String) : String(raw).split(',');
    return idList(values as FormValue, '通知方式ID必须是正整数');
}

/** An alert rule as answered: the rule's alert action and notify actions folded back into fields. */
function alertRuleAnswer(
    r: StoredRule & { createTime: Date; updateTime: Date; projectName: string | null },
    timeZone: string,
) {
    const alert = r.actions.find((a) => a.type === 'alert');
    return {
        ...ruleAnswer(r, timeZone),
        level: alert?.type === 'alert' ? alert.level : null,
        content: alert?.type === 'alert' ? alert.content : '',
        channelIds: r.actions.flatMap((a) => (a.type === 'notify' ? [a.channelId] : [])),
        notifyOnRecover: r.actions.some((a) => a.type === 'notify' && a.onRecover === true),
    };
}

const scope: RuleScope = { type: 2, notFound: '告警规则不存在', answer: alertRuleAnswer };

export function alertRuleRoutes(services: Services) {
    const { db, config } = services;
    const directory = createDirectory(db);
    const app = new Hono<AppEnv>();

    app.get('/list', async (c) => {
        const { q, size, offset, projectId } = listQuery(c);
        const { rows, total } = await listRules(
            db,
            { type: 2, name: q.name?.trim(), projectId, productKey: q.productKey?.trim() },
            size,
            offset,
        );
        return ok(c, { records: rows.map((r) => alertRuleAnswer(r, config.timeZone)), total });
    });

    app.get('/detail', (c) => ruleDetail(services, scope, c));

    app.post('/save', async (c) => {
        const body = await input(c);
        const level = body.level;
        const triggers =
            body.triggers === undefined || body.triggers === '' || body.triggers === null
                ? [{ type: 'property' }]
                : body.triggers;
        const actions = [
            { type: 'alert', level, content: body.content },
            ...channelIdsOf(body.channelIds).map((channelId) => ({
                type: 'notify',
                channelId,
                onRecover: body.notifyOnRecover,
            })),
        ];
        const def = await validateRule({ db, directory }, { ...body, triggers, actions }, 2);
        return saveRule(services, scope, c, body, def);
    });

    app.post('/delete', (c) => removeRule(services, scope, c));
    app.post('/enable', (c) => enableRule(services, scope, c));

    // Notification channels (通知方式).
    app.get('/channel/list', async (c) => {
        const q = c.req.query();
        for (const [k, v] of Object.entries(q)) refuseNul(k, v);
        const { size, offset } = paging(q.pageNumber, q.pageSize);
        const [rows, [{ n }]] = await Promise.all([
            db.select().from(notifyChannels).orderBy(desc(notifyChannels.id)).limit(size).offset(offset),
            db.select({ n: count() }).from(notifyChannels),
        ]);
        return ok(c, {
            records: rows.map((r) => {
                const cfg = r.config as Record<string, unknown>;
                // The SMTP password is never answered.
                const { pass: _pass, ...safe } = cfg;
                return {
                    ...r,
                    config: { ...safe, ...(cfg.pass ? { pass: '' } : {}) },
                    ...safe,
                    createTime: formatTime(r.createTime, config.timeZone),
                };
            }),
            total: Number(n),
        });
    });

    app.post('/channel/save', async (c) => {
        const body = await input(c);
        const text = (k: string) =>
            typeof body[k] === 'string'
                ? (body[k] as string).trim()
                : typeof body[k] === 'number'
                  ? String(body[k])
                  : '';
        const name = text('name');
        if (!name) throw badRequest(RULE_MESSAGES.channelName);
        if (name.length > RULE_LIMITS.nameMax) throw badRequest(`名称不能超过${RULE_LIMITS.nameMax}个字符`);
        const type = text('type');
        if (!CHANNEL_TYPES.some((t) => t.id === type)) throw badRequest(RULE_MESSAGES.channelType);
        let cfg: Record<string, unknown>;
        if (type === 'email') {
            const host = text('host');
            if (!host) throw badRequest(RULE_MESSAGES.smtpHost);
            const port = Number(text('port') || '25');
            if (!Number.isInteger(port) || port < 1 || port > 65535) throw badRequest('SMTP 端口应为 1~65535 的整数');
            const to = text('to');
            if (!/^[^\s@]+@[^\s@]+(,\s*[^\s@]+@[^\s@]+)*$/.test(to)) throw badRequest(RULE_MESSAGES.mailTo);
            const from = text('from') || text('user');
            if (!/^[^\s@]+@[^\s@]+$/.test(from)) throw badRequest('请输入发件人邮箱');
            cfg = {
                host,
                port,
                secure: body.secure === true || body.secure === 'true',
                user: text('user'),
                pass: text('pass'),
                from,
                to,
            };
        } else {
            const url = text('url');
            if (!/^https?:\/\/[^\s]+$/.test(url)) throw badRequest(RULE_MESSAGES.url);
            try {
                new URL(url);
            } catch {
                throw badRequest(RULE_MESSAGES.url);
            }
            cfg = {
                url,
                ...(type === 'webhook' && text('bodyTemplate') ? { bodyTemplate: text('bodyTemplate') } : {}),
            };
        }
        if (body.id !== undefined && body.id !== '' && body.id !== null) {
            const id = positiveInt(body.id, '通知方式ID必须是正整数');
            const [old] = await db.select().from(notifyChannels).where(eq(notifyChannels.id, id));
            if (!old) throw notFound('通知方式不存在');
            // A blank password on edit keeps the stored one.
            if (type === 'email' && !cfg.pass) cfg.pass = (old.config as Record<string, unknown>).pass ?? '';
            await db.update(notifyChannels).set({ name, type, config: cfg }).where(eq(notifyChannels.id, id));
            return ok(c, { id });
        }
        const [row] = await db
            .insert(notifyChannels)
            .values({ name, type, config: cfg })
            .returning({ id: notifyChannels.id });
        return ok(c, { id: row.id });
    });

    app.post('/channel/delete', async (c) => {
        const id = positiveInt((await input(c)).id, '通知方式ID必须是正整数');
        const rows = await db
            .delete(notifyChannels)
            .where(eq(notifyChannels.id, id))
            .returning({ id: notifyChannels.id });
        if (!rows.length) throw notFound('通知方式不存在');
        return ok(c, null);
    });

    return app;
}

export function alertLogRoutes(services: Services) {
    const { db, config } = services;
    const app = new Hono<AppEnv>();

    const select = {
        id: alertEvents.id,
        type: alertEvents.type,
        status: alertEvents.status,
        ts: alertEvents.ts,
        params: alertEvents.params,
        deviceId: alertEvents.deviceId,
        deviceName: alertEvents.deviceName,
        productKey: alertEvents.productKey,
        projectId: alertEvents.projectId,
        projectName: projects.name,
        ruleId: alertEvents.ruleId,
        ruleName: rules.name,
        input: alertEvents.input,
        handleTime: alertEvents.handleTime,
        remark: alertEvents.remark,
        recoverTime: alertEvents.recoverTime,
        clearTime: alertEvents.clearTime,
    };
    type Row = { [K in keyof typeof select]: unknown };
    const answer = (r: Row) => ({
        ...r,
        id: Number(r.id),
        level: r.type,
        timestamp: formatAlertTime(r.ts as Date, config.timeZone),
        ts: undefined,
        handleTime: formatTime(r.handleTime as Date | null, config.timeZone),
        recoverTime: formatTime(r.recoverTime as Date | null, config.timeZone),
        clearTime: formatTime(r.clearTime as Date | null, config.timeZone),
        open: r.clearTime === null,
    });

    app.get('/list', async (c) => {
        const q = c.req.query();
        for (const [k, v] of Object.entries(q)) refuseNul(k, v);
        const { size, offset } = paging(q.pageNumber, q.pageSize);
        const parts: SQL[] = [];
        const num = (raw: string, allowed: number[], message: string) => {
            const n = Number(raw);
            if (!allowed.includes(n) || !/^\d$/.test(raw.trim())) throw badRequest(message);
            return n;
        };
        if (q.level) parts.push(eq(alertEvents.type, num(q.level, [1, 2, 3], '告警级别应为 1、2 或 3')));
        if (q.status)
            parts.push(eq(alertEvents.status, num(q.status, [0, 1], '处理状态应为 0（待处理）或 1（已处理）')));
        if (q.open === '1') parts.push(isNull(alertEvents.clearTime));
        if (q.projectId) parts.push(eq(alertEvents.projectId, positiveInt(q.projectId, '项目ID必须是正整数')));
        if (q.ruleId) parts.push(eq(alertEvents.ruleId, positiveInt(q.ruleId, '规则ID必须是正整数')));
        if (q.productKey?.trim()) parts.push(eq(alertEvents.productKey, q.productKey.trim()));
        if (q.deviceName?.trim()) parts.push(eq(alertEvents.deviceName, q.deviceName.trim()));
        const ms = (raw: string, name: string) => {
            if (!/^\d{1,15}$/.test(raw.trim())) throw badRequest(`${name}应为毫秒时间戳`);
            return new Date(Number(raw));
        };
        if (q.start) parts.push(gte(alertEvents.ts, ms(q.start, '开始时间')));
        if (q.end) parts.push(lte(alertEvents.ts, ms(q.end, '结束时间')));
        const where = parts.length ? and(...parts) : undefined;
        const [rows, [{ n }]] = await Promise.all([
            db
                .select(select)
                .from(alertEvents)
                .leftJoin(projects, eq(projects.id, alertEvents.projectId))
                .leftJoin(rules, eq(rules.id, alertEvents.ruleId))
                .where(where)
                .orderBy(desc(alertEvents.ts), desc(alertEvents.id))
                .limit(size)
                .offset(offset),
            db.select({ n: count() }).from(alertEvents).where(where),
        ]);
        return ok(c, { records: rows.map(answer), total: Number(n) });
    });

    app.get('/detail', async (c) => {
        const id = positiveInt(c.req.query('id'), '缺少告警ID');
        const [row] = await db
            .select(select)
            .from(alertEvents)
            .leftJoin(projects, eq(projects.id, alertEvents.projectId))
            .leftJoin(rules, eq(rules.id, alertEvents.ruleId))
            .where(eq(alertEvents.id, id));
        if (!row) throw notFound('告警不存在');
        return ok(c, answer(row));
    });

    /** Handles (处理) pending alerts with a remark: ids as a list, repeated keys or comma-joined. */
    app.post('/handle', async (c) => {
        const body = await input(c);
        const raw = body.ids ?? body.id;
        const ids = idList(
            (Array.isArray(raw) ? raw.map(String) : raw === undefined || raw === null ? undefined : String(raw)) as
                FormValue | undefined,
            '告警ID必须是正整数',
        );
        if (!ids.length) throw badRequest('请选择要处理的告警');
        if (ids.length > 1000) throw badRequest('一次最多处理 1000 条告警');
        const remark = typeof body.remark === 'string' ? body.remark.trim() : '';
        if (!remark) throw badRequest('请输入处理备注');
        if (remark.length > RULE_LIMITS.remarkMax) throw badRequest(RULE_MESSAGES.remark);
        const handled = await handleAlerts(db, ids, remark, services.now());
        return ok(c, { handled });
    });

    return app;
}
