import { createServer, type IncomingMessage, type Server } from 'node:http';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../../server/db/rows';
import type { ForwardRecord, Sender } from '../../server/forward/destinations/types';
import { createHorizon } from '../../server/forward/horizon';
import { startRoute, type RouteWorker } from '../../server/forward/route';
import { DEFAULT_ROUTE_OPTIONS } from '../../server/forward/service';
import { createTestServer, type TestServer } from '../../server/testing';
import { allArrived, checkArrivals, sequenced, type Arrival, type SequencedDevice } from './forwardSupport';
import { until } from './mqttSupport';
import { online, type Device } from './rulesSupport';
import { createCluster, servicesAvailable, type ServerProcess } from './spawnServer';

/**
 * One process sends a forwarding route at a time (server/forward/lease.ts, issue 39). In process, on the embedded
 * database: a route idle for longer than its lease stays its owner's, so the next message is sent once, not by both.
 * Across two server processes on one PostgreSQL database: the owner of a flow's route is stopped (SIGSTOP) past the
 * lease, the other takes the route over and delivery goes on; resumed (SIGCONT), the first moves no position (every
 * move names its owner) and every post still arrives, in order per device, none more than twice.
 */

describe('a route idle for longer than its lease', () => {
    let server: TestServer;
    const workers: RouteWorker[] = [];

    beforeAll(async () => {
        server = await createTestServer();
    }, 60_000);

    afterAll(async () => {
        for (const w of workers) await w.stop();
        await server?.close();
    });

    it('stays with the process that holds it: the next messages are sent once', async () => {
        const { routeId, projectId, deviceId } = await newRoute(server);
        const leaseMs = 300;
        const received: Array<{ owner: string; n: unknown }> = [];
        const horizon = createHorizon(server.db, 100);
        for (const owner of ['p1', 'p2']) {
            const sender: Sender = {
                send: async (records: ForwardRecord[]) =>
                    void received.push(...records.map((r) => ({ owner, n: r.row.n }))),
                test: async () => undefined,
                close: async () => undefined,
            };
            workers.push(
                startRoute({
                    lease: { db: server.db, owner, leaseMs },
                    routeId,
                    flow: {
                        id: routeId,
                        name: 'idle',
                        projectId,
                        run: (m) => (m.payload as { params: Record<string, unknown> }).params,
                    },
                    sender,
                    horizon: (p) => horizon.advance(p),
                    options: { ...DEFAULT_ROUTE_OPTIONS, idleMs: 20, backoffMs: () => 20 },
                    log: () => undefined,
                }),
            );
        }
        await store(server, deviceId, 1);
        await until(() => received.length === 1, 10_000);
        // Idle for three leases: nothing to move, the lease must still be kept.
        await new Promise((resolve) => setTimeout(resolve, 3 * leaseMs));
        await store(server, deviceId, 2);
        await store(server, deviceId, 3);
        await until(() => received.filter((r) => r.n === 3).length > 0, 10_000);
        // Three polls of the other worker: had it held the route too, it would have sent 2 and 3 by now.
        await new Promise((resolve) => setTimeout(resolve, 3 * 20));
        expect(received.map((r) => r.n)).toEqual([1, 2, 3]);
        expect(new Set(received.map((r) => r.owner)).size).toBe(1);
    });
});

/** A flow with one destination whose route starts after the messages stored so far. */
async function newRoute(s: TestServer) {
    const [d] = rowsOf<{ id: number; project_id: number }>(
        await s.db.execute(sql`SELECT id, project_id FROM devices WHERE project_id IS NOT NULL ORDER BY id LIMIT 1`),
    );
    const projectId = Number(d.project_id);
    const name = `idle${Math.random().toString(36).slice(2, 8)}`;
    const [route] = rowsOf<{ id: number }>(
        await s.db.execute(sql`
            WITH dest AS (INSERT INTO forward_destinations (project_id, name, kind, config)
                          VALUES (${projectId}, ${name}, 'test', '{}') RETURNING id),
                 flow AS (INSERT INTO forward_flows (project_id, name, sql, enabled)
                          VALUES (${projectId}, ${name}, 'SELECT *', true) RETURNING id)
            INSERT INTO forward_routes (flow_id, destination_id, position)
            SELECT flow.id, dest.id, (SELECT coalesce(max(id), 0) FROM device_messages) FROM flow, dest RETURNING id`),
    );
    return { routeId: Number(route.id), projectId, deviceId: Number(d.id) };
}

