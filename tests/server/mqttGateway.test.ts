import type { MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { alibabaCredentials } from '../../server/mqtt/signIn';
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
import { call } from './support';
import { okData } from './telemetrySupport';

let s: TestServer;
let broker: Broker;
let url: string;
let gatewayProduct: TestProduct;
let deviceProduct: TestProduct;
const clients: MqttClient[] = [];

type Dev = DeviceCredentials;
const device = (product: TestProduct) => newDevice(s, product.productKey);

async function statusOf(deviceId: number) {
    return okData<{ device: { status: string } }>(await call(s, 'GET', `/api/device/detail?deviceId=${deviceId}`))
        .device.status;
}

async function gatewayWith(subs: Dev[]) {
    const gw = await device(gatewayProduct);
    const added = await call(
        s,
        'POST',
        '/api/device/subDevice/add',
        listForm({ gwId: gw.deviceId, deviceId: subs.map((d) => d.deviceId) }),
    );
    expect(added.status, JSON.stringify(added.body)).toBe(200);
    const client = await connect(url, alibabaCredentials(gw));
    clients.push(client);
    const session = `/ext/session/${gw.productKey}/${gw.deviceName}/combine`;
    await subscribe(client, `${session}/#`);
    return { gw, client, session };
}

beforeAll(async () => {
    s = await createTestServer();
    ({ broker, url } = await startBroker(s));
    gatewayProduct = await createProduct(s, { nodeType: 1 });
    deviceProduct = await createProduct(s, { nodeType: 0 });
});

afterAll(async () => {
    for (const c of clients) c.end(true);
    await broker?.close();
    await s?.close();
});

describe('gateway combine login', () => {
    it('brings a bound sub-device online, lets the gateway use its topics, and takes it offline with the gateway', async () => {
        const sub = await device(deviceProduct);
        const { client, session } = await gatewayWith([sub]);
        const reply = nextMessage(client, `${session}/login_reply`);
        await client.publishAsync(`${session}/login`, loginRequest(sub), { qos: 1 });
        expect(await reply).toMatchObject({
            id: '1',
            code: 200,
            data: { productKey: sub.productKey, deviceName: sub.deviceName },
        });
        await until(async () => (await statusOf(sub.deviceId)) === 'ONLINE');
        expect(broker.isOnline(sub.deviceId)).toBe(true);
        // The gateway may now subscribe to and publish on the sub-device's topics.
        expect(await subscribe(client, `/sys/${sub.productKey}/${sub.deviceName}/thing/service/#`)).toBe(1);
        client.end(true);
        await until(async () => (await statusOf(sub.deviceId)) === 'OFFLINE');
    });

    it('refuses a device that is not its sub-device, and a wrong signature', async () => {
        const stranger = await device(deviceProduct);
        const sub = await device(deviceProduct);
        const { client, session } = await gatewayWith([sub]);
        let reply = nextMessage(client, `${session}/login_reply`);
        await client.publishAsync(`${session}/login`, loginRequest(stranger), { qos: 1 });
        expect(await reply).toMatchObject({ code: 6401, message: '该设备不是此网关的子设备' });
        reply = nextMessage(client, `${session}/login_reply`);
        await client.publishAsync(`${session}/login`, loginRequest(sub, 'f'.repeat(32)), { qos: 1 });
        expect(await reply).toMatchObject({ code: 6100, message: '子设备签名错误' });
        expect(await statusOf(sub.deviceId)).toBe('INACTIVE');
        // Without a session the gateway may not touch the sub-device's topics.
        expect(await subscribe(client, `/sys/${sub.productKey}/${sub.deviceName}/thing/service/#`)).toBe(128);
    });

    it('logs a sub-device out on request', async () => {
        const sub = await device(deviceProduct);
        const { client, session } = await gatewayWith([sub]);
        let reply = nextMessage(client, `${session}/login_reply`);
        await client.publishAsync(`${session}/login`, loginRequest(sub), { qos: 1 });
        await reply;
        reply = nextMessage(client, `${session}/logout_reply`);
        await client.publishAsync(
            `${session}/logout`,
            JSON.stringify({ id: '2', params: { productKey: sub.productKey, deviceName: sub.deviceName } }),
            { qos: 1 },
        );
        expect(await reply).toMatchObject({ id: '2', code: 200 });
        await until(async () => (await statusOf(sub.deviceId)) === 'OFFLINE');
        expect(broker.isOnline(sub.deviceId)).toBe(false);
    });
});
