import { eq } from 'drizzle-orm';
import type { MqttClient } from 'mqtt';
import iot from 'alibabacloud-iot-device-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { devices, foundDevices } from '../../server/db/schema';
import { alibabaCredentials, sign } from '../../server/mqtt/signIn';
import { createTestServer, type TestServer } from '../../server/testing';
import { createProduct, listForm, type TestProduct } from './devicesSupport';
import {
    connect,
    loginRequest,
    newDevice,
    nextMessage,
    startBroker,
    subscribe,
    until,
    type Broker,
    type DeviceCredentials,
} from './mqttSupport';
import { call, form, rowCounts } from './support';

/**
 * A gateway's own topology over MQTT, as Alibaba's Alink defines it (docs/device-access.md "网关拓扑"): topo/add with
 * each sub-device's signature, topo/delete, topo/get, the thing/topo/change notice of a console bind or unbind,
 * list/found shown on the gateway's 子设备 tab, sub/register; every refusal with Alibaba's code and nothing changed.
 * Then Alibaba's own Node SDK drives addTopo, getTopo, removeTopo and regiestSubDevice once each.
 */

let s: TestServer;
let broker: Broker;
let url: string;
let gatewayProduct: TestProduct;
/** 直连设备 answering 是否接入网关: 是 — Alibaba's 网关子设备. */
let subProduct: TestProduct;
/** A product of directly connected devices (not reached through a gateway). */
let directProduct: TestProduct;
const clients: MqttClient[] = [];

type Dev = DeviceCredentials;
const device = (product: TestProduct) => newDevice(s, product.productKey);

const gwIdOf = async (deviceId: number) =>
    (await s.db.select({ gwId: devices.gwId }).from(devices).where(eq(devices.id, deviceId)))[0].gwId;

/** A gateway connected with Alibaba's scheme, subscribed to its own thing topics. */
async function gateway() {
    const gw = await device(gatewayProduct);
    const client = await connect(url, alibabaCredentials(gw));
    clients.push(client);
    const thing = `/sys/${gw.productKey}/${gw.deviceName}/thing`;
    await subscribe(client, `${thing}/#`);
    let next = 100;
    /** Publishes an Alink request and resolves with its `_reply`. */
    const request = async (action: string, params: unknown) => {
        const id = String(next++);
        const reply = nextMessage(client, `${thing}/${action}_reply`);
        await client.publishAsync(
            `${thing}/${action}`,
            JSON.stringify({ id, version: '1.0', params, method: `thing.${action.replace('/', '.')}` }),
            { qos: 1 },
        );
        const body = await reply;
        expect(body.id).toBe(id);
        return body;
    };
    return { gw, client, thing, request };
}

/** One topo/add item as Alibaba's SDKs sign it: sorted parameters but sign and signMethod, HMAC with the secret. */
function topoItem(sub: Dev, secret = sub.secret, signMethod = 'hmacSha1') {
    const timestamp = String(Date.now());
    const clientId = `${sub.productKey}&${sub.deviceName}`;
    const content = `clientId${clientId}deviceName${sub.deviceName}productKey${sub.productKey}timestamp${timestamp}`;
    return {
        productKey: sub.productKey,
        deviceName: sub.deviceName,
        clientId,
        timestamp,
        signmethod: signMethod,
        sign: sign('hmacsha1', secret, content),
    };
}

const name = (d: Dev) => ({ productKey: d.productKey, deviceName: d.deviceName });

beforeAll(async () => {
    s = await createTestServer();
    ({ broker, url } = await startBroker(s));
    gatewayProduct = await createProduct(s, { nodeType: 1 });
    subProduct = await createProduct(s, { nodeType: 0, gatewayType: 1, networkType: 11 });
    directProduct = await createProduct(s, { nodeType: 0 });
});

afterAll(async () => {
    for (const c of clients) c.end(true);
    await broker?.close();
    await s?.close();
});

