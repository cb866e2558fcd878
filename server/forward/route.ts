import { sql } from 'drizzle-orm';
import type { ForwardRecord, Sender } from './destinations/types';
import { DestinationError } from './destinations/types';
import type { FlowMessage } from './sql';
import { claimRoute, moveRoute, releaseRoute, type LeaseHolder } from './lease';
import { flowMessageOf, type StoredMessage } from './messages';
import { sharedReads, type ReadMessages } from './readShare';

/**
 * One route (a flow's destination) sent by this process: it reads device_messages after its position, runs the flow's
 * SQL on each, sends what was selected in order and moves its position on only once the destination acknowledged
 * (server/forward/lease.ts: fenced by ownership). A failing send is retried with backoff, the backlog waiting in the
 * store; a record the destination refuses for good (DestinationError.permanent) is sent alone and, refused again,
 * goes to the dead letters so the flow goes on. A backlog past its bounds (size, or an outage longer than its hours)
 * is skipped and counted as dropped.
 */

export interface RouteFlow {
    id: number;
    name: string;
    /** Only this project's devices' messages are the flow's. */
    projectId: number;
    run(message: FlowMessage): Record<string, unknown> | undefined;
}

export interface RouteOptions {
    batch: number;
    /** Sends of one batch before it is split (permanent failures) and attempts of a record before its dead letter. */
    maxAttempts: number;
    backlogMax: number;
    backlogHours: number;
    /** Wait between polls with nothing to read, ms. */
    idleMs: number;
    backoffMs: (attempt: number) => number;
}

export interface RouteFigures {
    selected: number;
    sent: number;
    failed: number;
    dead: number;
    dropped: number;
    lastError?: string;
}

export interface RouteDeps {
    lease: LeaseHolder;
    routeId: number;
    flow: RouteFlow;
    sender: Sender;
    /** The highest message id routes may read (server/forward/horizon.ts), given this route's position. */
    horizon: (position: number) => Promise<number>;
    /** How the route reads its project's messages (server/forward/readShare.ts; default a reader of its own). */
    read?: ReadMessages;
    options: RouteOptions;
    log: (message: string) => void;
}

interface RouteState extends RouteDeps {
    read: ReadMessages;
    position: number | undefined;
    /** The UPDATE moving the position past the last batch sent, while it runs (the position is already past it). */
    moving: Promise<void> | undefined;
    /** When this process last claimed or renewed the route's lease (its own clock). */
    heldAt: number;
    stopped: boolean;
    wakeUp: (() => void) | undefined;
    stalledSince: number | undefined;
    figures: RouteFigures;
}

export interface RouteWorker {
    figures: RouteFigures;
    /** New messages may be there: read now rather than after the idle wait. */
    wake(): void;
    stop(): Promise<void>;
}

export function startRoute(deps: RouteDeps): RouteWorker {
    const s: RouteState = {
        ...deps,
        read: deps.read ?? sharedReads(deps.lease.db, deps.options.batch),
        position: undefined,
        moving: undefined,
        heldAt: 0,
        stopped: false,
        wakeUp: undefined,
        stalledSince: undefined,
        figures: { selected: 0, sent: 0, failed: 0, dead: 0, dropped: 0 },
    };
    const done = runRoute(s);
    return {
        figures: s.figures,
        wake: () => s.wakeUp?.(),
        async stop() {
            s.stopped = true;
            s.wakeUp?.();
            await done;
            await settled(s);
            await releaseRoute(s.lease, s.routeId).catch(() => undefined);
        },
    };
}

async function runRoute(s: RouteState) {
    while (!s.stopped) {
        try {
            const worked = await step(s);
            if (!worked) await pause(s, s.options.idleMs);
        } catch (err) {
            s.log(`数据流转 ${s.flow.name} 出错（稍后重试） / forwarding route ${s.routeId} failed: ${String(err)}`);
            s.position = undefined;
            await pause(s, 1000);
        }
    }
}

