import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { rowsOf } from '../db/rows';
import type { AcceptedMessage } from '../mqtt/uplink';

/**
 * The durable side of server-side subscription: which consumer groups each product's posts go to, the per-group queue
 * in the database (amqp_queue) written in batches off the MQTT path, claims by one server process at a time (a lease,
 * so two processes on one PostgreSQL deliver each message once per group), acknowledgements deleted in batches, and
 * the backlog bounds (count and age per group; the oldest unclaimed are dropped and counted in consumer_groups.dropped).
 */

export interface QueuedMessage {
    id: number;
    groupId: number;
    messageId: string;
    topic: string;
    generateTime: number;
    payload: string;
}

export interface QueueOptions {
    db: Db;
    /** Most messages kept per group (AMQP_BACKLOG_MAX). */
    backlogMax: number;
    /** Oldest message kept, hours (AMQP_BACKLOG_HOURS). */
    backlogHours: number;
    /** A claim lasts this long unless renewed (a crashed process's claims come back after it). */
    leaseMs?: number;
    /** Tell every server process on the database about new messages (PostgreSQL NOTIFY on NOTIFY_CHANNEL). */
    notify?: boolean;
    /**
     * Without `notify` (one process): how many of a group's `n` new messages this process claims as it inserts them
     * (its consumers' spare credit), saving the claim query on the way to a waiting consumer.
     */
    takeOnInsert?: (groupId: number, n: number) => number;
    log?: (message: string) => void;
}

/** The PostgreSQL channel new queue rows are announced on (payload: the group ids, comma-separated). */
export const NOTIFY_CHANNEL = 'iot_amqp_queue';

const MAX_BATCH = 1_000;
const LINGER_MS = 5;
/** Routes (subscriptions) are re-read this often, so another process's edits arrive. */
const ROUTES_TTL_MS = 3_000;

/** Alibaba's messageId: a numeric string, unique per message (ms × 2^20 + a sequence, plus a per-process offset). */
function messageIdSource() {
    let seq = randomBytes(2).readUInt16BE(0);
    return () => {
        seq = (seq + 1) % 1_048_576;
        return (BigInt(Date.now()) * 1_048_576n + BigInt(seq)).toString();
    };
}