describe('thing/topo/add, delete and get', () => {
    it('binds sub-devices whose signatures verify, answers them, lets them sign in, lists and deletes them', async () => {
        const a = await device(subProduct);
        const b = await device(subProduct);
        const { gw, client, request } = await gateway();
        const added = await request('topo/add', [topoItem(a), topoItem(b, b.secret, 'HmacSHA1')]);
        expect(added).toMatchObject({ code: 200, data: [name(a), name(b)], method: 'thing.topo.add' });
        expect(await gwIdOf(a.deviceId)).toBe(gw.deviceId);
        expect(await gwIdOf(b.deviceId)).toBe(gw.deviceId);

        // Bound by the gateway itself, the sub-device signs in through it (combine login).
        const session = `/ext/session/${gw.productKey}/${gw.deviceName}/combine`;
        await subscribe(client, `${session}/#`);
        const login = nextMessage(client, `${session}/login_reply`);
        await client.publishAsync(`${session}/login`, loginRequest(a), { qos: 1 });
        expect(await login).toMatchObject({ code: 200 });
        await until(() => broker.isOnline(a.deviceId));

        expect(await request('topo/get', {})).toMatchObject({ code: 200, data: [name(a), name(b)] });

        const removed = await request('topo/delete', [name(a)]);
        expect(removed).toMatchObject({ code: 200, data: [name(a)] });
        expect(await gwIdOf(a.deviceId)).toBeNull();
        // Unbound, it leaves the gateway's session.
        await until(() => !broker.isOnline(a.deviceId));
        expect(await request('topo/get', {})).toMatchObject({ code: 200, data: [name(b)] });
    });

    it('refuses a bad signature with 401 and binds nothing of the request', async () => {
        const good = await device(subProduct);
        const bad = await device(subProduct);
        const { request } = await gateway();
        const answer = await request('topo/add', [topoItem(good), topoItem(bad, 'f'.repeat(32))]);
        expect(answer).toMatchObject({ code: 401, data: {} });
        // The good one of the request is not bound either.
        expect(await gwIdOf(good.deviceId)).toBeNull();
        expect(await gwIdOf(bad.deviceId)).toBeNull();
    });

    it("refuses another gateway's sub-device, a product that is not of sub-devices, unknown names and itself", async () => {
        const first = await gateway();
        const second = await gateway();
        const taken = await device(subProduct);
        expect(await first.request('topo/add', [topoItem(taken)])).toMatchObject({ code: 200 });

        expect(await second.request('topo/add', [topoItem(taken)])).toMatchObject({ code: 460, data: {} });
        expect(await gwIdOf(taken.deviceId)).toBe(first.gw.deviceId);

        const direct = await device(directProduct);
        expect(await second.request('topo/add', [topoItem(direct)])).toMatchObject({ code: 460 });
        expect(await gwIdOf(direct.deviceId)).toBeNull();

        const ghost = { ...taken, deviceName: 'no_such_device' };
        expect(await second.request('topo/add', [topoItem(ghost)])).toMatchObject({ code: 6100 });
        const noProduct = { ...taken, productKey: 'NoSuchProd1' };
        expect(await second.request('topo/add', [topoItem(noProduct)])).toMatchObject({ code: 6250 });
        expect(await second.request('topo/add', [topoItem(second.gw)])).toMatchObject({ code: 6402 });
        expect(await second.request('topo/add', [])).toMatchObject({ code: 460 });

        // topo/delete of a sub-device of another gateway: topo relation not exist, and it stays bound.
        expect(await second.request('topo/delete', [name(taken)])).toMatchObject({ code: 6401 });
        expect(await gwIdOf(taken.deviceId)).toBe(first.gw.deviceId);
        expect(await second.request('topo/delete', [name(ghost)])).toMatchObject({ code: 6100 });
    });
});

describe('thing/topo/change', () => {
    it('tells the gateway when the console binds or unbinds its sub-devices', async () => {
        const { gw, client, thing } = await gateway();
        const sub = await device(subProduct);
        let notice = nextMessage(client, `${thing}/topo/change`);
        const added = await call(
            s,
            'POST',
            '/api/device/subDevice/add',
            listForm({ gwId: gw.deviceId, deviceId: [sub.deviceId] }),
        );
        expect(added.status).toBe(200);
        expect(await notice).toMatchObject({
            version: '1.0',
            method: 'thing.topo.change',
            params: { status: 0, subList: [name(sub)] },
        });
        notice = nextMessage(client, `${thing}/topo/change`);
        const removed = await call(
            s,
            'POST',
            '/api/device/subDevice/remove',
            listForm({ gwId: gw.deviceId, deviceId: [sub.deviceId] }),
        );
        expect(removed.status).toBe(200);
        const body = await notice;
        expect(body).toMatchObject({ params: { status: 1, subList: [name(sub)] } });
        // The gateway answers the notice as Alibaba's gateways do; the platform takes it without a word back.
        await client.publishAsync(`${thing}/topo/change_reply`, JSON.stringify({ id: body.id, code: 200, data: {} }), {
            qos: 1,
        });
    });
});