/** One read-select-send round; false when there was nothing to do. */
async function step(s: RouteState): Promise<boolean> {
    if (s.position === undefined) {
        await settled(s);
        s.position = await claimRoute(s.lease, s.routeId);
        if (s.position === undefined) return false;
        s.heldAt = Date.now();
    }
    if (!(await leaseKept(s))) return false;
    const upTo = await s.horizon(s.position);
    if (upTo <= s.position) return false;
    if (await dropPastBounds(s, upTo)) return true;
    const { messages, through } = await s.read(s.flow.projectId, s.position, upTo);
    if (!messages.length) return move(s, { position: through });
    const records = select(s, messages);
    // The last batch's move is confirmed before this one is sent: a process that lost the route sends nothing more.
    if (!(await settled(s))) return true;
    const outcome = records.length ? await deliver(s, records) : { sent: 0, dead: 0 };
    if (outcome === undefined) return true;
    moveOn(s, { position: through, selected: records.length, ...outcome });
    return true;
}

/** What the flow's SQL selects from the messages, as records. */
function select(s: RouteState, messages: StoredMessage[]): Array<{ record: ForwardRecord; messageId: number }> {
    const out: Array<{ record: ForwardRecord; messageId: number }> = [];
    for (const m of messages) {
        const message = flowMessageOf(m);
        const row = s.flow.run(message);
        if (!row) continue;
        out.push({
            messageId: m.id,
            record: {
                id: `${m.id}-${s.flow.id}`,
                flowId: s.flow.id,
                flowName: s.flow.name,
                productKey: m.productKey,
                deviceName: m.deviceName,
                topic: message.topic,
                ts: m.ts.getTime(),
                row,
            },
        });
    }
    s.figures.selected += out.length;
    return out;
}

type Outcome = { sent: number; dead: number };

/** Sends the records: the counts once all were acknowledged or dead-lettered, undefined when interrupted. */
async function deliver(s: RouteState, items: Array<{ record: ForwardRecord; messageId: number }>) {
    const whole = await sendRetrying(
        s,
        items.map((i) => i.record),
    );
    if (whole === 'interrupted') return undefined;
    if (whole.ok) return settle(s, { sent: items.length, dead: 0 });
    // Refused for good: each record alone, so only the ones refused again go to the dead letters.
    const outcome: Outcome = { sent: 0, dead: 0 };
    for (const item of items) {
        const one = await sendRetrying(s, [item.record]);
        if (one === 'interrupted') return undefined;
        if (one.ok) outcome.sent++;
        else {
            await deadLetter(s, item, one.error, one.attempts);
            outcome.dead++;
        }
    }
    return settle(s, outcome);
}

function settle(s: RouteState, o: Outcome): Outcome {
    s.figures.sent += o.sent;
    s.figures.dead += o.dead;
    s.stalledSince = undefined;
    return o;
}

type SendResult = { ok: true } | { ok: false; error: string; attempts: number };

/**
 * Sends until acknowledged, or refused for good `maxAttempts` times; a failure that may pass (the destination down,
 * a timeout) is retried with backoff for as long as it lasts, the backlog waiting in the store. 'interrupted': the
 * route was stopped, taken by another process, or stalled past its hours (the next round drops the backlog).
 */
async function sendRetrying(s: RouteState, records: ForwardRecord[]): Promise<SendResult | 'interrupted'> {
    let refused = 0;
    for (let attempt = 1; ; attempt++) {
        if (s.stopped) return 'interrupted';
        try {
            await s.sender.send(records);
            return { ok: true };
        } catch (err) {
            const message = err instanceof Error ? err.message : String(err);
            noteFailure(s, message);
            if (!(await keepRoute(s))) return 'interrupted';
            const permanent = err instanceof DestinationError && err.permanent;
            if (permanent && ++refused >= s.options.maxAttempts)
                return { ok: false, error: message, attempts: attempt };
            await pause(s, s.options.backoffMs(attempt));
            if (stalledTooLong(s)) return 'interrupted';
        }
    }
}