/** Stores a property post { n } of the device. */
async function store(s: TestServer, deviceId: number, n: number) {
    await s.db.execute(sql`INSERT INTO device_messages (device_id, ts, method, data, product_id)
        SELECT id, now(), 'thing.event.property.post', jsonb_build_object('n', ${n}::int), product_id FROM devices WHERE id = ${deviceId}`);
}

const available = await servicesAvailable('forwardTakeover', { postgres: true });
const cluster = createCluster('iot_fwd_takeover');

describe.skipIf(!available)('a forwarding route on two server processes', () => {
    let first: ServerProcess;
    let second: ServerProcess;
    let db: pg.Client;
    let sink: Server;
    const arrivals: Arrival[] = [];
    const devices: Device[] = [];

    beforeAll(async () => {
        first = await cluster.start({ waitForSeed: true, env: { PGAPPNAME: 'fwd-first' } });
        db = new pg.Client({ connectionString: cluster.databaseUrl() });
        await db.connect();
        sink = createServer((req, res) => void text(req).then((b) => (arrivals.push(arrivalOf(b)), res.end('ok'))));
        await new Promise<void>((resolve) => sink.listen(0, '127.0.0.1', resolve));
    }, 200_000);

    afterAll(async () => {
        for (const d of devices) d.client.end(true);
        first?.child.kill('SIGCONT');
        sink?.close();
        await db?.end();
        await cluster.close();
    });

    async function call(p: ServerProcess, target: string, body: Record<string, unknown>) {
        const r = await p.api('POST', target, body, true);
        expect(r.code, r.msg).toBe(200);
        return Number(r.data.id);
    }

    const route = async () =>
        (await db.query<{ owner: string | null; position: string }>('SELECT owner, position FROM forward_routes'))
            .rows[0];
    const ownedBy = async (p: ServerProcess) => (await route())?.owner?.startsWith(`${p.child.pid}-`) ?? false;

    /** A flow of the lamps' project from every lamp's property posts to the test's HTTP server, enabled. */
    async function flow(productKey: string, projectId: number) {
        const port = (sink.address() as { port: number }).port;
        const destinationId = await call(first, '/api/forward/destination/save', {
            projectId,
            name: '接管推送',
            kind: 'http',
            config: { url: `http://127.0.0.1:${port}/hook`, method: 'POST' },
        });
        const id = await call(first, '/api/forward/flow/save', {
            projectId,
            name: '接管',
            sql: `SELECT deviceName() AS dn, items.ActivePower.value AS seq FROM "/sys/${productKey}/+/thing/event/property/post"`,
            destinationIds: [destinationId],
        });
        await call(first, '/api/forward/flow/enable', { id, enabled: true });
    }

    /** A lamp of the project, signed in to the given process's broker. */
    async function lampOn(p: ServerProcess, productKey: string, projectId: number): Promise<SequencedDevice> {
        const saved = await p.api('POST', '/api/device/save', {
            productKey,
            deviceName: `t${Date.now()}${devices.length}`,
        });
        expect(saved.code, saved.msg).toBe(0);
        const deviceId = Number(saved.data.deviceId);
        await db.query('UPDATE devices SET project_id = $1 WHERE id = $2', [projectId, deviceId]);
        const detail = await p.api('GET', `/api/device/detail?deviceId=${deviceId}`);
        const d = detail.data.device as { deviceName: string; secret: string };
        const device = await online(`mqtt://127.0.0.1:${p.mqttPort}`, { deviceId, productKey, ...d });
        devices.push(device);
        return sequenced(device);
    }

    /**
     * Every change of the route's row, in order (a trigger of the test's own): which process made it (its connections'
     * application_name, PGAPPNAME), the owner then, and the position before and after.
     */
    async function auditPositions() {
        await db.query(`CREATE TABLE route_audit (n bigserial, app text, owner text, old_position bigint, new_position bigint);
            CREATE FUNCTION route_audit() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
                INSERT INTO route_audit (app, owner, old_position, new_position)
                VALUES (current_setting('application_name'), NEW.owner, OLD.position, NEW.position);
                RETURN NEW; END $$;
            CREATE TRIGGER route_audit AFTER UPDATE ON forward_routes FOR EACH ROW EXECUTE FUNCTION route_audit();`);
        return async (after = 0) =>
            (
                await db.query<{ n: string; app: string; owner: string; old_position: string; new_position: string }>(
                    'SELECT n, app, owner, old_position, new_position FROM route_audit WHERE n > $1 ORDER BY n',
                    [after],
                )
            ).rows.map((r) => ({
                n: Number(r.n),
                app: r.app,
                owner: r.owner,
                from: Number(r.old_position),
                to: Number(r.new_position),
            }));
    }

    it('is taken over while its owner is stopped past the lease; resumed, the owner moves nothing', async () => {
        const products = await first.api(
            'GET',
            `/api/product?pageNumber=1&pageSize=1&productName=${encodeURIComponent('智能路灯')}`,
        );
        const productKey = (products.data.records as Array<{ productKey: string }>)[0].productKey;
        const projectId = Number((await db.query('SELECT min(id) AS id FROM projects')).rows[0].id);
        await flow(productKey, projectId);
        // Only the first process runs yet: the route is its.
        await until(() => ownedBy(first), 15_000);
        const audit = await auditPositions();
        second = await cluster.start({ env: { PGAPPNAME: 'fwd-second' } });
        const lamps = [await lampOn(second, productKey, projectId), await lampOn(second, productKey, projectId)];
        const poster = keepPosting(lamps);
        try {
            await until(() => lamps.every((l) => arrivals.some((a) => a.dn === l.deviceName && a.seq >= 5)), 15_000);
            expect(await ownedBy(first)).toBe(true);

            first.child.kill('SIGSTOP');
            const stoppedAt = Date.now();
            // Past the lease (15 s), the second process claims the route and delivers what the lamps post meanwhile.
            await until(() => ownedBy(second), 40_000);
            expect(Date.now() - stoppedAt).toBeGreaterThan(10_000);
            const sent = poster.rounds();
            await until(
                () => lamps.every((l) => arrivals.some((a) => a.dn === l.deviceName && a.seq >= sent + 5)),
                15_000,
            );

            const before = await audit();
            // The first moved the route until it was stopped; the second claimed it (the audit tells them apart).
            expect(before.some((m) => m.app === 'fwd-first' && m.to > m.from)).toBe(true);
            expect(before.at(-1)!.app).toBe('fwd-second');
            const mark = before.at(-1)!.n;
            first.child.kill('SIGCONT');
            const resumed = poster.rounds();
            // The resumed process answers again, and the lamps post on through the second for a while.
            await first.api('GET', '/api/forward/flow/list?pageSize=1');
            await until(
                () => lamps.every((l) => arrivals.some((a) => a.dn === l.deviceName && a.seq >= resumed + 20)),
                20_000,
            );
            const moves = await audit(mark);
            expect(moves.length).toBeGreaterThan(0);
            // Fencing: the resumed process changed nothing; the second moved the position on, never back.
            expect(moves.filter((m) => m.app !== 'fwd-second')).toEqual([]);
            for (const m of moves) {
                expect(m.owner).toMatch(new RegExp(`^${second.child.pid}-`));
                expect(m.to).toBeGreaterThanOrEqual(m.from);
            }
            expect(await ownedBy(second)).toBe(true);
        } finally {
            await poster.stop();
        }
        await until(() => allArrived(arrivals, lamps), 20_000);
        const { duplicates, copies } = checkArrivals(arrivals, lamps);
        const posts = lamps.reduce((n, l) => n + l.acked.length, 0);
        expect(copies, `${posts} posts, ${duplicates} duplicates`).toBeLessThanOrEqual(2);
        // A resumed process sends at most its last batch again, from the position it had read.
        expect(duplicates, `${posts} posts`).toBeLessThanOrEqual(DEFAULT_ROUTE_OPTIONS.batch);
    }, 150_000);
});

/** Posts a round (each lamp the next sequence number) every 100 ms until stopped. */
function keepPosting(lamps: SequencedDevice[]) {
    let seq = 0;
    let running = true;
    const done = (async () => {
        while (running) {
            seq++;
            await Promise.all(lamps.map((l) => l.post(seq)));
            await new Promise((resolve) => setTimeout(resolve, 100));
        }
    })();
    return {
        rounds: () => seq,
        stop: async () => {
            running = false;
            await done;
        },
    };
}

function arrivalOf(body: string): Arrival {
    const row = JSON.parse(body).row as { dn: string; seq: number };
    return { dn: row.dn, seq: Number(row.seq) };
}

function text(req: IncomingMessage): Promise<string> {
    return new Promise((resolve) => {
        let body = '';
        req.on('data', (d) => (body += d));
        req.on('end', () => resolve(body));
    });
}
