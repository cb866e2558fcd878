import { and, asc, desc, eq, inArray, isNull, sql, type SQL } from 'drizzle-orm';
import { MAX_GROUP_LEVEL, GROUP_MESSAGES } from '../../schemas/group';
import { rowsOf } from '../db/rows';
import type { Db, Tx } from '../db/client';
import { deviceGroups, groupDevices, projects } from '../db/schema';
import { badRequest, conflict, notFound } from '../http/errors';
import { formatTime } from '../http/time';
import { scopeByProjectCode } from '../rights/scope';

export const GROUP_REFUSALS = {
    notFound: '分组不存在',
    parentNotFound: '父分组不存在',
    leafParent: GROUP_MESSAGES.leafParent,
    otherProject: '父分组属于其他项目',
    cycle: '不能移动到自身或其子分组下',
    nameTaken: '分组名称已存在',
    hasChildren: '请先删除子分组',
    projectNotFound: '项目不存在',
} as const;

/** The unique index of migration 0007: one name per parent (roots: per project). */
export const SIBLING_NAME_INDEX = 'device_groups_sibling_name_uq';

const rowColumns = {
    groupId: deviceGroups.id,
    groupName: deviceGroups.name,
    parentId: deviceGroups.parentId,
    level: deviceGroups.level,
    projectCode: deviceGroups.projectCode,
    projectName: projects.name,
    remark: deviceGroups.remark,
    createTime: deviceGroups.createTime,
};

type RawRow = { [K in keyof typeof rowColumns]: (typeof rowColumns)[K]['_']['data'] | null };

function toGroup(row: RawRow, timeZone: string) {
    return {
        groupId: Number(row.groupId),
        groupName: row.groupName!,
        parentId: row.parentId ?? 0,
        level: Number(row.level),
        projectCode: row.projectCode!,
        projectName: row.projectName,
        remark: row.remark,
        createTime: formatTime(row.createTime, timeZone),
    };
}

export type Group = ReturnType<typeof toGroup>;

function selectGroups(db: Db | Tx) {
    return db.select(rowColumns).from(deviceGroups).leftJoin(projects, eq(projects.code, deviceGroups.projectCode));
}

export async function findGroup(db: Db | Tx, groupId: number, timeZone: string): Promise<Group | undefined> {
    const [row] = await selectGroups(db).where(eq(deviceGroups.id, groupId));
    return row ? toGroup(row, timeZone) : undefined;
}

export async function getGroup(db: Db | Tx, groupId: number, timeZone: string): Promise<Group> {
    const group = await findGroup(db, groupId, timeZone);
    if (!group) throw notFound(GROUP_REFUSALS.notFound);
    return group;
}

/** A name search is a literal, case-insensitive substring (no LIKE wildcards to escape). */
const nameLike = (groupName: string | undefined): SQL | undefined =>
    groupName ? sql`strpos(lower(${deviceGroups.name}), lower(${groupName})) > 0` : undefined;

/** A page of groups, newest first, walking the create_time index; rows are joined only for the page. */
async function pageOf(
    db: Db,
    timeZone: string,
    where: SQL | undefined,
    limit: number,
    offset: number,
): Promise<{ records: Group[]; total: number }> {
    where = and(where, scopeByProjectCode(deviceGroups.projectCode));
    const page = await db
        .select({ id: deviceGroups.id })
        .from(deviceGroups)
        .where(where)
        .orderBy(desc(deviceGroups.createTime), desc(deviceGroups.id))
        .limit(limit)
        .offset(offset);
    const ids = page.map((p) => p.id);
    const rows = ids.length ? await selectGroups(db).where(inArray(deviceGroups.id, ids)) : [];
    const byId = new Map(rows.map((r) => [r.groupId, toGroup(r, timeZone)]));
    const [{ n }] = await db
        .select({ n: sql<number>`count(*)::int` })
        .from(deviceGroups)
        .where(where);
    return { records: ids.flatMap((id) => byId.get(id) ?? []), total: Number(n) };
}

export function listGroups(
    db: Db,
    timeZone: string,
    opts: { groupName?: string; projectCode?: string; limit: number; offset: number },
) {
    const where = and(
        nameLike(opts.groupName),
        opts.projectCode ? eq(deviceGroups.projectCode, opts.projectCode) : undefined,
    );
    return pageOf(db, timeZone, where, opts.limit, opts.offset);
}

export async function childList(
    db: Db,
    timeZone: string,
    opts: { parentId: number; groupName?: string; limit: number; offset: number },
) {
    await getGroup(db, opts.parentId, timeZone);
    return pageOf(
        db,
        timeZone,
        and(eq(deviceGroups.parentId, opts.parentId), nameLike(opts.groupName)),
        opts.limit,
        opts.offset,
    );
}

