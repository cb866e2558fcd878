import { scenario, sleep } from './harness';

/** The database link of every process cut for 5 s (connections destroyed, new ones refused), then restored. */
await scenario('dbcut', 'the database link cut for 5 s, then restored', async (p) => {
    p.pgProxy.cut();
    await sleep(5_000);
    p.pgProxy.restore();
    return Date.now();
});
