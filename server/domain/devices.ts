import { randomBytes, randomInt } from 'node:crypto';
import { and, desc, eq, inArray, lt, sql, type SQL } from 'drizzle-orm';
import type { DeviceStatus } from '../../schemas/device';
import type { Db, Tx } from '../db/client';
import { deviceCounts, devices, products, projects } from '../db/schema';
import { notFound } from '../http/errors';
import { currentScope, scopeByProjectId } from '../rights/scope';
import { formatTime } from '../http/time';
import { tableMemo } from '../db/tableMemo';
import { inline, placeholder, preparedByShape, type Bind } from '../db/prepared';

/** What the list, the export and the counters filter on. productId narrows to one product; the rest are optional. */
export interface DeviceFilter {
    productId?: number;
    /** Substring of deviceName, case-insensitive. */
    deviceName?: string;
    /** Substring of remark, case-insensitive. */
    remark?: string;
    status?: DeviceStatus;
    projectId?: number;
}

/** MQTT credentials in Alibaba Cloud IoT's layout, so devices that already speak it connect unchanged. */
export function deviceCredentials(productKey: string, deviceName: string) {
    return { username: `${deviceName}&${productKey}`, clientId: `${productKey}.${deviceName}` };
}

/** 128 bits from the CSPRNG as 32 hex characters (the length of Alibaba's DeviceSecret). */
export function newDeviceSecret(): string {
    return randomBytes(16).toString('hex');
}

const NAME_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** A random deviceName for batch registration: 16 letters and digits (62^16, clashes are retried anyway). */
export function randomDeviceName(): string {
    let name = '';
    for (let i = 0; i < 16; i++) name += NAME_ALPHABET[randomInt(NAME_ALPHABET.length)];
    return name;
}

const rowColumns = {
    deviceId: devices.id,
    deviceName: devices.deviceName,
    productId: devices.productId,
    productKey: products.productKey,
    productName: products.productName,
    nodeType: products.nodeType,
    status: devices.status,
    remark: devices.remark,
    projectId: devices.projectId,
    projectName: projects.name,
    createTime: devices.createTime,
    lastTime: devices.lastTime,
    statusTime: devices.statusTime,
    longitude: devices.longitude,
    latitude: devices.latitude,
    addr: devices.addr,
    username: devices.username,
    clientId: devices.clientId,
    gwid: devices.gwId,
};

type RawRow = { [K in keyof typeof rowColumns]: (typeof rowColumns)[K]['_']['data'] | null };

function toDevice(row: RawRow, subDeviceCount: number, timeZone: string) {
    return {
        ...row,
        deviceId: Number(row.deviceId),
        productId: Number(row.productId),
        productKey: row.productKey!,
        productName: row.productName!,
        status: row.status as DeviceStatus,
        deviceStatus: row.status === 'ONLINE',
        createTime: formatTime(row.createTime, timeZone),
        lastTime: formatTime(row.lastTime, timeZone),
        statusTime: formatTime(row.statusTime, timeZone),
        gwid: row.gwid === null ? null : Number(row.gwid),
        subDeviceCount,
    };
}

export type Device = ReturnType<typeof toDevice>;
export type DeviceWithSecret = Device & { secret: string };

/**
 * The SQL condition of a filter (undefined: every device). Substring searches scan, bounded by the other filters.
 * With `placeholder` binds, the values are named placeholders (prepared statements, one per filterShape).
 */
export function filterSql(filter: DeviceFilter, bind: Bind = inline): SQL | undefined {
    const parts: SQL[] = [];
    if (filter.productId !== undefined) parts.push(eq(devices.productId, bind('productId', filter.productId)));
    if (filter.status !== undefined) parts.push(eq(devices.status, bind('status', filter.status)));
    if (filter.projectId !== undefined) parts.push(eq(devices.projectId, bind('projectId', filter.projectId)));
    // strpos is a literal substring: no LIKE wildcards to escape. Case-sensitive on purpose: deviceName is an
    // identifier (unique case-sensitively), and lower() on every row makes a scan 4× slower on PGlite (ICU in WASM).
    if (filter.deviceName) parts.push(sql`strpos(${devices.deviceName}, ${bind('deviceName', filter.deviceName)}) > 0`);
    if (filter.remark) parts.push(sql`strpos(${devices.remark}, ${bind('remark', filter.remark)}) > 0`);
    // A user who is not an administrator sees the devices of their projects only (server/rights/scope.ts).
    const scoped = scopeByProjectId(devices.projectId);
    if (scoped) parts.push(scoped);
    return parts.length ? and(...parts) : undefined;
}

/** Which filters are set: the statements of filterSql with placeholders differ by this alone (outside a scope). */
function filterShape(filter: DeviceFilter): string {
    return [
        filter.productId !== undefined ? 'p' : '',
        filter.status !== undefined ? 's' : '',
        filter.projectId !== undefined ? 'j' : '',
        filter.deviceName ? 'n' : '',
        filter.remark ? 'r' : '',
    ].join('');
}

