import type { EventEmitter } from 'node:events';
import type { Aedes, Client } from 'aedes';

/**
 * Which client ids hold a persistent session, in this process (createLocalSessionIndex) or anywhere in a cluster
 * (createSessionIndex), known without a persistence call per CONNECT (fastConnect.ts asks for each clean CONNECT).
 *
 * A persistent session (clean=false) is, in aedes-persistence-redis, the subscriptions it stored: the set `clients`
 * and a hash `client:{id}` of its topics. Its outgoing queue is only fed through those subscriptions and is deleted
 * with the last of them, and aedes' `sessionPresent` is "it has subscriptions". A client id without stored
 * subscriptions has nothing a clean CONNECT must discard beyond what the short path does itself (its will, its QoS 2
 * packets). The persistence announces each stored and removed subscription to every process on `$SYS/sub/add` and
 * `$SYS/sub/rm` (aedes-persistence's BroadcastPersistence, for its own topic trie), and answers the SUBACK only once
 * its own announcement came back through Redis: Redis has then handed it to every process's subscriber connection.
 * This index reads those same announcements, and the stored sessions once at start (subscribed first, so nothing is
 * missed; a removal that crosses the load leaves an id marked, which only sends it through aedes' full path, and that
 * path removes the subscriptions and announces it).
 */
export interface SessionIndex {
    /** The client id has a persistent session's subscriptions stored in the cluster. */
    has(clientId: string): boolean;
    /** Client ids known now (tests). */
    readonly size: number;
}

/** The Redis commands the start needs (an ioredis connection). */
export interface RedisReader {
    smembers(key: string): Promise<string[]>;
    hkeys(key: string): Promise<string[]>;
}

interface Announcement {
    clientId: string;
    subs: Array<{ topic: string }>;
}

export async function createSessionIndex(aedes: Aedes, redis: RedisReader): Promise<SessionIndex> {
    const { topics, add, remove } = topicSets();
    await new Promise<void>((resolve) =>
        aedes.subscribe(
            '$SYS/sub/+',
            (packet: { topic: string; payload: Buffer | string }, cb: () => void) => {
                const { clientId, subs } = JSON.parse(packet.payload.toString()) as Announcement;
                if (packet.topic === '$SYS/sub/add')
                    add(
                        clientId,
                        subs.map((s) => s.topic),
                    );
                else if (packet.topic === '$SYS/sub/rm')
                    remove(
                        clientId,
                        subs.map((s) => s.topic),
                    );
                cb();
            },
            () => resolve(),
        ),
    );
    // aedes-persistence-redis' keys (asyncPersistence.js: CLIENTSKEY, clientSubKey).
    const ids = await redis.smembers('clients');
    const stored = await Promise.all(ids.map((id) => redis.hkeys(`client:${encodeURIComponent(id)}`)));
    ids.forEach((id, i) => add(id, stored[i]));
    return {
        has: (clientId) => topics.has(clientId),
        get size() {
            return topics.size;
        },
    };
}

/** Client ids and the topics each holds; an id without topics is dropped. */
function topicSets() {
    const topics = new Map<string, Set<string>>();
    return {
        topics,
        add(clientId: string, list: Iterable<string>) {
            let set = topics.get(clientId);
            if (!set) topics.set(clientId, (set = new Set()));
            for (const t of list) set.add(t);
            if (!set.size) topics.delete(clientId);
        },
        remove(clientId: string, list: Iterable<string>) {
            const set = topics.get(clientId);
            if (!set) return;
            for (const t of list) set.delete(t);
            if (!set.size) topics.delete(clientId);
        },
    };
}

/**
 * The persistent sessions stored in this process (aedes' in-memory persistence), from aedes' own events: a clean=false
 * client's granted subscriptions are stored ('subscribe'), its unsubscriptions removed ('unsubscribe'), and a clean
 * CONNECT through aedes' full handler clears the id's stored subscriptions ('clientReady' of a clean client). So the
 * index holds what the persistence holds and no more: a clean=false client that never subscribes, or whose session
 * ended, leaves nothing here.
 */
export function createLocalSessionIndex(
    aedes: Pick<EventEmitter, 'on'>,
): SessionIndex & { forget(clientId: string): void } {
    const sets = topicSets();
    aedes.on('subscribe', (subs: Array<{ topic: string; qos: number }>, client: Client) => {
        if (client.clean) return;
        sets.add(
            client.id,
            subs.filter((s) => s.qos !== 128).map((s) => s.topic),
        );
    });
    aedes.on('unsubscribe', (unsubs: string[], client: Client) => {
        if (!client.clean) sets.remove(client.id, unsubs);
    });
    aedes.on('clientReady', (client: Client) => {
        if (client.clean) sets.topics.delete(client.id);
    });
    return {
        has: (clientId) => sets.topics.has(clientId),
        /** The id's stored session was removed without aedes' events (staleSessions.ts). */
        forget: (clientId) => void sets.topics.delete(clientId),
        get size() {
            return sets.topics.size;
        },
    };
}
