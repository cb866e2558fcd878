import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../../server/db/rows';
import { DestinationError, type ForwardRecord, type Sender } from '../../server/forward/destinations/types';
import { createHorizon } from '../../server/forward/horizon';
import { readMessages } from '../../server/forward/messages';
import { sharedReads, type ReadMessages } from '../../server/forward/readShare';
import { DAY_MS, ensureDayPartition, utcDay } from '../../server/db/partitions';
import { startRoute, type RouteDeps, type RouteWorker } from '../../server/forward/route';
import { createTestServer, type TestServer } from '../../server/testing';
import { until } from './mqttSupport';

/**
 * A route of data forwarding on the embedded database: the store is the outbox (the route's position in
 * device_messages moves on only after its destination acknowledged), failures are retried in order, a record the
 * destination refuses for good goes to the dead letters without stopping the flow, one process sends a route at a
 * time, and a backlog past its bound is dropped and counted. The destination here is a sender the test controls.
 */

let server: TestServer;
let deviceId: number;
let projectId: number;
const workers: RouteWorker[] = [];

beforeAll(async () => {
    server = await createTestServer();
    const [d] = rowsOf<{ id: number; project_id: number }>(
        await server.db.execute(
            sql`SELECT id, project_id FROM devices WHERE project_id IS NOT NULL ORDER BY id LIMIT 1`,
        ),
    );
    deviceId = Number(d.id);
    projectId = Number(d.project_id);
}, 60_000);

afterAll(async () => {
    for (const w of workers) await w.stop();
    await server?.close();
});

/** A flow with one destination, its route starting after the messages stored so far. */
async function newRoute(): Promise<number> {
    const name = `f${Math.random().toString(36).slice(2, 8)}`;
    const [dest] = rowsOf<{ id: number }>(
        await server.db.execute(
            sql`INSERT INTO forward_destinations (project_id, name, kind, config) VALUES (${projectId}, ${name}, 'test', '{}') RETURNING id`,
        ),
    );
    const [flow] = rowsOf<{ id: number }>(
        await server.db.execute(
            sql`INSERT INTO forward_flows (project_id, name, sql, enabled) VALUES (${projectId}, ${name}, 'SELECT *', true) RETURNING id`,
        ),
    );
    const [route] = rowsOf<{ id: number }>(
        await server.db.execute(sql`INSERT INTO forward_routes (flow_id, destination_id, position)
            VALUES (${flow.id}, ${dest.id}, (SELECT coalesce(max(id), 0) FROM device_messages)) RETURNING id`),
    );
    return Number(route.id);
}

/** Stores n property posts with n = 1..n (or the given values) and returns their ids. */
async function post(values: number[]): Promise<number[]> {
    const rows = rowsOf<{ id: number }>(
        await server.db.execute(sql`INSERT INTO device_messages (device_id, ts, method, data, product_id)
            SELECT ${deviceId}, now(), 'thing.event.property.post', jsonb_build_object('n', v), (SELECT product_id FROM devices WHERE id = ${deviceId})
            FROM unnest(${`{${values.join(',')}}`}::int[]) WITH ORDINALITY AS t(v, o) ORDER BY o RETURNING id`),
    );
    return rows.map((r) => Number(r.id));
}

/** A destination the test controls: it keeps what it acknowledged; `fail` decides per send. */
function testSender(fail: (records: ForwardRecord[]) => Error | undefined = () => undefined) {
    const received: ForwardRecord[] = [];
    const sender: Sender = {
        async send(records) {
            const err = fail(records);
            if (err) throw err;
            received.push(...records);
        },
        test: async () => undefined,
        close: async () => undefined,
    };
    return { sender, received };
}

function start(
    routeId: number,
    sender: Sender,
    owner = 'p1',
    over: Partial<RouteDeps['options']> = {},
    read?: ReadMessages,
) {
    const horizon = createHorizon(server.db, 200);
    const w = startRoute({
        read,
        lease: { db: server.db, owner, leaseMs: 2_000 },
        routeId,
        flow: { id: routeId, name: 'test', projectId, run: (m) => (m.payload as { params: { n: number } }).params },
        sender,
        horizon: (p) => horizon.advance(p),
        options: {
            batch: 100,
            maxAttempts: 2,
            backlogMax: 100_000,
            backlogHours: 1,
            idleMs: 20,
            backoffMs: () => 20,
            ...over,
        },
        log: () => undefined,
    });
    workers.push(w);
    return w;
}

