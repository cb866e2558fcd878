import { and, eq, inArray, sql, type SQL } from 'drizzle-orm';
import type { Db, Tx } from '../db/client';
import { devices, groupDevices, tags } from '../db/schema';
import { notFound } from '../http/errors';
import { deviceCountOfProduct, filterSql, hydrate, newestFirst } from './devices';
import { rowsOf } from '../db/rows';
import { getGroup, GROUP_REFUSALS, groupDeviceTotals, lockGroup } from './groups';

/** A group's devices: membership, the member list with its filters, and the candidates to add. */

export interface GroupDeviceFilter {
    groupId: number;
    /** Literal, case-sensitive substring (as the device list). */
    deviceName?: string;
    /** A device tag (type 2) with this key; with tagValue, that value exactly. A value alone matches any key. */
    tagKey?: string;
    tagValue?: string;
}

function groupDeviceWhere(f: GroupDeviceFilter): SQL {
    const parts: SQL[] = [sql`gd.group_id = ${f.groupId}`];
    if (f.deviceName) parts.push(sql`strpos(d.device_name, ${f.deviceName}) > 0`);
    if (f.tagKey || f.tagValue) {
        parts.push(sql`exists (select 1 from ${tags} t where t.type = 2 and t.object_id = gd.device_id
            ${f.tagKey ? sql`and t.key = ${f.tagKey}` : sql``} ${f.tagValue ? sql`and t.value = ${f.tagValue}` : sql``})`);
    }
    return sql.join(parts, sql` and `);
}

/** A page of the group's devices, most recently added first, with the group's own totals. */
export async function groupDevicePage(
    db: Db,
    timeZone: string,
    filter: GroupDeviceFilter,
    limit: number,
    offset: number,
) {
    await getGroup(db, filter.groupId, timeZone);
    const where = groupDeviceWhere(filter);
    const page = rowsOf<{ id: number | string }>(
        await db.execute(sql`
            select gd.device_id as id from ${groupDevices} gd join ${devices} d on d.id = gd.device_id
            where ${where} order by gd.create_time desc, gd.device_id desc limit ${limit} offset ${offset}`),
    );
    const [{ n }] = rowsOf<{ n: number | string }>(
        await db.execute(sql`
            select count(*) as n from ${groupDevices} gd join ${devices} d on d.id = gd.device_id where ${where}`),
    );
    const deviceList = await hydrate(
        db,
        page.map((r) => Number(r.id)),
        timeZone,
    );
    return { deviceList, total: Number(n), ...(await groupDeviceTotals(db, filter.groupId)) };
}

/** Adds the devices (all must exist); those already in the group are skipped. Answers how many were added. */
export async function addGroupDevices(tx: Tx, groupId: number, deviceIds: number[]): Promise<number> {
    await lockGroup(tx, groupId, GROUP_REFUSALS.notFound);
    const found = await tx.select({ id: devices.id }).from(devices).where(inArray(devices.id, deviceIds));
    if (found.length < deviceIds.length) throw notFound('设备不存在');
    const added = await tx
        .insert(groupDevices)
        .values(deviceIds.map((deviceId) => ({ groupId, deviceId })))
        .onConflictDoNothing()
        .returning({ deviceId: groupDevices.deviceId });
    return added.length;
}

export async function removeGroupDevices(tx: Tx, groupId: number, deviceIds: number[]): Promise<number> {
    await lockGroup(tx, groupId, GROUP_REFUSALS.notFound);
    const removed = await tx
        .delete(groupDevices)
        .where(and(eq(groupDevices.groupId, groupId), inArray(groupDevices.deviceId, deviceIds)))
        .returning({ deviceId: groupDevices.deviceId });
    return removed.length;
}

/**
 * Devices of a product that are not in the group, newest first (the product index walked backwards). The total is
 * the product's counter minus its devices already in the group, unless a name filter asks for a count.
 */
export async function candidateDevices(
    db: Db,
    timeZone: string,
    opts: { productId: number; groupId?: number; deviceName?: string; limit: number; offset: number },
) {
    const notInGroup =
        opts.groupId === undefined
            ? undefined
            : sql`not exists (select 1 from ${groupDevices} gd where gd.group_id = ${opts.groupId} and gd.device_id = "devices"."id")`;
    const where = and(filterSql({ productId: opts.productId, deviceName: opts.deviceName }), notInGroup);
    const page = await db
        .select({ id: devices.id })
        .from(devices)
        .where(where)
        .orderBy(...newestFirst({ productId: opts.productId }))
        .limit(opts.limit)
        .offset(opts.offset);
    let total: number;
    if (opts.deviceName) {
        const [{ n }] = await db
            .select({ n: sql<number>`count(*)::bigint` })
            .from(devices)
            .where(where);
        total = Number(n);
    } else {
        const inGroup =
            opts.groupId === undefined
                ? 0
                : Number(
                      rowsOf<{ n: number | string }>(
                          await db.execute(sql`select count(*) as n from ${groupDevices} gd
                              join ${devices} d on d.id = gd.device_id
                              where gd.group_id = ${opts.groupId} and d.product_id = ${opts.productId}`),
                      )[0].n,
                  );
        total = (await deviceCountOfProduct(db, opts.productId)) - inGroup;
    }
    return {
        list: await hydrate(
            db,
            page.map((r) => Number(r.id)),
            timeZone,
        ),
        total,
    };
}
