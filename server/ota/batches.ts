import { and, desc, eq, inArray, sql, type SQL } from 'drizzle-orm';
import {
    OTA_MESSAGES,
    OTA_STATES,
    OTA_VERIFY_MAX,
    otaBatchSchema,
    parseTime,
    splitIds,
    splitVersions,
} from '../../schemas/ota';
import { bigintArray } from '../db/arrays';
import type { Db } from '../db/client';
import { devices, otaBatches, otaModules, otaPackages, otaTasks, products } from '../db/schema';
import { badRequest, conflict, notFound } from '../http/errors';
import { validate } from '../http/input';
import { formatTime } from '../http/time';
import { currentScope } from '../rights/scope';
import { packageById } from './packages';

/** Tasks that still wait for something: the device is pushed, upgrading or about to be. */
export const OPEN_STATES = ['pending', 'pushed', 'upgrading'] as const;

const stateName = (id: string) => OTA_STATES.find((s) => s.id === id)?.name ?? id;

type Batch = typeof otaBatches.$inferSelect;

/**
 * The devices a batch reaches when it is made: the scope within the package's product, on a source version (the
 * batch's, else the package's; none: any), not already on the target version and not in another open task of the
 * same module. A dynamic batch reaches more devices later (device.ts joinDynamic).
 */
async function chooseDevices(db: Db, pkg: typeof otaPackages.$inferSelect, b: Batch): Promise<number[]> {
    const scope =
        b.scope === 'devices'
            ? sql`d.id = ANY(${bigintArray(b.scopeIds)})`
            : b.scope === 'group'
              ? sql`d.id IN (SELECT g.device_id FROM group_devices g WHERE g.group_id = ${b.scopeIds[0] ?? 0})`
              : b.scope === 'project'
                ? sql`d.project_id = ${b.scopeIds[0] ?? 0}`
                : sql`TRUE`;
    // A scoped user's batch reaches the devices of their projects only (a product of their project may hold devices
    // of others; a group or the whole product may span projects). Unscoped (an administrator): every device.
    const user = currentScope();
    const visible = !user
        ? sql`TRUE`
        : user.projectIds.length
          ? sql`d.project_id = ANY(${bigintArray(user.projectIds)})`
          : sql`FALSE`;
    const rows = (await db.execute(sql`
        SELECT d.id FROM devices d
        LEFT JOIN ota_modules m ON m.device_id = d.id AND m.module = ${pkg.module}
        WHERE d.product_id = ${pkg.productId} AND ${scope} AND ${visible} AND ${versionFilter(b, pkg)}
          AND m.version IS DISTINCT FROM ${pkg.version}
          AND NOT EXISTS (SELECT 1 FROM ota_tasks t JOIN ota_batches ob ON ob.id = t.batch_id
                JOIN ota_packages op ON op.id = ob.package_id
                WHERE t.device_id = d.id AND t.state IN ('pending', 'pushed', 'upgrading')
                  AND ob.status = 'running' AND op.module = ${pkg.module})
        ORDER BY d.id`)) as unknown as { rows: Array<{ id: number | string }> };
    return rows.rows.map((r) => Number(r.id));
}

/** The batch's source versions, else the package's; [] means any version. */
export const sourcesOf = (
    b: Pick<Batch, 'sourceVersions'>,
    pkg: Pick<typeof otaPackages.$inferSelect, 'sourceVersions'>,
) => (b.sourceVersions.length ? b.sourceVersions : pkg.sourceVersions);

function versionFilter(b: Batch, pkg: typeof otaPackages.$inferSelect) {
    const sources = sourcesOf(b, pkg);
    if (!sources.length) return sql`TRUE`;
    return sql`m.version IN (${sql.join(
        sources.map((v) => sql`${v}`),
        sql`, `,
    )})`;
}

