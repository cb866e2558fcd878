import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestServer, type TestServer } from '../../server/testing';
import { until } from './mqttSupport';
import { consume, createAccessKey, lampDevice, ok200, startDelivery, subscribeLamp } from './amqpSupport';
import { call } from './support';

/**
 * The backlog of a consumer group while none of its consumers is connected: kept in the database across a restart,
 * and bounded by count (AMQP_BACKLOG_MAX), the oldest dropped and counted.
 */

const dirs: string[] = [];
const servers: TestServer[] = [];

afterAll(async () => {
    for (const s of servers) await s.close().catch(() => undefined);
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const bodies = (ms: Array<{ body: string }>) => ms.map((m) => JSON.parse(m.body).params.Brightness as number);

describe.skipIf(Boolean(process.env.DATABASE_URL))('backlog across a restart (PGlite data directory)', () => {
    it('keeps the messages of a group with no consumer through a restart and delivers them after', async () => {
        const dir = mkdtempSync(path.join(os.tmpdir(), 'amqp-restart-'));
        dirs.push(dir);
        const first = await createTestServer({ pgliteDir: dir });
        servers.push(first);
        const { broker, url } = await startDelivery(first);
        const key = await createAccessKey(first);
        const { groupId } = await subscribeLamp(first);
        const device = await lampDevice(first, url);
        for (let v = 1; v <= 4; v++) await device.post({ Brightness: v });
        await until(async () => {
            const d = ok200<{ backlog: number }>(await call(first, 'GET', `/api/consumerGroup/detail?id=${groupId}`));
            return d.backlog === 4;
        });
        device.client.end(true);
        await broker.close();
        await first.close();

        const second = await createTestServer({ pgliteDir: dir });
        servers.push(second);
        const { port, broker: broker2 } = await (async () => {
            const started = await startDelivery(second);
            return { port: started.amqpPort, broker: started.broker };
        })();
        const c = await consume(port, { ...key, groupId });
        const got = await c.next(4);
        expect(bodies(got)).toEqual([1, 2, 3, 4]);
        await until(async () => {
            const d = ok200<{ backlog: number }>(await call(second, 'GET', `/api/consumerGroup/detail?id=${groupId}`));
            return d.backlog === 0;
        });
        await c.close();
        await broker2.close();
    });
});

describe('backlog bounds', () => {
    it('keeps at most AMQP_BACKLOG_MAX messages per group: the oldest are dropped and counted', async () => {
        const s = await createTestServer({ config: { amqpBacklogMax: 3 }, amqp: { sweepMs: 100 } });
        servers.push(s);
        const { url, amqpPort, broker } = await startDelivery(s);
        const key = await createAccessKey(s);
        const { groupId } = await subscribeLamp(s);
        const device = await lampDevice(s, url);
        for (let v = 1; v <= 7; v++) await device.post({ Brightness: v });
        await until(async () => {
            const d = ok200<{ backlog: number; dropped: number }>(
                await call(s, 'GET', `/api/consumerGroup/detail?id=${groupId}`),
            );
            return d.backlog === 3 && d.dropped === 4;
        });
        const c = await consume(amqpPort, { ...key, groupId });
        expect(bodies(await c.next(3))).toEqual([5, 6, 7]);
        await c.close();
        device.client.end(true);
        await broker.close();
    });
});
