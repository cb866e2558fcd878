import { Hono } from 'hono';
import * as yup from 'yup';
import type { AppEnv, Services } from '../deps';
import { addSubDevices, gatewayOf, listCandidates, listSubDevices, removeSubDevices } from '../domain/subDevices';
import { dropFound, listFound, notifyTopoChange, takeFound, type TopoChange } from '../domain/topology';
import { ok } from '../http/envelope';
import { formatTime } from '../http/time';
import { idList, paging, positiveInt, readListBody, validate } from '../http/input';

const GW_ID_MISSING = '缺少网关ID';
const DEVICE_ID_MALFORMED = '设备ID必须是正整数';

/** The add form's remark: the device remark's rule (at most 100); blank means "keep the devices' remarks". */
const remarkSchema = yup.object({ remark: yup.string().trim().max(100, '备注不得超过100个字符').optional() });

const single = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);

/** /api/device/subDevice: a gateway's sub-devices (docs/platform-api.md "Device detail"), device family (code 0). */
export function subDeviceRoutes(services: Services) {
    const { db, config, access } = services;
    const tz = config.timeZone;
    const app = new Hono<AppEnv>();
    /** thing/topo/change to the gateway (Alibaba's notice of a bind or unbind made here); a failed notice is only logged. */
    const notify = (gwId: number, deviceIds: number[], status: TopoChange) =>
        notifyTopoChange(db, access?.backend?.publishDown, gwId, deviceIds, status).catch((err: unknown) =>
            console.warn(`拓扑变化通知发送失败（网关 ${gwId}）: ${String(err)}`),
        );

    app.get('/list', async (c) => {
        const gwId = positiveInt(c.req.query('gwId'), GW_ID_MISSING);
        const { size, offset } = paging(c.req.query('pageNumber'), c.req.query('pageSize'));
        const deviceName = c.req.query('deviceName')?.trim() || undefined;
        return ok(c, await listSubDevices(db, { gwId, deviceName, limit: size, offset }, tz));
    });

    app.get('/candidates', async (c) => {
        const gwId = positiveInt(c.req.query('gwId'), GW_ID_MISSING);
        const { size, offset } = paging(c.req.query('pageNumber'), c.req.query('pageSize'));
        const deviceName = c.req.query('deviceName')?.trim() || undefined;
        const productKey = c.req.query('productKey')?.trim() || undefined;
        return ok(c, await listCandidates(db, { gwId, deviceName, productKey, limit: size, offset }, tz));
    });

    app.post('/add', async (c) => {
        const body = await readListBody(c);
        const gwId = positiveInt(single(body.gwId), GW_ID_MISSING);
        const deviceIds = idList(body.deviceId, DEVICE_ID_MALFORMED);
        const { remark } = await validate(remarkSchema, { remark: single(body.remark) });
        const added = await addSubDevices(db, gwId, deviceIds, remark ? remark : undefined);
        await notify(gwId, deviceIds, 0);
        return ok(c, added);
    });

    app.post('/remove', async (c) => {
        const body = await readListBody(c);
        const gwId = positiveInt(single(body.gwId), GW_ID_MISSING);
        const deviceIds = idList(body.deviceId, DEVICE_ID_MALFORMED);
        await removeSubDevices(db, gwId, deviceIds);
        await notify(gwId, deviceIds, 1);
        return ok(c, null);
    });

    // Sub-devices the gateway reported it found (thing/list/found), for the operator to add or ignore.
    app.get('/found', async (c) => {
        const gwId = positiveInt(c.req.query('gwId'), GW_ID_MISSING);
        const { size, offset } = paging(c.req.query('pageNumber'), c.req.query('pageSize'));
        await gatewayOf(db, gwId);
        const { rows, total } = await listFound(db, gwId, size, offset);
        const records = rows.map((r) => ({
            id: Number(r.id),
            productKey: r.productKey,
            deviceName: r.deviceName,
            productName: r.productName,
            deviceId: r.deviceId === null ? null : Number(r.deviceId),
            bound: r.boundGwId === null ? 'none' : Number(r.boundGwId) === gwId ? 'this' : 'other',
            foundTime: formatTime(r.foundTime, tz),
        }));
        return ok(c, { records, total });
    });

    app.post('/found/add', async (c) => {
        const body = await readListBody(c);
        const gwId = positiveInt(single(body.gwId), GW_ID_MISSING);
        const id = positiveInt(single(body.id), '缺少发现记录ID');
        const deviceId = await takeFound(db, gwId, id);
        await notify(gwId, [deviceId], 0);
        return ok(c, { deviceId });
    });

    app.post('/found/remove', async (c) => {
        const body = await readListBody(c);
        const gwId = positiveInt(single(body.gwId), GW_ID_MISSING);
        await dropFound(db, gwId, positiveInt(single(body.id), '缺少发现记录ID'));
        return ok(c, null);
    });

    return app;
}
