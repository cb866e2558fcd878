import { and, asc, desc, eq, gte, lte, sql, type SQL } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import { DATA_TYPE_LABELS, IDENTIFIER, type DataTypeName } from '../../schemas/thingModel';
import { bigintArray, jsonbElements } from '../db/arrays';
import type { Db, Tx } from '../db/client';
import { deviceLatest, deviceMessages, devices, thingFunctions } from '../db/schema';
import { badRequest, notFound } from '../http/errors';
import { formatTime } from '../http/time';

/**
 * Property values, property history and device messages (docs/platform-api.md "Properties, history and events"):
 * the queries behind the device detail, and the writers device access calls when a device reports.
 */

/** The method of a property report; its messages outnumber all others, so queries keep them apart. */
export const PROPERTY_POST = 'thing.event.property.post';

/** Written as a literal so the planner can match the partial index of 0005_detail_extra.sql (a parameter cannot). */
const NOT_PROPERTY_POST = sql`${deviceMessages.method} <> ${sql.raw(`'${PROPERTY_POST}'`)}`;

/** 'int32 (整数型)' → '整数型': the Chinese name the thing-model editor shows. */
export function dataTypeName(type: string | undefined): string {
    const label = type && type in DATA_TYPE_LABELS ? DATA_TYPE_LABELS[type as DataTypeName] : undefined;
    return label?.match(/\((.+)\)/)?.[1] ?? type ?? '';
}

type Reader = Db | Tx;

/**
 * A jsonb value read as its JSON text and parsed once: drizzle's jsonb column parses the driver's already-parsed
 * value again, so a text property "6" would come back as the number 6.
 */
function jsonValue(column: AnyPgColumn) {
    return sql<unknown>`${column}::text`.mapWith((text: string | null) => (text === null ? null : JSON.parse(text)));
}

/** One identifier's latest value in device_latest.props: the value and its report's time (epoch ms). */
export interface LatestValue {
    v: unknown;
    t: number;
}

const MERGE_LATEST = sql`
        ON CONFLICT (device_id) DO UPDATE SET
            props = CASE WHEN excluded.ts >= l.ts THEN l.props || excluded.props
                ELSE l.props || (SELECT coalesce(jsonb_object_agg(e.k, e.v), '{}'::jsonb)
                    FROM jsonb_each(excluded.props) AS e(k, v)
                    WHERE NOT jsonb_exists(l.props, e.k) OR (l.props -> e.k ->> 't')::bigint <= (e.v ->> 't')::bigint)
            END,
            ts = greatest(l.ts, excluded.ts)`;

/**
 * Merges devices' reports into their latest values, one row per device (at most one row per device in `rows`): the
 * common case, a report newer than everything stored, is `props || new`; an older one (a device's buffered reports)
 * replaces only the identifiers whose stored value is older still.
 */
export function mergeLatest(rows: Array<{ d: number; p: Record<string, LatestValue>; t: number }>): SQL {
    return sql`
        INSERT INTO device_latest AS l (device_id, props, ts)
        SELECT x.d, x.p, to_timestamp(x.t / 1000.0) FROM json_to_recordset(${JSON.stringify(rows)}::json)
            AS x(d bigint, p jsonb, t bigint)
        ${MERGE_LATEST}`;
}

/**
 * mergeLatest with its rows as columns (the ingest writer's batches): device ids, report times (epoch ms), props. The
 * columns are zipped by `ROWS FROM` (unnest and jsonb_array_elements side by side), and the time is divided as a
 * float8 (to_timestamp takes one): the same instants as numeric division, with less of the database's CPU per row.
 */
export function mergeLatestColumns(ids: number[], times: number[], props: Array<Record<string, LatestValue>>): SQL {
    return sql`
        INSERT INTO device_latest AS l (device_id, props, ts)
        SELECT x.d, x.p, to_timestamp(x.t / 1000.0::float8)
            FROM ROWS FROM (unnest(${bigintArray(ids)}), unnest(${bigintArray(times)}), ${jsonbElements(props)}) AS x(d, t, p)
        ${MERGE_LATEST}`;
}

