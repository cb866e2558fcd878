import { and, asc, count, desc, eq, inArray, sql, type SQL } from 'drizzle-orm';
import type { Db, Tx } from '../db/client';
import { alertEvents, deviceGroups, devices, products, projects, projectUsers, scenes } from '../db/schema';
import { conflict, isForeignKeyViolation, isUniqueViolation, notFound } from '../http/errors';
import { formatTime } from '../http/time';
import { scopeByProjectId } from '../rights/scope';
import { countAlerts } from './alerts';

export const PROJECT_NAME_TAKEN = '项目名称已存在';
export const SCENE_NAME_TAKEN = '场景名称已存在';

const rowColumns = {
    id: projects.id,
    name: projects.name,
    code: projects.code,
    classId: projects.classId,
    sceneName: scenes.name,
    remark: projects.remark,
    createTime: projects.createTime,
};

interface RawProject {
    id: number;
    name: string;
    code: string;
    classId: number;
    sceneName: string;
    remark: string | null;
    createTime: Date;
}

/** Devices per project and status, from devices_project_status_product_idx (index-only, the projects' own entries). */
async function deviceCountsOf(db: Db | Tx, ids: number[]) {
    const out = new Map<number, Record<string, number>>();
    if (ids.length === 0) return out;
    const rows = await db
        .select({ projectId: devices.projectId, status: devices.status, n: count() })
        .from(devices)
        .where(inArray(devices.projectId, ids))
        .groupBy(devices.projectId, devices.status);
    for (const r of rows) {
        const byStatus = out.get(r.projectId!) ?? {};
        byStatus[r.status] = Number(r.n);
        out.set(r.projectId!, byStatus);
    }
    return out;
}

async function productCountsOf(db: Db | Tx, codes: string[]) {
    if (codes.length === 0) return new Map<string, number>();
    const rows = await db
        .select({ code: products.projectCode, n: count() })
        .from(products)
        .where(inArray(products.projectCode, codes))
        .groupBy(products.projectCode);
    return new Map(rows.map((r) => [r.code!, Number(r.n)]));
}

/** Rows as the list answers them: the project with its product, device and online counts. */
async function withCounts(db: Db | Tx, raw: RawProject[], timeZone: string) {
    const [deviceCounts, productCounts] = await Promise.all([
        deviceCountsOf(
            db,
            raw.map((r) => r.id),
        ),
        productCountsOf(
            db,
            raw.map((r) => r.code),
        ),
    ]);
    return raw.map((r) => {
        const byStatus = deviceCounts.get(r.id) ?? {};
        const n = (s: string) => byStatus[s] ?? 0;
        return {
            row: {
                id: r.id,
                name: r.name,
                projectName: r.name,
                code: r.code,
                classId: r.classId,
                sceneName: r.sceneName,
                remark: r.remark,
                createTime: formatTime(r.createTime, timeZone)!,
                productCount: productCounts.get(r.code) ?? 0,
                deviceCount: n('ONLINE') + n('OFFLINE') + n('DISABLE') + n('INACTIVE'),
                onlineCount: n('ONLINE'),
            },
            // A disabled device cannot connect: it counts as offline, so online + offline + inactive = deviceCount.
            offlineCount: n('OFFLINE') + n('DISABLE'),
            inactiveCount: n('INACTIVE'),
        };
    });
}

export type ProjectRow = Awaited<ReturnType<typeof withCounts>>[number]['row'];

export interface ProjectFilter {
    /** Literal, case-insensitive substring of the name. */
    name?: string;
    classId?: number;
}

function filterSql(filter: ProjectFilter): SQL | undefined {
    const parts: SQL[] = [];
    if (filter.name) parts.push(sql`strpos(lower(${projects.name}), lower(${filter.name})) > 0`);
    if (filter.classId !== undefined) parts.push(eq(projects.classId, filter.classId));
    const scoped = scopeByProjectId(projects.id);
    if (scoped) parts.push(scoped);
    return parts.length ? and(...parts) : undefined;
}

