import { sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { rowsOf } from '../db/rows';
import { queuedMessages, type QueuedMessage } from './copies';

/**
 * The statements on amqp_queue after a message is queued: claims by one server process at a time (a lease, so two
 * processes on one PostgreSQL deliver each message once per group), releases, deletions of acknowledged messages and
 * the backlog bounds (count and age per group; the oldest unclaimed are dropped and counted in
 * consumer_groups.dropped).
 */

export interface Claimant {
    db: Db;
    /** This process's name on its claims. */
    owner: string;
    leaseMs: number;
}

const lease = (c: Claimant) => sql`now() + ${`${c.leaseMs} milliseconds`}::interval`;
const idArray = (ids: number[]) => sql`${`{${ids.join(',')}}`}::bigint[]`;

/** Claims up to `limit` of a group's oldest unclaimed (or expired) messages. */
export async function claim(c: Claimant, groupId: number, limit: number): Promise<QueuedMessage[]> {
    const result = await c.db.execute(sql`
        UPDATE amqp_queue SET owner = ${c.owner}, lease_until = ${lease(c)}
        WHERE id IN (
            SELECT id FROM amqp_queue
            WHERE group_id = ${groupId} AND (owner IS NULL OR lease_until < now())
            ORDER BY id LIMIT ${limit} FOR UPDATE SKIP LOCKED)
        RETURNING id, group_id, message_id, topic, generate_time, payload`);
    return queuedMessages(rowsOf(result));
}

/** Frees claimed messages this process will not deliver. */
export async function release(c: Claimant, ids: number[]): Promise<void> {
    if (!ids.length) return;
    await c.db.execute(sql`
        UPDATE amqp_queue SET owner = NULL, lease_until = NULL
        WHERE owner = ${c.owner} AND id IN (SELECT unnest(${idArray(ids)}))`);
}

/** Frees the group's rows this process owns except `keep` (after a claim whose answer may have been lost). */
export async function releaseExcept(c: Claimant, groupId: number, keep: number[]): Promise<void> {
    await c.db.execute(sql`
        UPDATE amqp_queue SET owner = NULL, lease_until = NULL
        WHERE owner = ${c.owner} AND group_id = ${groupId} AND NOT (id = ANY(${idArray(keep)}))`);
}

/** Frees every claim of this process (closing). */
export async function releaseAll(c: Claimant): Promise<void> {
    await c.db.execute(sql`UPDATE amqp_queue SET owner = NULL, lease_until = NULL WHERE owner = ${c.owner}`);
}

/** Keeps this process's claims alive. */
export async function renew(c: Claimant): Promise<void> {
    await c.db.execute(sql`UPDATE amqp_queue SET lease_until = ${lease(c)} WHERE owner = ${c.owner}`);
}

/** Deletes acknowledged messages. */
export async function deleteAcked(db: Db, ids: number[]): Promise<void> {
    await db.execute(sql`DELETE FROM amqp_queue WHERE id IN (SELECT unnest(${idArray(ids)}))`);
}

const countOf = (result: unknown) => Number(rowsOf<{ n: number }>(result)[0]?.n ?? 0);

/** Drops the unclaimed messages older than `hours`; the count per group. */
async function dropOld(db: Db, hours: number): Promise<Map<number, number>> {
    const old = await db.execute(sql`
        WITH d AS (
            DELETE FROM amqp_queue WHERE create_time < now() - ${`${hours} hours`}::interval
            AND (owner IS NULL OR lease_until < now()) RETURNING group_id)
        SELECT group_id, count(*)::int AS n FROM d GROUP BY group_id`);
    const drops = new Map<number, number>();
    for (const r of rowsOf<{ group_id: number; n: number }>(old)) drops.set(Number(r.group_id), Number(r.n));
    return drops;
}

/** Drops a group's unclaimed messages beyond its newest `max`; how many. */
async function dropBeyond(db: Db, groupId: number, max: number): Promise<number> {
    const cut = await db.execute(sql`
        SELECT id FROM amqp_queue WHERE group_id = ${groupId} ORDER BY id DESC OFFSET ${max} LIMIT 1`);
    const [row] = rowsOf<{ id: string | number }>(cut);
    if (!row) return 0;
    return countOf(
        await db.execute(sql`
            WITH d AS (DELETE FROM amqp_queue WHERE group_id = ${groupId} AND id <= ${Number(row.id)}
                AND (owner IS NULL OR lease_until < now()) RETURNING 1)
            SELECT count(*)::int AS n FROM d`),
    );
}

/** Drops what is past the bounds (oldest first, unclaimed only), counting them per group; the total dropped. */
export async function trim(db: Db, backlogMax: number, backlogHours: number): Promise<number> {
    const drops = await dropOld(db, backlogHours);
    const groups = await db.execute(sql`
        SELECT c.id FROM consumer_groups c WHERE EXISTS (SELECT 1 FROM amqp_queue q WHERE q.group_id = c.id)`);
    for (const { id } of rowsOf<{ id: number }>(groups)) {
        const n = await dropBeyond(db, Number(id), backlogMax);
        if (n) drops.set(Number(id), (drops.get(Number(id)) ?? 0) + n);
    }
    let dropped = 0;
    for (const [groupId, n] of drops) {
        await db.execute(sql`UPDATE consumer_groups SET dropped = dropped + ${n} WHERE id = ${groupId}`);
        dropped += n;
    }
    return dropped;
}

/** 清空堆积: every message of the group not held by a consumer right now, counted as dropped. */
export async function clear(db: Db, groupId: number): Promise<number> {
    const n = countOf(
        await db.execute(sql`
            WITH d AS (DELETE FROM amqp_queue WHERE group_id = ${groupId}
                AND (owner IS NULL OR lease_until < now()) RETURNING 1)
            SELECT count(*)::int AS n FROM d`),
    );
    if (n) await db.execute(sql`UPDATE consumer_groups SET dropped = dropped + ${n} WHERE id = ${groupId}`);
    return n;
}

export async function backlog(db: Db, groupId: number): Promise<number> {
    return countOf(await db.execute(sql`SELECT count(*)::int AS n FROM amqp_queue WHERE group_id = ${groupId}`));
}