/** Devices behind each row's gateway, counted in the same statement (the partial gw_id index answers it). */
const subDeviceCount = sql<number>`(SELECT count(*) FROM ${devices} AS sub WHERE sub.gw_id = ${devices.id})::int`;

const rowQuery = (db: Db | Tx) =>
    db
        .select({ ...rowColumns, subDeviceCount, secret: devices.secret })
        .from(devices)
        .innerJoin(products, eq(products.id, devices.productId))
        .leftJoin(projects, eq(projects.id, devices.projectId));

async function rowsOf(db: Db | Tx, ids: number[]) {
    return rowQuery(db).where(inArray(devices.id, ids));
}

const rowById = preparedByShape((db: Db) =>
    rowQuery(db)
        .where(eq(devices.id, sql.placeholder('id')))
        .prepare('device_row_by_id'),
);

/** Whole rows for the ids, in the ids' order. */
export async function hydrate(db: Db | Tx, ids: number[], timeZone: string): Promise<Device[]> {
    if (ids.length === 0) return [];
    const rows = await rowsOf(db, ids);
    const byId = new Map(rows.map((r) => [Number(r.deviceId), r]));
    return ids.flatMap((id) => {
        const row = byId.get(id);
        if (!row) return [];
        const { subDeviceCount: subs, secret: _secret, ...rest } = row;
        return [toDevice(rest, Number(subs), timeZone)];
    });
}

/**
 * Newest first, spelled as the order of the index that serves the filter. With one value of the leading column the
 * order is the same, but the planner then sees that the index yields it without a sort: without this, a planner with
 * no statistics (PGlite runs no autovacuum, so no auto-analyze) reads every row of the product and sorts them.
 */
export function newestFirst(filter: DeviceFilter): SQL[] {
    if (filter.productId !== undefined) return [desc(devices.productId), desc(devices.id)];
    if (filter.projectId !== undefined) return [desc(devices.projectId), desc(devices.id)];
    if (filter.status !== undefined) return [desc(devices.status), desc(devices.id)];
    return [desc(devices.id)];
}

/**
 * A page of whole rows, newest first, in one statement. The page's ids are found on devices alone (a subquery
 * walking the primary key, or the product / status / project index, backwards and stopping after offset + limit
 * rows); only their rows are joined. Every filter fixes the leading column of the index it walks, so within the
 * page newest first is the id order.
 */
function pageQuery(db: Db, filter: DeviceFilter, bind: Bind, limit: number, offset: number) {
    const page = db
        .select({ id: devices.id })
        .from(devices)
        .where(filterSql(filter, bind))
        .orderBy(...newestFirst(filter))
        .limit(bind('limit', limit))
        .offset(bind('offset', offset));
    return db
        .select({ ...rowColumns, subDeviceCount })
        .from(devices)
        .innerJoin(products, eq(products.id, devices.productId))
        .leftJoin(projects, eq(projects.id, devices.projectId))
        .where(inArray(devices.id, page))
        .orderBy(desc(devices.id));
}

const pageByShape = preparedByShape((db: Db, shape: string, filter: DeviceFilter) =>
    pageQuery(db, filter, placeholder, 0, 0).prepare(`device_page_${shape}`),
);

/** Pages that start within this many rows (the ones asked for most) have their LIMIT and OFFSET written in. */
const NEAR_START = 1_000;
/** LIMIT and OFFSET written into the statement's text as numbers (drizzle takes SQL there too); the rest placeholders. */
const literalPaging: Bind = (name, value) =>
    name === 'limit' || name === 'offset'
        ? (sql.raw(String(Number(value))) as unknown as typeof value)
        : placeholder(name, value);

/**
 * A page near the start with its LIMIT and OFFSET written in as numbers, the filter's values as parameters. With
 * parameters for them, PostgreSQL's generic plan assumes a tenth of the table is skipped (a plan of about 10 ms), so it
 * plans every run anew; written in, one plan serves every run of the statement: a page cost the embedded database
 * 0.4 ms instead of about 1 ms (100,000 devices). One statement per shape, size and offset, at most 200 kept.
 */
const pageNearStart = preparedByShape(
    (db: Db, shape: string, { filter, limit, offset }: { filter: DeviceFilter; limit: number; offset: number }) =>
        pageQuery(db, filter, literalPaging, limit, offset).prepare(`device_page_${shape}`),
    200,
);

export async function devicePage(db: Db, filter: DeviceFilter, limit: number, offset: number, timeZone: string) {
    const shape = filterShape(filter);
    const nearStart = Number.isSafeInteger(limit) && Number.isSafeInteger(offset) && offset + limit <= NEAR_START;
    // Inside a project scope the condition carries the scope's projects: built for the call.
    const prepared =
        currentScope() !== undefined
            ? undefined
            : nearStart
              ? pageNearStart(db, `${shape}_${limit}_${offset}`, { filter, limit, offset })
              : pageByShape(db, shape, filter);
    const rows = prepared
        ? await prepared.execute({ ...filter, limit, offset })
        : await pageQuery(db, filter, inline, limit, offset);
    return rows.map(({ subDeviceCount: subs, ...rest }) => toDevice(rest, Number(subs), timeZone));
}

