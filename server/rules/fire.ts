import { eq } from 'drizzle-orm';
import { devices, ruleLogs } from '../db/schema';
import { openAlert } from './alertLifecycle';
import { notifyAppAlarms } from './appAlarms';
import { fillTemplate } from './evaluate';
import type { EngineState, Firing } from './state';
import type { Action, ActionResult } from './types';

/** What the earlier actions of one firing tell the later ones (a notify after an alert sends the alert's text). */
export interface FiringContext {
    alertContent?: string;
    alertId?: number;
    level?: number;
}

type Outcome = { ok: boolean; message: string };

const LEVEL_NAMES: Record<number, string> = { 1: '紧急', 2: '严重', 3: '一般' };

/** The ${...} variables of a firing's templates: the values, the device, the rule, the first condition's value. */
export function templateVars(s: EngineState, f: Firing, level?: number): Record<string, unknown> {
    const firstCondition = f.rt.rule.conditions[0];
    let value: unknown;
    let identifier: string | undefined;
    if (firstCondition?.source === 'property') {
        identifier = firstCondition.identifier;
        value = f.eval.properties[identifier];
    } else if (firstCondition?.source === 'event') {
        identifier = firstCondition.field;
        value = f.eval.event?.values[firstCondition.field ?? ''];
    } else {
        const values = (f.input.values ?? {}) as Record<string, unknown>;
        identifier = (f.input.identifier as string | undefined) ?? Object.keys(values)[0];
        value = identifier ? values[identifier] : f.input.status;
    }
    return {
        ...f.eval.properties,
        ...(f.eval.event?.values ?? {}),
        deviceName: f.device?.deviceName ?? '',
        productKey: f.device?.productKey ?? f.rt.rule.productKey,
        ruleName: f.rt.rule.name,
        identifier: identifier ?? '',
        value,
        level: (level !== undefined && LEVEL_NAMES[level]) || '',
        time: new Intl.DateTimeFormat('sv-SE', {
            timeZone: s.timeZone,
            dateStyle: 'short',
            timeStyle: 'medium',
        }).format(s.now()),
    };
}

/** The device an action addresses: the named one, or the device that triggered the rule. */
async function targetOf(s: EngineState, f: Firing, a: { productKey?: string; deviceName?: string }) {
    if (!a.deviceName) return f.device?.deviceId;
    const d = await s.directory.byName(a.productKey ?? f.rt.rule.productKey, a.deviceName);
    return 'deviceId' in d ? d.deviceId : undefined;
}

async function runDownlink(
    s: EngineState,
    f: Firing,
    a: Extract<Action, { type: 'setProperty' | 'invokeService' }>,
): Promise<Outcome> {
    const deviceId = await targetOf(s, f, a);
    if (!deviceId) return { ok: false, message: a.deviceName ? `设备 ${a.deviceName} 不存在` : '没有触发设备' };
    const downlink = s.access.downlink;
    if (!downlink) return { ok: false, message: '设备接入服务未运行' };
    const r =
        a.type === 'setProperty'
            ? await downlink.setProperties(deviceId, { [a.identifier]: a.value })
            : await downlink.invokeService(deviceId, a.identifier, a.params);
    const ok = r.state === 'sent' || (r.state === 'replied' && (r.code === undefined || r.code === 200));
    const what =
        a.type === 'setProperty' ? `设置 ${a.identifier}=${JSON.stringify(a.value)}` : `调用服务 ${a.identifier}`;
    return { ok, message: ok ? `${what}：已下发（消息ID ${r.messageId}）` : `${what}失败：${r.message ?? r.state}` };
}

async function runAlert(
    s: EngineState,
    f: Firing,
    a: Extract<Action, { type: 'alert' }>,
    ctx: FiringContext,
): Promise<Outcome> {
    if (!f.device) return { ok: false, message: '没有触发设备，不能产生告警' };
    const rule = f.rt.rule;
    const content = fillTemplate(a.content, templateVars(s, f, a.level));
    ctx.alertContent = content;
    ctx.level = a.level;
    const [d] = await s.db
        .select({ projectId: devices.projectId })
        .from(devices)
        .where(eq(devices.id, f.device.deviceId));
    const id = await openAlert(s.db, {
        ruleId: rule.id,
        deviceId: f.device.deviceId,
        deviceName: f.device.deviceName,
        productKey: f.device.productKey,
        projectId: d?.projectId ?? rule.projectId,
        level: a.level,
        content,
        input: f.input,
        discrete: f.discrete,
        now: s.now(),
    });
    if (id) {
        ctx.alertId = id;
        await notifyAppAlarms(s.db, s.notifier, {
            alertId: id,
            level: a.level,
            productKey: f.device.productKey,
            deviceName: f.device.deviceName,
            content,
            vars: templateVars(s, f, a.level),
        }).catch((err) => s.report('应用告警通知失败 / app alarm notification failed:', err));
    }
    return {
        ok: true,
        message: id ? `已产生告警（#${id}）：${content}` : '该设备已有未关闭的同一规则告警，未重复产生',
    };
}

