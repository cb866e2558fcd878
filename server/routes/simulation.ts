import type { Context } from 'hono';
import { Hono } from 'hono';
import { simulationCreateSchema } from '../../schemas/simulation';
import type { AppEnv, Services } from '../deps';
import { ownSimulation } from '../cluster/simulations';
import { ok } from '../http/envelope';
import { badRequest, notFound } from '../http/errors';
import { idList, paging, positiveInt, readBody, readListBody, validate, type FormValue } from '../http/input';
import { productByKey } from '../domain/devices';
import { createDirectory, type Directory } from '../mqtt/directory';
import { createSimulator, type Simulator } from '../simulation/simulator';
import {
    createSimulation,
    deleteSimulation,
    listSimulations,
    runningCount,
    simulationExists,
} from '../simulation/store';

type Body = Record<string, unknown>;

/** JSON bodies as they are (objects kept); forms with repeated keys as lists. */
async function readInput(c: Context): Promise<Body> {
    const type = c.req.header('content-type') ?? '';
    if (type.includes('application/json')) return readBody(c);
    return readListBody(c);
}

const single = (body: Body, name: string): string | undefined => {
    const v = body[name];
    if (v === undefined || v === null) return undefined;
    if (typeof v === 'string') return v;
    if (typeof v === 'number' || typeof v === 'boolean') return String(v);
    throw badRequest(`参数 ${name} 格式不正确：应为单个值`);
};

/** A JSON object given as an object (JSON body) or as its text (form); undefined when absent or empty. */
function jsonObject(body: Body, name: string): Record<string, unknown> | undefined {
    let v = body[name];
    if (v === undefined || v === null || v === '') return undefined;
    if (typeof v === 'string') {
        try {
            v = JSON.parse(v);
        } catch {
            throw badRequest(`参数 ${name} 应为 JSON 对象`);
        }
    }
    // Key / value rows, as the console's form holds them.
    if (Array.isArray(v) && v.every((r) => r && typeof r === 'object' && !Array.isArray(r) && 'key' in r)) {
        const out: Record<string, unknown> = {};
        for (const r of v as Array<{ key: unknown; value: unknown }>) {
            const key = typeof r.key === 'string' ? r.key.trim() : '';
            if (key) out[key] = r.value;
        }
        return out;
    }
    if (typeof v !== 'object' || v === null || Array.isArray(v)) throw badRequest(`参数 ${name} 应为 JSON 对象`);
    return v as Record<string, unknown>;
}

function identifierOf(body: Body, message: string): string {
    const id = single(body, 'identifier')?.trim() ?? '';
    if (!/^[A-Za-z_][A-Za-z0-9_]{0,49}$/.test(id)) throw badRequest(message);
    return id;
}

const idOf = (raw: unknown) => positiveInt(raw, '缺少模拟ID');
const deviceIdOf = (body: Body) => positiveInt(single(body, 'deviceId'), '缺少设备ID');

/** The save form's product: by id, or by its ProductKey (the console's form picks devices by productKey). */
async function productIdOf(db: Services['db'], body: Body): Promise<string | undefined> {
    const productKey = single(body, 'productKey')?.trim();
    const productId = single(body, 'productId');
    if (productId || !productKey) return productId;
    const product = await productByKey(db, productKey);
    if (!product) throw badRequest('产品不存在');
    return String(product.id);
}

/** The devices chosen: a JSON list, or a form's repeated or comma-separated deviceIds. */
function deviceIdsOf(body: Body): number[] {
    const raw = body.deviceIds;
    return idList(
        Array.isArray(raw)
            ? raw.map((v) => {
                  if (typeof v !== 'string' && typeof v !== 'number') throw badRequest('设备ID格式不正确');
                  return String(v);
              })
            : (single(body, 'deviceIds') as FormValue | undefined),
        '设备ID格式不正确',
    );
}