/** The latest value of each reported property of a device, by identifier. */
export async function latestValues(db: Reader, deviceId: number): Promise<Record<string, unknown>> {
    const [row] = await db
        .select({ props: jsonValue(deviceLatest.props) })
        .from(deviceLatest)
        .where(eq(deviceLatest.deviceId, deviceId));
    const props = (row?.props ?? {}) as Record<string, LatestValue>;
    return Object.fromEntries(Object.entries(props).map(([k, p]) => [k, p.v]));
}

/** The device's product, or 404 设备不存在. */
export async function deviceProductId(db: Reader, deviceId: number): Promise<number> {
    const [row] = await db.select({ productId: devices.productId }).from(devices).where(eq(devices.id, deviceId));
    if (!row) throw notFound('设备不存在');
    return row.productId;
}

/** Every property of the product's thing model (function id order) with the device's latest value. */
export async function listProperties(db: Reader, deviceId: number, timeZone: string) {
    const productId = await deviceProductId(db, deviceId);
    const [rows, [latest]] = await Promise.all([
        db
            .select({
                functionId: thingFunctions.id,
                functionName: thingFunctions.name,
                identifier: thingFunctions.identifier,
                dataType: thingFunctions.dataType,
            })
            .from(thingFunctions)
            .where(and(eq(thingFunctions.productId, productId), eq(thingFunctions.type, 'property')))
            .orderBy(asc(thingFunctions.id)),
        db
            .select({ props: jsonValue(deviceLatest.props), desired: jsonValue(deviceLatest.desired) })
            .from(deviceLatest)
            .where(eq(deviceLatest.deviceId, deviceId)),
    ]);
    const props = (latest?.props ?? {}) as Record<string, LatestValue | undefined>;
    const desired = (latest?.desired ?? {}) as Record<string, unknown>;
    return rows.map((r) => {
        const dataType = r.dataType as { type?: string; specs?: { unit?: unknown } } | null;
        const unit = dataType?.specs && !Array.isArray(dataType.specs) ? dataType.specs.unit : undefined;
        const own = Object.hasOwn(props, r.identifier) ? props[r.identifier] : undefined;
        return {
            functionId: r.functionId,
            functionName: r.functionName,
            identifier: r.identifier,
            dataTypeName: dataTypeName(dataType?.type),
            unit: typeof unit === 'string' && unit !== '' ? unit : null,
            timestamp: formatTime(own ? new Date(own.t) : null, timeZone),
            value: own?.v ?? null,
            desired: Object.hasOwn(desired, r.identifier) ? (desired[r.identifier] ?? null) : null,
        };
    });
}

export interface HistoryQuery {
    deviceId: number;
    identifier: string;
    /** Both inclusive. */
    start: Date;
    end: Date;
    ascending: boolean;
    limit: number;
    offset: number;
}

/**
 * A page of one property's history and the count over the range, read from the device's property posts in the
 * message log (device_messages_device_ts_idx walks the device's messages in the range, which is capped at 31 days so
 * the count stays bounded). Of two posts of the same instant the later one counts, as a replaced value.
 */
export async function propertyHistory(db: Reader, q: HistoryQuery, timeZone: string) {
    const posts = sql`
        SELECT DISTINCT ON (m.ts) m.ts, m.data -> ${q.identifier} AS value
        FROM device_messages m
        WHERE m.device_id = ${q.deviceId} AND m.method = ${sql.raw(`'${PROPERTY_POST}'`)}
          AND m.ts >= ${q.start.toISOString()}::timestamptz AND m.ts <= ${q.end.toISOString()}::timestamptz
          AND jsonb_exists(m.data, ${q.identifier})
        ORDER BY m.ts DESC, m.id DESC`;
    const [page, count] = await Promise.all([
        db.execute(sql`
            SELECT (extract(epoch FROM h.ts) * 1000)::float8 AS ms, h.value::text AS value FROM (${posts}) h
            ORDER BY h.ts ${sql.raw(q.ascending ? 'ASC' : 'DESC')} LIMIT ${q.limit} OFFSET ${q.offset}`),
        db.execute(sql`SELECT count(*)::int AS n FROM (${posts}) h`),
    ]);
    const rows = (page as unknown as { rows: Array<{ ms: number | string; value: string | null }> }).rows;
    const total = Number((count as unknown as { rows: Array<{ n: number }> }).rows[0].n);
    // Posts exist only for existing devices (foreign key): look the device up only when there are none.
    if (total === 0) await deviceProductId(db, q.deviceId);
    return {
        list: rows.map((r) => ({
            timestamp: formatTime(new Date(Number(r.ms)), timeZone)!,
            value: r.value === null ? null : (JSON.parse(r.value) as unknown),
        })),
        total,
    };
}

