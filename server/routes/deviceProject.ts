import { eq, inArray } from 'drizzle-orm';
import { Hono } from 'hono';
import { checkBind, checkUnbind } from '../../schemas/device';
import type { Tx } from '../db/client';
import { devices, projects } from '../db/schema';
import type { AppEnv, Services } from '../deps';
import { ok } from '../http/envelope';
import { badRequest, notFound } from '../http/errors';
import { idList, positiveInt, readListBody, type FormValue } from '../http/input';

/** One bind or unbind call touches at most this many devices (a few pages of selection, with room to spare). */
export const MAX_SELECTION = 10_000;

const one = (v: FormValue | undefined) => (Array.isArray(v) ? v[0] : v)?.trim() ?? '';

function selection(raw: FormValue | undefined, emptyMessage: string): number[] {
    const ids = idList(raw, '设备ID必须是正整数');
    if (ids.length === 0) throw badRequest(emptyMessage);
    if (ids.length > MAX_SELECTION) throw badRequest(`一次最多选择${MAX_SELECTION}个设备`);
    return ids;
}

/** The selected devices, locked until the transaction ends so two binds cannot both see them unbound. */
async function lockDevices(tx: Tx, ids: number[]) {
    const rows = await tx
        .select({ deviceId: devices.id, projectId: devices.projectId })
        .from(devices)
        .where(inArray(devices.id, ids))
        .for('update');
    if (rows.length < ids.length) throw notFound('设备不存在');
    return rows;
}

async function requireProject(tx: Tx, projectId: number) {
    const [project] = await tx.select({ id: projects.id }).from(projects).where(eq(projects.id, projectId));
    if (!project) throw notFound('项目不存在');
}

/**
 * Project binding. The console checks a selection with schemas/device.ts checkBind / checkUnbind before it calls;
 * the server runs the same checks against the devices as stored, and writes all of the selection or none of it.
 */
export function deviceProjectRoutes({ db }: Services) {
    const app = new Hono<AppEnv>();

    app.post('/bind', async (c) => {
        const body = await readListBody(c);
        const ids = selection(body.deviceId, '请选择需要关联项目的设备');
        const rawProject = one(body.projectId);
        const count = await db.transaction(async (tx) => {
            const rows = await lockDevices(tx, ids);
            const message = checkBind(rows, rawProject);
            if (message) throw badRequest(message);
            const projectId = positiveInt(rawProject, '请选择要关联的场景');
            await requireProject(tx, projectId);
            await tx.update(devices).set({ projectId }).where(inArray(devices.id, ids));
            return ids.length;
        });
        return ok(c, { count });
    });

    app.post('/unbind', async (c) => {
        const body = await readListBody(c);
        const ids = selection(body.deviceId, '请选择需要批量解绑的设备');
        const claimed = new Set(idList(body.projectId, '项目ID必须是正整数'));
        const count = await db.transaction(async (tx) => {
            const rows = await lockDevices(tx, ids);
            const message = checkUnbind(rows);
            if (message) throw badRequest(message);
            if (claimed.size > 1) throw badRequest('请选择关联同一项目的设备进行解绑');
            // The console sends the project it saw; a device moved since then is not silently unbound from another.
            if (claimed.size === 1 && !claimed.has(rows[0].projectId!)) {
                throw badRequest('设备所属项目已变更，请刷新后重试');
            }
            await tx.update(devices).set({ projectId: null }).where(inArray(devices.id, ids));
            return ids.length;
        });
        return ok(c, { count });
    });

    app.get('/removeFromProject', async (c) => {
        const deviceId = positiveInt(c.req.query('deviceId'), '缺少设备ID');
        const projectId = positiveInt(c.req.query('projectId'), '缺少项目ID');
        await db.transaction(async (tx) => {
            const [row] = await lockDevices(tx, [deviceId]);
            await requireProject(tx, projectId);
            if (row.projectId === null) throw badRequest('未关联项目');
            if (row.projectId !== projectId) throw badRequest('该设备未关联此项目');
            await tx.update(devices).set({ projectId: null }).where(eq(devices.id, deviceId));
        });
        return ok(c, null);
    });

    return app;
}
