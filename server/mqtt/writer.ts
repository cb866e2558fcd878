import { isFenceRefusal, type FenceToken } from '../cluster/fence';
import type { Db } from '../db/client';
import { requestMaintenance } from '../db/partitions';
import { PROPERTY_POST } from '../domain/telemetry';
import { storedAlready } from './resend';
import { outsideMadeDays, writeBatch, type MessageWrite } from './writerBatch';

export type { MessageWrite } from './writerBatch';

/**
 * Device messages in batches: what arrives within a few milliseconds is written by one statement
 * (server/mqtt/writerBatch.ts), so ingest is limited by rows, not by round trips. Each write resolves when its batch
 * is committed and rejects when its message could not be stored (the broker then withholds the PUBACK). A batch that
 * fails (a device deleted meanwhile, a database blip) is retried one message at a time, so one bad row fails alone.
 * A message that may be a device's resend is first looked up (server/mqtt/resend.ts): found, it is not written again.
 */

/** What became of a write: stored now, or found stored already (a device's resend of a message it sent before). */
export type WriteOutcome = 'stored' | 'resent';

interface Pending extends MessageWrite {
    done: (err?: unknown, outcome?: WriteOutcome) => void;
    /** In a cluster: the member's incarnation when the message was accepted (FenceToken.incarnation). */
    incarnation?: string;
    /** The rest of a group written with this message, all or none (a batch or history post: writeAll). */
    more?: MessageWrite[];
}

/** The rows of the pending messages, each group's in order. */
const groupRows = (batch: Pending[]): MessageWrite[] =>
    batch.some((p) => p.more) ? batch.flatMap((p) => (p.more ? [p, ...p.more] : [p])) : batch;

export const MAX_BATCH = 1_000;

/** The longest a lone message waits for company. */
const LINGER_MS = 4;

export interface WriterState {
    db: Db;
    queue: Pending[];
    batchObservers: Array<(ms: number, size: number) => void>;
    timer: NodeJS.Timeout | undefined;
    flushing: Promise<void> | undefined;
    written: number;
    batches: number;
    /**
     * In a cluster: this member's lease ran out. A batch is not written then: a process resumed after a pause would
     * store what it had queued before, while the device, unacknowledged, sent it again to the member that took it.
     */
    fenced: () => boolean;
    /**
     * In a cluster: the member's fencing token now. Each message keeps the incarnation it was accepted under; a batch
     * names the token to the database, which refuses it once the lease has lapsed (a batch under way when the process
     * was paused), and a message accepted under an earlier incarnation is refused here.
     */
    fence: () => FenceToken | undefined;
}

export interface WriterOptions {
    fenced?: () => boolean;
    fence?: () => FenceToken | undefined;
}

export function writerState(db: Db, options: WriterOptions = {}): WriterState {
    const { fenced = () => false, fence = () => undefined } = options;
    return {
        db,
        queue: [],
        batchObservers: [],
        timer: undefined,
        flushing: undefined,
        written: 0,
        batches: 0,
        fenced,
        fence,
    };
}

/** Why a queued message was not written: this member is fenced (its PUBACK is withheld). */
export class FencedWrite extends Error {
    constructor() {
        super('本节点心跳已过期，不再写入消息');
    }
}

/**
 * The batch's messages that may be resends and are stored already (looked up in one statement). A group is looked up
 * by its first row: it was stored whole or not at all.
 */
async function resentOf(s: WriterState, batch: Pending[]): Promise<Set<Pending>> {
    const candidates = batch.filter((p) => p.delivery?.checkResent);
    if (!candidates.length) return new Set();
    const probes = candidates.map((p) => ({
        deviceId: p.deviceId,
        resendKey: p.delivery!.resendKey,
        ts: p.ts.getTime(),
    }));
    const found = await storedAlready(s.db, probes);
    return new Set(candidates.filter((_, i) => found.has(i)));
}

/**
 * Writes `batch` but its resends, asks for partition maintenance when it held a message outside the days made ahead,
 * and answers the resends it left out. Rejects, having answered none, when the lookup or the statement failed.
 */
async function store(s: WriterState, batch: Pending[], fence: FenceToken | undefined): Promise<Pending[]> {
    const resent = await resentOf(s, batch);
    const fresh = resent.size ? batch.filter((p) => !resent.has(p)) : batch;
    const rows = groupRows(fresh);
    if (rows.length) await writeBatch(s.db, rows, fence);
    if (rows.some((m) => outsideMadeDays(m.ts.getTime()))) requestMaintenance(s.db);
    for (const p of resent) p.done(undefined, 'resent');
    return fresh;
}

/**
 * Each message of a failed batch on its own: those that fail again reject (nothing of them is stored, the
 * statement being atomic), the others resolve.
 */
