import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Db } from '../../server/db/client';
import type { AccessHub } from '../../server/mqtt/access';
import type { DownlinkResult } from '../../server/mqtt/downlink';
import { runAction, templateVars } from '../../server/rules/fire';
import { evaluate } from '../../server/rules/hold';
import { nextRuntimes } from '../../server/rules/load';
import { buildRuntime, createEngineState, type EngineState, type Runtime } from '../../server/rules/state';
import type { Action, StoredRule } from '../../server/rules/types';

/**
 * The rule engine's steps one at a time (server/rules/hold.ts, fire.ts, load.ts), over a state built without a
 * database: the writes the steps start (hold state, journal) go to a database that accepts anything and answers [].
 */

/** A Drizzle stand-in: every call chains, and awaiting the chain answers []. */
function acceptingDb(): Db {
    const chain: unknown = new Proxy(() => undefined, {
        get: (_t, prop) => (prop === 'then' ? (resolve: (v: unknown) => void) => resolve([]) : () => chain),
        apply: () => chain,
    });
    return chain as Db;
}

const rule = (over: Partial<StoredRule> = {}): StoredRule => ({
    id: 1,
    name: '高温',
    type: 2,
    projectId: null,
    productId: 1,
    productKey: 'pk',
    productName: 'p',
    deviceId: null,
    deviceName: null,
    enabled: true,
    description: null,
    triggers: [{ id: 't', type: 'property' }],
    match: 'all',
    conditions: [{ id: 'c', source: 'property', identifier: 'temp', operator: '>', value: 30 }],
    durationSeconds: 0,
    timeWindow: null,
    actions: [],
    autoClear: true,
    ...over,
});

const device = { deviceId: 7, deviceName: 'd7', productKey: 'pk' };

function setup(r: StoredRule, access: Partial<AccessHub> = {}) {
    const s = createEngineState({
        db: acceptingDb(),
        access: access as AccessHub,
        timeZone: 'Asia/Shanghai',
        now: () => new Date('2026-01-02T03:04:05Z'),
        report: (m, e) => {
            throw new Error(`${m} ${String(e)}`);
        },
    });
    const rt = buildRuntime(r);
    s.runtimes.set(r.id, rt);
    return { s, rt };
}

const post = (s: EngineState, rt: Runtime, temp: number) =>
    evaluate(
        s,
        { rt, device, triggerType: 'property', input: { kind: 'property' }, eval: { properties: { temp } } },
        true,
    );

afterEach(() => {
    vi.useRealTimers();
});

describe('edge firing (hold.ts evaluate)', () => {
    it('fires once when the conditions start to hold, re-arms when they stop, fires again when they hold again', async () => {
        const { s, rt } = setup(rule());
        post(s, rt, 31);
        post(s, rt, 35);
        expect(rt.states.get(7)?.fired).toBe(true);
        expect(s.holding.get(7)?.has(rt)).toBe(true);
        post(s, rt, 20);
        expect(rt.states.has(7)).toBe(false);
        expect(s.holding.has(7)).toBe(false);
        post(s, rt, 40);
        await vi.waitFor(() => expect(s.counters.fired).toBe(2));
        expect(s.counters.evaluated).toBe(4);
    });

    it('a rule without property conditions fires on every matching message and keeps no state', async () => {
        const { s, rt } = setup(
            rule({
                triggers: [{ id: 't', type: 'event', identifier: 'Fault' }],
                conditions: [
                    { id: 'c', source: 'event', identifier: 'Fault', field: 'code', operator: '==', value: 3 },
                ],
            }),
        );
        const fault = (code: number) =>
            evaluate(
                s,
                {
                    rt,
                    device,
                    triggerType: 'event',
                    input: { kind: 'event' },
                    eval: { properties: {}, event: { identifier: 'Fault', values: { code } } },
                },
                false,
            );
        fault(3);
        fault(3);
        fault(4);
        await vi.waitFor(() => expect(s.counters.fired).toBe(2));
        expect(rt.states.size).toBe(0);
    });

    it('a duration fires by timer when the conditions still hold then, and not when they stopped', async () => {
        vi.useFakeTimers();
        const { s, rt } = setup(rule({ durationSeconds: 5 }));
        post(s, rt, 31);
        expect(rt.states.get(7)).toMatchObject({ fired: false });
        expect(rt.states.get(7)?.timer).toBeDefined();
        s.lastValues.set(7, { temp: 33 });
        await vi.advanceTimersByTimeAsync(5_000);
        expect(rt.states.get(7)?.fired).toBe(true);
        expect(s.counters.fired).toBe(1);

        post(s, rt, 10);
        post(s, rt, 31);
        s.lastValues.set(7, { temp: 10 });
        await vi.advanceTimersByTimeAsync(5_000);
        expect(rt.states.get(7)?.fired).toBe(false);
        expect(s.counters.fired).toBe(1);
    });

    it('a time window that is closed keeps the rule from firing', async () => {
        const { s, rt } = setup(rule({ timeWindow: { start: '01:00', end: '02:00' } }));
        post(s, rt, 31);
        expect(rt.states.get(7)?.fired).toBe(false);
        await Promise.resolve();
        expect(s.counters.fired).toBe(0);
    });
});