/** 新建模拟: the row and its devices; started at once (here, in a cluster) unless start=false or no broker runs. */
async function saveSimulation(
    { services, simulator, directory }: { services: Services; simulator: Simulator; directory: Directory },
    c: Context,
) {
    const { db } = services;
    const body = await readInput(c);
    const input = await validate(simulationCreateSchema, {
        productId: await productIdOf(db, body),
        amount: single(body, 'amount'),
        intervalSeconds: single(body, 'intervalSeconds'),
        mode: single(body, 'mode'),
        events: single(body, 'events'),
        start: single(body, 'start'),
    });
    const id = await createSimulation(
        db,
        {
            productId: input.productId,
            deviceIds: deviceIdsOf(body),
            amount: input.amount ?? 0,
            intervalSeconds: input.intervalSeconds,
            mode: input.mode as 'random' | 'fixed',
            fixedValues: jsonObject(body, 'fixedValues') ?? {},
            events: input.events ?? false,
        },
        await directory.model(input.productId),
    );
    const start = (input.start ?? true) && simulator.available;
    if (start) {
        await ownSimulation(db, id); // in a cluster: this process runs it
        await simulator.start(id);
    }
    return ok(c, { id, running: start });
}

/** The simulations' page, each with what runs here now (connected devices, messages not yet in its row). */
async function listWithStatus(services: Services, simulator: Simulator, c: Context) {
    const { db, config } = services;
    const { size, offset } = paging(c.req.query('pageNumber'), c.req.query('pageSize'));
    const rawProduct = c.req.query('productId');
    const productId =
        rawProduct === undefined || rawProduct === '' ? undefined : positiveInt(rawProduct, '产品ID格式不正确');
    const page = await listSimulations(db, config.timeZone, { productId, limit: size, offset });
    const records = page.records.map((r) => {
        const live = simulator.status(r.id);
        return {
            ...r,
            connected: live.connected,
            messagesSent: r.messagesSent + live.unflushed,
            // Marked running but not running here (no broker): said as it is.
            active: live.active,
        };
    });
    return ok(c, { records, total: page.total, running: await runningCount(db) });
}

/** The simulation named by the body's (or query's) id, which must exist. */
async function existingId(db: Services['db'], raw: unknown): Promise<number> {
    const id = idOf(raw);
    if (!(await simulationExists(db, id))) throw notFound('模拟不存在');
    return id;
}

/**
 * /api/simulation: device simulations (/monitor/imitate) and SPEC's one-device simulation calls (onLine, offLine,
 * sendProperty, sendEvent; propertyTestSet and serviceTestSet are the device family's, /api/device/*). General family
 * (code 200).
 */
export function simulationRoutes(services: Services) {
    const { db } = services;
    const simulator: Simulator = services.simulator ?? createSimulator({ db, access: services.access! });
    const directory = createDirectory(db);
    const app = new Hono<AppEnv>();

    app.get('/list', (c) => listWithStatus(services, simulator, c));
    app.post('/save', (c) => saveSimulation({ services, simulator, directory }, c));

    app.post('/start', async (c) => {
        const id = await existingId(db, single(await readInput(c), 'id'));
        await ownSimulation(db, id); // in a cluster: this process runs it
        await simulator.start(id);
        return ok(c, { id, running: true });
    });

    app.post('/stop', async (c) => {
        const id = await existingId(db, single(await readInput(c), 'id'));
        await simulator.stop(id);
        return ok(c, { id, running: false });
    });

    app.delete('/delete', async (c) => {
        const id = await existingId(db, c.req.query('id'));
        await simulator.halt(id);
        await deleteSimulation(db, id);
        return ok(c, null);
    });

    app.post('/onLine', async (c) => ok(c, await simulator.onLine(deviceIdOf(await readInput(c)))));

    app.post('/offLine', async (c) => ok(c, await simulator.offLine(deviceIdOf(await readInput(c)))));

    app.post('/sendProperty', async (c) => {
        const body = await readInput(c);
        return ok(c, await simulator.sendProperty(deviceIdOf(body), jsonObject(body, 'params')));
    });

    app.post('/sendEvent', async (c) => {
        const body = await readInput(c);
        const deviceId = deviceIdOf(body);
        const identifier = identifierOf(body, '请填写事件标识符');
        return ok(c, await simulator.sendEvent(deviceId, identifier, jsonObject(body, 'value')));
    });

    return app;
}
