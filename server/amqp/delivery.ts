import type { Writable } from 'node:stream';
import rhea, { type Connection, type Delivery, type Sender } from 'rhea';
import type { QueuedMessage } from './copies';
import type { Queue } from './queue';

/**
 * Delivery within a consumer group on this process: the group's claimed messages go to its connected consumers
 * round robin, each only as far as the credit it granted; more are claimed from the database while there is credit,
 * and what no consumer here will take goes back to the queue.
 */

export interface ConsumerInfo {
    clientId: string;
    address: string;
    connectedSince: Date;
    delivered: number;
    acknowledged: number;
}

export interface Consumer extends ConsumerInfo {
    groupId: number;
    /** The AccessKey it signed in with. */
    authId: string;
    connection: Connection;
    sender: Sender;
    unsettled: Map<Delivery, QueuedMessage>;
    gone: boolean;
    /** Its connection's socket, corked while a tick's deliveries are written (`batchWrites`). */
    socket?: Writable;
    corked: boolean;
}

export interface GroupState {
    id: number;
    consumers: Consumer[];
    /** Claimed by this process, not yet sent. */
    buffer: QueuedMessage[];
    held: Set<number>;
    claiming: boolean;
    /** The database may hold messages for it. */
    dirty: boolean;
    /**
     * A claim failed: the database may have taken it and lost the answer, leaving rows this process owns (and renews)
     * without knowing them. Given back before the group's next claim.
     */
    unsure: boolean;
    next: number;
    /** When a claim last found the group's queue drained (fewer rows than it asked for), ms. */
    caughtUpAt: number;
    /** A claim waiting out the linger after the group caught up. */
    lingering: NodeJS.Timeout | undefined;
    /** Deliveries per second, the last 60 seconds. */
    buckets: number[];
    bucketAt: number;
}

/** What delivery works on: the queue, the groups with consumers here, and whether the service is closed. */
export interface DeliveryState {
    queue: Pick<Queue, 'claim' | 'ack' | 'release' | 'releaseUnknown'>;
    groups: Map<number, GroupState>;
    log: (message: string) => void;
    closed: boolean;
    /**
     * How long a group that caught up waits before claiming again (CLAIM_LINGER_MS): with NOTIFY every batch of every
     * process wakes every process's groups, and claims right away took a few rows each, 2 processes × 5 groups per
     * batch, keeping the database's pool busy (the soak's cluster at 2,000 posts/s: 4-7 callers waiting for a
     * connection, PUBACK p50 1-1.5 s). A backlog is still claimed back to back, in CLAIM_BATCH rows.
     */
    claimLingerMs?: number;
}

/** Messages claimed from the database at once per group (and the most held beyond the consumers' credit). */
export const CLAIM_BATCH = 500;
/** A delivery's added wait at most, once the group has caught up: against a claim per batch (DeliveryState). */
export const CLAIM_LINGER_MS = 25;
const RATE_WINDOW_S = 10;

export function groupOf(s: DeliveryState, id: number): GroupState {
    let g = s.groups.get(id);
    if (!g) {
        g = {
            id,
            consumers: [],
            buffer: [],
            held: new Set(),
            claiming: false,
            dirty: true,
            unsure: false,
            next: 0,
            caughtUpAt: 0,
            lingering: undefined,
            buckets: new Array<number>(60).fill(0),
            bucketAt: Math.floor(Date.now() / 1000),
        };
        s.groups.set(id, g);
    }
    return g;
}

/** Counts `n` deliveries in the current second. */
export function tick(g: GroupState, n: number, now = Math.floor(Date.now() / 1000)) {
    while (g.bucketAt < now) {
        g.bucketAt++;
        g.buckets[g.bucketAt % 60] = 0;
        if (now - g.bucketAt > 60) g.bucketAt = now;
    }
    g.buckets[now % 60] += n;
}

/** Deliveries per second over the last RATE_WINDOW_S complete seconds. */
export function rateOf(g: GroupState | undefined, now = Math.floor(Date.now() / 1000)): number {
    if (!g) return 0;
    tick(g, 0, now);
    let sum = 0;
    for (let sec = now - RATE_WINDOW_S; sec < now; sec++) sum += g.buckets[((sec % 60) + 60) % 60];
    return Math.round((sum / RATE_WINDOW_S) * 10) / 10;
}

/** The credit a sender has left (rhea keeps it as a plain field its typings do not name). */
const creditOf = (sender: Sender) => (sender as unknown as { credit: number }).credit;

/** The credit the group's consumers granted and have not used. */
export function groupCredit(g: GroupState): number {
    let credit = 0;
    for (const c of g.consumers) if (!c.gone) credit += creditOf(c.sender);
    return credit;
}

/** The next consumer (round robin) that may be sent a message now. */
export function sendable(g: GroupState): Consumer | undefined {
    for (let i = 0; i < g.consumers.length; i++) {
        const c = g.consumers[(g.next + i) % g.consumers.length];
        if (!c.gone && c.sender.sendable()) {
            g.next = (g.next + i + 1) % g.consumers.length;
            return c;
        }
    }
    return undefined;
}

/** A message settled for good (accepted, rejected or pre-settled): deleted from the queue. */
export function settled(s: DeliveryState, g: GroupState, m: QueuedMessage) {
    g.held.delete(m.id);
    s.queue.ack(m.id);
}

/**
 * The deliveries a consumer is sent in one tick leave in one write: rhea encodes each transfer frame and writes it
 * with its own `socket.write` as it processes the connection (on the next tick); corked until the tick after, they go
 * out as one writev. The soak's busiest process spent 22 % of its main thread in socket writes.
 */