/** Tree nodes: a level-3 group or one without children is a leaf (the console loads children lazily). */
async function treeNodes(db: Db, where: SQL | undefined) {
    // Spelled out: in a one-table select drizzle writes columns unqualified, which the subquery would capture.
    const hasChildren = sql<boolean>`exists (select 1 from ${deviceGroups} c where c.parent_id = "device_groups"."id")`;
    const rows = await db
        .select({
            groupId: deviceGroups.id,
            groupName: deviceGroups.name,
            level: deviceGroups.level,
            parentId: deviceGroups.parentId,
            hasChildren,
        })
        .from(deviceGroups)
        .where(and(where, scopeByProjectCode(deviceGroups.projectCode)))
        .orderBy(asc(deviceGroups.createTime), asc(deviceGroups.id));
    return rows.map((r) => ({
        groupId: r.groupId,
        groupName: r.groupName,
        level: Number(r.level),
        parentId: r.parentId ?? 0,
        isLeaf: Number(r.level) >= MAX_GROUP_LEVEL || !r.hasChildren,
    }));
}

export function rootTree(db: Db, projectCode: string | undefined) {
    return treeNodes(
        db,
        and(isNull(deviceGroups.parentId), projectCode ? eq(deviceGroups.projectCode, projectCode) : undefined),
    );
}

export async function childNodes(db: Db, parentId: number, timeZone: string) {
    await getGroup(db, parentId, timeZone);
    return treeNodes(db, eq(deviceGroups.parentId, parentId));
}

export interface MenuNode {
    key: number;
    title: string;
    level: number;
    children: MenuNode[];
}

/** Every group as one tree (oldest first at each level). */
export async function menuTree(db: Db): Promise<MenuNode[]> {
    const rows = await db
        .select({
            id: deviceGroups.id,
            name: deviceGroups.name,
            level: deviceGroups.level,
            parentId: deviceGroups.parentId,
        })
        .from(deviceGroups)
        .where(scopeByProjectCode(deviceGroups.projectCode))
        .orderBy(asc(deviceGroups.level), asc(deviceGroups.createTime), asc(deviceGroups.id));
    const nodes = new Map<number, MenuNode>();
    const roots: MenuNode[] = [];
    for (const r of rows) {
        const node: MenuNode = { key: r.id, title: r.name, level: Number(r.level), children: [] };
        nodes.set(r.id, node);
        const parent = r.parentId === null ? undefined : nodes.get(r.parentId);
        if (parent) parent.children.push(node);
        else roots.push(node);
    }
    return roots;
}

/** Names from the root down to the group. */
export async function hierarchyOf(db: Db | Tx, groupId: number): Promise<string[]> {
    const result = await db.execute<{ name: string }>(sql`
        with recursive up(id, name, parent_id, depth) as (
            select id, name, parent_id, 0 from ${deviceGroups} where id = ${groupId}
            union all
            select g.id, g.name, g.parent_id, up.depth + 1 from ${deviceGroups} g join up on g.id = up.parent_id
            where up.depth < 10
        )
        select name from up order by depth desc`);
    return rowsOf<{ name: string }>(result).map((r) => r.name);
}

export async function groupDeviceTotals(db: Db | Tx, groupId: number) {
    const result = await db.execute<{ total: string | number; online: string | number }>(sql`
        select count(*) as total, count(*) filter (where d.status = 'ONLINE') as online
        from ${groupDevices} gd join devices d on d.id = gd.device_id
        where gd.group_id = ${groupId}`);
    const [row] = rowsOf<{ total: string | number; online: string | number }>(result);
    return { deviceTotal: Number(row?.total ?? 0), deviceOnline: Number(row?.online ?? 0) };
}

export async function groupDetail(db: Db, groupId: number, timeZone: string) {
    const group = await getGroup(db, groupId, timeZone);
    const [{ n }] = await db
        .select({ n: sql<number>`count(*)::int` })
        .from(deviceGroups)
        .where(eq(deviceGroups.parentId, groupId));
    return {
        ...group,
        hierarchy: await hierarchyOf(db, groupId),
        ...(await groupDeviceTotals(db, groupId)),
        childCount: Number(n),
    };
}

interface Locked {
    id: number;
    name: string;
    level: number;
    projectCode: string;
    parentId: number | null;
}

export async function lockGroup(tx: Tx, groupId: number, message: string): Promise<Locked> {
    const [row] = await tx
        .select({
            id: deviceGroups.id,
            name: deviceGroups.name,
            level: deviceGroups.level,
            projectCode: deviceGroups.projectCode,
            parentId: deviceGroups.parentId,
        })
        .from(deviceGroups)
        .where(eq(deviceGroups.id, groupId))
        .for('update');
    if (!row) throw notFound(message);
    return { ...row, level: Number(row.level) };
}

