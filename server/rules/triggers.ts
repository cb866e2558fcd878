import { and, eq, sql } from 'drizzle-orm';
import { deviceLatest, devices, ruleTicks } from '../db/schema';
import type { TrafficEvent } from '../mqtt/traffic';
import type { AcceptedMessage } from '../mqtt/uplink';
import type { OtaFailure } from '../ota/service';
import type { EvalInput } from './evaluate';
import { evaluate } from './hold';
import type { DeviceRef, EngineState, Runtime } from './state';
import type { Trigger } from './types';

/** What reaches the rule engine: device messages, status changes, failed upgrades and cron ticks. */

export function matches(t: Trigger, m: AcceptedMessage): boolean {
    if (t.type === 'property') return m.kind === 'property' && (!t.identifier || t.identifier in m.values);
    if (t.type === 'event') return m.kind === 'event' && t.identifier === m.identifier;
    return false;
}

/** Rules of the device's product that apply to the device (all of them, or the one device they name). */
function rulesFor(s: EngineState, productKey: string, deviceId: number): Runtime[] {
    return (s.byProductKey.get(productKey) ?? []).filter(
        (rt) => rt.rule.deviceId === null || rt.rule.deviceId === deviceId,
    );
}

/** Every accepted property or event post (broker.uplink.onAccepted). */
export function onMessage(s: EngineState, m: AcceptedMessage) {
    const index = s.byProduct.get(m.device.productId);
    if (!index) return;
    const seq = ++s.messageSeq;
    const deviceId = m.device.deviceId;
    let properties = s.lastValues.get(deviceId);
    if (!properties) s.lastValues.set(deviceId, (properties = {}));
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
        const hit = rt.rule.triggers.find((t) => matches(t, m));
        if (hit) evaluate(s, { rt, device, triggerType: hit.type, input, eval: ev }, hit.type === 'property');
    };
    for (const rt of index.plain) consider(rt);
    if (m.kind === 'property') {
        index.visit(properties, consider);
        // Rules holding for the device whose indexed conditions no longer hold: they recover.
        const held = s.holding.get(deviceId);
        if (held) for (const rt of [...held]) consider(rt);
    }
}

/** Device status changes (broker traffic, direction 'status'). */
export function onStatus(s: EngineState, e: TrafficEvent) {
    if (!s.byProductKey.has(e.productKey)) return;
    const status = e.payload === 'online' ? 'online' : 'offline';
    const device: DeviceRef = { deviceId: e.deviceId, deviceName: e.deviceName, productKey: e.productKey };
    for (const rt of rulesFor(s, e.productKey, e.deviceId)) {
        const hit = rt.rule.triggers.find((t) => t.type === 'status' && (t.status === 'any' || t.status === status));
        if (!hit) continue;
        const properties = s.lastValues.get(e.deviceId) ?? {};
        evaluate(
            s,
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
export function onOtaFailed(s: EngineState, e: OtaFailure) {
    if (!s.byProductKey.has(e.productKey)) return;
    const device: DeviceRef = { deviceId: e.deviceId, deviceName: e.deviceName, productKey: e.productKey };
    const values = {
        packageName: e.packageName,
        version: e.version,
        module: e.module,
        step: e.step,
        reason: e.reason,
        batchId: e.batchId,
    };
    for (const rt of rulesFor(s, e.productKey, e.deviceId)) {
        const hit = rt.rule.triggers.find((t) => t.type === 'otaFailed' && (!t.module || t.module === e.module));
        if (!hit) continue;
        const properties = s.lastValues.get(e.deviceId) ?? {};
        evaluate(
            s,
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

/**
 * Claims a cron tick of the rule for this process: the process whose claim of (rule, tick) lands first runs it. A
 * tick is its scheduled second (croner calls back just after it; a process up to half a second early or late names
 * the same one). The tick, or undefined when another process has it.
 */
export async function claimTick(s: EngineState, ruleId: number): Promise<Date | undefined> {
    const tick = new Date(Math.round(Date.now() / 1000) * 1000);
    const claimed = await s.db
        .insert(ruleTicks)
        .values({ ruleId, tick })
        .onConflictDoNothing()
        .returning({ ruleId: ruleTicks.ruleId });
    return claimed.length ? tick : undefined;
}

/** The devices a scheduled rule checks (its one device, or all of its product) with their stored property values. */
async function scheduledDevices(s: EngineState, rt: Runtime) {
    const rule = rt.rule;
    const rows = await s.db
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
    return byDevice;
}

/** A cron tick: each device of the rule (one, or all of its product when it has conditions) is checked. */
export async function scheduled(s: EngineState, rt: Runtime) {
    if (s.closed || s.runtimes.get(rt.rule.id) !== rt) return;
    const rule = rt.rule;
    const tick = await claimTick(s, rule.id);
    if (!tick || s.closed) return;
    const input = { kind: 'schedule', time: tick.toISOString() };
    if (!rule.conditions.length && rule.deviceId === null) {
        evaluate(s, { rt, device: undefined, triggerType: 'schedule', input, eval: { properties: {} } }, false);
        return;
    }
    for (const [deviceId, d] of await scheduledDevices(s, rt)) {
        const properties = { ...d.properties, ...(s.lastValues.get(deviceId) ?? {}) };
        evaluate(
            s,
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
