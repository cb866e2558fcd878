import { Cron } from 'croner';
import { openPairs } from './alertLifecycle';
import { arm } from './hold';
import { loadHolds, storedProperties } from './holdStore';
import { buildIndex } from './ruleIndex';
import {
    buildRuntime,
    hold,
    release,
    signatureOf,
    track,
    type DeviceRef,
    type EngineState,
    type HoldState,
    type Runtime,
} from './state';
import { enabledRules } from './store';
import { scheduled } from './triggers';

/** A rule whose remembered duration is still counting: its timer is armed once the new rules are in place. */
interface Restored {
    rt: Runtime;
    device: DeviceRef;
    state: HoldState;
}

/** The next set of runtimes: an unchanged rule keeps its runtime (and its state), a new or changed one starts fresh. */
export function nextRuntimes(current: Map<number, Runtime>, rules: Runtime['rule'][]): Map<number, Runtime> {
    const next = new Map<number, Runtime>();
    for (const rule of rules) {
        const old = current.get(rule.id);
        next.set(rule.id, old && old.signature === signatureOf(rule) ? old : buildRuntime(rule));
    }
    return next;
}

/** Rules gone or changed: their timers and schedules stop. */
export function stopReplaced(s: EngineState, next: Map<number, Runtime>) {
    for (const [id, old] of s.runtimes) {
        if (next.get(id) === old) continue;
        for (const [deviceId, state] of old.states) {
            clearTimeout(state.timer);
            release(s, old, deviceId);
        }
        for (const c of old.crons) c.stop();
    }
}

/**
 * The state of fresh rules with property conditions as it was before: a rule that raised an alert still open (and
 * not recovered) is holding for that device (no second alert); what the rules remembered before a restart
 * (holdStore.ts) keeps its duration counting, and a fired rule stays fired. Returns the holds still counting.
 */
export async function restoreHolds(s: EngineState, next: Map<number, Runtime>, fresh: Runtime[]): Promise<Restored[]> {
    const restored: Restored[] = [];
    if (!fresh.some((rt) => rt.level)) return restored;
    for (const { ruleId, deviceId } of await openPairs(s.db)) {
        const rt = next.get(ruleId);
        if (rt?.level && fresh.includes(rt)) {
            rt.states.set(deviceId, { since: Date.now(), fired: true });
            hold(s, rt, deviceId);
        }
    }
    const ids = fresh.filter((rt) => rt.level).map((rt) => rt.rule.id);
    for (const h of await loadHolds(s.db, ids)) {
        const rt = next.get(h.ruleId)!;
        const state: HoldState = { since: h.since, fired: h.fired || rt.states.get(h.deviceId)?.fired === true };
        rt.states.set(h.deviceId, state);
        hold(s, rt, h.deviceId);
        if (!state.fired)
            restored.push({
                rt,
                device: { deviceId: h.deviceId, deviceName: h.deviceName, productKey: rt.rule.productKey },
                state,
            });
    }
    return restored;
}

/** The cron schedules of a fresh rule's schedule triggers. */
function startSchedules(s: EngineState, rt: Runtime) {
    for (const t of rt.rule.triggers) {
        if (t.type !== 'schedule' || !t.cron) continue;
        rt.crons.push(new Cron(t.cron, { timezone: s.timeZone }, () => void track(s, scheduled(s, rt))));
    }
}

/** The lookups by product id (a condition index per product) and by productKey. */
export function indexRuntimes(s: EngineState) {
    const products = new Map<number, Runtime[]>();
    const keys = new Map<string, Runtime[]>();
    for (const rt of s.runtimes.values()) {
        products.set(rt.rule.productId, [...(products.get(rt.rule.productId) ?? []), rt]);
        keys.set(rt.rule.productKey, [...(keys.get(rt.rule.productKey) ?? []), rt]);
    }
    s.byProduct = new Map(
        [...products].map(([id, list]) => [id, buildIndex(list.map((rt) => ({ rule: rt.rule, item: rt })))]),
    );
    s.byProductKey = keys;
}

/** Loads the enabled rules into the engine's state. */
export async function loadRules(s: EngineState) {
    const next = nextRuntimes(s.runtimes, await enabledRules(s.db));
    stopReplaced(s, next);
    if (s.closed) return;
    const fresh = [...next.values()].filter((rt) => rt.crons.length === 0 && s.runtimes.get(rt.rule.id) !== rt);
    const restored = await restoreHolds(s, next, fresh);
    for (const rt of fresh) startSchedules(s, rt);
    s.runtimes = next;
    for (const { rt, device, state } of restored) {
        arm(
            s,
            rt,
            device,
            state,
            async () => ({ ...(await storedProperties(s.db, device.deviceId)), ...s.lastValues.get(device.deviceId) }),
            { kind: 'property', restored: true },
        );
    }
    indexRuntimes(s);
}
