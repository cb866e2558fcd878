import { eq, inArray } from 'drizzle-orm';
import { Hono } from 'hono';
import { checkUnbind } from '../../schemas/device';
import { devices } from '../db/schema';
import type { AppEnv, Services } from '../deps';
import { bindDevices, lockDevices, requireProject, selection } from '../domain/deviceProject';
import { ok } from '../http/envelope';
import { badRequest } from '../http/errors';
import { idList, positiveInt, readListBody, type FormValue } from '../http/input';

export { MAX_SELECTION } from '../domain/deviceProject';

const one = (v: FormValue | undefined) => (Array.isArray(v) ? v[0] : v)?.trim() ?? '';

/**
 * Project binding. The console checks a selection with schemas/device.ts checkBind / checkUnbind before it calls;
 * the server runs the same checks against the devices as stored, and writes all of the selection or none of it.
 */
export function deviceProjectRoutes({ db }: Services) {
    const app = new Hono<AppEnv>();

    app.post('/bind', async (c) => {
        const body = await readListBody(c);
        const ids = selection(body.deviceId, '请选择需要关联项目的设备');
        return ok(c, { count: await bindDevices(db, one(body.projectId), ids) });
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