async function nameTaken(
    tx: Tx,
    projectCode: string,
    parentId: number | null,
    name: string,
    except?: number,
): Promise<boolean> {
    const [row] = await tx
        .select({ id: deviceGroups.id })
        .from(deviceGroups)
        .where(
            and(
                eq(deviceGroups.projectCode, projectCode),
                parentId === null ? isNull(deviceGroups.parentId) : eq(deviceGroups.parentId, parentId),
                eq(deviceGroups.name, name),
                except === undefined ? undefined : sql`${deviceGroups.id} <> ${except}`,
            ),
        )
        .limit(1);
    return !!row;
}

/** The group and every group below it, with each one's depth under the group (0 for itself). */
async function subtree(tx: Tx, groupId: number): Promise<Array<{ id: number; depth: number }>> {
    const result = await tx.execute(sql`
        with recursive down(id, depth) as (
            select id, 0 from ${deviceGroups} where id = ${groupId}
            union all
            select g.id, down.depth + 1 from ${deviceGroups} g join down on g.parent_id = down.id
            where down.depth < 10
        )
        select id, depth from down`);
    return rowsOf<{ id: number | string; depth: number | string }>(result).map((r) => ({
        id: Number(r.id),
        depth: Number(r.depth),
    }));
}

export interface NewGroup {
    projectCode: string;
    pid: number;
    name: string;
    remark?: string;
}

/** A parent that may take a child one level below it, in `projectCode`. */
async function parentFor(tx: Tx, pid: number, projectCode: string): Promise<Locked> {
    const parent = await lockGroup(tx, pid, GROUP_REFUSALS.parentNotFound);
    if (parent.projectCode !== projectCode) throw badRequest(GROUP_REFUSALS.otherProject);
    if (parent.level >= MAX_GROUP_LEVEL) throw badRequest(GROUP_REFUSALS.leafParent);
    return parent;
}

export async function createGroup(tx: Tx, input: NewGroup): Promise<number> {
    const [project] = await tx
        .select({ code: projects.code })
        .from(projects)
        .where(eq(projects.code, input.projectCode));
    if (!project) throw notFound(GROUP_REFUSALS.projectNotFound);
    const parent = input.pid > 0 ? await parentFor(tx, input.pid, input.projectCode) : undefined;
    const parentId = parent?.id ?? null;
    if (await nameTaken(tx, input.projectCode, parentId, input.name)) throw conflict(GROUP_REFUSALS.nameTaken);
    const [row] = await tx
        .insert(deviceGroups)
        .values({
            name: input.name,
            parentId,
            level: parent ? parent.level + 1 : 1,
            projectCode: input.projectCode,
            remark: input.remark || null,
        })
        .returning({ id: deviceGroups.id });
    return row.id;
}

export interface GroupChange {
    groupId: number;
    name?: string;
    remark?: string;
    /** 0: make it a root; a group id: move under it (with its subtree). */
    pid?: number;
}

export async function updateGroup(tx: Tx, change: GroupChange): Promise<void> {
    const group = await lockGroup(tx, change.groupId, GROUP_REFUSALS.notFound);
    const set: Partial<typeof deviceGroups.$inferInsert> = {};
    let parentId = group.parentId;
    if (change.pid !== undefined && change.pid !== (group.parentId ?? 0)) {
        const below = await subtree(tx, group.id);
        if (below.some((g) => g.id === change.pid)) throw badRequest(GROUP_REFUSALS.cycle);
        const parent = change.pid > 0 ? await parentFor(tx, change.pid, group.projectCode) : undefined;
        const level = parent ? parent.level + 1 : 1;
        const height = Math.max(...below.map((g) => g.depth));
        if (level + height > MAX_GROUP_LEVEL) throw badRequest(GROUP_REFUSALS.leafParent);
        parentId = parent?.id ?? null;
        set.parentId = parentId;
        const delta = level - group.level;
        if (delta !== 0) {
            await tx
                .update(deviceGroups)
                .set({ level: sql`${deviceGroups.level} + ${delta}` })
                .where(
                    inArray(
                        deviceGroups.id,
                        below.map((g) => g.id),
                    ),
                );
        }
    }
    if (change.name !== undefined) set.name = change.name;
    if (change.name !== undefined || 'parentId' in set) {
        const name = change.name ?? group.name;
        if (await nameTaken(tx, group.projectCode, parentId, name, group.id)) throw conflict(GROUP_REFUSALS.nameTaken);
    }
    if (change.remark !== undefined) set.remark = change.remark || null;
    if (Object.keys(set).length > 0) await tx.update(deviceGroups).set(set).where(eq(deviceGroups.id, group.id));
}

export async function deleteGroup(tx: Tx, groupId: number): Promise<void> {
    await lockGroup(tx, groupId, GROUP_REFUSALS.notFound);
    const [child] = await tx
        .select({ id: deviceGroups.id })
        .from(deviceGroups)
        .where(eq(deviceGroups.parentId, groupId))
        .limit(1);
    if (child) throw conflict(GROUP_REFUSALS.hasChildren);
    await tx.delete(deviceGroups).where(eq(deviceGroups.id, groupId));
}