function batchWrites(c: Consumer) {
    const socket = c.socket;
    if (!socket || c.corked) return;
    c.corked = true;
    socket.cork();
    // rhea's processing of the connection was queued by sender.send, before this: it writes first, then this uncorks.
    process.nextTick(() => {
        c.corked = false;
        socket.uncork();
    });
}

export function send(s: DeliveryState, g: GroupState, c: Consumer, m: QueuedMessage) {
    const delivery = c.sender.send({
        message_id: m.messageId,
        application_properties: { topic: m.topic, messageId: m.messageId, generateTime: m.generateTime },
        body: rhea.message.data_section(Buffer.from(m.payload, 'utf8')),
    });
    batchWrites(c);
    c.delivered++;
    tick(g, 1);
    if (delivery.settled) {
        // A consumer that asked for pre-settled (at most once) delivery: done once sent.
        c.acknowledged++;
        settled(s, g, m);
    } else c.unsettled.set(delivery, m);
}

/** The last consumer of a group on this process left: its claimed, unsent messages go back to the queue. */
export async function giveBack(s: DeliveryState, g: GroupState) {
    const ids = g.buffer.map((m) => m.id);
    g.buffer = [];
    for (const id of ids) g.held.delete(id);
    g.dirty = true;
    await s.queue.release(ids);
}

/** Claims up to `want` of the group's messages into its buffer. */
function claimMore(s: DeliveryState, g: GroupState, want: number) {
    g.claiming = true;
    s.queue
        .claim(g.id, want)
        .then((rows) => {
            if (rows.length < want) {
                g.dirty = false;
                g.caughtUpAt = Date.now();
            }
            const fresh = rows.filter((r) => !g.held.has(r.id));
            for (const r of fresh) g.held.add(r.id);
            g.buffer.push(...fresh);
            if (!g.consumers.length) void giveBack(s, g);
        })
        .catch((err) => {
            g.unsure = true;
            if (!s.closed) s.log(`读取消费者组 ${g.id} 的消息失败: ${String(err)}`);
        })
        .finally(() => {
            g.claiming = false;
            if (g.buffer.length || g.dirty) setImmediate(() => pump(s, g));
        });
}

/**
 * After a failed claim: gives back the group's rows this process owns but does not hold (nor has acknowledged), so
 * a claim whose answer was lost does not keep its messages from every consumer. No claim of the group runs meanwhile.
 */
export function settleUnsure(s: DeliveryState, g: GroupState) {
    if (g.claiming || s.closed) return;
    g.claiming = true;
    s.queue
        .releaseUnknown(g.id, g.held)
        .then(() => {
            g.unsure = false;
            g.dirty = true;
        })
        .catch((err) => s.log(`释放消费者组 ${g.id} 的未知认领失败，稍后重试: ${String(err)}`))
        .finally(() => {
            g.claiming = false;
            if (!g.unsure) setImmediate(() => pump(s, g));
        });
}

/** Sends what the group holds as far as its consumers' credit goes, and claims more when there is credit left. */
export function pump(s: DeliveryState, g: GroupState) {
    if (g.unsure) return settleUnsure(s, g);
    if (s.closed || !g.consumers.length) return;
    while (g.buffer.length) {
        const c = sendable(g);
        if (!c) break;
        send(s, g, c, g.buffer.shift()!);
    }
    if (g.claiming || !g.dirty || g.lingering) return;
    const wait = g.caughtUpAt + (s.claimLingerMs ?? 0) - Date.now();
    if (wait > 0) {
        g.lingering = setTimeout(() => {
            g.lingering = undefined;
            pump(s, g);
        }, wait).unref();
        return;
    }
    const want = Math.min(CLAIM_BATCH, groupCredit(g) - g.buffer.length);
    if (want > 0) claimMore(s, g, want);
}

/** A message to deliver again (released, modified, or unsettled by a consumer that left): first in line, in id order. */
export function requeue(g: GroupState, m: QueuedMessage) {
    g.buffer.unshift(m);
    if (g.buffer.length > 1 && g.buffer[1].id < m.id) g.buffer.sort((a, b) => a.id - b.id);
}

/** Groups that got new messages: those with consumers here claim them. */
export function wake(s: DeliveryState, ids: Iterable<number>) {
    for (const id of ids) {
        const g = s.groups.get(id);
        if (g?.unsure) settleUnsure(s, g);
        if (!g?.consumers.length) continue;
        g.dirty = true;
        pump(s, g);
    }
}

/** After copies were inserted: what this process claimed as inserted goes into its groups' buffers. */
export function takeInserted(s: DeliveryState, ids: Set<number>, taken: QueuedMessage[]) {
    for (const m of taken) {
        const g = groupOf(s, m.groupId);
        if (g.held.has(m.id)) continue;
        g.held.add(m.id);
        g.buffer.push(m);
    }
    for (const id of ids) {
        const g = s.groups.get(id);
        if (g && !g.consumers.length && g.buffer.length) void giveBack(s, g);
    }
    wake(s, ids);
}

/** Messages of `n` new ones of a group this process may claim as inserted: its consumers' spare credit. */
export function spareCredit(s: DeliveryState, groupId: number, n: number): number {
    const g = s.groups.get(groupId);
    if (!g?.consumers.length || s.closed) return 0;
    return Math.max(0, Math.min(n, groupCredit(g) - g.buffer.length));
}

export const infoOf = (c: ConsumerInfo): ConsumerInfo => ({
    clientId: c.clientId,
    address: c.address,
    connectedSince: c.connectedSince,
    delivered: c.delivered,
    acknowledged: c.acknowledged,
});
