import type { Cron } from 'croner';
import type { Db } from '../db/client';
import type { AccessHub } from '../mqtt/access';
import { createDirectory } from '../mqtt/directory';
import { compileConditions, type EvalInput } from './evaluate';
import { createNotifier, type Notifier, type NotifyOptions } from './notify';
import type { RuleIndex } from './ruleIndex';
import type { StoredRule, Trigger } from './types';

/** A rule with property conditions, for one device: since when its conditions hold and whether it fired. */
export interface HoldState {
    since: number;
    fired: boolean;
    timer?: NodeJS.Timeout;
}

/** An enabled rule as the engine runs it. */
export interface Runtime {
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

export interface DeviceRef {
    deviceId: number;
    deviceName: string;
    productKey: string;
}

/** One evaluation that fires (or recovers) a rule: the rule, the device, and what triggered it. */
export interface Firing {
    rt: Runtime;
    device: DeviceRef | undefined;
    triggerType: Trigger['type'];
    input: Record<string, unknown>;
    eval: EvalInput;
    discrete: boolean;
}

/** Everything the rule engine's steps share: its dependencies, the rules in memory and the work under way. */
export interface EngineState {
    db: Db;
    access: AccessHub;
    timeZone: string;
    now: () => Date;
    report: (message: string, err: unknown) => void;
    directory: Pick<ReturnType<typeof createDirectory>, 'byName'>;
    notifier: Notifier;
    runtimes: Map<number, Runtime>;
    byProduct: Map<number, RuleIndex<Runtime>>;
    byProductKey: Map<string, Runtime[]>;
    /** Rules holding state (conditions held) per device: they are evaluated on its messages whatever the index says. */
    holding: Map<number, Set<Runtime>>;
    /** Latest property values of devices of products that have rules. */
    lastValues: Map<number, Record<string, unknown>>;
    /** Firings, recoveries and state writes under way. */
    pending: Set<Promise<unknown>>;
    /** The tail of each (rule, device) chain of work (inOrder). */
    chains: Map<string, Promise<unknown>>;
    messageSeq: number;
    closed: boolean;
    counters: { evaluated: number; fired: number };
}

export interface EngineStateOptions {
    db: Db;
    access: AccessHub;
    timeZone: string;
    now?: () => Date;
    report?: (message: string, err: unknown) => void;
    notify?: NotifyOptions;
}

export function createEngineState(o: EngineStateOptions): EngineState {
    return {
        db: o.db,
        access: o.access,
        timeZone: o.timeZone,
        now: o.now ?? (() => new Date()),
        report: o.report ?? ((m: string, e: unknown) => console.error(m, e)),
        directory: createDirectory(o.db),
        notifier: createNotifier(o.db, o.notify),
        runtimes: new Map(),
        byProduct: new Map(),
        byProductKey: new Map(),
        holding: new Map(),
        lastValues: new Map(),
        pending: new Set(),
        chains: new Map(),
        messageSeq: 0,
        closed: false,
        counters: { evaluated: 0, fired: 0 },
    };
}

export const signatureOf = (r: StoredRule) => JSON.stringify(r);

export function buildRuntime(rule: StoredRule): Runtime {
    return {
        rule,
        signature: signatureOf(rule),
        level: rule.conditions.some((c) => c.source === 'property'),
        states: new Map(),
        crons: [],
        hasAlert: rule.actions.some((a) => a.type === 'alert'),
        stamp: 0,
        holds: compileConditions(rule.conditions, rule.match),
    };
}

/** Keeps a promise in `pending` until it settles (drain and close wait for it). */
export function track<T>(s: EngineState, p: Promise<T>): Promise<T> {
    s.pending.add(p);
    void p.finally(() => s.pending.delete(p)).catch(() => undefined);
    return p;
}

export function hold(s: EngineState, rt: Runtime, deviceId: number) {
    let set = s.holding.get(deviceId);
    if (!set) s.holding.set(deviceId, (set = new Set()));
    set.add(rt);
}

export function release(s: EngineState, rt: Runtime, deviceId: number) {
    const set = s.holding.get(deviceId);
    if (!set) return;
    set.delete(rt);
    if (!set.size) s.holding.delete(deviceId);
}

/**
 * A rule's firings and recoveries for one device run one after the other, in the order they happened: a recovery
 * never overtakes the firing that opened the alert (PostgreSQL's pool would run them side by side).
 */
export function inOrder(
    s: EngineState,
    rt: Runtime,
    deviceId: number | undefined,
    work: () => Promise<unknown>,
    what: string,
) {
    const key = `${rt.rule.id}:${deviceId ?? ''}`;
    const next = (s.chains.get(key) ?? Promise.resolve()).then(work).catch((err) => {
        if (!s.closed) s.report(what, err);
    });
    s.chains.set(key, next);
    void next.then(() => {
        if (s.chains.get(key) === next) s.chains.delete(key);
    });
    void track(s, next);
}
