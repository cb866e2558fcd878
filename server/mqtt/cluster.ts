/**
 * Several server processes as one platform (docs/deployment.md): with REDIS_URL, the brokers share publications
 * through Redis (mqemitter-redis) and their sessions and retained messages (aedes-persistence-redis), so a device on
 * one process receives what another process's API sends, and takeovers and disconnects reach every process.
 */
export async function redisBackends(url: string): Promise<{ mq: unknown; persistence: unknown }> {
    const [{ default: mqemitterRedis }, { default: persistence }] = await Promise.all([
        import('mqemitter-redis'),
        import('aedes-persistence-redis'),
    ]);
    const parsed = new URL(url);
    const db = Number(parsed.pathname.replace('/', '') || 0);
    const redisOptions = {
        host: parsed.hostname,
        port: Number(parsed.port || 6379),
        ...(parsed.password ? { password: decodeURIComponent(parsed.password) } : {}),
        ...(parsed.username ? { username: decodeURIComponent(parsed.username) } : {}),
        db,
    };
    return {
        mq: mqemitterRedis({ connectionString: url }),
        persistence: persistence(redisOptions),
    };
}