/** The next chunk of an export: ids below `before` (keyset), so every chunk is an index range, never an offset. */
export async function chunkIds(db: Db, filter: DeviceFilter, before: number | undefined, limit: number) {
    const where = filterSql(filter);
    const rows = await db
        .select({ id: devices.id })
        .from(devices)
        .where(before === undefined ? where : and(where, lt(devices.id, before)))
        .orderBy(...newestFirst(filter))
        .limit(limit);
    return rows.map((r) => Number(r.id));
}

export interface DeviceTotals {
    total: number;
    online: number;
    offline: number;
    inactive: number;
    disabled: number;
}

/**
 * Counts for a filter. Product and status alone are answered from device_counts (a few rows); a substring or a
 * project filter counts the matching devices, within the index range the other filters allow.
 */
function countQuery(db: Db, filter: DeviceFilter, fromCounters: boolean, bind: Bind) {
    const source = fromCounters ? deviceCounts : devices;
    const n = fromCounters ? sql`${deviceCounts.total}` : sql`1`;
    const by = (status: DeviceStatus) =>
        sql<number>`coalesce(sum(${n}) filter (where ${source.status} = ${status}), 0)::bigint`;
    const where = fromCounters
        ? and(
              filter.productId === undefined
                  ? undefined
                  : eq(deviceCounts.productId, bind('productId', filter.productId)),
              filter.status === undefined ? undefined : eq(deviceCounts.status, bind('status', filter.status)),
          )
        : filterSql(filter, bind);
    return db
        .select({
            total: sql<number>`coalesce(sum(${n}), 0)::bigint`,
            online: by('ONLINE'),
            offline: by('OFFLINE'),
            inactive: by('INACTIVE'),
            disabled: by('DISABLE'),
        })
        .from(source)
        .where(where);
}

const countsByShape = preparedByShape((db: Db, shape: string, filter: DeviceFilter) =>
    countQuery(db, filter, true, placeholder).prepare(`device_counts_${shape}`),
);

export async function countDevices(db: Db, filter: DeviceFilter): Promise<DeviceTotals> {
    const fromCounters =
        filter.deviceName === undefined &&
        filter.remark === undefined &&
        filter.projectId === undefined &&
        currentScope() === undefined;
    const prepared = fromCounters ? countsByShape(db, filterShape(filter), filter) : undefined;
    const [row] = prepared ? await prepared.execute({ ...filter }) : await countQuery(db, filter, fromCounters, inline);
    return {
        total: Number(row.total),
        online: Number(row.online),
        offline: Number(row.offline),
        inactive: Number(row.inactive),
        disabled: Number(row.disabled),
    };
}

export async function findDevice(
    db: Db | Tx,
    deviceId: number,
    timeZone: string,
): Promise<DeviceWithSecret | undefined> {
    const byId = rowById(db, '', undefined);
    const [row] = byId ? await byId.execute({ id: deviceId }) : await rowsOf(db, [deviceId]);
    if (!row) return undefined;
    const { subDeviceCount: subs, secret, ...rest } = row;
    return { ...toDevice(rest, Number(subs), timeZone), secret };
}

export async function getDevice(db: Db | Tx, deviceId: number, timeZone: string): Promise<DeviceWithSecret> {
    const device = await findDevice(db, deviceId, timeZone);
    if (!device) throw notFound('设备不存在');
    return device;
}

export async function deviceIdByName(db: Db | Tx, productId: number, deviceName: string): Promise<number | undefined> {
    const [row] = await db
        .select({ id: devices.id })
        .from(devices)
        .where(and(eq(devices.productId, productId), eq(devices.deviceName, deviceName)));
    return row ? Number(row.id) : undefined;
}

export interface ProductRef {
    id: number;
    productKey: string;
    productName: string;
}

/** Asked by nearly every device page: answered from memory while products is not written (tableMemo). */
export const productByKey = tableMemo(async (db: Db | Tx, productKey: string): Promise<ProductRef | undefined> => {
    const [row] = await db
        .select({ id: products.id, productKey: products.productKey, productName: products.productName })
        .from(products)
        .where(eq(products.productKey, productKey));
    return row;
});

export async function productById(db: Db | Tx, productId: number): Promise<ProductRef | undefined> {
    const [row] = await db
        .select({ id: products.id, productKey: products.productKey, productName: products.productName })
        .from(products)
        .where(eq(products.id, productId));
    return row;
}

/** Devices of a product, from device_counts (the product delete refusal says how many). */
export async function deviceCountOfProduct(db: Db | Tx, productId: number): Promise<number> {
    const [row] = await db
        .select({ n: sql<number>`coalesce(sum(${deviceCounts.total}), 0)::bigint` })
        .from(deviceCounts)
        .where(eq(deviceCounts.productId, productId));
    return Number(row.n);
}
