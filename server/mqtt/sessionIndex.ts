import type { Aedes } from 'aedes';

/**
 * Which client ids hold a persistent session anywhere in a cluster, known in this process without a Redis command per
 * CONNECT (fastConnect.ts asks it for each clean CONNECT).
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
    const topics = new Map<string, Set<string>>();
    const add = (clientId: string, list: Iterable<string>) => {
        let set = topics.get(clientId);
        if (!set) topics.set(clientId, (set = new Set()));
        for (const t of list) set.add(t);
        if (!set.size) topics.delete(clientId);
    };
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
                else if (packet.topic === '$SYS/sub/rm') {
                    const set = topics.get(clientId);
                    for (const s of subs) set?.delete(s.topic);
                    if (set && !set.size) topics.delete(clientId);
                }
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
