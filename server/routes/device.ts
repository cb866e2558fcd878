import { and, eq } from 'drizzle-orm';
import { Hono } from 'hono';
import { devices, projects } from '../db/schema';
import type { AppEnv, Services } from '../deps';
import { countDevices, deviceIdByName, devicePage, getDevice, productByKey } from '../domain/devices';
import { getProduct } from '../domain/products';
import { ok } from '../http/envelope';
import { badRequest, notFound } from '../http/errors';
import { paging, positiveInt, readBody } from '../http/input';
import { formatTime } from '../http/time';
import { deviceEditRoutes } from './deviceEdit';
import { deviceExportRoutes } from './deviceExport';
import { deviceImportRoutes } from './deviceImport';
import { deviceProjectRoutes } from './deviceProject';
import { listFilter } from './deviceFilter';
import { inScope } from '../rights/scope';

/** /api/device: the device family (code 0), with its editing, project, import and export routes. */
export function deviceRoutes(services: Services) {
    const { db, config } = services;
    const tz = config.timeZone;
    const app = new Hono<AppEnv>();

    app.get('/list', async (c) => {
        const { size, offset } = paging(c.req.query('pageNumber'), c.req.query('pageSize'));
        const filter = await listFilter(db, (n) => c.req.query(n));
        if (!filter) return ok(c, { records: [], total: 0, onlineCount: 0 });
        // Both at once: on the embedded database's one connection they queue together rather than one after the other.
        const [records, totals] = await Promise.all([
            devicePage(db, filter, size, offset, tz),
            countDevices(db, filter),
        ]);
        return ok(c, { records, total: totals.total, onlineCount: totals.online });
    });

    app.get('/listByProject', async (c) => {
        const { size, offset } = paging(c.req.query('pageNumber'), c.req.query('pageSize'));
        const projectId = positiveInt(c.req.query('projectId'), '缺少项目ID');
        const filter = await listFilter(db, (n) => (n === 'productKey' || n === 'status' ? undefined : c.req.query(n)));
        if (!filter) return ok(c, { records: [], total: 0 });
        const [project] = await db.select({ id: projects.id }).from(projects).where(eq(projects.id, projectId));
        if (!project) throw notFound('项目不存在');
        filter.projectId = projectId;
        const [records, totals] = await Promise.all([
            devicePage(db, filter, size, offset, tz),
            countDevices(db, filter),
        ]);
        return ok(c, { records, total: totals.total });
    });

    app.get('/statistics', async (c) => {
        const productKey = c.req.query('productKey')?.trim();
        const product = productKey ? await productByKey(db, productKey) : undefined;
        const totals =
            productKey && !product
                ? { total: 0, online: 0, inactive: 0 }
                : await countDevices(db, { productId: product?.id });
        return ok(c, { total: totals.total, onlineTotal: totals.online, inActiveTotal: totals.inactive });
    });

    app.get('/total', async (c) => {
        const totals = await countDevices(db, {});
        // A disabled device cannot connect: the dashboard's three slices count it as offline, so they add up.
        return ok(c, {
            onlineTotal: totals.online,
            offlineTotal: totals.offline + totals.disabled,
            inActiveTotal: totals.inactive,
        });
    });

    app.get('/detail', async (c) => {
        const deviceId = positiveInt(c.req.query('deviceId'), '缺少设备ID');
        const device = await getDevice(db, deviceId, tz);
        // A device outside the caller's projects does not exist for them (its secret included).
        if (!inScope(device.projectId)) throw notFound('设备不存在');
        return ok(c, { device, product: await getProduct(db, tz, device.productId) });
    });

    app.get('/getInfo', async (c) => {
        const productKey = c.req.query('productKey')?.trim();
        const deviceName = c.req.query('deviceName')?.trim();
        if (!productKey) throw badRequest('请选择产品');
        if (!deviceName) throw badRequest('请输入deviceName!');
        const product = await productByKey(db, productKey);
        if (!product) throw notFound('产品不存在');
        const deviceId = await deviceIdByName(db, product.id, deviceName);
        if (deviceId === undefined) throw notFound('设备不存在');
        const device = await getDevice(db, deviceId, tz);
        if (!inScope(device.projectId)) throw notFound('设备不存在');
        return ok(c, device);
    });

    // Until the MQTT broker lands the stored status is the truth; the broker will write it on (dis)connect.
    app.post('/getStatus', async (c) => {
        const body = await readBody(c);
        const productKey = typeof body.productKey === 'string' ? body.productKey.trim() : '';
        const deviceName = typeof body.deviceName === 'string' ? body.deviceName.trim() : '';
        if (!productKey) throw badRequest('请选择产品');
        if (!deviceName) throw badRequest('请输入deviceName!');
        const product = await productByKey(db, productKey);
        if (!product) throw notFound('产品不存在');
        const [row] = await db
            .select({ status: devices.status, lastTime: devices.lastTime })
            .from(devices)
            .where(and(eq(devices.productId, product.id), eq(devices.deviceName, deviceName)));
        if (!row) throw notFound('设备不存在');
        return ok(c, {
            status: row.status,
            deviceStatus: row.status === 'ONLINE',
            lastTime: formatTime(row.lastTime, tz),
        });
    });

    app.route('/', deviceEditRoutes(services));
    app.route('/', deviceProjectRoutes(services));
    app.route('/', deviceImportRoutes(services));
    app.route('/', deviceExportRoutes(services));
    return app;
}