describe('actions (fire.ts)', () => {
    const downlink = (result: Partial<DownlinkResult>) => ({
        setProperties: vi.fn(async () => ({ messageId: 'm1', state: 'sent', ...result }) as DownlinkResult),
        invokeService: vi.fn(async () => ({ messageId: 'm2', state: 'sent', ...result }) as DownlinkResult),
        rrpc: vi.fn(async () => ({ messageId: 'm3', rrpcCode: 'SUCCESS' as const })),
    });
    const firing = (rt: Runtime) => ({
        rt,
        device,
        triggerType: 'property' as const,
        input: {},
        eval: { properties: { temp: 31 } },
        discrete: false,
    });
    const set: Action = { id: 'a', type: 'setProperty', identifier: 'LightSwitch', value: 1 };

    it('sets a property on the triggering device and says so; a refusal by the device is a failure', async () => {
        const sent = downlink({});
        const { s, rt } = setup(rule(), { downlink: sent } as Partial<AccessHub>);
        expect(await runAction(s, firing(rt), set, {})).toEqual({
            ok: true,
            message: '设置 LightSwitch=1：已下发（消息ID m1）',
        });
        expect(sent.setProperties).toHaveBeenCalledWith(7, { LightSwitch: 1 });

        const refused = downlink({ state: 'replied', code: 460, message: '参数错误' });
        const other = setup(rule(), { downlink: refused } as Partial<AccessHub>);
        expect(await runAction(other.s, firing(other.rt), set, {})).toEqual({
            ok: false,
            message: '设置 LightSwitch=1失败：参数错误',
        });
    });

    it('without a running broker the action fails with the reason', async () => {
        const { s, rt } = setup(rule());
        expect(await runAction(s, firing(rt), set, {})).toEqual({ ok: false, message: '设备接入服务未运行' });
    });

    it("template variables name the level and the first condition's value", () => {
        const { s, rt } = setup(rule());
        expect(templateVars(s, firing(rt), 2)).toMatchObject({
            temp: 31,
            identifier: 'temp',
            value: 31,
            level: '严重',
            deviceName: 'd7',
            ruleName: '高温',
            time: '2026-01-02 11:04:05',
        });
        expect(templateVars(s, firing(rt)).level).toBe('');
    });
});

describe('loading (load.ts nextRuntimes)', () => {
    it('an unchanged rule keeps its runtime and state; a changed one starts fresh', () => {
        const a = buildRuntime(rule());
        const b = buildRuntime(rule({ id: 2 }));
        a.states.set(7, { since: 1, fired: true });
        const next = nextRuntimes(
            new Map([
                [1, a],
                [2, b],
            ]),
            [rule(), rule({ id: 2, durationSeconds: 9 })],
        );
        expect(next.get(1)).toBe(a);
        expect(next.get(2)).not.toBe(b);
        expect(next.get(2)?.states.size).toBe(0);
    });
});