async function runNotify(
    s: EngineState,
    f: Firing,
    a: Extract<Action, { type: 'notify' }>,
    ctx: FiringContext,
): Promise<Outcome> {
    const rule = f.rt.rule;
    const channel = await s.notifier.channel(a.channelId);
    if (!channel) return { ok: false, message: `通知方式 ${a.channelId} 不存在` };
    const v = templateVars(s, f, ctx.level);
    const content = a.content
        ? fillTemplate(a.content, v)
        : (ctx.alertContent ?? `规则「${rule.name}」已触发${f.device ? `（设备 ${f.device.deviceName}）` : ''}`);
    const id = await s.notifier.send({
        channel,
        ruleId: rule.id,
        alertId: ctx.alertId,
        appName: rule.name,
        messageType: rule.type === 2 || ctx.alertContent ? '告警通知' : '场景联动',
        productKey: f.device?.productKey ?? rule.productKey,
        deviceName: f.device?.deviceName,
        content,
        vars: { ...v, content },
    });
    return { ok: true, message: `已提交${channel.name}通知（记录 #${id}）` };
}

/** Runs one action of a firing. */
export function runAction(s: EngineState, f: Firing, a: Action, ctx: FiringContext): Promise<Outcome> {
    switch (a.type) {
        case 'setProperty':
        case 'invokeService':
            return runDownlink(s, f, a);
        case 'alert':
            return runAlert(s, f, a, ctx);
        case 'notify':
            return runNotify(s, f, a, ctx);
    }
}

/**
 * Runs the rule's actions in order (a failing one does not stop the rest) and journals the results, dated `at`: when
 * the rule fired, which may be well before its actions finish behind earlier firings of the same (rule, device).
 */
export async function fireRule(s: EngineState, f: Firing, at: Date) {
    s.counters.fired++;
    const results: ActionResult[] = [];
    const ctx: FiringContext = {};
    for (const a of f.rt.rule.actions) {
        try {
            const r = await runAction(s, f, a, ctx);
            results.push({ type: a.type, ...r });
        } catch (err) {
            results.push({ type: a.type, ok: false, message: (err as Error).message || String(err) });
        }
    }
    const rule = f.rt.rule;
    await s.db
        .insert(ruleLogs)
        .values({
            ruleId: rule.id,
            ruleName: rule.name,
            projectId: rule.projectId,
            deviceId: f.device?.deviceId ?? null,
            deviceName: f.device?.deviceName ?? null,
            productKey: f.device?.productKey ?? rule.productKey,
            triggerType: f.triggerType,
            input: f.input,
            results,
            success: results.every((r) => r.ok),
            ts: at,
        })
        .catch((err) => {
            if (!s.closed) s.report('规则日志写入失败 / rule journal write failed:', err);
        });
}

/** The recovery notification of a notify action with onRecover (恢复时通知), recorded like any notification. */
export async function notifyRecovery(
    s: EngineState,
    f: Firing,
    a: Extract<Action, { type: 'notify' }>,
    alertId: number | undefined,
) {
    const rule = f.rt.rule;
    const channel = await s.notifier.channel(a.channelId);
    if (!channel) throw new Error(`通知方式 ${a.channelId} 不存在`);
    const v = templateVars(s, f);
    const content = a.recoverContent
        ? fillTemplate(a.recoverContent, v)
        : `设备 ${f.device?.deviceName ?? ''} 已恢复正常（规则「${rule.name}」）`;
    await s.notifier.send({
        channel,
        ruleId: rule.id,
        alertId,
        appName: rule.name,
        messageType: '恢复通知',
        productKey: f.device?.productKey ?? rule.productKey,
        deviceName: f.device?.deviceName,
        content,
        vars: { ...v, content },
    });
}
