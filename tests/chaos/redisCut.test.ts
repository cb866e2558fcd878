import { scenario, sleep } from './harness';

/** The Redis link of every process cut for 5 s (connections destroyed, new ones refused), then restored. */
await scenario('rediscut', 'the Redis link cut for 5 s, then restored', async (p) => {
    p.redisProxy.cut();
    await sleep(5_000);
    p.redisProxy.restore();
    return Date.now();
});