describe('thing/list/found', () => {
    it("stores what the gateway found for the operator, who adds it on the gateway's 子设备 tab", async () => {
        const { gw, request } = await gateway();
        const known = await device(subProduct);
        const fresh = `found_${Date.now()}`;
        const answer = await request('list/found', [
            name(known),
            { productKey: subProduct.productKey, deviceName: fresh },
        ]);
        expect(answer).toMatchObject({ code: 200, data: {} });
        // Reported again (twice in one message too): kept once.
        expect(await request('list/found', [name(known), name(known)])).toMatchObject({ code: 200 });

        const page = await call(s, 'GET', `/api/device/subDevice/found?gwId=${gw.deviceId}&pageNumber=1&pageSize=10`);
        const records = (page.body.data as { records: Array<Record<string, unknown>>; total: number }).records;
        expect(records).toHaveLength(2);
        const knownRow = records.find((r) => r.deviceName === known.deviceName)!;
        const freshRow = records.find((r) => r.deviceName === fresh)!;
        expect(knownRow).toMatchObject({
            deviceId: known.deviceId,
            bound: 'none',
            productName: subProduct.productName,
        });
        expect(freshRow).toMatchObject({ deviceId: null, bound: 'none' });

        // 添加: the known device is bound; the new one is created under its product and bound.
        const addKnown = await call(
            s,
            'POST',
            '/api/device/subDevice/found/add',
            form({ gwId: gw.deviceId, id: Number(knownRow.id) }),
        );
        expect(addKnown.body).toMatchObject({ code: 0, data: { deviceId: known.deviceId } });
        expect(await gwIdOf(known.deviceId)).toBe(gw.deviceId);
        const addFresh = await call(
            s,
            'POST',
            '/api/device/subDevice/found/add',
            form({ gwId: gw.deviceId, id: Number(freshRow.id) }),
        );
        const created = (addFresh.body.data as { deviceId: number }).deviceId;
        expect(await gwIdOf(created)).toBe(gw.deviceId);
        const left = await s.db.select().from(foundDevices).where(eq(foundDevices.gwId, gw.deviceId));
        expect(left).toHaveLength(0);
    });

    it('refuses an unknown product (6250) and a name outside the rule (6280), storing nothing', async () => {
        const { gw, request } = await gateway();
        expect(await request('list/found', [{ productKey: 'NoSuchProd1', deviceName: 'abcd' }])).toMatchObject({
            code: 6250,
        });
        expect(
            await request('list/found', [
                { productKey: subProduct.productKey, deviceName: 'fine_name' },
                { productKey: subProduct.productKey, deviceName: 'a b' },
            ]),
        ).toMatchObject({ code: 6280 });
        const left = await s.db.select().from(foundDevices).where(eq(foundDevices.gwId, gw.deviceId));
        expect(left).toHaveLength(0);
    });
});

