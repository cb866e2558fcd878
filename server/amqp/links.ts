import type { Writable } from 'node:stream';
import type { Connection, Delivery, EventContext, Sender } from 'rhea';
import { groupOf, giveBack, pump, requeue, settled, type Consumer, type DeliveryState } from './delivery';

/**
 * Consumers' links: a signed-in connection's receiver link becomes a consumer of its group; an outcome settles or
 * requeues its message; a consumer whose link or connection went away gives its unsettled messages to the others.
 */

export interface LinkState extends DeliveryState {
    consumers: WeakMap<Sender, Consumer>;
    /** The socket each accepted connection runs on (the service accepts them itself). */
    sockets?: WeakMap<Connection, Writable>;
}

/** Who a connection signed in as (checked at SASL, server/amqp/saslCheck.ts). */
export interface SignedIn {
    groupId?: number;
    authId: string;
    clientId: string;
}

/** The outcome a consumer sent for a delivery that arrived with its close (not dispatched as an event yet). */
function remoteOutcome(delivery: Delivery): string | undefined {
    return (delivery as unknown as { remote_state?: { constructor?: { composite_type?: string } } }).remote_state
        ?.constructor?.composite_type;
}

/** The consumer left: its unsettled messages are settled as it said, or delivered again. */
export function drop(s: LinkState, c: Consumer) {
    if (c.gone) return;
    c.gone = true;
    const g = groupOf(s, c.groupId);
    g.consumers = g.consumers.filter((x) => x !== c);
    for (const [delivery, m] of c.unsettled) {
        const state = remoteOutcome(delivery);
        if (state === 'accepted' || state === 'rejected') {
            if (state === 'accepted') c.acknowledged++;
            settled(s, g, m);
        } else requeue(g, m);
    }
    c.unsettled.clear();
    if (!g.consumers.length) void giveBack(s, g);
    else pump(s, g);
}

/**
 * A consumer's outcome for a delivery: accepted, or rejected (a message the consumer can never take: not delivered
 * again), deletes it; released or modified delivers it again.
 */
export function outcome(s: LinkState, context: EventContext, result: 'accepted' | 'rejected' | 'again') {
    const { sender, delivery } = context;
    if (!sender || !delivery) return;
    const c = s.consumers.get(sender);
    const m = c?.unsettled.get(delivery);
    if (!c || !m) return;
    c.unsettled.delete(delivery);
    const g = groupOf(s, c.groupId);
    if (result === 'again') requeue(g, m);
    else {
        if (result === 'accepted') c.acknowledged++;
        settled(s, g, m);
    }
    pump(s, g);
}

/** The peer's address as host:port, IPv4 without its IPv6 prefix. */
function addressOf(connection: Connection): string {
    const socket = (connection as unknown as { socket?: { remoteAddress?: string; remotePort?: number } }).socket;
    return socket?.remoteAddress ? `${socket.remoteAddress.replace(/^::ffff:/, '')}:${socket.remotePort}` : '';
}

/** A receiver link opened on a signed-in connection: one per connection, a consumer of its group. */
export function openConsumer(
    s: LinkState,
    connection: Connection,
    sender: Sender,
    who: SignedIn & { groupId: number },
) {
    const taken = (s.groups.get(who.groupId)?.consumers ?? []).some((c) => c.connection === connection && !c.gone);
    if (taken) {
        sender.close({ condition: 'amqp:resource-limit-exceeded', description: '每个连接只能打开一个接收链路' });
        return;
    }
    const c: Consumer = {
        clientId: who.clientId,
        address: addressOf(connection),
        connectedSince: new Date(),
        delivered: 0,
        acknowledged: 0,
        groupId: who.groupId,
        authId: who.authId,
        connection,
        sender,
        unsettled: new Map(),
        gone: false,
        socket: s.sockets?.get(connection),
        corked: false,
    };
    s.consumers.set(sender, c);
    const g = groupOf(s, who.groupId);
    g.consumers.push(c);
    g.dirty = true;
    pump(s, g);
}

/** Every consumer of a connection that went away. */
export function dropConnection(s: LinkState, connection: Connection) {
    for (const g of s.groups.values()) for (const c of [...g.consumers]) if (c.connection === connection) drop(s, c);
}

/** Closes and drops the consumers `which` picks (a deleted group, a disabled AccessKey). */
export function disconnect(
    s: LinkState,
    which: (c: Consumer) => boolean,
    error: { condition: string; description: string },
) {
    for (const g of s.groups.values()) {
        for (const c of [...g.consumers]) {
            if (!which(c)) continue;
            c.connection.close(error);
            drop(s, c);
        }
    }
}