/** Which messages a call asks for: every one, one method, or a prefix (`thing.event.*` → 'thing.event.'). */
export type MethodFilter = { kind: 'all' } | { kind: 'exact'; method: string } | { kind: 'prefix'; prefix: string };

const METHOD = /^[A-Za-z0-9_]+(\.[A-Za-z0-9_]+)*$/;

/** Empty means every message; otherwise a method or a prefix ending in `.*`, or 方法名格式不正确. */
export function parseMethodFilter(raw: string | undefined): MethodFilter {
    const value = raw?.trim() ?? '';
    if (value === '') return { kind: 'all' };
    if (value.length > 200) throw badRequest('方法名格式不正确');
    if (value.endsWith('.*')) {
        const base = value.slice(0, -2);
        if (!METHOD.test(base)) throw badRequest('方法名格式不正确');
        return { kind: 'prefix', prefix: `${base}.` };
    }
    if (!METHOD.test(value)) throw badRequest('方法名格式不正确');
    return { kind: 'exact', method: value };
}

/**
 * The SQL for a filter. A prefix never matches property reports: `thing.event.*` means the device's events, and a
 * month of reports every few seconds would bury them. `left()` compares bytes exactly (no LIKE wildcards in `_`).
 */
function methodSql(filter: MethodFilter, allMeans: 'everything' | 'not property reports'): SQL | undefined {
    switch (filter.kind) {
        case 'exact':
            return eq(deviceMessages.method, filter.method);
        case 'prefix':
            return and(
                NOT_PROPERTY_POST,
                sql`left(${deviceMessages.method}, ${filter.prefix.length}) = ${filter.prefix}`,
            );
        default:
            return allMeans === 'everything' ? undefined : NOT_PROPERTY_POST;
    }
}

function toMessage(
    r: { id: number; ts: Date; method: string; identifier: string | null; data: unknown },
    timeZone: string,
) {
    return {
        id: Number(r.id),
        time: formatTime(r.ts, timeZone)!,
        method: r.method,
        identifier: r.identifier,
        data: (r.data ?? {}) as Record<string, unknown>,
    };
}

export type DeviceMessage = ReturnType<typeof toMessage>;

const messageColumns = {
    id: deviceMessages.id,
    ts: deviceMessages.ts,
    method: deviceMessages.method,
    identifier: deviceMessages.identifier,
    data: deviceMessages.data,
};

/** Where ListProperty looks back from now: a day, a week, then the whole retention (and the day it keeps beyond). */
const LATEST_WINDOWS_DAYS = [1, 7];

/**
 * ListProperty: the device's latest `limit` messages matching the filter (without one: every message).
 *
 * device_messages is partitioned by day, and a query with no time bound descends the device's index in every day's
 * partition (30 or more for one page). With `bound` the query walks back in windows from now instead (the last day,
 * the last week, then the retention: LOG_RETENTION_DAYS and the day a partition drop keeps beyond it), each
 * pruned to its days, and stops at the first that holds `limit` messages: its newest are the newest of all (every
 * message outside it is older). Rows older than the retention are the sweep's to drop and are not looked for.
 */