export async function retryOneByOne(s: WriterState, batch: Pending[], fence?: FenceToken): Promise<void> {
    for (const p of batch) {
        try {
            if ((await store(s, [p], fence)).length) {
                s.written += 1 + (p.more?.length ?? 0);
                p.done(undefined, 'stored');
            }
        } catch (err) {
            p.done(isFenceRefusal(err) ? new FencedWrite() : err);
        }
    }
}

/**
 * The batch's messages that may still be written under `fence` (all of them outside a cluster); the others, accepted
 * under an incarnation the member has since left, are refused now.
 */
function admitted(batch: Pending[], fence: FenceToken | undefined): Pending[] {
    if (!fence || batch.every((p) => p.incarnation === fence.incarnation)) return batch;
    const kept: Pending[] = [];
    for (const p of batch) {
        if (p.incarnation === fence.incarnation) kept.push(p);
        else p.done(new FencedWrite());
    }
    return kept;
}

/** Writes the next batch of queued messages; settles each message's promise. */
export async function flush(s: WriterState): Promise<void> {
    s.timer = undefined;
    const fence = s.fence();
    const batch = admitted(s.queue.splice(0, MAX_BATCH), fence);
    if (!batch.length) return;
    if (s.fenced()) {
        for (const p of batch) p.done(new FencedWrite());
        return;
    }
    const started = performance.now();
    let fresh: Pending[];
    try {
        fresh = await store(s, batch, fence);
    } catch (err) {
        if (!isFenceRefusal(err)) return retryOneByOne(s, batch, fence);
        for (const p of batch) p.done(new FencedWrite());
        return;
    }
    const rows = groupRows(fresh).length;
    for (const fn of s.batchObservers) fn(performance.now() - started, rows);
    s.written += rows;
    s.batches++;
    for (const p of fresh) p.done(undefined, 'stored');
}

function run(s: WriterState) {
    if (s.timer) clearTimeout(s.timer);
    s.timer = undefined;
    s.flushing = flush(s).finally(() => {
        s.flushing = undefined;
        // What came in during the flush has waited already: written at once, not after another linger.
        if (s.queue.length) run(s);
    });
}

function schedule(s: WriterState) {
    if (s.flushing || s.timer) return;
    if (s.queue.length >= MAX_BATCH) run(s);
    else s.timer = setTimeout(() => run(s), LINGER_MS);
}

/**
 * Queues `message` (as it is, not copied) with the rest of its group (`more`, written in the same statement: all or
 * none); resolves once it is committed (or found stored already: a resend), rejects when it could not be.
 */
export function enqueue(s: WriterState, message: MessageWrite, more?: MessageWrite[]): Promise<WriteOutcome> {
    return new Promise((resolve, reject) => {
        const pending = message as Pending;
        pending.done = (err, outcome = 'stored') => (err ? reject(err) : resolve(outcome));
        const fence = s.fence();
        if (fence) pending.incarnation = fence.incarnation;
        if (more?.length) pending.more = more;
        s.queue.push(pending);
        schedule(s);
    });
}

/** Waits for everything queued (shutdown, tests). */
export async function drain(s: WriterState): Promise<void> {
    while (s.queue.length || s.flushing) {
        if (!s.flushing) run(s);
        await s.flushing;
    }
}

export function createMessageWriter(db: Db, options: WriterOptions = {}) {
    const s = writerState(db, options);
    return {
        /** Messages waiting for their batch (the ingest queue's depth, /metrics). */
        get pending() {
            return s.queue.length;
        },
        /** Whether a batch is being committed now: its messages have left `pending` and wait for the database. */
        get writing() {
            return s.flushing !== undefined;
        },
        /** Each committed batch's time (ms) and size (/metrics). */
        onBatch(fn: (ms: number, size: number) => void) {
            s.batchObservers.push(fn);
        },
        /**
         * Resolves once the message is committed, with 'resent' when it was a resend stored already. The object is
         * queued as it is (not copied): pass a fresh one.
         */
        write: (message: MessageWrite): Promise<WriteOutcome> => enqueue(s, message),
        /**
         * Writes `messages` in one statement, all or none (a batch or history post); resolves as write() does, with
         * 'resent' when the first of them was found stored already (then so are the others).
         */
        writeAll: (messages: MessageWrite[]): Promise<WriteOutcome> => {
            if (!messages.length) return Promise.resolve('stored');
            return enqueue(s, messages[0], messages.slice(1));
        },
        propertyPost(deviceId: number, ts: Date, values: Record<string, unknown>, productId?: number) {
            return enqueue(s, {
                deviceId,
                ts,
                method: PROPERTY_POST,
                identifier: null,
                data: values,
                values,
                productId,
            });
        },
        /** Messages committed since start. */
        get written() {
            return s.written;
        },
        /** Batches committed since start (written / batches: the mean batch size). */
        get batches() {
            return s.batches;
        },
        drain: () => drain(s),
    };
}

export type MessageWriter = ReturnType<typeof createMessageWriter>;
