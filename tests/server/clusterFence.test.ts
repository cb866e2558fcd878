import { sql } from 'drizzle-orm';
import mqtt from 'mqtt';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isFenceRefusal, type FenceToken } from '../../server/cluster/fence';
import { createMembership, renewalTimeoutMs } from '../../server/cluster/membership';
import { openDatabase, type DatabaseHandle } from '../../server/db/client';
import { rowsOf } from '../../server/db/rows';
import { createBroker } from '../../server/mqtt/broker';

/**
 * Self-fencing on real PostgreSQL: another connection holds this member's cluster_nodes row locked, so its heartbeat
 * (on a connection of its own, with a statement timeout) cannot renew; within NODE_TIMEOUT / 2 the member fences, the
 * shared pool still answers meanwhile, and once the lock goes the heartbeat renews and the fence lifts. A fenced
 * broker closes a CONNECT unanswered, and the client retries. Needs PostgreSQL (DATABASE_URL, or this machine's on 5432): its own schema, dropped after.
 */
const url = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const schema = `t_fence_${process.pid}_${Date.now().toString(36)}`;
const TIMEOUT = 3_000;

let handle: DatabaseHandle;
beforeAll(async () => {
    handle = await openDatabase({ databaseUrl: url, pgSchema: schema, dropSchemaOnClose: true });
}, 60_000);
afterAll(() => handle?.close());

const until = async (check: () => boolean | Promise<boolean>, ms: number) => {
    const end = Date.now() + ms;
    while (!(await check())) {
        if (Date.now() > end) throw new Error('timed out');
        await new Promise((r) => setTimeout(r, 25));
    }
};

describe('self-fencing on PostgreSQL', () => {
    it('a member whose heartbeat row is locked fences within NODE_TIMEOUT / 2 and recovers when it is released', async () => {
        const events: Array<[string, number]> = [];
        const membership = await createMembership({
            db: handle.db,
            heartbeat: handle.dedicated!(renewalTimeoutMs(TIMEOUT)),
            timeoutMs: TIMEOUT,
            figures: () => ({}),
            onFenced: () => events.push(['fenced', Date.now()]),
            onUnfenced: () => events.push(['unfenced', Date.now()]),
            log: () => undefined,
        });
        const heartbeatOf = async () =>
            new Date(
                rowsOf<{ at: string }>(
                    await handle.db.execute(
                        sql`SELECT heartbeat_at AS at FROM cluster_nodes WHERE node_id = ${membership.nodeId}`,
                    ),
                )[0].at,
            ).getTime();
        const locker = new pg.Client({ connectionString: url, options: `-c search_path="${schema}"` });
        await locker.connect();
        try {
            await locker.query('BEGIN');
            await locker.query('SELECT 1 FROM cluster_nodes WHERE node_id = $1 FOR UPDATE', [membership.nodeId]);
            const lockedAt = Date.now();
            await until(() => membership.fenced, TIMEOUT);
            // The lease counts from the last renewal's send, before the lock: fenced within NODE_TIMEOUT / 2 of it.
            expect(events[0][0]).toBe('fenced');
            expect(events[0][1] - lockedAt).toBeLessThanOrEqual(TIMEOUT / 2 + 100);
            // The routes' pool is not the heartbeat's: it answers while the heartbeat waits.
            expect(rowsOf(await handle.db.execute(sql`SELECT 1 AS one`))).toEqual([{ one: 1 }]);
            // The renewals go on being tried (each given up by its statement timeout), not stuck behind the first.
            await new Promise((r) => setTimeout(r, TIMEOUT));
            const waiting = rowsOf<{ n: number }>(
                await handle.db.execute(sql`SELECT count(*)::int AS n FROM pg_stat_activity
                    WHERE wait_event_type = 'Lock' AND query LIKE '%UPDATE cluster_nodes n%'`),
            );
            expect(Number(waiting[0].n)).toBeLessThanOrEqual(1);
            const before = await heartbeatOf();
            await locker.query('COMMIT');
            await until(() => !membership.fenced, TIMEOUT);
            expect(events.map((e) => e[0])).toEqual(['fenced', 'unfenced']);
            expect(await heartbeatOf()).toBeGreaterThan(before);
            // And it keeps renewing.
            const after = await heartbeatOf();
            await until(async () => (await heartbeatOf()) > after, TIMEOUT);
            expect(membership.fenced).toBe(false);
        } finally {
            await locker.end();
            await membership.leave();
        }
    }, 30_000);

    it('registers again under a new incarnation after being declared lost: the database refuses the old one', async () => {
        const membership = await createMembership({
            db: handle.db,
            heartbeat: handle.dedicated!(renewalTimeoutMs(TIMEOUT)),
            timeoutMs: TIMEOUT,
            figures: () => ({}),
            log: () => undefined,
        });
        const fence = (token: FenceToken) =>
            handle.db.execute(sql`SELECT cluster_fence(${token.nodeId}, ${token.incarnation}, ${token.leaseMs}::int)`);
        try {
            const first = membership.fenceToken!;
            expect(first.leaseMs).toBe(TIMEOUT / 2);
            await fence(first);
            // A survivor's sweep removes the member; its next renewal registers it again.
            await handle.db.execute(sql`DELETE FROM cluster_nodes WHERE node_id = ${membership.nodeId}`);
            await until(() => membership.fenceToken!.incarnation !== first.incarnation, TIMEOUT);
            await fence(membership.fenceToken!);
            const refused = await fence(first).then(
                () => undefined,
                (err: unknown) => err,
            );
            expect(isFenceRefusal(refused)).toBe(true);
        } finally {
            await membership.leave();
        }
    }, 30_000);

    it('a fenced broker closes a CONNECT without a CONNACK, so the client keeps reconnecting until it is taken', async () => {
        let fenced = true;
        const broker = await createBroker({ db: handle.db, log: () => undefined, fenced: () => fenced });
        const client = mqtt.connect('', {
            host: '127.0.0.1',
            port: await broker.listen(0, '127.0.0.1'),
            clientId: 'a|securemode=3,signmethod=hmacsha1|',
            username: 'dev&pk',
            password: 'x',
            reconnectPeriod: 100,
            connectTimeout: 2_000,
        });
        try {
            let closes = 0;
            client.on('close', () => closes++);
            const errors: Array<{ code?: number; message: string }> = [];
            client.on('error', (err) => errors.push(err as { code?: number; message: string }));
            // Closed, no CONNACK (a CONNACK refusal would stop mqtt.js), and tried again.
            await until(() => closes >= 3, 10_000);
            expect(client.connected).toBe(false);
            fenced = false;
            // Not fenced: its next try is signed in against the device table (no such device: CONNACK 2).
            await until(() => errors.some((e) => e.code === 2), 10_000).catch(() => {
                throw new Error(`no CONNACK 2 after the fence lifted: ${errors.map((e) => e.message).join('; ')}`);
            });
        } finally {
            client.end(true);
            await broker.close();
        }
    }, 30_000);
});