/** 批量升级 / 验证固件: the batch and its first tasks (pending; the scheduler pushes them). */
export async function createBatch(db: Db, raw: Record<string, unknown>) {
    const input = await validate(otaBatchSchema, raw);
    const pkg = await packageById(db, input.packageId);
    const deviceIds = splitIds(input.deviceIds);
    let scopeIds: number[] = [];
    if (input.scope === 'devices') {
        if (!deviceIds.length) throw badRequest('请选择设备');
        scopeIds = [...new Set(deviceIds)];
    } else if (input.scope === 'group') {
        if (!input.groupId) throw badRequest('请选择设备分组');
        scopeIds = [input.groupId];
    } else if (input.scope === 'project') {
        if (!input.projectId) throw badRequest('请选择项目');
        scopeIds = [input.projectId];
    }
    if (input.kind === 'verify') {
        if (input.scope !== 'devices') throw badRequest('验证固件请指定设备');
        if (scopeIds.length > OTA_VERIFY_MAX) throw badRequest(OTA_MESSAGES.verifyMax);
    }
    if (input.scope === 'devices') {
        const found = await db
            .select({ id: devices.id })
            .from(devices)
            .where(and(inArray(devices.id, scopeIds), eq(devices.productId, pkg.productId)));
        if (found.length !== scopeIds.length) throw badRequest('所选设备不存在或不属于该固件的产品');
    }
    const start = input.startTime ? new Date(parseTime(input.startTime)) : null;
    const end = input.endTime ? new Date(parseTime(input.endTime)) : null;
    if (start && end && end <= start) throw badRequest('结束时间应晚于开始时间');
    const dynamic = input.kind === 'batch' && input.dynamic === true;
    return db.transaction(async (tx) => {
        const [batch] = await tx
            .insert(otaBatches)
            .values({
                packageId: pkg.id,
                kind: input.kind,
                scope: input.scope,
                scopeIds,
                sourceVersions: splitVersions(input.sourceVersions),
                dynamic,
                startTime: start,
                endTime: end,
                ratePerMinute: input.ratePerMinute ?? null,
                timeoutMinutes: input.timeoutMinutes,
                retries: input.retries,
            })
            .returning();
        const chosen = await chooseDevices(tx as unknown as Db, pkg, batch);
        if (!chosen.length && !dynamic) throw badRequest(OTA_MESSAGES.noDevices);
        if (chosen.length) {
            await tx.execute(sql`
                INSERT INTO ota_tasks (batch_id, device_id, from_version)
                SELECT ${batch.id}, x.id, m.version FROM unnest(${bigintArray(chosen)}) AS x(id)
                LEFT JOIN ota_modules m ON m.device_id = x.id AND m.module = ${pkg.module}`);
        }
        return { id: batch.id, devices: chosen.length };
    });
}

/** Whether a device fits a dynamic batch's scope now (device.ts asks when it informs). */
export function inScopeSql(b: Pick<Batch, 'scope' | 'scopeIds'>, deviceId: number) {
    if (b.scope === 'devices') return sql`${deviceId} = ANY(${bigintArray(b.scopeIds)})`;
    if (b.scope === 'group')
        return sql`EXISTS (SELECT 1 FROM group_devices g WHERE g.group_id = ${b.scopeIds[0] ?? 0} AND g.device_id = ${deviceId})`;
    if (b.scope === 'project')
        return sql`EXISTS (SELECT 1 FROM devices d WHERE d.id = ${deviceId} AND d.project_id = ${b.scopeIds[0] ?? 0})`;
    return sql`TRUE`;
}

export async function cancelBatch(db: Db, id: number, at: Date) {
    const [batch] = await db.select().from(otaBatches).where(eq(otaBatches.id, id));
    if (!batch) throw notFound(OTA_MESSAGES.batchNotFound);
    if (batch.status !== 'running') throw conflict('该批次已结束，无需取消');
    await db.transaction(async (tx) => {
        await tx.update(otaBatches).set({ status: 'cancelled' }).where(eq(otaBatches.id, id));
        await tx
            .update(otaTasks)
            .set({ state: 'cancelled', reason: '批次已取消', updatedAt: at })
            .where(and(eq(otaTasks.batchId, id), inArray(otaTasks.state, [...OPEN_STATES])));
    });
}

export async function cancelTask(db: Db, id: number, at: Date) {
    const [task] = await db.select().from(otaTasks).where(eq(otaTasks.id, id));
    if (!task) throw notFound('升级任务不存在');
    if (!(OPEN_STATES as readonly string[]).includes(task.state)) throw conflict('该设备的升级已结束，无法取消');
    await db
        .update(otaTasks)
        .set({ state: 'cancelled', reason: '已手动取消', updatedAt: at })
        .where(and(eq(otaTasks.id, id), inArray(otaTasks.state, [...OPEN_STATES])));
}

/** Counts per state of a batch, every state present (0 when none). */
export async function stateCounts(db: Db, batchIds: number[]) {
    const out = new Map<number, Record<string, number>>();
    for (const id of batchIds) out.set(id, Object.fromEntries(OTA_STATES.map((s) => [s.id, 0])));
    if (!batchIds.length) return out;
    const rows = await db
        .select({ batchId: otaTasks.batchId, state: otaTasks.state, n: sql<number>`count(*)::int` })
        .from(otaTasks)
        .where(inArray(otaTasks.batchId, batchIds))
        .groupBy(otaTasks.batchId, otaTasks.state);
    for (const r of rows) out.get(r.batchId)![r.state] = Number(r.n);
    return out;
}

export function batchView(b: Batch, counts: Record<string, number>, tz: string) {
    const total = Object.values(counts).reduce((a, n) => a + n, 0);
    return {
        id: b.id,
        packageId: b.packageId,
        kind: b.kind,
        scope: b.scope,
        scopeIds: b.scopeIds,
        sourceVersions: b.sourceVersions,
        dynamic: b.dynamic,
        startTime: formatTime(b.startTime, tz),
        endTime: formatTime(b.endTime, tz),
        ratePerMinute: b.ratePerMinute,
        timeoutMinutes: b.timeoutMinutes,
        retries: b.retries,
        status: b.status,
        createTime: formatTime(b.createTime, tz),
        total,
        counts,
        /** One line for a list: 成功 3 / 失败 0 / …, until the engine shows bars. */
        summary: OTA_STATES.map((s) => `${s.name} ${counts[s.id] ?? 0}`).join(' / '),
    };
}

