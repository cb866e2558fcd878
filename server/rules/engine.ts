import type { Db } from '../db/client';
import type { AccessHub } from '../mqtt/access';
import type { TrafficEvent } from '../mqtt/traffic';
import type { AcceptedMessage } from '../mqtt/uplink';
import type { OtaFailure } from '../ota/service';
import { listenForChanges, RULES_CHANNEL } from '../db/changes';
import { loadRules } from './load';
import type { NotifyOptions } from './notify';
import { createEngineState, type EngineState } from './state';
import { onMessage, onOtaFailed, onStatus } from './triggers';

/**
 * The rule engine (docs/rules.md): enabled rules indexed in memory by product, evaluated on every accepted device
 * message, status change and cron tick. A message of a product with no rule costs one Map lookup; the database is
 * touched only when a rule fires or recovers. A failing action is recorded in the journal; the rule keeps running.
 *
 * The steps live beside this file: loading rules (load.ts), what triggers them (triggers.ts), edge firing, durations
 * and recovery (hold.ts), running the actions (fire.ts), over the state in state.ts.
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

export function createRuleEngine({ db, access, timeZone, now, logError, options = {}, databaseUrl }: Deps) {
    const s = createEngineState({ db, access, timeZone, now, report: logError, notify: options.notify });
    const changes = listenForChanges(db, databaseUrl, RULES_CHANNEL, () => void engine.refresh(), s.report);
    let loading: Promise<void> | undefined;
    let unsubscribe: Array<() => void> = [];

    const engine = {
        counters: s.counters,
        /** Loads the enabled rules (again): after any change to a rule. */
        refresh(): Promise<void> {
            const load = () => loadRules(s);
            const next = (loading ?? Promise.resolve()).then(load, load);
            loading = next.catch((err) => {
                if (!s.closed) s.report('规则加载失败 / loading rules failed:', err);
            });
            return loading;
        },
        /** Listens to the broker once it attaches to the access hub (now if it has already). */
        attach() {
            access.onAttach((backend) => {
                for (const u of unsubscribe) u();
                unsubscribe = [];
                if (backend.uplink) unsubscribe.push(backend.uplink.onAccepted(engine.onMessage));
                unsubscribe.push(backend.traffic.subscribe(() => true, engine.onStatus, ['status']));
            });
            return engine.refresh();
        },
        /** After this process changed a rule: loads the rules again and tells the other processes to. */
        async changed(): Promise<void> {
            await engine.refresh();
            await changes.announce().catch((err) => {
                if (!s.closed) s.report('规则变更通知失败 / announcing a rule change failed:', err);
            });
        },
        onMessage: (m: AcceptedMessage) => onMessage(s, m),
        onStatus: (e: TrafficEvent) => onStatus(s, e),
        onOtaFailed: (e: OtaFailure) => onOtaFailed(s, e),
        /** Enabled rules now in memory. */
        get size() {
            return s.runtimes.size;
        },
        /** Firings, recoveries and notifications under way (tests wait for them). */
        drain: () => drain(s),
        async close() {
            s.closed = true;
            for (const u of unsubscribe) u();
            stopAll(s);
            s.notifier.close();
            await changes.close();
            await Promise.all([...s.pending]).catch(() => undefined);
        },
    };
    return engine;
}

export type RuleEngine = ReturnType<typeof createRuleEngine>;

/** Waits for the work under way, and for the work that work started. */
export async function drain(s: EngineState) {
    for (let i = 0; i < 5 && s.pending.size; i++) await Promise.all([...s.pending]);
    await s.notifier.drain();
}

/** Every duration timer and cron schedule stops. */
export function stopAll(s: EngineState) {
    for (const rt of s.runtimes.values()) {
        for (const state of rt.states.values()) clearTimeout(state.timer);
        for (const c of rt.crons) c.stop();
    }
}
