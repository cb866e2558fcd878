import { eq, inArray } from 'drizzle-orm';
import { checkBind } from '../../schemas/device';
import type { Db, Tx } from '../db/client';
import { devices, projects } from '../db/schema';
import { badRequest, isForeignKeyViolation, notFound } from '../http/errors';
import { idList, positiveInt, type FormValue } from '../http/input';

/** One bind or unbind call touches at most this many devices (a few pages of selection, with room to spare). */
export const MAX_SELECTION = 10_000;

export function selection(raw: FormValue | undefined, emptyMessage: string): number[] {
    const ids = idList(raw, '设备ID必须是正整数');
    if (ids.length === 0) throw badRequest(emptyMessage);
    if (ids.length > MAX_SELECTION) throw badRequest(`一次最多选择${MAX_SELECTION}个设备`);
    return ids;
}

/** The selected devices, locked until the transaction ends so two binds cannot both see them unbound. */
export async function lockDevices(tx: Tx, ids: number[]) {
    const rows = await tx
        .select({ deviceId: devices.id, projectId: devices.projectId })
        .from(devices)
        .where(inArray(devices.id, ids))
        .for('update');
    if (rows.length < ids.length) throw notFound('设备不存在');
    return rows;
}

/**
 * The project, share-locked until the transaction ends: a delete of it waits for the bind and then unbinds the
 * devices too, instead of the bind writing a project that no longer exists.
 */
export async function requireProject(tx: Tx, projectId: number) {
    const [project] = await tx
        .select({ id: projects.id })
        .from(projects)
        .where(eq(projects.id, projectId))
        .for('share');
    if (!project) throw notFound('项目不存在');
}

/**
 * Binds the devices to the project, all or none, with the checks the console runs first (schemas/device.ts
 * checkBind) run again against the devices as stored. Both /api/device/bind and /api/project/associateDevice call it.
 */
export async function bindDevices(db: Db, rawProject: string, ids: number[]): Promise<number> {
    try {
        return await db.transaction(async (tx) => {
            const rows = await lockDevices(tx, ids);
            const message = checkBind(rows, rawProject);
            if (message) throw badRequest(message);
            const projectId = positiveInt(rawProject, '请选择要关联的场景');
            await requireProject(tx, projectId);
            await tx.update(devices).set({ projectId }).where(inArray(devices.id, ids));
            return ids.length;
        });
    } catch (err) {
        // A delete that committed between our check and our write (isolation levels differ by store).
        if (isForeignKeyViolation(err)) throw notFound('项目不存在');
        throw err;
    }
}