describe('thing/sub/register', () => {
    it("answers a pre-registered sub-device's secret once, creates one under 免预注册, refuses what is not allowed", async () => {
        const product = await createProduct(s, { nodeType: 0, gatewayType: 1, networkType: 11 });
        const { request } = await gateway();
        const pre = await device(product);

        // 动态注册 off: refused (6288), nothing handed out.
        expect(await request('sub/register', [name(pre)])).toMatchObject({ code: 6288, data: {} });

        await call(
            s,
            'POST',
            '/api/product/dynamicRegister',
            form({ productId: product.productId, dynamicRegister: 'true' }),
        );
        const first = await request('sub/register', [name(pre)]);
        expect(first).toMatchObject({
            code: 200,
            method: 'thing.sub.register',
            data: [{ ...name(pre), iotId: String(pre.deviceId), deviceSecret: pre.secret }],
        });
        // Once: the second answer is Alibaba's "device is already active".
        expect(await request('sub/register', [name(pre)])).toMatchObject({ code: 6289, data: {} });

        // A device the platform lacks: 6100 until 免预注册 is on, then created with its secret.
        const newName = `sub_${Date.now()}`;
        // Devices only: the gateway's own status rows may still be written meanwhile.
        const before = (await rowCounts(s.db)).devices;
        expect(await request('sub/register', [{ productKey: product.productKey, deviceName: newName }])).toMatchObject({
            code: 6100,
        });
        expect((await rowCounts(s.db)).devices).toBe(before);
        await call(
            s,
            'POST',
            '/api/product/dynamicRegister',
            form({ productId: product.productId, noPreRegister: 'true' }),
        );
        const created = await request('sub/register', [{ productKey: product.productKey, deviceName: newName }]);
        expect(created).toMatchObject({ code: 200, data: [{ productKey: product.productKey, deviceName: newName }] });
        const [row] = await s.db
            .select({ id: devices.id, secret: devices.secret })
            .from(devices)
            .where(eq(devices.deviceName, newName));
        expect((created.data as Array<{ deviceSecret: string }>)[0].deviceSecret).toBe(row.secret);

        // Not a sub-device product, an unknown product: refused.
        const direct = await device(directProduct);
        expect(await request('sub/register', [name(direct)])).toMatchObject({ code: 460 });
        expect(await request('sub/register', [{ productKey: 'NoSuchProd1', deviceName: 'abcd' }])).toMatchObject({
            code: 6250,
        });
    });
});

describe("Alibaba's Node SDK as the gateway", () => {
    it('drives addTopo, getTopo, removeTopo and regiestSubDevice', async () => {
        const gw = await device(gatewayProduct);
        const product = await createProduct(s, { nodeType: 0, gatewayType: 1, networkType: 11 });
        await call(
            s,
            'POST',
            '/api/product/dynamicRegister',
            form({ productId: product.productId, dynamicRegister: 'true' }),
        );
        const sub = await device(product);
        const sdk = iot.gateway({
            productKey: gw.productKey,
            deviceName: gw.deviceName,
            deviceSecret: gw.secret,
            brokerUrl: url,
        });
        try {
            await new Promise<void>((resolve, reject) => {
                sdk.on('connect', () => resolve());
                sdk.on('error', (err) => reject(err as Error));
            });
            // The SDK subscribes to its reply topics on connect: give the SUBACKs a moment.
            await until(async () => (await subscriptionsReady()) === true);
            const ask = <T>(fn: (cb: (reply: T) => void) => void) =>
                new Promise<T>((resolve, reject) => {
                    const timer = setTimeout(() => reject(new Error('no reply')), 5_000);
                    fn((reply) => {
                        clearTimeout(timer);
                        resolve(reply);
                    });
                });

            const registered = await ask<{ code: number; data?: unknown }>((cb) => sdk.regiestSubDevice(name(sub), cb));
            expect(registered).toMatchObject({ code: 200, data: [{ ...name(sub), deviceSecret: sub.secret }] });
            const added = await ask<{ code: number; data?: unknown }>((cb) =>
                sdk.addTopo([{ ...name(sub), deviceSecret: sub.secret }], cb),
            );
            expect(added).toMatchObject({ code: 200, data: [name(sub)] });
            expect(await gwIdOf(sub.deviceId)).toBe(gw.deviceId);
            const listed = await ask<{ code: number; data?: unknown }>((cb) => sdk.getTopo(cb));
            expect(listed).toMatchObject({ code: 200, data: [name(sub)] });
            const removed = await ask<{ code: number; data?: unknown }>((cb) => sdk.removeTopo([name(sub)], cb));
            expect(removed).toMatchObject({ code: 200, data: [name(sub)] });
            expect(await gwIdOf(sub.deviceId)).toBeNull();
        } finally {
            sdk.end(true);
        }

        /** The gateway is online (its preset subscriptions are made right after its CONNACK). */
        async function subscriptionsReady() {
            await new Promise((r) => setTimeout(r, 100));
            return broker.isOnline(gw.deviceId);
        }
    });
});
