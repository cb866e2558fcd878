import { Hono } from 'hono';
import * as yup from 'yup';
import type { AppEnv, Services } from '../deps';
import { addSubDevices, listCandidates, listSubDevices, removeSubDevices } from '../domain/subDevices';
import { ok } from '../http/envelope';
import { idList, paging, positiveInt, readListBody, validate } from '../http/input';

const GW_ID_MISSING = '缺少网关ID';
const DEVICE_ID_MALFORMED = '设备ID必须是正整数';

/** The add form's remark: the device remark's rule (at most 100); blank means "keep the devices' remarks". */
const remarkSchema = yup.object({ remark: yup.string().trim().max(100, '备注不得超过100个字符').optional() });

const single = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);

/** /api/device/subDevice: a gateway's sub-devices (docs/platform-api.md "Device detail"), device family (code 0). */
export function subDeviceRoutes(services: Services) {
    const { db, config } = services;
    const tz = config.timeZone;
    const app = new Hono<AppEnv>();

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
        return ok(c, await addSubDevices(db, gwId, deviceIds, remark ? remark : undefined));
    });

    app.post('/remove', async (c) => {
        const body = await readListBody(c);
        const gwId = positiveInt(single(body.gwId), GW_ID_MISSING);
        await removeSubDevices(db, gwId, idList(body.deviceId, DEVICE_ID_MALFORMED));
        return ok(c, null);
    });

    return app;
}
