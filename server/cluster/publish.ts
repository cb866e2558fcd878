import pTimeout from 'p-timeout';
import type { Redis } from 'ioredis';
import { FIGURES_KEY, FIGURES_TTL_MS } from './figures';
import type { Published } from './processState';

/**
 * The cluster's live figures through Redis (server/cluster/figures.ts says why Redis): each second this member writes
 * its share under a key that expires, so a dead member's vanish; whoever answers reads the living members' keys.
 */

export interface RedisLink {
    redis: Redis;
    /** PONG within a second (readiness). */
    ping(): Promise<boolean>;
    close(): Promise<void>;
}

export async function connectRedis(url: string): Promise<RedisLink> {
    const { Redis } = await import('ioredis');
    // One connection; it reconnects by itself and fails a PING at once while down.
    const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1, enableOfflineQueue: false });
    redis.on('error', () => undefined);
    await redis.connect().catch(() => undefined);
    return {
        redis,
        ping: () =>
            pTimeout(
                redis.ping().then((r) => r === 'PONG'),
                { milliseconds: 1000, fallback: () => false },
            ).catch(() => false),
        close: () =>
            redis
                .quit()
                .then(() => undefined)
                .catch(() => undefined),
    };
}

/** What each of these members published last (missing: none within the key's life). */
export async function readPublished(link: RedisLink, ids: string[]): Promise<Map<string, Published>> {
    const out = new Map<string, Published>();
    if (!ids.length) return out;
    const values = await link.redis.mget(...ids.map(FIGURES_KEY));
    ids.forEach((id, i) => {
        const v = values[i];
        if (v) out.set(id, JSON.parse(v) as Published);
    });
    return out;
}

export interface Publisher {
    stop(): Promise<void>;
}

/** Each second, `figures()` (after its readiness is known) under this member's key; one write at a time. */
export function startPublishing(link: RedisLink, nodeId: string, figures: () => Promise<Published>): Publisher {
    let publishing: Promise<unknown> | undefined;
    const timer = setInterval(() => {
        if (publishing) return;
        publishing = figures()
            .then((f) => link.redis.set(FIGURES_KEY(nodeId), JSON.stringify(f), 'PX', FIGURES_TTL_MS))
            .catch(() => undefined)
            .finally(() => (publishing = undefined));
    }, 1000);
    timer.unref();
    return {
        async stop() {
            clearInterval(timer);
            await publishing;
            await link.redis.del(FIGURES_KEY(nodeId)).catch(() => undefined);
        },
    };
}
