import { recoverAlert } from './alertLifecycle';
import { inTimeWindow, type EvalInput } from './evaluate';
import { fireRule, notifyRecovery } from './fire';
import { dropHold, saveHold } from './holdStore';
import {
    hold,
    inOrder,
    release,
    track,
    type DeviceRef,
    type EngineState,
    type Firing,
    type HoldState,
    type Runtime,
} from './state';
import type { Action } from './types';

/**
 * Rules with property conditions fire on the edge: once when the conditions start to hold (after durationSeconds
 * when set, checked on the next message and by a timer), and they re-arm when the conditions stop holding (their
 * alerts then recover). Event, status and schedule triggers, and rules without property conditions, fire on each
 * matching message. A time window gates firing.
 */

/** Fires the rule in its (rule, device) chain; the journal dates the firing now, when it was decided. */
export function startFiring(s: EngineState, f: Firing) {
    const at = s.now();
    inOrder(s, f.rt, f.device?.deviceId, () => fireRule(s, f, at), '规则执行失败 / rule firing failed:');
}

/** Evaluates a rule for one trigger; `triggerIsLevel` when a property post triggered it (edge firing applies). */
export function evaluate(s: EngineState, f: Omit<Firing, 'discrete'>, triggerIsLevel: boolean) {
    s.counters.evaluated++;
    const { rt, device } = f;
    const rule = rt.rule;
    const holds = rt.holds(f.eval);
    if (!rt.level || !triggerIsLevel || !device) {
        if (holds && inTimeWindow(rule.timeWindow, s.now(), s.timeZone)) startFiring(s, { ...f, discrete: true });
        return;
    }
    let state = rt.states.get(device.deviceId);
    if (!holds) {
        if (state) stopHolding(s, f, device, state);
        return;
    }
    const t = Date.now();
    let changed = false;
    if (!state) {
        state = { since: t, fired: false };
        rt.states.set(device.deviceId, state);
        hold(s, rt, device.deviceId);
        changed = true;
    }
    if (state.fired) return;
    const due = state.since + rule.durationSeconds * 1000;
    if (t >= due && inTimeWindow(rule.timeWindow, s.now(), s.timeZone)) {
        state.fired = true;
        clearTimeout(state.timer);
        remember(s, rt, device.deviceId, state);
        startFiring(s, { ...f, discrete: false });
        return;
    }
    if (changed) remember(s, rt, device.deviceId, state);
    if (t < due) arm(s, rt, device, state, () => s.lastValues.get(device.deviceId) ?? f.eval.properties, f.input);
}

/** The conditions no longer hold for the device: its state goes, and a rule that fired recovers. */
function stopHolding(s: EngineState, f: Omit<Firing, 'discrete'>, device: DeviceRef, state: HoldState) {
    const { rt } = f;
    clearTimeout(state.timer);
    rt.states.delete(device.deviceId);
    release(s, rt, device.deviceId);
    remember(s, rt, device.deviceId, undefined);
    if (state.fired) recover(s, rt, device, f.eval);
}

/** Fires the rule for the device when its duration is up, if the conditions still hold then (no message needed). */
export function arm(
    s: EngineState,
    rt: Runtime,
    device: DeviceRef,
    state: HoldState,
    values: () => Record<string, unknown> | Promise<Record<string, unknown>>,
    input: Record<string, unknown>,
) {
    if (state.timer) return;
    const rule = rt.rule;
    state.timer = setTimeout(
        () => {
            state.timer = undefined;
            const live = () =>
                !s.closed && rt.states.get(device.deviceId) === state && !state.fired && s.runtimes.get(rule.id) === rt;
            if (!live() || !inTimeWindow(rule.timeWindow, s.now(), s.timeZone)) return;
            void track(
                s,
                Promise.resolve(values()).then((properties) => {
                    if (!live() || !rt.holds({ properties })) return;
                    state.fired = true;
                    remember(s, rt, device.deviceId, state);
                    startFiring(s, {
                        rt,
                        device,
                        triggerType: 'property',
                        input,
                        eval: { properties },
                        discrete: false,
                    });
                }),
            );
        },
        Math.max(0, state.since + rule.durationSeconds * 1000 - Date.now()),
    );
    state.timer.unref?.();
}

/** The rule's state for the device, kept in the database in the order it changed (holdStore.ts). */
export function remember(s: EngineState, rt: Runtime, deviceId: number, state: HoldState | undefined) {
    const { since = 0, fired = false } = state ?? {};
    inOrder(
        s,
        rt,
        deviceId,
        () => (state ? saveHold(s.db, rt.rule.id, deviceId, since, fired) : dropHold(s.db, rt.rule.id, deviceId)),
        '规则状态保存失败 / saving rule state failed:',
    );
}

/** The conditions stopped holding for a device after the rule fired: its alerts recover, recovery notifications go. */
export function recover(s: EngineState, rt: Runtime, device: DeviceRef, ev: EvalInput) {
    const notifies = rt.rule.actions.filter(
        (a): a is Extract<Action, { type: 'notify' }> => a.type === 'notify' && a.onRecover === true,
    );
    if (!rt.hasAlert && !notifies.length) return;
    const f: Firing = { rt, device, triggerType: 'property', input: { kind: 'recover' }, eval: ev, discrete: false };
    inOrder(
        s,
        rt,
        device.deviceId,
        async () => {
            const alertIds = rt.hasAlert
                ? await recoverAlert(s.db, rt.rule.id, device.deviceId, rt.rule.autoClear, s.now())
                : [];
            for (const a of notifies) {
                await notifyRecovery(s, f, a, alertIds[0]).catch((err) => {
                    if (!s.closed) s.report('恢复通知失败 / recovery notification failed:', err);
                });
            }
        },
        '告警恢复失败 / alert recovery failed:',
    );
}
