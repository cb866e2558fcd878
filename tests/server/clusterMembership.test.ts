import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { subscribeLamp } from './amqpSupport';
import { setProcessState } from '../../server/cluster/processState';
import { Lease } from '../../server/cluster/lease';
import { beat, createMembership, type MemberState } from '../../server/cluster/membership';
import { rowsOf } from '../../server/db/rows';
import { createTestServer, type TestServer } from '../../server/testing';

/**
 * Cluster membership on one database (PGlite here, PostgreSQL with DATABASE_URL): a member that stops heartbeating is
 * cleaned up after by a survivor (its devices OFFLINE with presence history and a logged reason, its AMQP claims
 * released, the oldest survivor takes the once-per-cluster jobs), devices that moved to the survivor keep ONLINE; and
 * the health endpoints answer without a session. tests/server/clusterFailover.test.ts runs the real processes.
 */

let s: TestServer;
beforeAll(async () => {
    s = await createTestServer({ seed: true });
}, 60_000);
afterAll(async () => {
    setProcessState(undefined);
    await s?.close();
});

const rows = async <T>(q: ReturnType<typeof sql>) => rowsOf<T>(await s.db.execute(q));

describe('cluster membership', () => {
    it('a survivor marks a silent member’s devices OFFLINE, releases its claims and takes over its jobs', async () => {
        const logs: string[] = [];
        const leaders: string[] = [];
        const timeoutMs = 6_000; // heartbeats every 2 s
        const first = await createMembership({
            db: s.db,
            timeoutMs,
            amqpOwner: 'owner-first',
            figures: () => ({ connected: 3 }),
            onLeader: () => leaders.push('first'),
            log: (m) => logs.push(m),
        });
        const second = await createMembership({
            db: s.db,
            timeoutMs,
            amqpOwner: 'owner-second',
            figures: () => ({ connected: 1 }),
            onLeader: () => leaders.push('second'),
            log: (m) => logs.push(m),
        });
        expect(leaders).toEqual(['first']);
        expect((await second.nodes()).map((n) => n.nodeId)).toEqual([first.nodeId, second.nodeId]);

        const devices = await rows<{ id: number }>(sql`SELECT id FROM devices WHERE enabled ORDER BY id LIMIT 4`);
        const [a, b, moved, other] = devices.map((d) => Number(d.id));
        const past = new Date(Date.now() - 60_000).toISOString();
        // a and b were connected to the first; `moved` was too, then reconnected to the second just now.
        await s.db.execute(sql`UPDATE devices SET status = 'ONLINE', status_time = ${past}::timestamptz,
            node_id = ${first.nodeId} WHERE id IN (${a}, ${b})`);
        await s.db.execute(sql`UPDATE devices SET status = 'ONLINE', status_time = now(), node_id = ${second.nodeId}
            WHERE id = ${moved}`);
        await s.db.execute(sql`UPDATE devices SET status = 'OFFLINE', node_id = NULL WHERE id = ${other}`);
        const { groupId } = await subscribeLamp(s);
        {
            await s.db.execute(sql`INSERT INTO amqp_queue (group_id, device_id, message_id, topic, generate_time,
                payload, owner, lease_until) VALUES (${groupId}, ${a}, '1', '/t', 0, '{}', 'owner-first',
                now() + interval '60 seconds')`);
        }

        // The first stops heartbeating (as a SIGKILL would leave it); the second sweeps after the timeout.
        await first.leave().catch(() => undefined);
        await s.db.execute(sql`INSERT INTO cluster_nodes (node_id, started_at, heartbeat_at, amqp_owner)
            VALUES (${first.nodeId}, now() - interval '1 hour', now() - interval '1 minute', 'owner-first')`);
        // (the second's own heartbeat may sweep first: either way one sweep cleans up, and says so)
        await second.sweepDead();
        expect(logs.filter((l) => l.includes(first.nodeId) && l.includes('2 台设备'))).toHaveLength(1);

        const status = await rows<{ id: number; status: string; node_id: string | null }>(
            sql`SELECT id, status, node_id FROM devices WHERE id IN (${a}, ${b}, ${moved}) ORDER BY id`,
        );
        expect(status.map((r) => [Number(r.id), r.status, r.node_id])).toEqual(
            [
                [a, 'OFFLINE', null],
                [b, 'OFFLINE', null],
                [moved, 'ONLINE', second.nodeId],
            ].sort((x, y) => Number(x[0]) - Number(y[0])),
        );
        const presence = await rows<{ device_id: number }>(
            sql`SELECT device_id FROM device_presence WHERE device_id IN (${a}, ${b}) AND NOT online`,
        );
        expect(new Set(presence.map((p) => Number(p.device_id)))).toEqual(new Set([a, b]));
        const logged = await rows<{ n: number }>(sql`SELECT count(*)::int AS n FROM device_messages
            WHERE device_id IN (${a}, ${b}) AND method = 'device.status' AND data->>'reason' = 'nodeLost'`);
        expect(Number(logged[0].n)).toBe(2);
        {
            const claims = await rows<{ n: number }>(
                sql`SELECT count(*)::int AS n FROM amqp_queue WHERE owner = 'owner-first'`,
            );
            expect(Number(claims[0].n)).toBe(0);
        }
        expect((await second.nodes()).map((n) => n.nodeId)).toEqual([second.nodeId]);
        // A second sweep finds nothing: exactly one survivor cleans up after a member.
        expect(await second.sweepDead()).toBe(0);
        // The survivor is now the oldest: at its next heartbeat it takes the once-per-cluster jobs.
        const until = Date.now() + 10_000;
        while (!leaders.includes('second') && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
        expect(leaders).toEqual(['first', 'second']);
        await second.leave();
        expect(await rows(sql`SELECT node_id FROM cluster_nodes`)).toEqual([]);
    });
});

describe('a member back from a database outage', () => {
    it('judges no other member lost until it has watched for a whole NODE_TIMEOUT without a gap', async () => {
        const timeoutMs = 6_000;
        let now = 0;
        const clock = () => now;
        const logs: string[] = [];
        const state: MemberState = {
            options: { db: s.db, timeoutMs, figures: () => ({}) },
            nodeId: 'watcher',
            lease: new Lease(timeoutMs, {}, clock),
            leader: false,
            stopped: false,
            log: (m) => logs.push(m),
            renewedAt: 0,
            watchingSince: 0,
        };
        await s.db.execute(sql`INSERT INTO cluster_nodes (node_id) VALUES ('watcher')`);
        const silent = (id: string) =>
            s.db.execute(
                sql`INSERT INTO cluster_nodes (node_id, heartbeat_at) VALUES (${id}, now() - interval '1 minute')`,
            );
        const present = async (id: string) =>
            (await rows(sql`SELECT 1 FROM cluster_nodes WHERE node_id = ${id}`)).length === 1;
        const beatAt = async (t: number) => {
            now = t;
            await beat(state, clock);
        };
        try {
            // Watching since it started: a member silent all along is swept once a whole timeout has been watched.
            await silent('gone-early');
            for (let t = 0; t < timeoutMs; t += 1_000) await beatAt(t);
            expect(await present('gone-early')).toBe(true);
            await beatAt(timeoutMs);
            expect(await present('gone-early')).toBe(false);

            // Blind for longer than its lease (the database away): every heartbeat is old when it comes back, and the
            // first beat back sweeps nobody; the others renew in their next beat.
            await silent('renews-soon');
            await beatAt(30_000);
            expect(await present('renews-soon')).toBe(true);
            await s.db.execute(sql`UPDATE cluster_nodes SET heartbeat_at = now() WHERE node_id = 'renews-soon'`);
            // One that never comes back is swept once the timeout has been watched again.
            await silent('never-back');
            for (let t = 31_000; t < 30_000 + timeoutMs; t += 1_000) await beatAt(t);
            expect(await present('never-back')).toBe(true);
            await beatAt(30_000 + timeoutMs);
            expect(await present('never-back')).toBe(false);
            expect(await present('renews-soon')).toBe(true);
        } finally {
            state.stopped = true;
            await s.db.execute(sql`DELETE FROM cluster_nodes WHERE node_id IN ('watcher', 'renews-soon')`);
        }
    });
});

describe('health endpoints', () => {
    it('answer without a session: not ready before the server has started, metrics off without a token', async () => {
        setProcessState(undefined);
        const ready = await s.anonFetch('/health/ready');
        expect(ready.status).toBe(503);
        expect(await ready.text()).toBe('not ready');
        expect((await s.anonFetch('/health/live')).status).toBe(200);
        expect((await s.anonFetch('/metrics')).status).toBe(404);
    });

    it('readiness follows the process state; /metrics asks for the bearer token', async () => {
        let up = true;
        setProcessState({
            ready: async () => up,
            metrics: async () => ({ body: 'x 1\n', contentType: 'text/plain; version=0.0.4' }),
            metricsToken: 'tok',
        });
        expect((await s.anonFetch('/health/ready')).status).toBe(200);
        up = false;
        expect((await s.anonFetch('/health/ready')).status).toBe(503);
        expect((await s.anonFetch('/metrics')).status).toBe(401);
        expect((await s.anonFetch('/metrics', { headers: { authorization: 'Bearer nope' } })).status).toBe(401);
        const ok = await s.anonFetch('/metrics', { headers: { authorization: 'Bearer tok' } });
        expect(ok.status).toBe(200);
        expect(await ok.text()).toBe('x 1\n');
    });
});