/** A page of projects, newest first. */
export async function listProjects(db: Db, filter: ProjectFilter, limit: number, offset: number, timeZone: string) {
    const where = filterSql(filter);
    const [raw, [{ total }]] = await Promise.all([
        db
            .select(rowColumns)
            .from(projects)
            .innerJoin(scenes, eq(scenes.id, projects.classId))
            .where(where)
            .orderBy(desc(projects.createTime), desc(projects.id))
            .limit(limit)
            .offset(offset),
        db.select({ total: count() }).from(projects).where(where),
    ]);
    return { records: (await withCounts(db, raw, timeZone)).map((r) => r.row), total: Number(total) };
}

async function rawProject(db: Db | Tx, id: number): Promise<RawProject> {
    const [raw] = await db
        .select(rowColumns)
        .from(projects)
        .innerJoin(scenes, eq(scenes.id, projects.classId))
        .where(eq(projects.id, id));
    if (!raw) throw notFound('项目不存在');
    return raw;
}

/** One project's row (the answer of save and update). */
export async function projectRow(db: Db | Tx, id: number, timeZone: string): Promise<ProjectRow> {
    const [one] = await withCounts(db, [await rawProject(db, id)], timeZone);
    return one.row;
}

/** The project screen's header: the row plus the remaining device counts and pending alerts (`warn`). */
export async function projectDetail(db: Db, id: number, timeZone: string) {
    const [one] = await withCounts(db, [await rawProject(db, id)], timeZone);
    const warn = await countAlerts(db, { projectId: id, status: 0 });
    return {
        ...one.row,
        // No edit time is kept: the last operation on the project record is its creation.
        opTime: one.row.createTime,
        offlineCount: one.offlineCount,
        inactiveCount: one.inactiveCount,
        warn,
    };
}

export async function requireProjectId(db: Db | Tx, id: number): Promise<{ id: number; code: string }> {
    const [row] = await db.select({ id: projects.id, code: projects.code }).from(projects).where(eq(projects.id, id));
    if (!row) throw notFound('项目不存在');
    return row;
}

export async function requireProjectCode(db: Db | Tx, code: string): Promise<{ id: number; code: string }> {
    const [row] = await db
        .select({ id: projects.id, code: projects.code })
        .from(projects)
        .where(eq(projects.code, code));
    if (!row) throw notFound('项目不存在');
    return row;
}

async function requireScene(db: Db | Tx, classId: number) {
    const [row] = await db.select({ id: scenes.id }).from(scenes).where(eq(scenes.id, classId));
    if (!row) throw notFound('项目分类不存在');
}

/** `P` + year + a 3-digit (or longer) sequence: one past the highest code of the year. */
export async function nextProjectCode(db: Db | Tx, year: number): Promise<string> {
    const prefix = `P${year}`;
    const [last] = await db
        .select({ code: projects.code })
        .from(projects)
        .where(sql`${projects.code} ~ ${`^${prefix}[0-9]{3,}$`}`)
        .orderBy(sql`length(${projects.code}) DESC`, desc(projects.code))
        .limit(1);
    const seq = last ? Number(last.code.slice(prefix.length)) + 1 : 1;
    return `${prefix}${String(seq).padStart(3, '0')}`;
}

const MAX_CODE_ATTEMPTS = 20;

/**
 * Creates a project with a generated code. Two saves at once may pick the same code: the unique index refuses the
 * second, which takes the next one (each attempt is its own statement, so no transaction is left aborted).
 */
export async function createProject(
    db: Db,
    input: { name: string; classId: number; remark?: string },
    year: number,
): Promise<number> {
    await requireScene(db, input.classId);
    for (let attempt = 0; ; attempt++) {
        const code = await nextProjectCode(db, year);
        try {
            const [row] = await db
                .insert(projects)
                .values({ code, name: input.name, classId: input.classId, remark: input.remark || null })
                .returning({ id: projects.id });
            return row.id;
        } catch (err) {
            if (isUniqueViolation(err, 'projects_name_uq')) throw conflict(PROJECT_NAME_TAKEN);
            if (isUniqueViolation(err, 'projects_code_unique') && attempt < MAX_CODE_ATTEMPTS) continue;
            // The scene was deleted between the check and the insert.
            if (isForeignKeyViolation(err)) throw notFound('项目分类不存在');
            throw err;
        }
    }
}

