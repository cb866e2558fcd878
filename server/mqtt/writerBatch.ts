import { sql, type SQL } from 'drizzle-orm';
import { countPerGroup, insertCopiesSql, takenBy, type CopyTarget, type MessageCopies } from '../amqp/copies';
import type { Db } from '../db/client';
import { bigintArray, intArray, jsonbElements, textArray } from '../db/arrays';
import { rowsOf } from '../db/rows';
import { AHEAD_DAYS, DAY_MS } from '../db/partitions';
import { mergeLatestColumns, type LatestValue } from '../domain/telemetry';
import { fenceSql, type FenceToken } from '../cluster/fence';
import type { Delivery } from './resend';

/**
 * One batch of device messages as ONE statement: the devices' latest values (a data-modifying WITH), the message
 * log rows (also the property history) and the messages' subscription copies (amqp_queue). One statement is atomic,
 * so a batch is stored whole or not at all, in one round trip. In a cluster the statement names the member's fencing
 * token (server/cluster/fence.ts): the database refuses the whole batch once the member's lease has lapsed.
 */

export interface MessageWrite {
    deviceId: number;
    ts: Date;
    method: string;
    identifier: string | null;
    data: unknown;
    /** Property values to keep as latest and history (property posts only). */
    values?: Record<string, unknown>;
    /** The device's product when the caller knows it (a device never changes product); else read from devices. */
    productId?: number;
    /** The message's copies for server-side subscription, stored with it. */
    copies?: MessageCopies;
    /** A device's QoS 1 message: its resend key (stored), and whether it may be a resend (server/mqtt/resend.ts). */
    delivery?: Delivery;
}

/** Each device's latest values in a batch: one row per device (one upsert may touch a row once). */
export function latestOf(batch: MessageWrite[]) {
    const latest = new Map<number, { p: Record<string, LatestValue>; t: number }>();
    for (const m of batch) {
        if (!m.values) continue;
        const t = m.ts.getTime();
        let row = latest.get(m.deviceId);
        if (!row) latest.set(m.deviceId, (row = { p: {}, t }));
        for (const identifier in m.values) {
            const prev = row.p[identifier];
            if (!prev || prev.t <= t) row.p[identifier] = { v: m.values[identifier], t };
        }
        if (t > row.t) row.t = t;
    }
    const ids: number[] = [];
    const times: number[] = [];
    const props: Array<Record<string, LatestValue>> = [];
    for (const [deviceId, row] of latest) {
        ids.push(deviceId);
        times.push(row.t);
        props.push(row.p);
    }
    return { ids, times, props };
}

/** Whether a message time falls outside the day partitions made ahead (today .. today + AHEAD_DAYS, UTC). */
export function outsideMadeDays(t: number, now = Date.now()): boolean {
    const today = Math.floor(now / DAY_MS) * DAY_MS;
    return t < today || t >= today + (AHEAD_DAYS + 1) * DAY_MS;
}

/** The INSERT of the batch's message log rows, its columns as arrays unnested side by side (guarded by `fence`). */
export function insertMessagesSql(batch: MessageWrite[], fence?: FenceToken): SQL {
    const ids: number[] = [];
    const times: number[] = [];
    const methods: string[] = [];
    const identifiers: Array<string | null> = [];
    const data: unknown[] = [];
    const productIds: Array<number | null> = [];
    const resendKeys: Array<number | null> = [];
    for (const m of batch) {
        ids.push(m.deviceId);
        times.push(m.ts.getTime());
        methods.push(m.method);
        identifiers.push(m.identifier);
        data.push(m.data ?? {});
        productIds.push(m.productId ?? null);
        resendKeys.push(m.delivery?.resendKey ?? null);
    }
    // product_id: the caller's (the directory's entry), else copied from the device row (null for a device deleted
    // meanwhile, whose row then fails on the foreign key). ROWS FROM zips the columns by position.
    return sql`
        INSERT INTO device_messages (device_id, ts, method, identifier, data, product_id, resend_key)
        SELECT x.d, to_timestamp(x.t / 1000.0::float8), x.m, x.i, x.x,
                coalesce(x.p, (SELECT dev.product_id FROM devices dev WHERE dev.id = x.d)), x.k
            FROM ROWS FROM (unnest(${bigintArray(ids)}), unnest(${bigintArray(times)}), unnest(${textArray(methods)}),
                unnest(${textArray(identifiers)}), ${jsonbElements(data)}, unnest(${intArray(productIds)}),
                unnest(${bigintArray(resendKeys)}))
                AS x(d, t, m, i, x, p, k)${fence ? sql` CROSS JOIN ${fenceSql(fence)}` : sql``}`;
}

/** The batch's copies grouped by the queue they go to (one queue per process in practice). */
export function copiesByTarget(batch: MessageWrite[]): Map<CopyTarget, MessageCopies['rows']> {
    const out = new Map<CopyTarget, MessageCopies['rows']>();
    for (const m of batch) {
        if (!m.copies?.rows.length) continue;
        const rows = out.get(m.copies.target);
        if (rows) rows.push(...m.copies.rows);
        else out.set(m.copies.target, [...m.copies.rows]);
    }
    return out;
}

/**
 * The batch's statement; `targets` with their claims per group (CopyTarget.takeOnInsert), in order. A refusal by
 * `fence` in the message INSERT fails the whole statement, its other parts included.
 */
export function batchSql(
    batch: MessageWrite[],
    targets: Array<{ target: CopyTarget; rows: MessageCopies['rows']; take: Map<number, number> }>,
    fence?: FenceToken,
): SQL {
    const latest = latestOf(batch);
    const latestSql = sql`latest AS (${mergeLatestColumns(latest.ids, latest.times, latest.props)})`;
    if (!targets.length) return sql`WITH ${latestSql} ${insertMessagesSql(batch, fence)}`;
    const ctes = targets.map(
        ({ target, rows, take }, k) => sql`${sql.raw(`q${k}`)} AS (${insertCopiesSql(rows, target, take)})`,
    );
    const selects = targets.map((_, k) => sql.raw(`SELECT ${k} AS k, q${k}.* FROM q${k}`));
    return sql`WITH ${latestSql}, messages AS (${insertMessagesSql(batch, fence)}), ${sql.join(ctes, sql`, `)}
        ${sql.join(selects, sql` UNION ALL `)}`;
}

/**
 * Writes one batch (messages and copies) and, once committed, tells each copy target what it got. Rejects when the
 * statement fails (or `fence` refused it): then nothing of the batch is stored.
 */
export async function writeBatch(db: Db, batch: MessageWrite[], fence?: FenceToken): Promise<void> {
    const targets = [...copiesByTarget(batch)].map(([target, rows]) => {
        const perGroup = countPerGroup(rows);
        return { target, rows, perGroup, take: target.takeOnInsert(perGroup) };
    });
    const result = await db.execute(batchSql(batch, targets, fence));
    if (!targets.length) return;
    const returned = rowsOf<{ k: number; owner: string | null }>(result);
    targets.forEach(({ target, perGroup }, k) => {
        const mine = returned.filter((r) => Number(r.k) === k);
        target.inserted(perGroup, takenBy({ rows: mine }, target.owner));
    });
}