export async function latestMessages(
    db: Reader,
    deviceId: number,
    filter: MethodFilter,
    limit: number,
    timeZone: string,
    bound?: { now: Date; retentionDays: number },
): Promise<DeviceMessage[]> {
    const query = (since?: Date) =>
        db
            .select(messageColumns)
            .from(deviceMessages)
            .where(
                and(
                    eq(deviceMessages.deviceId, deviceId),
                    since ? gte(deviceMessages.ts, since) : undefined,
                    methodSql(filter, 'everything'),
                ),
            )
            .orderBy(desc(deviceMessages.ts), desc(deviceMessages.id))
            .limit(limit);
    if (!bound) return (await query()).map((r) => toMessage(r, timeZone));
    const windows = [...LATEST_WINDOWS_DAYS.filter((d) => d <= bound.retentionDays), bound.retentionDays + 1];
    let rows: Awaited<ReturnType<typeof query>> = [];
    for (const days of windows) {
        rows = await query(new Date(bound.now.getTime() - days * 86_400_000));
        if (rows.length >= limit) break;
    }
    return rows.map((r) => toMessage(r, timeZone));
}

export interface EventsQuery {
    deviceId: number;
    filter: MethodFilter;
    /** Both inclusive. */
    since: Date;
    until: Date;
    limit: number;
    offset: number;
}

/** A page of the device's messages in a time window (without a filter: all but property reports), and the count. */
export async function messagesInRange(db: Reader, q: EventsQuery, timeZone: string) {
    const where = and(
        eq(deviceMessages.deviceId, q.deviceId),
        gte(deviceMessages.ts, q.since),
        lte(deviceMessages.ts, q.until),
        methodSql(q.filter, 'not property reports'),
    );
    const rows = await db
        .select(messageColumns)
        .from(deviceMessages)
        .where(where)
        .orderBy(desc(deviceMessages.ts), desc(deviceMessages.id))
        .limit(q.limit)
        .offset(q.offset);
    const [count] = await db
        .select({ n: sql<number>`count(*)::int` })
        .from(deviceMessages)
        .where(where);
    if (Number(count.n) === 0) await deviceProductId(db, q.deviceId);
    return { list: rows.map((r) => toMessage(r, timeZone)), total: Number(count.n) };
}

function checkIdentifier(identifier: string): void {
    if (!IDENTIFIER.test(identifier)) throw badRequest(`标识符格式不正确：${identifier}`);
}

/**
 * One property report (thing.event.property.post) in one transaction: the device's latest values (a report older
 * than a stored value leaves it) and the message, which is the property history too. Values are stored as reported;
 * device access checks them against the thing model first.
 */
export async function recordPropertyPost(
    db: Db,
    deviceId: number,
    ts: Date,
    values: Record<string, unknown>,
): Promise<number> {
    const entries = Object.entries(values).filter(([, v]) => v !== undefined);
    if (entries.length === 0) throw badRequest('属性上报不能为空');
    for (const [identifier] of entries) checkIdentifier(identifier);
    return db.transaction(async (tx) => {
        const productId = await deviceProductId(tx, deviceId);
        const t = ts.getTime();
        const p = Object.fromEntries(entries.map(([identifier, v]) => [identifier, { v, t }]));
        await tx.execute(mergeLatest([{ d: deviceId, p, t }]));
        const [row] = await tx
            .insert(deviceMessages)
            .values({
                deviceId,
                productId,
                ts,
                method: PROPERTY_POST,
                identifier: null,
                data: Object.fromEntries(entries),
            })
            .returning({ id: deviceMessages.id });
        return Number(row.id);
    });
}

/**
 * An event (thing.event.{identifier}.post, data: the output params) or a service call (thing.service.{identifier},
 * data: { input, output }). Property reports go through recordPropertyPost, which also keeps the values.
 */
export async function recordMessage(
    db: Db | Tx,
    deviceId: number,
    ts: Date,
    method: string,
    identifier: string | null,
    data: Record<string, unknown>,
): Promise<number> {
    if (!METHOD.test(method)) throw badRequest('方法名格式不正确');
    if (method === PROPERTY_POST) throw badRequest('属性上报请使用 recordPropertyPost');
    if (identifier !== null) checkIdentifier(identifier);
    const productId = await deviceProductId(db, deviceId);
    const [row] = await db
        .insert(deviceMessages)
        .values({ deviceId, productId, ts, method, identifier, data })
        .returning({ id: deviceMessages.id });
    return Number(row.id);
}