/**
 * Batches, newest first, of one package or all; `visibleProducts` (productScopeSql(), a condition on `products`): only
 * batches of packages of those products (a scoped user's).
 */
export async function listBatches(
    db: Db,
    packageId: number | undefined,
    limit: number,
    offset: number,
    tz: string,
    visibleProducts?: SQL,
) {
    const where = and(
        packageId ? eq(otaBatches.packageId, packageId) : undefined,
        visibleProducts
            ? sql`EXISTS (SELECT 1 FROM ${otaPackages} JOIN ${products} ON ${products.id} = ${otaPackages.productId}
                  WHERE ${otaPackages.id} = ${otaBatches.packageId} AND ${visibleProducts})`
            : undefined,
    );
    const rows = await db
        .select()
        .from(otaBatches)
        .where(where)
        .orderBy(desc(otaBatches.id))
        .limit(limit)
        .offset(offset);
    const [n] = await db
        .select({ n: sql<number>`count(*)::int` })
        .from(otaBatches)
        .where(where);
    const counts = await stateCounts(
        db,
        rows.map((r) => r.id),
    );
    return { records: rows.map((r) => batchView(r, counts.get(r.id)!, tz)), total: Number(n.n) };
}

export async function batchDetail(db: Db, id: number, tz: string) {
    const [b] = await db.select().from(otaBatches).where(eq(otaBatches.id, id));
    if (!b) throw notFound(OTA_MESSAGES.batchNotFound);
    const counts = await stateCounts(db, [id]);
    const pkg = await packageById(db, b.packageId);
    return { ...batchView(b, counts.get(id)!, tz), packageName: pkg.name, version: pkg.version, module: pkg.module };
}

/** A batch's devices, by task id (the index ota_tasks_batch_state_idx serves a state filter). */
export async function batchDevices(
    db: Db,
    batchId: number,
    state: string | undefined,
    limit: number,
    offset: number,
    tz: string,
) {
    const where = state ? and(eq(otaTasks.batchId, batchId), eq(otaTasks.state, state)) : eq(otaTasks.batchId, batchId);
    const rows = await db
        .select({
            id: otaTasks.id,
            deviceId: otaTasks.deviceId,
            deviceName: devices.deviceName,
            state: otaTasks.state,
            step: otaTasks.step,
            reason: otaTasks.reason,
            attempts: otaTasks.attempts,
            fromVersion: otaTasks.fromVersion,
            pushedAt: otaTasks.pushedAt,
            updatedAt: otaTasks.updatedAt,
        })
        .from(otaTasks)
        .innerJoin(devices, eq(devices.id, otaTasks.deviceId))
        .where(where)
        .orderBy(otaTasks.id)
        .limit(limit)
        .offset(offset);
    const [n] = await db
        .select({ n: sql<number>`count(*)::int` })
        .from(otaTasks)
        .where(where);
    return {
        records: rows.map((r) => ({
            ...r,
            id: Number(r.id),
            deviceId: Number(r.deviceId),
            stateName: stateName(r.state),
            progress: r.state === 'succeeded' ? 100 : (r.step ?? 0),
            pushedAt: formatTime(r.pushedAt, tz),
            updatedAt: formatTime(r.updatedAt, tz),
        })),
        total: Number(n.n),
    };
}

/** The device page's OTA section: each module's version, and its upgrades newest first. */
export async function deviceOta(db: Db, deviceId: number, tz: string) {
    const [device] = await db.select({ id: devices.id }).from(devices).where(eq(devices.id, deviceId));
    if (!device) throw notFound('设备不存在');
    const modules = await db
        .select()
        .from(otaModules)
        .where(eq(otaModules.deviceId, deviceId))
        .orderBy(otaModules.module);
    const history = await db
        .select({
            id: otaTasks.id,
            batchId: otaTasks.batchId,
            packageName: otaPackages.name,
            module: otaPackages.module,
            version: otaPackages.version,
            fromVersion: otaTasks.fromVersion,
            state: otaTasks.state,
            step: otaTasks.step,
            reason: otaTasks.reason,
            updatedAt: otaTasks.updatedAt,
        })
        .from(otaTasks)
        .innerJoin(otaBatches, eq(otaBatches.id, otaTasks.batchId))
        .innerJoin(otaPackages, eq(otaPackages.id, otaBatches.packageId))
        .where(eq(otaTasks.deviceId, deviceId))
        .orderBy(desc(otaTasks.id))
        .limit(50);
    return {
        modules: modules.map((m) => ({ module: m.module, version: m.version, updatedAt: formatTime(m.updatedAt, tz) })),
        history: history.map((h) => ({
            ...h,
            id: Number(h.id),
            stateName: stateName(h.state),
            updatedAt: formatTime(h.updatedAt, tz),
        })),
    };
}