export async function updateProject(
    db: Db,
    input: { id: number; name: string; classId: number; remark?: string },
): Promise<void> {
    await requireProjectId(db, input.id);
    await requireScene(db, input.classId);
    try {
        const updated = await db
            .update(projects)
            .set({ name: input.name, classId: input.classId, remark: input.remark || null })
            .where(eq(projects.id, input.id))
            .returning({ id: projects.id });
        if (updated.length === 0) throw notFound('项目不存在');
    } catch (err) {
        if (isUniqueViolation(err, 'projects_name_uq')) throw conflict(PROJECT_NAME_TAKEN);
        if (isForeignKeyViolation(err)) throw notFound('项目分类不存在');
        throw err;
    }
}

/**
 * Deletes projects in one transaction: their devices become unbound, their staff and groups (with the groups'
 * device links) go, products and alerts stay with the project link cleared. Unknown ids refuse the whole call.
 */
export async function deleteProjects(db: Db, ids: number[]): Promise<{ count: number; unboundDevices: number }> {
    return db.transaction(async (tx) => {
        const rows = await tx
            .select({ id: projects.id, code: projects.code })
            .from(projects)
            .where(inArray(projects.id, ids))
            .orderBy(asc(projects.id))
            .for('update');
        if (rows.length < ids.length) throw notFound('项目不存在');
        const codes = rows.map((r) => r.code);
        const unbound = await tx
            .update(devices)
            .set({ projectId: null })
            .where(inArray(devices.projectId, ids))
            .returning({ id: devices.id });
        await tx.update(products).set({ projectCode: null }).where(inArray(products.projectCode, codes));
        await tx.update(alertEvents).set({ projectId: null }).where(inArray(alertEvents.projectId, ids));
        await tx.delete(projectUsers).where(inArray(projectUsers.projectId, ids));
        // Deepest level first: a group's parent key restricts deleting a parent before its children.
        for (const level of [3, 2, 1]) {
            await tx
                .delete(deviceGroups)
                .where(and(inArray(deviceGroups.projectCode, codes), eq(deviceGroups.level, level)));
        }
        await tx.delete(projects).where(inArray(projects.id, ids));
        return { count: rows.length, unboundDevices: unbound.length };
    });
}

/** Scenes with the number of projects in each, in creation order (the four starting scenes first). */
export async function listScenes(db: Db) {
    const rows = await db
        .select({ id: scenes.id, name: scenes.name, projectCount: sql<number>`count(${projects.id})::int` })
        .from(scenes)
        .leftJoin(projects, eq(projects.classId, scenes.id))
        .groupBy(scenes.id)
        .orderBy(asc(scenes.id));
    return rows.map((r) => ({ ...r, projectCount: Number(r.projectCount) }));
}

export async function saveScene(db: Db, input: { id?: number; name: string }): Promise<{ id: number; name: string }> {
    try {
        if (input.id === undefined) {
            const [row] = await db.insert(scenes).values({ name: input.name }).returning();
            return row;
        }
        const [row] = await db.update(scenes).set({ name: input.name }).where(eq(scenes.id, input.id)).returning();
        if (!row) throw notFound('场景不存在');
        return row;
    } catch (err) {
        if (isUniqueViolation(err, 'scenes_name_unique')) throw conflict(SCENE_NAME_TAKEN);
        throw err;
    }
}

/** Refused while projects use the scene; the scene row is locked, so a project saved meanwhile waits for the answer. */
export async function deleteScene(db: Db, id: number): Promise<void> {
    await db.transaction(async (tx) => {
        const [scene] = await tx.select({ id: scenes.id }).from(scenes).where(eq(scenes.id, id)).for('update');
        if (!scene) throw notFound('场景不存在');
        const [{ n }] = await tx.select({ n: count() }).from(projects).where(eq(projects.classId, id));
        if (Number(n) > 0) throw conflict(`该场景下还有${Number(n)}个项目，请先删除或移走项目`);
        await tx.delete(scenes).where(eq(scenes.id, id));
    });
}