export function createQueue({
    db,
    backlogMax,
    backlogHours,
    leaseMs = 60_000,
    notify = false,
    takeOnInsert,
    log = console.warn,
}: QueueOptions) {
    /** This process's name on its claims. */
    const owner = `${process.pid}-${randomBytes(6).toString('hex')}`;
    const nextMessageId = messageIdSource();
    let routes = new Map<number, number[]>();
    let routesAt = 0;
    let routesLoading: Promise<void> | undefined;
    let pending: Array<Omit<QueuedMessage, 'id'> & { deviceId: number; queued?: () => void }> = [];
    let timer: NodeJS.Timeout | undefined;
    let flushing: Promise<void> = Promise.resolve();
    let acks: number[] = [];
    let ackTimer: NodeJS.Timeout | undefined;
    let acking: Promise<void> = Promise.resolve();
    const insertedListeners: Array<(groupIds: Set<number>, taken: QueuedMessage[]) => void> = [];
    let closed = false;
    let routesTimer: NodeJS.Timeout | undefined;
    const counters = { enqueued: 0, acked: 0, dropped: 0 };

    async function loadRoutes() {
        const result = await db.execute(sql`
            SELECT s.product_id, sg.group_id FROM subscriptions s
            JOIN subscription_groups sg ON sg.subscription_id = s.id
            WHERE s.msg_types LIKE '%post%'`);
        const next = new Map<number, number[]>();
        for (const r of rowsOf<{ product_id: number; group_id: number }>(result)) {
            const list = next.get(Number(r.product_id)) ?? [];
            list.push(Number(r.group_id));
            next.set(Number(r.product_id), list);
        }
        routes = next;
        routesAt = Date.now();
    }

    function refreshRoutes(): Promise<void> {
        routesLoading ??= loadRoutes()
            .catch((err) => log(`读取订阅失败: ${String(err)}`))
            .finally(() => (routesLoading = undefined));
        return routesLoading;
    }

    function schedule() {
        if (timer || closed) return;
        timer = setTimeout(() => {
            timer = undefined;
            flushing = flushing.then(flush);
        }, LINGER_MS);
    }

    async function flush() {
        while (pending.length) {
            const batch = pending.slice(0, MAX_BATCH);
            pending = pending.slice(batch.length);
            try {
                // Rows this process takes at once for its waiting consumers (one process only): claimed as inserted.
                const take = new Map<number, number>();
                if (!notify && takeOnInsert) {
                    const perGroup = new Map<number, number>();
                    for (const r of batch) perGroup.set(r.groupId, (perGroup.get(r.groupId) ?? 0) + 1);
                    for (const [g, n] of perGroup) take.set(g, takeOnInsert(g, n));
                }
                const result = await db.execute(sql`
                    INSERT INTO amqp_queue (group_id, device_id, message_id, topic, generate_time, payload, owner, lease_until)
                    SELECT x.g, x.d, x.m, x.t, x.ts, x.p,
                        CASE WHEN x.o THEN ${owner} END,
                        CASE WHEN x.o THEN now() + ${`${leaseMs} milliseconds`}::interval END
                    FROM json_to_recordset(${JSON.stringify(
                        batch.map((r) => {
                            const left = take.get(r.groupId) ?? 0;
                            if (left > 0) take.set(r.groupId, left - 1);
                            return {
                                g: r.groupId,
                                d: r.deviceId,
                                m: r.messageId,
                                t: r.topic,
                                ts: r.generateTime,
                                p: r.payload,
                                o: left > 0,
                            };
                        }),
                    )}::json) AS x(g integer, d bigint, m text, t text, ts bigint, p text, o boolean)
                    WHERE EXISTS (SELECT 1 FROM consumer_groups c WHERE c.id = x.g)
                    RETURNING id, group_id, message_id, topic, generate_time, payload, owner`);
                counters.enqueued += batch.length;
                const taken = rowsOf<{
                    id: string | number;
                    group_id: number;
                    message_id: string;
                    topic: string;
                    generate_time: string | number;
                    payload: string;
                    owner: string | null;
                }>(result)
                    .filter((r) => r.owner === owner)
                    .map((r) => ({
                        id: Number(r.id),
                        groupId: Number(r.group_id),
                        messageId: r.message_id,
                        topic: r.topic,
                        generateTime: Number(r.generate_time),
                        payload: r.payload,
                    }))
                    .sort((a, b) => a.id - b.id);
                const groups = new Set(batch.map((r) => r.groupId));
                if (notify) {
                    // Every process (this one too) hears it at about the same time, so they share the group's messages.
                    await db
                        .execute(sql`SELECT pg_notify(${NOTIFY_CHANNEL}, ${[...groups].join(',')})`)
                        .catch(() => insertedListeners.forEach((l) => l(groups, [])));
                } else for (const l of insertedListeners) l(groups, taken);
            } catch (err) {
                log(`订阅消息入队失败（${batch.length} 条） / enqueue failed: ${String(err)}`);
            }
            for (const r of batch) r.queued?.();
        }
    }

    async function flushAcks() {
        while (acks.length) {
            const batch = acks.slice(0, MAX_BATCH);
            acks = acks.slice(batch.length);
            try {
                await db.execute(
                    sql`DELETE FROM amqp_queue WHERE id IN (SELECT unnest(${`{${batch.join(',')}}`}::bigint[]))`,
                );
                counters.acked += batch.length;
            } catch (err) {
                log(`确认消息删除失败 / ack delete failed: ${String(err)}`);
            }
        }
    }

    async function drain() {
        if (timer) clearTimeout(timer);
        timer = undefined;
        if (ackTimer) clearTimeout(ackTimer);
        ackTimer = undefined;
        flushing = flushing.then(flush);
        acking = acking.then(flushAcks);
        await Promise.all([flushing, acking]);
    }

    return {
        owner,
        counters,
        /** Loads the subscriptions (call once before messages flow; they refresh every few seconds after). */
        start() {
            // Another process's subscription edits arrive within ROUTES_TTL_MS even before this process's next
            // message (a refresh started by a message routes that message with the old routes).
            routesTimer ??= setInterval(() => void refreshRoutes(), ROUTES_TTL_MS);
            routesTimer.unref();
            return loadRoutes();
        },
        /** A subscription changed here: re-read the routes now. */
        invalidate: () => refreshRoutes(),
        /**
         * An accepted device message: property posts of a subscribed product are queued for each of its groups. The
         * row goes into the next batch insert; the promise settles once that insert is done, so the broker's PUBACK
         * can wait for it (a process killed after acknowledging a message has queued it for its subscriptions too).
         */
        accept(message: AcceptedMessage): Promise<void> | undefined {
            if (closed) return;
            if (Date.now() - routesAt > ROUTES_TTL_MS) void refreshRoutes();
            if (message.kind !== 'property') return;
            const groups = routes.get(message.device.productId);
            if (!groups?.length) return;
            const messageId = nextMessageId();
            const generateTime = Date.now();
            const payload = message.payload.toString('utf8');
            let queued!: () => void;
            const done = new Promise<void>((resolve) => (queued = resolve));
            groups.forEach((groupId, i) => {
                pending.push({
                    groupId,
                    deviceId: message.device.deviceId,
                    messageId,
                    topic: message.topic,
                    generateTime,
                    payload,
                    // The last group's row is the last to be inserted (batches go in order).
                    ...(i === groups.length - 1 ? { queued } : {}),
                });
            });
            if (pending.length >= MAX_BATCH) {
                if (timer) clearTimeout(timer);
                timer = undefined;
                flushing = flushing.then(flush);
            } else schedule();
            return done;
        },
        /** After each batch insert: the groups that got messages. */
        onInserted(fn: (groupIds: Set<number>, taken: QueuedMessage[]) => void) {
            insertedListeners.push(fn);
        },
        /** Claims up to `limit` of a group's oldest unclaimed (or expired) messages for this process. */
        async claim(groupId: number, limit: number): Promise<QueuedMessage[]> {
            const result = await db.execute(sql`
                UPDATE amqp_queue SET owner = ${owner}, lease_until = now() + ${`${leaseMs} milliseconds`}::interval
                WHERE id IN (
                    SELECT id FROM amqp_queue
                    WHERE group_id = ${groupId} AND (owner IS NULL OR lease_until < now())
                    ORDER BY id LIMIT ${limit} FOR UPDATE SKIP LOCKED)
                RETURNING id, group_id, message_id, topic, generate_time, payload`);
            return rowsOf<{
                id: string | number;
                group_id: number;
                message_id: string;
                topic: string;
                generate_time: string | number;
                payload: string;
            }>(result)
                .map((r) => ({
                    id: Number(r.id),
                    groupId: Number(r.group_id),
                    messageId: r.message_id,
                    topic: r.topic,
                    generateTime: Number(r.generate_time),
                    payload: r.payload,
                }))
                .sort((a, b) => a.id - b.id);
        },
        /** Accepted by a consumer: deleted in the next batch. */
        ack(id: number) {
            acks.push(id);
            if (ackTimer || closed) return;
            ackTimer = setTimeout(() => {
                ackTimer = undefined;
                acking = acking.then(flushAcks);
            }, LINGER_MS);
        },
        /** Claimed messages this process will not deliver (its last consumer of the group left): free for others. */
        async release(ids: number[]) {
            if (!ids.length) return;
            await db.execute(sql`
                UPDATE amqp_queue SET owner = NULL, lease_until = NULL
                WHERE owner = ${owner} AND id IN (SELECT unnest(${`{${ids.join(',')}}`}::bigint[]))`);
        },
        /** Keeps this process's claims alive. */
        async renew() {
            await db.execute(sql`
                UPDATE amqp_queue SET lease_until = now() + ${`${leaseMs} milliseconds`}::interval WHERE owner = ${owner}`);
        },
        /** Drops what is past the bounds (oldest first, unclaimed only), counting them per group. */
        async trim(): Promise<number> {
            let dropped = 0;
            const old = await db.execute(sql`
                WITH d AS (
                    DELETE FROM amqp_queue WHERE create_time < now() - ${`${backlogHours} hours`}::interval
                    AND (owner IS NULL OR lease_until < now()) RETURNING group_id)
                SELECT group_id, count(*)::int AS n FROM d GROUP BY group_id`);
            const drops = new Map<number, number>();
            for (const r of rowsOf<{ group_id: number; n: number }>(old)) drops.set(Number(r.group_id), Number(r.n));
            const groups = await db.execute(sql`
                SELECT c.id FROM consumer_groups c WHERE EXISTS (SELECT 1 FROM amqp_queue q WHERE q.group_id = c.id)`);
            for (const { id } of rowsOf<{ id: number }>(groups)) {
                const cut = await db.execute(sql`
                    SELECT id FROM amqp_queue WHERE group_id = ${id} ORDER BY id DESC OFFSET ${backlogMax} LIMIT 1`);
                const [row] = rowsOf<{ id: string | number }>(cut);
                if (!row) continue;
                const removed = await db.execute(sql`
                    WITH d AS (DELETE FROM amqp_queue WHERE group_id = ${id} AND id <= ${Number(row.id)}
                        AND (owner IS NULL OR lease_until < now()) RETURNING 1)
                    SELECT count(*)::int AS n FROM d`);
                const n = Number(rowsOf<{ n: number }>(removed)[0]?.n ?? 0);
                if (n) drops.set(Number(id), (drops.get(Number(id)) ?? 0) + n);
            }
            for (const [groupId, n] of drops) {
                await db.execute(sql`UPDATE consumer_groups SET dropped = dropped + ${n} WHERE id = ${groupId}`);
                dropped += n;
            }
            counters.dropped += dropped;
            return dropped;
        },
        /** 清空堆积: every message of the group not held by a consumer right now, counted as dropped. */
        async clear(groupId: number): Promise<number> {
            const removed = await db.execute(sql`
                WITH d AS (DELETE FROM amqp_queue WHERE group_id = ${groupId}
                    AND (owner IS NULL OR lease_until < now()) RETURNING 1)
                SELECT count(*)::int AS n FROM d`);
            const n = Number(rowsOf<{ n: number }>(removed)[0]?.n ?? 0);
            if (n) await db.execute(sql`UPDATE consumer_groups SET dropped = dropped + ${n} WHERE id = ${groupId}`);
            return n;
        },
        async backlog(groupId: number): Promise<number> {
            const result = await db.execute(sql`SELECT count(*)::int AS n FROM amqp_queue WHERE group_id = ${groupId}`);
            return Number(rowsOf<{ n: number }>(result)[0]?.n ?? 0);
        },
        /** Writes what is pending (enqueues and acks). */
        drain,
        async close() {
            clearInterval(routesTimer);
            await drain();
            closed = true;
            await db.execute(sql`UPDATE amqp_queue SET owner = NULL, lease_until = NULL WHERE owner = ${owner}`);
        },
    };
}

export type Queue = ReturnType<typeof createQueue>;
