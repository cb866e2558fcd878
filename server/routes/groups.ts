import { Hono } from 'hono';
import { GROUP_DEVICE_PAGE_SIZE } from '../../schemas/group';
import type { AppEnv, Services } from '../deps';
import { addGroupDevices, groupDevicePage, removeGroupDevices } from '../domain/groupDevices';
import { ok } from '../http/envelope';
import { badRequest } from '../http/errors';
import { idList, paging, positiveInt, readListBody, type FormValue } from '../http/input';
import { MAX_SELECTION } from './deviceProject';

const one = (v: FormValue | undefined) => (Array.isArray(v) ? v[0] : v)?.trim() ?? '';

function selection(raw: FormValue | undefined): number[] {
    const ids = idList(raw, '设备ID必须是正整数');
    if (ids.length === 0) throw badRequest('请选择设备');
    if (ids.length > MAX_SELECTION) throw badRequest(`一次最多选择${MAX_SELECTION}个设备`);
    return ids;
}

/** /api/groups: a group's devices (docs/platform-api.md "Groups"; returnCode '1111' family). */
export function groupDeviceRoutes({ db, config }: Services) {
    const app = new Hono<AppEnv>();
    const tz = config.timeZone;

    app.get('/devices', async (c) => {
        const groupId = positiveInt(c.req.query('groupId'), '缺少分组ID');
        const size = c.req.query('pageSize') || String(GROUP_DEVICE_PAGE_SIZE);
        const { offset } = paging(c.req.query('pageNumber'), size);
        const filter = {
            groupId,
            deviceName: c.req.query('deviceName')?.trim() || undefined,
            tagKey: c.req.query('tagKey')?.trim() || undefined,
            tagValue: c.req.query('tagValue')?.trim() || undefined,
        };
        return ok(c, await groupDevicePage(db, tz, filter, Number(size), offset));
    });

    app.post('/addDevices', async (c) => {
        const body = await readListBody(c);
        const groupId = positiveInt(one(body.groupId), '缺少分组ID');
        const ids = selection(body.deviceList);
        return ok(c, { count: await db.transaction((tx) => addGroupDevices(tx, groupId, ids)) });
    });

    app.post('/removeDevices', async (c) => {
        const body = await readListBody(c);
        const groupId = positiveInt(one(body.groupId), '缺少分组ID');
        const ids = selection(body.deviceList);
        return ok(c, { count: await db.transaction((tx) => removeGroupDevices(tx, groupId, ids)) });
    });

    return app;
}
