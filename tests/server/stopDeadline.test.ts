import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startProxy, type FaultProxy } from '../chaos/proxy';
import { createCluster, PG_URL, type ServerProcess } from './spawnServer';

/**
 * A stopping process keeps to STOP_TIMEOUT whatever its database does (server/shutdown.ts): one process on PostgreSQL
 * through a link the test owns (tests/chaos/proxy.ts). Stopped with the link open, it exits 0 well within the limit;
 * stopped with the link stalled (a hung peer: the sockets stay open, nothing answers), it names the step it was in and
 * exits 1 once the limit has passed, where it used to wait for the database for as long as the stall lasted.
 */

const STOP_TIMEOUT_S = 4;
const cluster = createCluster('iot_stop');
let proxy: FaultProxy;

beforeAll(async () => {
    proxy = await startProxy(PG_URL, 'postgres');
}, 30_000);

afterAll(async () => {
    proxy?.restore();
    await cluster.close();
    await proxy?.close();
}, 60_000);

const start = (waitForSeed: boolean) =>
    cluster.start({
        waitForSeed,
        env: {
            DATABASE_URL: proxy.url(cluster.databaseUrl()),
            STOP_TIMEOUT: String(STOP_TIMEOUT_S),
            DEMO_LIVE: '0',
        },
    });

/** SIGTERM, then the exit code and how long the process took to exit. */
async function stopped(p: ServerProcess): Promise<{ code: number | null; ms: number }> {
    const exited = new Promise<number | null>((resolve) => p.child.once('exit', (code) => resolve(code)));
    const t0 = Date.now();
    p.child.kill('SIGTERM');
    const code = await exited;
    return { code, ms: Date.now() - t0 };
}

describe('STOP_TIMEOUT', () => {
    it('a stop with the database answering exits 0 within the limit', async () => {
        const p = await start(true);
        const { code, ms } = await stopped(p);
        expect(code, p.output()).toBe(0);
        expect(ms).toBeLessThan(STOP_TIMEOUT_S * 1000);
        expect(p.output()).not.toContain('停止超时');
    }, 120_000);

    it('a stop with the database link stalled exits 1 at the limit and says which step did not finish', async () => {
        const p = await start(false);
        // The pool's connections are open through the proxy; from now on nothing they send is answered.
        proxy.stall();
        const { code, ms } = await stopped(p);
        expect(code, p.output()).toBe(1);
        expect(ms).toBeGreaterThanOrEqual(STOP_TIMEOUT_S * 1000);
        expect(ms).toBeLessThan(STOP_TIMEOUT_S * 1000 + 5_000);
        expect(p.output()).toMatch(
            new RegExp(
                `停止超时（${STOP_TIMEOUT_S} 秒）：[^，]+未完成，强制退出.*stop timed out after ${STOP_TIMEOUT_S} s`,
            ),
        );
    }, 120_000);
});
