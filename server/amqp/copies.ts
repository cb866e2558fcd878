import { sql, type SQL } from 'drizzle-orm';
import { rowsOf } from '../db/rows';

/**
 * A device message's copies for server-side subscription (one per consumer group), inserted into amqp_queue by the
 * same statement as the message row (server/mqtt/writerBatch.ts): the message and its copies are stored together or
 * not at all, so the device's PUBACK, which waits for that statement, means both are kept.
 */

/** One consumer group's copy of a message. */
export interface QueueCopy {
    groupId: number;
    deviceId: number;
    messageId: string;
    topic: string;
    generateTime: number;
    payload: string;
}

/** A copy as stored: its queue row id. */
export interface QueuedMessage {
    id: number;
    groupId: number;
    messageId: string;
    topic: string;
    generateTime: number;
    payload: string;
}

/** The queue a message's copies belong to (this process's AMQP queue, server/amqp/queue.ts). */
export interface CopyTarget {
    /** This process's name on the rows it claims as it inserts them. */
    readonly owner: string;
    readonly leaseMs: number;
    /** Per group, how many of a batch's new copies (`perGroup`: group id → count) this process claims as inserted. */
    takeOnInsert(perGroup: Map<number, number>): Map<number, number>;
    /** After the statement committed: its copies per group (`perGroup`) and the rows this process claimed. */
    inserted(perGroup: Map<number, number>, taken: QueuedMessage[]): void;
}

/** A message's copies and the queue they go to. */
export interface MessageCopies {
    target: CopyTarget;
    rows: QueueCopy[];
}

/** Per group, how many copies `rows` hold. */
export function countPerGroup(rows: QueueCopy[]): Map<number, number> {
    const perGroup = new Map<number, number>();
    for (const r of rows) perGroup.set(r.groupId, (perGroup.get(r.groupId) ?? 0) + 1);
    return perGroup;
}

/**
 * The INSERT of `rows` into amqp_queue (for a WITH clause or on its own), each claimed by `owner` for `leaseMs` when
 * `take` still allows one for its group. A copy for a group deleted meanwhile is left out.
 */
export function insertCopiesSql(
    rows: QueueCopy[],
    target: Pick<CopyTarget, 'owner' | 'leaseMs'>,
    take: Map<number, number>,
): SQL {
    const left = new Map(take);
    const json = rows.map((r) => {
        const n = left.get(r.groupId) ?? 0;
        if (n > 0) left.set(r.groupId, n - 1);
        return { g: r.groupId, d: r.deviceId, m: r.messageId, t: r.topic, ts: r.generateTime, p: r.payload, o: n > 0 };
    });
    return sql`
        INSERT INTO amqp_queue (group_id, device_id, message_id, topic, generate_time, payload, owner, lease_until)
        SELECT x.g, x.d, x.m, x.t, x.ts, x.p,
            CASE WHEN x.o THEN ${target.owner} END,
            CASE WHEN x.o THEN now() + ${`${target.leaseMs} milliseconds`}::interval END
        FROM json_to_recordset(${JSON.stringify(json)}::json) AS x(g integer, d bigint, m text, t text, ts bigint, p text, o boolean)
        WHERE EXISTS (SELECT 1 FROM consumer_groups c WHERE c.id = x.g)
        RETURNING id, group_id, message_id, topic, generate_time, payload, owner`;
}

interface CopyRow {
    id: string | number;
    group_id: number;
    message_id: string;
    topic: string;
    generate_time: string | number;
    payload: string;
    owner?: string | null;
}

/** Queue rows as messages, oldest first. */
export function queuedMessages(rows: CopyRow[]): QueuedMessage[] {
    return rows
        .map((r) => ({
            id: Number(r.id),
            groupId: Number(r.group_id),
            messageId: r.message_id,
            topic: r.topic,
            generateTime: Number(r.generate_time),
            payload: r.payload,
        }))
        .sort((a, b) => a.id - b.id);
}

/** The rows a statement returned that `owner` claimed, as messages. */
export function takenBy(result: unknown, owner: string): QueuedMessage[] {
    return queuedMessages(rowsOf<CopyRow>(result).filter((r) => r.owner === owner));
}
