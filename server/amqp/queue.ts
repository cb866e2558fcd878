import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import type { AcceptedMessage } from '../mqtt/uplink';
import { type CopyTarget, type MessageCopies, type QueuedMessage } from './copies';
import { pendingWrites, type PendingWrites } from './pendingWrites';
import * as rows from './queueRows';
import { groupsOf, loadRoutes, refreshRoutes, routesState, ROUTES_TTL_MS, type RoutesState } from './routes';

export type { QueuedMessage } from './copies';

/**
 * The durable side of server-side subscription: which consumer groups each product's posts go to (routes.ts), the
 * per-group queue in the database (amqp_queue), whose rows are written with their device message by the batch
 * writer (copies.ts), claims, acknowledgements deleted in batches, and the backlog bounds (queueRows.ts).
 */

export interface QueueOptions {
    db: Db;
    /** Most messages kept per group (AMQP_BACKLOG_MAX). */
    backlogMax: number;
    /** Oldest message kept, hours (AMQP_BACKLOG_HOURS). */
    backlogHours: number;
    /** A claim lasts this long unless renewed (a crashed process's claims come back after it). */
    leaseMs?: number;
    /** Tell every server process on the database about new messages (PostgreSQL NOTIFY on NOTIFY_CHANNEL). */
    notify?: boolean;
    /**
     * Without `notify` (one process): how many of a group's `n` new messages this process claims as it inserts them
     * (its consumers' spare credit), saving the claim query on the way to a waiting consumer.
     */
    takeOnInsert?: (groupId: number, n: number) => number;
    log?: (message: string) => void;
}

/** The PostgreSQL channel new queue rows are announced on (payload: the group ids, comma-separated). */
export const NOTIFY_CHANNEL = 'iot_amqp_queue';

const MAX_BATCH = 1_000;
const LINGER_MS = 5;

/** Alibaba's messageId: a numeric string, unique per message (ms × 2^20 + a sequence, plus a per-process offset). */
export function messageIdSource() {
    let seq = randomBytes(2).readUInt16BE(0);
    return () => {
        seq = (seq + 1) % 1_048_576;
        return (BigInt(Date.now()) * 1_048_576n + BigInt(seq)).toString();
    };
}

/** Groups with copies waiting in the queue unclaimed, and the copies this process claimed as inserted. */
type InsertedListener = (groupIds: Set<number>, taken: QueuedMessage[]) => void;

export interface QueueState extends rows.Claimant {
    options: QueueOptions;
    log: (message: string) => void;
    routes: RoutesState;
    nextMessageId: () => string;
    insertedListeners: InsertedListener[];
    /** Acknowledged messages to delete, in batches, retried after a failed delete. */
    acks: PendingWrites;
    /** Claims this process gives back, retried after a failed update (the message is not stuck behind renewals). */
    releases: PendingWrites;
    closed: boolean;
    routesTimer: NodeJS.Timeout | undefined;
    counters: { enqueued: number; acked: number; dropped: number };
}

export function queueState(options: QueueOptions): QueueState {
    const log = options.log ?? console.warn;
    const claimant = {
        db: options.db,
        owner: `${process.pid}-${randomBytes(6).toString('hex')}`,
        leaseMs: options.leaseMs ?? 60_000,
    };
    const counters = { enqueued: 0, acked: 0, dropped: 0 };
    return {
        ...claimant,
        options,
        log,
        routes: routesState(options.db, log),
        nextMessageId: messageIdSource(),
        insertedListeners: [],
        acks: pendingWrites({
            write: (ids) => rows.deleteAcked(options.db, ids),
            written: (n) => (counters.acked += n),
            failed: (err) => log(`确认消息删除失败，稍后重试 / ack delete failed, retrying: ${String(err)}`),
            lingerMs: LINGER_MS,
            maxBatch: MAX_BATCH,
        }),
        releases: pendingWrites({
            write: (ids) => rows.release(claimant, ids),
            failed: (err) => log(`释放消息失败，稍后重试 / release failed, retrying: ${String(err)}`),
            lingerMs: 0,
            maxBatch: MAX_BATCH,
        }),
        closed: false,
        routesTimer: undefined,
        counters,
    };
}

/**
 * A property post's copies, one per consumer group its product is subscribed to (none for other messages or when
 * no group is), for the batch writer to store with the message.
 */
export function copiesOf(s: QueueState, target: CopyTarget, message: AcceptedMessage): MessageCopies | undefined {
    if (s.closed) return undefined;
    const groups = groupsOf(s.routes, message.device.productId);
    if (message.kind !== 'property' || !groups?.length) return undefined;
    const messageId = s.nextMessageId();
    const generateTime = Date.now();
    const payload = message.payload.toString('utf8');
    return {
        target,
        rows: groups.map((groupId) => ({
            groupId,
            deviceId: message.device.deviceId,
            messageId,
            topic: message.topic,
            generateTime,
            payload,
        })),
    };
}