const routeRow = async (id: number) =>
    rowsOf<{
        position: string;
        sent: string;
        dead: string;
        dropped: string;
        failed: string;
        last_error: string | null;
        owner: string | null;
    }>(
        await server.db.execute(
            sql`SELECT position, sent, dead, dropped, failed, last_error, owner FROM forward_routes WHERE id = ${id}`,
        ),
    )[0];

describe('a forwarding route', () => {
    it('sends every message after its position, in order, and moves its position on as they are acknowledged', async () => {
        const routeId = await newRoute();
        const ids = await post([1, 2, 3, 4, 5]);
        const { sender, received } = testSender();
        start(routeId, sender);
        await until(async () => Number((await routeRow(routeId)).position) === ids[4], 10_000);
        expect(received.map((r) => r.row.n)).toEqual([1, 2, 3, 4, 5]);
        expect(received[0].topic).toMatch(/\/thing\/event\/property\/post$/);
        expect(received[0].id).toBe(`${ids[0]}-${routeId}`);
        expect(Number((await routeRow(routeId)).sent)).toBe(5);
    });

    it('retries a destination that is down, in order, and keeps the backlog until it is back', async () => {
        const routeId = await newRoute();
        let down = true;
        const { sender, received } = testSender(() => (down ? new DestinationError('目的地不可达') : undefined));
        const w = start(routeId, sender);
        const ids = await post([1, 2, 3]);
        await until(async () => w.figures.failed >= 3, 10_000);
        const row = await routeRow(routeId);
        expect(Number(row.position)).toBe(ids[0] - 1);
        expect(row.last_error).toBe('目的地不可达');
        await post([4, 5]);
        down = false;
        await until(async () => received.length >= 5, 10_000);
        expect(received.map((r) => r.row.n)).toEqual([1, 2, 3, 4, 5]);
        expect(Number((await routeRow(routeId)).dead)).toBe(0);
    });

    it('moves a record the destination refuses for good to the dead letters and goes on with the rest', async () => {
        const routeId = await newRoute();
        const { sender, received } = testSender((records) =>
            records.some((r) => r.row.n === 13) ? new DestinationError('字段 n 的值不合法', true) : undefined,
        );
        start(routeId, sender);
        const ids = await post([11, 12, 13, 14]);
        await until(async () => Number((await routeRow(routeId)).position) === ids[3], 10_000);
        expect(received.map((r) => r.row.n)).toEqual([11, 12, 14]);
        const dead = rowsOf<{ message_id: string; error: string; attempts: number; record: ForwardRecord }>(
            await server.db.execute(
                sql`SELECT message_id, error, attempts, record FROM forward_dead_letters WHERE route_id = ${routeId}`,
            ),
        );
        expect(dead).toHaveLength(1);
        expect(Number(dead[0].message_id)).toBe(ids[2]);
        expect(dead[0].error).toBe('字段 n 的值不合法');
        expect(dead[0].attempts).toBe(2);
        expect(dead[0].record.row).toEqual({ n: 13 });
        expect(Number((await routeRow(routeId)).dead)).toBe(1);
    });

    it("forwards a back-dated message (the device's time, days ago, in that day's partition) in id order", async () => {
        const routeId = await newRoute();
        const { sender, received } = testSender();
        start(routeId, sender);
        const day = Date.now() - 10 * DAY_MS;
        await ensureDayPartition(server.db, 'device_messages', utcDay(day));
        const [first] = await post([31]);
        await server.db.execute(sql`INSERT INTO device_messages (device_id, ts, method, data, product_id)
            SELECT ${deviceId}, ${new Date(day).toISOString()}::timestamptz, 'thing.event.property.post',
                jsonb_build_object('n', 32), product_id FROM devices WHERE id = ${deviceId}`);
        const [last] = await post([33]);
        await until(async () => Number((await routeRow(routeId)).position) === last, 10_000);
        expect(received.map((r) => r.row.n)).toEqual([31, 32, 33]);
        expect(received[1].ts).toBe(day);
        expect(Number(received[1].id.split('-')[0])).toBeGreaterThan(first);
    });

    it('reads each message from the store once for two routes of one project sharing their reads', async () => {
        const [a, b] = [await newRoute(), await newRoute()];
        const storeReads: number[] = [];
        const read = sharedReads(server.db, 100, 64, async (after, upTo, limit) => {
            const r = await readMessages(server.db, after, upTo, limit);
            storeReads.push(...r.messages.map((m) => m.id));
            return r;
        });
        const [one, two] = [testSender(), testSender()];
        start(a, one.sender, 'p1', {}, read);
        start(b, two.sender, 'p1', {}, read);
        const ids = await post([41, 42, 43, 44, 45]);
        await until(async () => one.received.length === 5 && two.received.length === 5, 10_000);
        expect(one.received.map((r) => r.row.n)).toEqual([41, 42, 43, 44, 45]);
        expect(two.received.map((r) => r.row.n)).toEqual([41, 42, 43, 44, 45]);
        expect(storeReads.filter((id) => ids.includes(id)).sort((x, y) => x - y)).toEqual(ids);
    });

    it('is sent by one process at a time: a second process waits while the first holds it', async () => {
        const routeId = await newRoute();
        const first = testSender();
        const second = testSender();
        const a = start(routeId, first.sender, 'p1');
        // The first holds the route before the second starts (which of two starting at once claims it is a race).
        await until(async () => (await routeRow(routeId)).owner === 'p1', 10_000);
        start(routeId, second.sender, 'p2');
        const ids = await post([21, 22, 23]);
        await until(async () => Number((await routeRow(routeId)).position) === ids[2], 10_000);
        expect(first.received.map((r) => r.row.n)).toEqual([21, 22, 23]);
        expect(second.received).toEqual([]);
        // The first stops (gives the route up): the second takes over from where it was.
        await a.stop();
        await post([24]);
        await until(async () => second.received.length === 1, 10_000);
        expect(second.received[0].row.n).toBe(24);
    });

    it('sends nothing more once another process took the route while a batch was being sent', async () => {
        const routeId = await newRoute();
        const first: ForwardRecord[] = [];
        const sender: Sender = {
            async send(records) {
                // Another process claims the route before this batch is acknowledged: its move will find it taken.
                if (!first.length)
                    await server.db.execute(sql`UPDATE forward_routes SET owner = 'p9',
                        lease_until = now() + interval '1 hour' WHERE id = ${routeId}`);
                first.push(...records);
            },
            test: async () => undefined,
            close: async () => undefined,
        };
        start(routeId, sender, 'p1');
        await post([51, 52]);
        await until(async () => first.length === 2, 10_000);
        await post([53]);
        const second = testSender();
        start(routeId, second.sender, 'p9');
        await until(async () => second.received.some((r) => r.row.n === 53), 10_000);
        // The first batch's move found the route taken: the new owner sends it again (at least once), the first
        // process nothing after it.
        expect(first.map((r) => r.row.n)).toEqual([51, 52]);
        expect(second.received.map((r) => r.row.n)).toEqual([51, 52, 53]);
    });

    it('drops a backlog past its bound, counted, and goes on with the newest messages', async () => {
        const routeId = await newRoute();
        let down = true;
        const { sender, received } = testSender(() => (down ? new DestinationError('目的地不可达') : undefined));
        const w = start(routeId, sender, 'p1', { backlogMax: 3 });
        await post([1, 2]);
        await until(async () => w.figures.failed >= 1, 10_000);
        await post([3, 4, 5, 6, 7]);
        down = false;
        await until(async () => Number((await routeRow(routeId)).dropped) > 0 && received.length > 0, 10_000);
        await until(async () => received.some((r) => r.row.n === 7), 10_000);
        // Some of the first batch may have gone through before the bound was seen; the last three always do.
        expect(received.slice(-3).map((r) => r.row.n)).toEqual([5, 6, 7]);
        // The route records a batch as sent after the destination took it (its UPDATE runs beside the next read).
        const counted = async () => {
            const row = await routeRow(routeId);
            return Number(row.dropped) + Number(row.sent);
        };
        await until(async () => (await counted()) >= 7, 10_000);
        expect(await counted()).toBe(7);
    });
});