function stalledTooLong(s: RouteState): boolean {
    return s.stalledSince !== undefined && Date.now() - s.stalledSince > s.options.backlogHours * 3_600_000;
}

function noteFailure(s: RouteState, message: string) {
    s.figures.failed++;
    s.figures.lastError = message;
    s.stalledSince ??= Date.now();
}

/**
 * Renews the lease once a third of it has passed since the last renewal: an idle route moves nothing, and its lease
 * would otherwise lapse while this process still sends it (another claims it, both send the next messages); a process
 * resumed after a pause longer than the lease learns here that the route was taken, before sending. False then.
 */
async function leaseKept(s: RouteState): Promise<boolean> {
    if (Date.now() - s.heldAt < s.lease.leaseMs / 3) return true;
    await move(s, { position: s.position! });
    return s.position !== undefined;
}

/** While retrying: renews the lease and records the failure; false when another process took the route. */
async function keepRoute(s: RouteState): Promise<boolean> {
    if (s.position === undefined) return false;
    const held = await moveRoute(s.lease, s.routeId, { position: s.position, failed: 1, error: s.figures.lastError });
    if (held) s.heldAt = Date.now();
    else s.position = undefined;
    return held;
}

async function deadLetter(
    s: RouteState,
    item: { record: ForwardRecord; messageId: number },
    error: string,
    attempts: number,
) {
    await s.lease.db.execute(sql`
        INSERT INTO forward_dead_letters (route_id, message_id, record, error, attempts)
        VALUES (${s.routeId}, ${item.messageId}, ${JSON.stringify(item.record)}::jsonb, ${error.slice(0, 1000)}, ${attempts})`);
}

/**
 * Skips the backlog past its bounds: more than backlogMax messages behind, or stalled longer than backlogHours (the
 * position then jumps to the horizon). True when it skipped.
 */
async function dropPastBounds(s: RouteState, upTo: number): Promise<boolean> {
    const position = s.position!;
    const target = stalledTooLong(s) ? upTo : upTo - s.options.backlogMax;
    if (target <= position) return false;
    const dropped = target - position;
    s.figures.dropped += dropped;
    s.stalledSince = undefined;
    s.log(
        `数据流转 ${s.flow.name} 积压超限，丢弃 ${dropped} 条 / forwarding route ${s.routeId} dropped ${dropped} messages`,
    );
    return move(s, { position: target, dropped });
}

/**
 * Moves the position on after a batch was acknowledged without waiting for the UPDATE: the next batch is read and
 * selected meanwhile, and sent only once the UPDATE confirmed the route is still this process's (settled).
 */
function moveOn(s: RouteState, p: Parameters<typeof moveRoute>[2]) {
    const before = s.moving;
    s.position = p.position;
    s.moving = (async () => {
        await before;
        const held = await moveRoute(s.lease, s.routeId, p);
        if (held) s.heldAt = Date.now();
        else s.position = undefined;
    })().catch((err: unknown) => {
        s.log(
            `数据流转 ${s.flow.name} 进度保存失败（稍后重试） / forwarding route ${s.routeId} could not move: ${String(err)}`,
        );
        s.position = undefined;
    });
}

/** Waits for the position's UPDATE in flight, if any; false when the route is no longer this process's. */
async function settled(s: RouteState): Promise<boolean> {
    while (s.moving) {
        const moving = s.moving;
        await moving;
        if (s.moving === moving) s.moving = undefined;
    }
    return s.position !== undefined;
}

async function move(s: RouteState, p: Parameters<typeof moveRoute>[2]): Promise<boolean> {
    if (!(await settled(s))) return true;
    const held = await moveRoute(s.lease, s.routeId, p);
    s.position = held ? p.position : undefined;
    if (held) s.heldAt = Date.now();
    return true;
}

function pause(s: RouteState, ms: number): Promise<void> {
    if (s.stopped) return Promise.resolve();
    return new Promise((resolve) => {
        const timer = setTimeout(done, ms);
        function done() {
            clearTimeout(timer);
            s.wakeUp = undefined;
            resolve();
        }
        s.wakeUp = done;
    });
}