/** The rows of a batch this process takes at once for its waiting consumers (one process only): claimed as inserted. */
export function takeOnInsert(s: QueueState, perGroup: Map<number, number>): Map<number, number> {
    const take = new Map<number, number>();
    const fn = s.options.takeOnInsert;
    if (s.options.notify || !fn) return take;
    for (const [g, n] of perGroup) take.set(g, fn(g, n));
    return take;
}

/**
 * After copies were stored: other processes hear of them (NOTIFY), or this one's consumers get them. Without NOTIFY,
 * only the groups whose copies were not all claimed as inserted are woken to claim: a group whose consumers took the
 * batch has nothing new in the queue, and a claim per group per batch found nothing (a fifth of the database thread
 * in the soak: 22,000 empty claims a minute for five groups at 1,000 posts/s).
 */
export function inserted(s: QueueState, perGroup: Map<number, number>, taken: QueuedMessage[]): void {
    for (const n of perGroup.values()) s.counters.enqueued += n;
    if (!s.options.notify) {
        const left = new Map(perGroup);
        for (const m of taken) left.set(m.groupId, (left.get(m.groupId) ?? 0) - 1);
        const unclaimed = new Set([...left].filter(([, n]) => n > 0).map(([g]) => g));
        for (const l of s.insertedListeners) l(unclaimed, taken);
        return;
    }
    const groupIds = new Set(perGroup.keys());
    // Every process (this one too) hears it at about the same time, so they share the group's messages.
    s.db
        .execute(sql`SELECT pg_notify(${NOTIFY_CHANNEL}, ${[...groupIds].join(',')})`)
        .catch(() => s.insertedListeners.forEach((l) => l(groupIds, [])));
}

/** Accepted by a consumer: deleted in the next batch. */
export function ack(s: QueueState, id: number) {
    s.acks.add([id]);
}

export function createQueue(options: QueueOptions) {
    const s = queueState(options);
    const target: CopyTarget = {
        owner: s.owner,
        leaseMs: s.leaseMs,
        takeOnInsert: (perGroup) => takeOnInsert(s, perGroup),
        inserted: (perGroup, taken) => inserted(s, perGroup, taken),
    };
    return {
        owner: s.owner,
        leaseMs: s.leaseMs,
        counters: s.counters,
        /** Loads the subscriptions (call once before messages flow; they refresh every few seconds after). */
        start() {
            // Another process's subscription edits arrive within ROUTES_TTL_MS even before this process's next
            // message (a refresh started by a message routes that message with the old routes).
            s.routesTimer ??= setInterval(() => void refreshRoutes(s.routes), ROUTES_TTL_MS);
            s.routesTimer.unref();
            return loadRoutes(s.routes);
        },
        /** A subscription changed here: re-read the routes now. */
        invalidate: () => refreshRoutes(s.routes),
        /** An accepted device message's copies for its product's groups, stored with it by the batch writer. */
        copiesOf: (message: AcceptedMessage) => copiesOf(s, target, message),
        /** After each batch insert: the groups that got messages. */
        onInserted(fn: InsertedListener) {
            s.insertedListeners.push(fn);
        },
        claim: (groupId: number, limit: number) => rows.claim(s, groupId, limit),
        ack: (id: number) => ack(s, id),
        /** Claimed messages this process will not deliver (its last consumer of the group left): free for others. */
        release(ids: number[]) {
            s.releases.add(ids);
            return s.releases.flush();
        },
        /**
         * Gives back the group's rows this process owns beyond `held` (delivering or buffered) and the
         * acknowledgements not yet deleted.
         */
        releaseUnknown: (groupId: number, held: Iterable<number>) =>
            rows.releaseExcept(s, groupId, [...held, ...s.acks.ids()]),
        renew: () => rows.renew(s),
        async trim(): Promise<number> {
            const dropped = await rows.trim(s.db, options.backlogMax, options.backlogHours);
            s.counters.dropped += dropped;
            return dropped;
        },
        clear: (groupId: number) => rows.clear(s.db, groupId),
        backlog: (groupId: number) => rows.backlog(s.db, groupId),
        /** Deletes what consumers acknowledged. */
        drain: () => s.acks.flush(),
        async close() {
            clearInterval(s.routesTimer);
            await s.acks.flush();
            s.closed = true;
            s.acks.close();
            s.releases.close();
            await rows.releaseAll(s);
        },
    };
}

export type Queue = ReturnType<typeof createQueue>;
