import { Cron } from 'croner';
import { and, eq, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { devices, deviceLatest, ruleLogs, ruleTicks } from '../db/schema';
import type { AccessHub } from '../mqtt/access';
import type { AcceptedMessage } from '../mqtt/uplink';
import type { OtaFailure } from '../ota/service';
import type { TrafficEvent } from '../mqtt/traffic';
import { createDirectory } from '../mqtt/directory';
import { openAlert, openPairs, recoverAlert } from './alertLifecycle';
import { compileConditions, fillTemplate, inTimeWindow, type EvalInput } from './evaluate';
import { notifyAppAlarms } from './appAlarms';
import { listenForRuleChanges } from './changes';
import { createNotifier, type NotifyOptions } from './notify';
import { buildIndex, type RuleIndex } from './ruleIndex';
import { dropHold, loadHolds, saveHold, storedProperties } from './holdStore';
import { enabledRules } from './store';
import type { Action, ActionResult, StoredRule, Trigger } from './types';

/**
 * The rule engine (docs/rules.md): enabled rules indexed in memory by product, evaluated on every accepted device
 * message, status change and cron tick. A message of a product with no rule costs one Map lookup; the database is
 * touched only when a rule fires or recovers.
 *
 * Rules with property conditions fire on the edge: once when the conditions start to hold (after durationSeconds
 * when set, checked on the next message and by a timer), and they re-arm when the conditions stop holding (their
 * alerts then recover). Event, status and schedule triggers, and rules without property conditions, fire on each
 * matching message. A time window gates firing. A failing action is recorded in the journal; the rule keeps running.
 */

export interface RuleEngineOptions {
    notify?: NotifyOptions;
}

interface Deps {
    db: Db;
    access: AccessHub;
    timeZone: string;
    now?: () => Date;
    logError?: (message: string, err: unknown) => void;
    options?: RuleEngineOptions;
    /** PostgreSQL shared with other server processes: rule changes are announced to them (changes.ts). */
    databaseUrl?: string;
}

interface HoldState {
    since: number;
    fired: boolean;
    timer?: NodeJS.Timeout;
}

interface Runtime {
    rule: StoredRule;
    signature: string;
    /** Has property conditions: fires on the edge and keeps per-device state. */
    level: boolean;
    states: Map<number, HoldState>;
    crons: Cron[];
    hasAlert: boolean;
    /** The message this rule was last evaluated for (no rule is evaluated twice for one message). */
    stamp: number;
    /** The conditions, compiled once. */
    holds: (input: EvalInput) => boolean;
}

interface DeviceRef {
    deviceId: number;
    deviceName: string;
    productKey: string;
}

interface Firing {
    rt: Runtime;
    device: DeviceRef | undefined;
    triggerType: Trigger['type'];
    input: Record<string, unknown>;
    eval: EvalInput;
    discrete: boolean;
}

const signatureOf = (r: StoredRule) => JSON.stringify(r);

function matches(t: Trigger, m: AcceptedMessage): boolean {
    if (t.type === 'property') return m.kind === 'property' && (!t.identifier || t.identifier in m.values);
    if (t.type === 'event') return m.kind === 'event' && t.identifier === m.identifier;
    return false;
}

export function createRuleEngine({
    db,
    access,
    timeZone,
    now = () => new Date(),
    logError,
    options = {},
    databaseUrl,
}: Deps) {
    const report = logError ?? ((m: string, e: unknown) => console.error(m, e));
    const directory = createDirectory(db);
    const notifier = createNotifier(db, options.notify);
    const changes = listenForRuleChanges(db, databaseUrl, () => void engine.refresh(), report);
    let byProduct = new Map<number, RuleIndex<Runtime>>();
    /** Rules holding state (conditions held) per device: they are evaluated on its messages whatever the index says. */
    const holding = new Map<number, Set<Runtime>>();
    let messageSeq = 0;
    const hold = (rt: Runtime, deviceId: number) => {
        let set = holding.get(deviceId);
        if (!set) holding.set(deviceId, (set = new Set()));
        set.add(rt);
    };
    const release = (rt: Runtime, deviceId: number) => {
        const set = holding.get(deviceId);
        if (!set) return;
        set.delete(rt);
        if (!set.size) holding.delete(deviceId);
    };
    let byProductKey = new Map<string, Runtime[]>();
    let runtimes = new Map<number, Runtime>();
    /** Latest property values of devices of products that have rules. */
    const lastValues = new Map<number, Record<string, unknown>>();
    const pending = new Set<Promise<unknown>>();
    let unsubscribe: Array<() => void> = [];
    let closed = false;
    let loading: Promise<void> | undefined;
    const counters = { evaluated: 0, fired: 0 };

    const track = <T>(p: Promise<T>) => {
        pending.add(p);
        void p.finally(() => pending.delete(p)).catch(() => undefined);
        return p;
    };

    async function load() {
        const rules = await enabledRules(db);
        const next = new Map<number, Runtime>();
        for (const rule of rules) {
            const signature = signatureOf(rule);
            const old = runtimes.get(rule.id);
            if (old && old.signature === signature) {
                next.set(rule.id, old);
                continue;
            }
            const rt: Runtime = {
                rule,
                signature,
                level: rule.conditions.some((c) => c.source === 'property'),
                states: new Map(),
                crons: [],
                hasAlert: rule.actions.some((a) => a.type === 'alert'),
                stamp: 0,
                holds: compileConditions(rule.conditions, rule.match),
            };
            next.set(rule.id, rt);
        }
        // Rules gone or changed: their timers and schedules stop.
        for (const [id, old] of runtimes) {
            if (next.get(id) === old) continue;
            for (const [deviceId, s] of old.states) {
                clearTimeout(s.timer);
                release(old, deviceId);
            }
            for (const c of old.crons) c.stop();
        }
        if (closed) return;
        // A rule that raised an alert still open (and not recovered) is holding for that device: no second alert.
        const restored: Array<{ rt: Runtime; device: DeviceRef; state: HoldState }> = [];
        const fresh = [...next.values()].filter((rt) => rt.crons.length === 0 && runtimes.get(rt.rule.id) !== rt);
        if (fresh.some((rt) => rt.level)) {
            for (const { ruleId, deviceId } of await openPairs(db)) {
                const rt = next.get(ruleId);
                if (rt?.level && fresh.includes(rt)) {
                    rt.states.set(deviceId, { since: Date.now(), fired: true });
                    hold(rt, deviceId);
                }
            }
            // What the rules remembered before a restart: durations keep counting, fired rules stay fired.
            const ids = fresh.filter((rt) => rt.level).map((rt) => rt.rule.id);
            for (const h of await loadHolds(db, ids)) {
                const rt = next.get(h.ruleId)!;
                const state: HoldState = {
                    since: h.since,
                    fired: h.fired || rt.states.get(h.deviceId)?.fired === true,
                };
                rt.states.set(h.deviceId, state);
                hold(rt, h.deviceId);
                if (!state.fired)
                    restored.push({
                        rt,
                        device: { deviceId: h.deviceId, deviceName: h.deviceName, productKey: rt.rule.productKey },
                        state,
                    });
            }
        }
        for (const rt of fresh) {
            for (const t of rt.rule.triggers) {
                if (t.type !== 'schedule' || !t.cron) continue;
                rt.crons.push(new Cron(t.cron, { timezone: timeZone }, () => void track(scheduled(rt))));
            }
        }
        runtimes = next;
        for (const { rt, device, state } of restored) {
            arm(
                rt,
                device,
                state,
                async () => ({ ...(await storedProperties(db, device.deviceId)), ...lastValues.get(device.deviceId) }),
                { kind: 'property', restored: true },
            );
        }
        const products = new Map<number, Runtime[]>();
        const keys = new Map<string, Runtime[]>();
        for (const rt of next.values()) {
            products.set(rt.rule.productId, [...(products.get(rt.rule.productId) ?? []), rt]);
            keys.set(rt.rule.productKey, [...(keys.get(rt.rule.productKey) ?? []), rt]);
        }
        byProduct = new Map(
            [...products].map(([id, list]) => [id, buildIndex(list.map((rt) => ({ rule: rt.rule, item: rt })))]),
        );
        byProductKey = keys;
    }

    function vars(f: Firing, level?: number): Record<string, unknown> {
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
            level: level === 1 ? '紧急' : level === 2 ? '严重' : level === 3 ? '一般' : '',
            time: new Intl.DateTimeFormat('sv-SE', {
                timeZone,
                dateStyle: 'short',
                timeStyle: 'medium',
            }).format(now()),
        };
    }

    async function targetOf(f: Firing, a: { productKey?: string; deviceName?: string }) {
        if (!a.deviceName) return f.device?.deviceId;
        const d = await directory.byName(a.productKey ?? f.rt.rule.productKey, a.deviceName);
        return 'deviceId' in d ? d.deviceId : undefined;
    }

    async function run(f: Firing, a: Action, ctx: { alertContent?: string; alertId?: number; level?: number }) {
        const rule = f.rt.rule;
        switch (a.type) {
            case 'setProperty':
            case 'invokeService': {
                const deviceId = await targetOf(f, a);
                if (!deviceId)
                    return { ok: false, message: a.deviceName ? `设备 ${a.deviceName} 不存在` : '没有触发设备' };
                const downlink = access.downlink;
                if (!downlink) return { ok: false, message: '设备接入服务未运行' };
                const r =
                    a.type === 'setProperty'
                        ? await downlink.setProperties(deviceId, { [a.identifier]: a.value })
                        : await downlink.invokeService(deviceId, a.identifier, a.params);
                const ok = r.state === 'sent' || (r.state === 'replied' && (r.code === undefined || r.code === 200));
                const what =
                    a.type === 'setProperty'
                        ? `设置 ${a.identifier}=${JSON.stringify(a.value)}`
                        : `调用服务 ${a.identifier}`;
                return {
                    ok,
                    message: ok ? `${what}：已下发（消息ID ${r.messageId}）` : `${what}失败：${r.message ?? r.state}`,
                };
            }
            case 'alert': {
                if (!f.device) return { ok: false, message: '没有触发设备，不能产生告警' };
                const content = fillTemplate(a.content, vars(f, a.level));
                ctx.alertContent = content;
                ctx.level = a.level;
                const [d] = await db
                    .select({ projectId: devices.projectId })
                    .from(devices)
                    .where(eq(devices.id, f.device.deviceId));
                const id = await openAlert(db, {
                    ruleId: rule.id,
                    deviceId: f.device.deviceId,
                    deviceName: f.device.deviceName,
                    productKey: f.device.productKey,
                    projectId: d?.projectId ?? rule.projectId,
                    level: a.level,
                    content,
                    input: f.input,
                    discrete: f.discrete,
                    now: now(),
                });
                if (id) {
                    ctx.alertId = id;
                    await notifyAppAlarms(db, notifier, {
                        alertId: id,
                        level: a.level,
                        productKey: f.device.productKey,
                        deviceName: f.device.deviceName,
                        content,
                        vars: vars(f, a.level),
                    }).catch((err) => report('应用告警通知失败 / app alarm notification failed:', err));
                }
                return {
                    ok: true,
                    message: id ? `已产生告警（#${id}）：${content}` : '该设备已有未关闭的同一规则告警，未重复产生',
                };
            }
            case 'notify': {
                const channel = await notifier.channel(a.channelId);
                if (!channel) return { ok: false, message: `通知方式 ${a.channelId} 不存在` };
                const v = vars(f, ctx.level);
                const content = a.content
                    ? fillTemplate(a.content, v)
                    : (ctx.alertContent ??
                      `规则「${rule.name}」已触发${f.device ? `（设备 ${f.device.deviceName}）` : ''}`);
                const id = await notifier.send({
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
        }
    }

    async function fire(f: Firing) {
        counters.fired++;
        const results: ActionResult[] = [];
        const ctx: { alertContent?: string; alertId?: number; level?: number } = {};
        for (const a of f.rt.rule.actions) {
            try {
                const r = await run(f, a, ctx);
                results.push({ type: a.type, ...r });
            } catch (err) {
                results.push({ type: a.type, ok: false, message: (err as Error).message || String(err) });
            }
        }
        const rule = f.rt.rule;
        await db
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
                ts: now(),
            })
            .catch((err) => {
                if (!closed) report('规则日志写入失败 / rule journal write failed:', err);
            });
    }

    /**
     * A rule's firings and recoveries for one device run one after the other, in the order they happened: a recovery
     * never overtakes the firing that opened the alert (PostgreSQL's pool would run them side by side).
     */
    const chains = new Map<string, Promise<unknown>>();
    function inOrder(rt: Runtime, deviceId: number | undefined, work: () => Promise<unknown>, what: string) {
        const key = `${rt.rule.id}:${deviceId ?? ''}`;
        const next = (chains.get(key) ?? Promise.resolve()).then(work).catch((err) => {
            if (!closed) report(what, err);
        });
        chains.set(key, next);
        void next.then(() => {
            if (chains.get(key) === next) chains.delete(key);
        });
        void track(next);
    }

    /** The recovery notification of a notify action with onRecover (恢复时通知), recorded like any notification. */
    async function notifyRecovery(f: Firing, a: Extract<Action, { type: 'notify' }>, alertId: number | undefined) {
        const rule = f.rt.rule;
        const channel = await notifier.channel(a.channelId);
        if (!channel) throw new Error(`通知方式 ${a.channelId} 不存在`);
        const v = vars(f);
        const content = a.recoverContent
            ? fillTemplate(a.recoverContent, v)
            : `设备 ${f.device?.deviceName ?? ''} 已恢复正常（规则「${rule.name}」）`;
        await notifier.send({
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

    /** The conditions stopped holding for a device after the rule fired: its alerts recover, recovery notifications go. */
    function recover(rt: Runtime, device: DeviceRef, ev: EvalInput) {
        const notifies = rt.rule.actions.filter(
            (a): a is Extract<Action, { type: 'notify' }> => a.type === 'notify' && a.onRecover === true,
        );
        if (!rt.hasAlert && !notifies.length) return;
        const f: Firing = {
            rt,
            device,
            triggerType: 'property',
            input: { kind: 'recover' },
            eval: ev,
            discrete: false,
        };
        inOrder(
            rt,
            device.deviceId,
            async () => {
                const alertIds = rt.hasAlert
                    ? await recoverAlert(db, rt.rule.id, device.deviceId, rt.rule.autoClear, now())
                    : [];
                for (const a of notifies) {
                    await notifyRecovery(f, a, alertIds[0]).catch((err) => {
                        if (!closed) report('恢复通知失败 / recovery notification failed:', err);
                    });
                }
            },
            '告警恢复失败 / alert recovery failed:',
        );
    }

    function start(f: Firing) {
        inOrder(f.rt, f.device?.deviceId, () => fire(f), '规则执行失败 / rule firing failed:');
    }

    function evaluate(f: Omit<Firing, 'discrete'>, triggerIsLevel: boolean) {
        counters.evaluated++;
        const { rt, device } = f;
        const rule = rt.rule;
        const holds = rt.holds(f.eval);
        if (!rt.level || !triggerIsLevel || !device) {
            if (holds && inTimeWindow(rule.timeWindow, now(), timeZone)) start({ ...f, discrete: true });
            return;
        }
        let state = rt.states.get(device.deviceId);
        if (!holds) {
            if (!state) return;
            clearTimeout(state.timer);
            rt.states.delete(device.deviceId);
            release(rt, device.deviceId);
            remember(rt, device.deviceId, undefined);
            if (state.fired) recover(rt, device, f.eval);
            return;
        }
        const t = Date.now();
        let changed = false;
        if (!state) {
            state = { since: t, fired: false };
            rt.states.set(device.deviceId, state);
            hold(rt, device.deviceId);
            changed = true;
        }
        if (state.fired) return;
        const due = state.since + rule.durationSeconds * 1000;
        if (t >= due && inTimeWindow(rule.timeWindow, now(), timeZone)) {
            state.fired = true;
            clearTimeout(state.timer);
            remember(rt, device.deviceId, state);
            start({ ...f, discrete: false });
            return;
        }
        if (changed) remember(rt, device.deviceId, state);
        if (t < due) arm(rt, device, state, () => lastValues.get(device.deviceId) ?? f.eval.properties, f.input);
    }

    /** Fires the rule for the device when its duration is up, if the conditions still hold then (no message needed). */
    function arm(
        rt: Runtime,
        device: DeviceRef,
        s: HoldState,
        values: () => Record<string, unknown> | Promise<Record<string, unknown>>,
        input: Record<string, unknown>,
    ) {
        if (s.timer) return;
        const rule = rt.rule;
        s.timer = setTimeout(
            () => {
                s.timer = undefined;
                const live = () =>
                    !closed && rt.states.get(device.deviceId) === s && !s.fired && runtimes.get(rule.id) === rt;
                if (!live() || !inTimeWindow(rule.timeWindow, now(), timeZone)) return;
                void track(
                    Promise.resolve(values()).then((properties) => {
                        if (!live() || !rt.holds({ properties })) return;
                        s.fired = true;
                        remember(rt, device.deviceId, s);
                        start({ rt, device, triggerType: 'property', input, eval: { properties }, discrete: false });
                    }),
                );
            },
            Math.max(0, s.since + rule.durationSeconds * 1000 - Date.now()),
        );
        s.timer.unref?.();
    }

    /** The rule's state for the device, kept in the database in the order it changed (holdStore.ts). */
    function remember(rt: Runtime, deviceId: number, s: HoldState | undefined) {
        const { since = 0, fired = false } = s ?? {};
        inOrder(
            rt,
            deviceId,
            () => (s ? saveHold(db, rt.rule.id, deviceId, since, fired) : dropHold(db, rt.rule.id, deviceId)),
            '规则状态保存失败 / saving rule state failed:',
        );
    }

    /** Every accepted property or event post (broker.uplink.onAccepted). */
    function onMessage(m: AcceptedMessage) {
        const index = byProduct.get(m.device.productId);
        if (!index) return;
        const seq = ++messageSeq;
        const deviceId = m.device.deviceId;
        let properties = lastValues.get(deviceId);
        if (!properties) lastValues.set(deviceId, (properties = {}));
        if (m.kind === 'property') Object.assign(properties, m.values);
        const device: DeviceRef = { deviceId, deviceName: m.device.deviceName, productKey: m.device.productKey };
        const ev: EvalInput =
            m.kind === 'event'
                ? { properties, event: { identifier: m.identifier ?? '', values: m.values } }
                : { properties };
        const input =
            m.kind === 'event'
                ? { kind: 'event', identifier: m.identifier, values: m.values }
                : { kind: 'property', values: m.values };
        const consider = (rt: Runtime) => {
            if (rt.stamp === seq) return;
            rt.stamp = seq;
            if (rt.rule.deviceId !== null && rt.rule.deviceId !== deviceId) return;
            let hit: Trigger | undefined;
            for (const t of rt.rule.triggers) {
                if (matches(t, m)) {
                    hit = t;
                    break;
                }
            }
            if (hit) evaluate({ rt, device, triggerType: hit.type, input, eval: ev }, hit.type === 'property');
        };
        for (const rt of index.plain) consider(rt);
        if (m.kind === 'property') {
            index.visit(properties, consider);
            // Rules holding for the device whose indexed conditions no longer hold: they recover.
            const held = holding.get(deviceId);
            if (held) for (const rt of [...held]) consider(rt);
        }
    }

    /** Device status changes (broker traffic, direction 'status'). */
    function onStatus(e: TrafficEvent) {
        const list = byProductKey.get(e.productKey);
        if (!list) return;
        const status = e.payload === 'online' ? 'online' : 'offline';
        const device: DeviceRef = { deviceId: e.deviceId, deviceName: e.deviceName, productKey: e.productKey };
        for (const rt of list) {
            if (rt.rule.deviceId !== null && rt.rule.deviceId !== e.deviceId) continue;
            const hit = rt.rule.triggers.find(
                (t) => t.type === 'status' && (t.status === 'any' || t.status === status),
            );
            if (!hit) continue;
            const properties = lastValues.get(e.deviceId) ?? {};
            evaluate(
                { rt, device, triggerType: 'status', input: { kind: 'status', status }, eval: { properties } },
                false,
            );
        }
    }

    /**
     * An upgrade failed for good (the OTA service's onFailed hook, server/ota/service.ts): rules of the device's product
     * with an otaFailed trigger (of that module, or any) are evaluated. The failure's fields are the event's values:
     * conditions on property values still apply, and templates read ${packageName}, ${version}, ${module}, ${step},
     * ${reason} (and ${fromVersion} is not known here).
     */
    function onOtaFailed(e: OtaFailure) {
        const list = byProductKey.get(e.productKey);
        if (!list) return;
        const device: DeviceRef = { deviceId: e.deviceId, deviceName: e.deviceName, productKey: e.productKey };
        const values = {
            packageName: e.packageName,
            version: e.version,
            module: e.module,
            step: e.step,
            reason: e.reason,
            batchId: e.batchId,
        };
        for (const rt of list) {
            if (rt.rule.deviceId !== null && rt.rule.deviceId !== e.deviceId) continue;
            const hit = rt.rule.triggers.find((t) => t.type === 'otaFailed' && (!t.module || t.module === e.module));
            if (!hit) continue;
            const properties = lastValues.get(e.deviceId) ?? {};
            evaluate(
                {
                    rt,
                    device,
                    triggerType: 'otaFailed',
                    input: { kind: 'otaFailed', identifier: 'reason', values },
                    eval: { properties, event: { identifier: 'otaFailed', values } },
                },
                false,
            );
        }
    }

    /** A cron tick: each device of the rule (one, or all of its product when it has conditions) is checked. */
    async function scheduled(rt: Runtime) {
        if (closed || runtimes.get(rt.rule.id) !== rt) return;
        const rule = rt.rule;
        // One process runs a tick: the one whose claim of (rule, tick) lands first. A tick is its scheduled second
        // (croner calls back just after it; a process up to half a second early or late names the same one).
        const tick = new Date(Math.round(Date.now() / 1000) * 1000);
        const claimed = await db
            .insert(ruleTicks)
            .values({ ruleId: rule.id, tick })
            .onConflictDoNothing()
            .returning({ ruleId: ruleTicks.ruleId });
        if (!claimed.length || closed) return;
        const input = { kind: 'schedule', time: tick.toISOString() };
        if (!rule.conditions.length && rule.deviceId === null) {
            evaluate({ rt, device: undefined, triggerType: 'schedule', input, eval: { properties: {} } }, false);
            return;
        }
        const rows = await db
            .select({
                deviceId: devices.id,
                deviceName: devices.deviceName,
                props: sql<unknown>`${deviceLatest.props}::text`.mapWith((t: string | null) =>
                    t === null ? {} : JSON.parse(t),
                ),
            })
            .from(devices)
            .leftJoin(deviceLatest, eq(deviceLatest.deviceId, devices.id))
            .where(
                rule.deviceId !== null
                    ? eq(devices.id, rule.deviceId)
                    : and(eq(devices.productId, rule.productId), sql`true`),
            );
        const byDevice = new Map<number, { deviceName: string; properties: Record<string, unknown> }>();
        for (const r of rows) {
            const id = Number(r.deviceId);
            let d = byDevice.get(id);
            if (!d) byDevice.set(id, (d = { deviceName: r.deviceName, properties: {} }));
            for (const [identifier, p] of Object.entries(r.props as Record<string, { v: unknown }>))
                d.properties[identifier] = p.v;
        }
        for (const [deviceId, d] of byDevice) {
            const properties = { ...d.properties, ...(lastValues.get(deviceId) ?? {}) };
            evaluate(
                {
                    rt,
                    device: { deviceId, deviceName: d.deviceName, productKey: rule.productKey },
                    triggerType: 'schedule',
                    input: { ...input, values: properties },
                    eval: { properties },
                },
                false,
            );
        }
    }

    const engine = {
        counters,
        /** Loads the enabled rules (again): after any change to a rule. */
        refresh(): Promise<void> {
            const next = (loading ?? Promise.resolve()).then(load, load);
            loading = next.catch((err) => {
                if (!closed) report('规则加载失败 / loading rules failed:', err);
            });
            return loading;
        },
        /** Listens to the broker once it attaches to the access hub (now if it has already). */
        attach() {
            access.onAttach((backend) => {
                for (const u of unsubscribe) u();
                unsubscribe = [];
                if (backend.uplink) unsubscribe.push(backend.uplink.onAccepted(onMessage));
                unsubscribe.push(backend.traffic.subscribe(() => true, onStatus, ['status']));
            });
            return engine.refresh();
        },
        /** After this process changed a rule: loads the rules again and tells the other processes to. */
        async changed(): Promise<void> {
            await engine.refresh();
            await changes.announce().catch((err) => {
                if (!closed) report('规则变更通知失败 / announcing a rule change failed:', err);
            });
        },
        onMessage,
        onStatus,
        onOtaFailed,
        /** Enabled rules now in memory. */
        get size() {
            return runtimes.size;
        },
        /** Firings, recoveries and notifications under way (tests wait for them). */
        async drain() {
            for (let i = 0; i < 5 && pending.size; i++) await Promise.all([...pending]);
            await notifier.drain();
        },
        async close() {
            closed = true;
            for (const u of unsubscribe) u();
            for (const rt of runtimes.values()) {
                for (const s of rt.states.values()) clearTimeout(s.timer);
                for (const c of rt.crons) c.stop();
            }
            notifier.close();
            await changes.close();
            await Promise.all([...pending]).catch(() => undefined);
        },
    };
    return engine;
}

export type RuleEngine = ReturnType<typeof createRuleEngine>;
