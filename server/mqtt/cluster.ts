import type { RedisReader } from './sessionIndex';
import type { LastSessionsRedis } from './staleSessions';

/**
 * Several server processes as one platform (docs/deployment.md): with REDIS_URL, the brokers share publications
 * through Redis (mqemitter-redis) and their sessions and retained messages (aedes-persistence-redis), so a device on
 * one process receives what another process's API sends, and takeovers and disconnects reach every process.
 */
export async function redisBackends(
    url: string,
    log: (line: string) => void = (line) => console.error(line),
): Promise<{ mq: unknown; persistence: unknown; redis: RedisReader & LastSessionsRedis }> {
    const [{ default: mqemitterRedis }, { default: persistence }, { Redis }] = await Promise.all([
        import('mqemitter-redis'),
        import('aedes-persistence-redis'),
        import('ioredis'),
    ]);
    const parsed = new URL(url);
    const db = Number(parsed.pathname.replace('/', '') || 0);
    const redisOptions = {
        host: parsed.hostname,
        port: Number(parsed.port || 6379),
        ...(parsed.password ? { password: decodeURIComponent(parsed.password) } : {}),
        ...(parsed.username ? { username: decodeURIComponent(parsed.username) } : {}),
        db,
        // The commands of one event-loop turn in one write (a connect storm's session commands: one write each made
        // a connect's socket writes most of its CPU).
        enableAutoPipelining: true,
    };
    // The subscriber connection skips ioredis's ready check: its INFO reached a connection already in subscriber mode
    // (seen once at a cluster start: Redis refuses INFO there), and the error ended the process.
    const mq = mqemitterRedis({
        subConn: new Redis(url, { enableReadyCheck: false }),
        pubConn: new Redis(url, { enableAutoPipelining: true }),
    });
    // A Redis error (a restart, a refused command) is logged; ioredis reconnects and subscribes again by itself.
    // Unhandled, the emitter's 'error' event ended the process.
    (mq as unknown as { state: NodeJS.EventEmitter }).state.on('error', (err: Error) =>
        log(`MQTT 集群的 Redis 连接出错 / Redis error in the MQTT cluster: ${err.message}`),
    );
    // The session store's connection, also read by the session index (sessionIndex.ts) at start and keeping each
    // device's last persistent clientId (staleSessions.ts).
    const conn = new Redis(redisOptions);
    return { mq, persistence: persistence({ ...redisOptions, conn }), redis: conn };
}
