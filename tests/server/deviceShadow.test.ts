import { and, eq } from 'drizzle-orm';
import type { MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deviceMessages, deviceShadows } from '../../server/db/schema';
import { createBroker } from '../../server/mqtt/broker';
import { alibabaCredentials } from '../../server/mqtt/signIn';
import { createTestServer, type TestServer } from '../../server/testing';
import { sdkDevice, type SdkDevice, type SdkShadowMessage } from './alibabaSdk';
import { createProduct, type TestProduct } from './devicesSupport';
import { connect, newDevice, startBroker, subscribe, until, type Broker, type DeviceCredentials } from './mqttSupport';
import { REDIS_URL, clusterRedisReachable, takeTurnOnRedis } from './redisTurn';
import { call, form } from './support';
import { expectRefused, okData } from './telemetrySupport';

/**
 * Alibaba's device shadow (设备影子) over MQTT and through the API: a device's update / get / delete on
 * `/shadow/update/{pk}/{dn}` answered on `/shadow/get/{pk}/{dn}` (each of Alibaba's error codes, the connection kept),
 * versions (larger wins, -1 resets, else 409), the desired state set through the API sent to a connected device at
 * once and kept for one that is away until it subscribes again, Alibaba's Node SDK's shadow calls, and a cluster
 * where the device is connected to another process than the API's.
 */

let s: TestServer;
let broker: Broker;
let url: string;
let product: TestProduct;
const log: string[] = [];
const clients: MqttClient[] = [];
const sdks: SdkDevice[] = [];

type Reply = {
    method: string;
    payload: {
        status: string;
        version?: number;
        state?: Record<string, unknown>;
        metadata?: Record<string, unknown>;
        content?: { errorcode: string; errormessage: string };
    };
    version?: number;
    timestamp: number;
};

interface ShadowAnswer {
    exists: boolean;
    state: { reported: Record<string, unknown>; desired: Record<string, unknown> };
    metadata: { reported: Record<string, { timestamp: number }>; desired: Record<string, { timestamp: number }> };
    version: number;
    sent?: boolean;
    online?: boolean;
}

const updateTopic = (d: DeviceCredentials) => `/shadow/update/${d.productKey}/${d.deviceName}`;
const getTopic = (d: DeviceCredentials) => `/shadow/get/${d.productKey}/${d.deviceName}`;

/** A device signed in and subscribed to its /shadow/get topic; `replies` collects what arrives there. */
async function shadowDevice(d?: DeviceCredentials, at = url) {
    const device = d ?? (await newDevice(s, product.productKey));
    const client = await connect(at, alibabaCredentials(device));
    clients.push(client);
    const replies: Reply[] = [];
    client.on('message', (topic, payload) => {
        if (topic === getTopic(device)) replies.push(JSON.parse(payload.toString()) as Reply);
    });
    const granted = await subscribe(client, getTopic(device));
    return { device, client, replies, granted };
}

/** Publishes on the device's /shadow/update and waits for the next message on /shadow/get. */
async function request(dev: Awaited<ReturnType<typeof shadowDevice>>, body: string | object): Promise<Reply> {
    const before = dev.replies.length;
    await dev.client.publishAsync(updateTopic(dev.device), typeof body === 'string' ? body : JSON.stringify(body), {
        qos: 1,
    });
    await until(() => dev.replies.length > before);
    return dev.replies[before];
}

const getShadow = (deviceId: number) => call(s, 'GET', `/api/device/shadow?deviceId=${deviceId}`);
const setDesired = (deviceId: number, desired: string, version?: number) =>
    call(
        s,
        'POST',
        '/api/device/shadow/update',
        form({ deviceId, desired, ...(version === undefined ? {} : { version }) }),
    );

const errorOf = (reply: Reply) => ({ status: reply.payload.status, code: reply.payload.content?.errorcode });

beforeAll(async () => {
    s = await createTestServer();
    ({ broker, url } = await startBroker(s, log));
    product = await createProduct(s);
});

afterAll(async () => {
    for (const c of clients) c.end(true);
    for (const d of sdks) d.end(true);
    await broker?.close();
    await s?.close();
});

describe('the device updates, gets and deletes its shadow', () => {
    it('subscribes to /shadow/get (granted, not SUBACK 128) and reports; get answers state, metadata, version', async () => {
        const dev = await shadowDevice();
        expect(dev.granted).toBe(1);
        const before = Math.floor(Date.now() / 1000);
        const updated = await request(dev, {
            method: 'update',
            state: { reported: { color: 'red', temp: 21 } },
            version: 1,
        });
        expect(updated).toEqual({
            method: 'reply',
            payload: { status: 'success', version: 1 },
            timestamp: expect.any(Number),
        });
        const got = await request(dev, { method: 'get' });
        expect(got.method).toBe('reply');
        expect(got.version).toBe(1);
        expect(got.payload).toMatchObject({
            status: 'success',
            version: 1,
            state: { reported: { color: 'red', temp: 21 }, desired: {} },
        });
        const metadata = got.payload.metadata as { reported: Record<string, { timestamp: number }> };
        expect(Object.keys(metadata.reported).sort()).toEqual(['color', 'temp']);
        expect(metadata.reported.color.timestamp).toBeGreaterThanOrEqual(before);
        expect(metadata.reported.color.timestamp).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000));
        // A later update merges into the reported state.
        await request(dev, { method: 'update', state: { reported: { temp: 22, mode: 'eco' } }, version: 2 });
        const shadow = okData<ShadowAnswer>(await getShadow(dev.device.deviceId));
        expect(shadow).toMatchObject({
            exists: true,
            version: 2,
            state: { reported: { color: 'red', temp: 22, mode: 'eco' }, desired: {} },
        });
    });

    it('deletes named reported keys, then every reported value', async () => {
        const dev = await shadowDevice();
        await request(dev, { method: 'update', state: { reported: { a: 1, b: 2, c: 3 } }, version: 1 });
        const deleted = await request(dev, {
            method: 'delete',
            state: { reported: { a: 'null', b: 'null' } },
            version: 2,
        });
        expect(deleted.payload).toEqual({ status: 'success', version: 2 });
        let shadow = okData<ShadowAnswer>(await getShadow(dev.device.deviceId));
        expect(shadow.state.reported).toEqual({ c: 3 });
        expect(Object.keys(shadow.metadata.reported)).toEqual(['c']);
        expect((await request(dev, { method: 'delete', state: { reported: 'null' }, version: 3 })).payload).toEqual({
            status: 'success',
            version: 3,
        });
        shadow = okData<ShadowAnswer>(await getShadow(dev.device.deviceId));
        expect(shadow).toMatchObject({ version: 3, state: { reported: {} }, metadata: { reported: {} } });
    });

    it('refuses a version not larger than the shadow’s (409), takes the next one without a version, resets on -1', async () => {
        const dev = await shadowDevice();
        await request(dev, { method: 'update', state: { reported: { x: 1 } }, version: 10 });
        for (const version of [10, 9]) {
            const refused = await request(dev, { method: 'update', state: { reported: { x: 2 } }, version });
            expect(errorOf(refused)).toEqual({ status: 'error', code: '409' });
            expect(refused.payload.content?.errormessage).toContain('影子版本冲突');
        }
        expect(
            (await request(dev, { method: 'delete', state: { reported: 'null' }, version: 5 })).payload.content,
        ).toMatchObject({ errorcode: '409' });
        // Nothing changed by the refusals.
        expect(okData<ShadowAnswer>(await getShadow(dev.device.deviceId))).toMatchObject({
            version: 10,
            state: { reported: { x: 1 } },
        });
        expect((await request(dev, { method: 'update', state: { reported: { y: 1 } } })).payload.version).toBe(11);
        // -1: the document is cleared and starts again at version 0, with this update's values.
        expect((await request(dev, { method: 'update', state: { reported: { z: 1 } }, version: -1 })).payload).toEqual({
            status: 'success',
            version: 0,
        });
        expect(okData<ShadowAnswer>(await getShadow(dev.device.deviceId))).toMatchObject({
            version: 0,
            state: { reported: { z: 1 }, desired: {} },
        });
    });

    it("answers each of Alibaba's error codes, changes nothing and keeps the connection", async () => {
        const dev = await shadowDevice();
        await request(dev, { method: 'update', state: { reported: { keep: true } }, version: 1 });
        const many = Object.fromEntries(Array.from({ length: 129 }, (_, i) => [`k${i}`, i]));
        const cases: Array<[string | object, string]> = [
            ['{not json', '400'],
            ['[1,2]', '400'],
            [{ state: { reported: { a: 1 } }, version: 2 }, '401'],
            [{ method: 'update', version: 2 }, '402'],
            [{ method: 'update', state: 'x', version: 2 }, '402'],
            [{ method: 'update', state: { reported: { a: 1 } }, version: 'two' }, '403'],
            [{ method: 'update', state: { desired: { a: 1 } }, version: 2 }, '404'],
            [{ method: 'delete', state: {}, version: 2 }, '404'],
            [{ method: 'update', state: { reported: {} }, version: 2 }, '405'],
            [{ method: 'patch', state: { reported: { a: 1 } }, version: 2 }, '406'],
            [{ method: 'update', state: { reported: many }, version: 2 }, '408'],
            [{ method: 'update', state: { reported: { a: 1 } }, version: 1 }, '409'],
            // Alibaba's 16 KB document limit: refused as a bad request.
            [{ method: 'update', state: { reported: { big: 'x'.repeat(17 * 1024) } }, version: 2 }, '400'],
        ];
        for (const [body, code] of cases) {
            const reply = await request(dev, body);
            expect({ body, ...errorOf(reply) }).toEqual({ body, status: 'error', code });
            expect(reply.payload.content?.errormessage).toMatch(/\S/);
        }
        expect(dev.client.connected).toBe(true);
        expect(okData<ShadowAnswer>(await getShadow(dev.device.deviceId))).toMatchObject({
            version: 1,
            state: { reported: { keep: true } },
        });
        // 407: a get before the device has any shadow.
        const fresh = await shadowDevice();
        expect(errorOf(await request(fresh, { method: 'get' }))).toEqual({ status: 'error', code: '407' });
    });

    it('keeps each request in the device’s message log with its reply', async () => {
        const dev = await shadowDevice();
        await request(dev, { method: 'update', state: { reported: { logged: 1 } }, version: 1 });
        const logged = () =>
            s.db
                .select({ method: deviceMessages.method, data: deviceMessages.data })
                .from(deviceMessages)
                .where(
                    and(eq(deviceMessages.deviceId, dev.device.deviceId), eq(deviceMessages.method, 'shadow.update')),
                );
        await until(async () => (await logged()).length === 1);
        expect((await logged())[0].data).toMatchObject({
            direction: 'up',
            payload: JSON.stringify({ method: 'update', state: { reported: { logged: 1 } }, version: 1 }),
            reply: { method: 'reply', payload: { status: 'success', version: 1 } },
        });
    });
});

describe('the desired state from the API', () => {
    it('reaches a connected device at once as control, with the whole document', async () => {
        const dev = await shadowDevice();
        await request(dev, { method: 'update', state: { reported: { color: 'red' } }, version: 1 });
        const before = dev.replies.length;
        const answer = okData<ShadowAnswer>(await setDesired(dev.device.deviceId, '{"color":"green"}'));
        expect(answer).toMatchObject({ sent: true, online: true, version: 2, state: { desired: { color: 'green' } } });
        await until(() => dev.replies.length > before);
        expect(dev.replies[before]).toEqual({
            method: 'control',
            payload: {
                status: 'success',
                state: { reported: { color: 'red' }, desired: { color: 'green' } },
                metadata: {
                    reported: { color: { timestamp: expect.any(Number) } },
                    desired: { color: { timestamp: expect.any(Number) } },
                },
            },
            version: 2,
            timestamp: expect.any(Number),
        });
        // The device applies it, reports, and clears the desired state as Alibaba's flow has it.
        await request(dev, { method: 'update', state: { reported: { color: 'green' } }, version: 3 });
        expect((await request(dev, { method: 'update', state: { desired: 'null' }, version: 4 })).payload).toEqual({
            status: 'success',
            version: 4,
        });
        expect(okData<ShadowAnswer>(await getShadow(dev.device.deviceId))).toMatchObject({
            version: 4,
            state: { reported: { color: 'green' }, desired: {} },
            metadata: { desired: {} },
        });
        // Both in one request: the new state reported and the desired state cleared.
        const pushed = dev.replies.length;
        okData(await setDesired(dev.device.deviceId, '{"color":"blue"}'));
        await until(() => dev.replies.length > pushed); // its control, before the next request's reply
        const both = { reported: { color: 'blue' }, desired: 'null' };
        expect((await request(dev, { method: 'update', state: both, version: 9 })).payload).toEqual({
            status: 'success',
            version: 9,
        });
        expect(okData<ShadowAnswer>(await getShadow(dev.device.deviceId))).toMatchObject({
            state: { reported: { color: 'blue' }, desired: {} },
            metadata: { desired: {} },
        });
    });

    it('is kept while the device is away and sent when it subscribes again, until it clears it', async () => {
        const device = await newDevice(s, product.productKey);
        const answer = okData<ShadowAnswer>(await setDesired(device.deviceId, '{"target":30,"mode":"cool"}'));
        expect(answer).toMatchObject({ sent: false, online: false, version: 1, exists: true });
        const dev = await shadowDevice(device);
        await until(() => dev.replies.length > 0);
        expect(dev.replies[0]).toMatchObject({
            method: 'control',
            version: 1,
            payload: { state: { desired: { target: 30, mode: 'cool' }, reported: {} } },
        });
        // Still desired: sent again at the next connection.
        dev.client.end(true);
        const again = await shadowDevice(device);
        await until(() => again.replies.length > 0);
        expect(again.replies[0]).toMatchObject({ method: 'control', version: 1 });
        await request(again, { method: 'update', state: { desired: 'null' }, version: 2 });
        again.client.end(true);
        const cleared = await shadowDevice(device);
        await new Promise((r) => setTimeout(r, 300));
        expect(cleared.replies).toEqual([]);
    });

    it('refuses a stale version (409), bad JSON and a non-object (400), an unknown device (404), changing nothing', async () => {
        const device = await newDevice(s, product.productKey);
        okData(await setDesired(device.deviceId, '{"a":1}', 5));
        expectRefused(
            await setDesired(device.deviceId, '{"a":2}', 5),
            409,
            '影子版本冲突：请求的版本 5 须大于当前版本 5，请刷新后重试',
        );
        expectRefused(await setDesired(device.deviceId, '{"a":'), 400, '期望值不是有效的 JSON');
        expectRefused(await setDesired(device.deviceId, '[1]'), 400, '期望值应为 JSON 对象，例如 {"color":"red"}');
        expectRefused(await setDesired(device.deviceId, ''), 400, '请输入期望值（JSON 对象）');
        expectRefused(
            await setDesired(device.deviceId, '{"a":1}', 'x' as unknown as number),
            400,
            'version 须为整数（大于当前版本，或 -1 重置）',
        );
        expectRefused(await setDesired(99_999_999, '{"a":1}'), 404, '设备不存在');
        expectRefused(await getShadow(99_999_999), 404, '设备不存在');
        expect(okData<ShadowAnswer>(await getShadow(device.deviceId))).toMatchObject({
            version: 5,
            state: { desired: { a: 1 } },
        });
        // {} clears the desired state.
        expect(okData<ShadowAnswer>(await setDesired(device.deviceId, '{}'))).toMatchObject({
            version: 6,
            state: { desired: {} },
            sent: false,
        });
    });

    it('answers a device without a shadow as empty (version 0), and is refused without a session', async () => {
        const device = await newDevice(s, product.productKey);
        expect(okData<ShadowAnswer>(await getShadow(device.deviceId))).toEqual({
            deviceId: device.deviceId,
            exists: false,
            state: { reported: {}, desired: {} },
            metadata: { reported: {}, desired: {} },
            version: 0,
            timestamp: null,
            updateTime: null,
        });
        const anonymousGet = await call(s, 'GET', `/api/device/shadow?deviceId=${device.deviceId}`, {
            anonymous: true,
        });
        expect(anonymousGet.status).toBe(401);
        const anonymousSet = await call(s, 'POST', '/api/device/shadow/update', {
            ...form({ deviceId: device.deviceId, desired: '{"a":1}' }),
            anonymous: true,
        });
        expect(anonymousSet.status).toBe(401);
        expect(okData<ShadowAnswer>(await getShadow(device.deviceId)).exists).toBe(false);
    });

    it('is deleted with its device', async () => {
        const device = await newDevice(s, product.productKey);
        okData(await setDesired(device.deviceId, '{"a":1}'));
        const removed = await call(
            s,
            'POST',
            '/api/device/RemoveDevice',
            form({ productKey: device.productKey, deviceName: device.deviceName }),
        );
        expect(removed.status, JSON.stringify(removed.body)).toBe(200);
        const rows = await s.db.select().from(deviceShadows).where(eq(deviceShadows.deviceId, device.deviceId));
        expect(rows).toEqual([]);
    });
});

describe("Alibaba's Node SDK", () => {
    it('connects without a refused subscription, and its getShadow / postShadow / deleteShadow reach onShadow', async () => {
        const device = await newDevice(s, product.productKey);
        log.length = 0;
        const sdk = await sdkDevice(broker, url, device, getTopic(device));
        sdks.push(sdk);
        await new Promise((r) => setTimeout(r, 200));
        expect(log.filter((line) => line.includes('拒绝'))).toEqual([]);
        const got: SdkShadowMessage[] = [];
        sdk.onShadow((m) => got.push(m));
        const next = async (fn: () => void) => {
            const before = got.length;
            fn();
            await until(() => got.length > before);
            return got[before];
        };
        const posted = await next(() => sdk.postShadow({ power: 'on', level: 3 }));
        expect(posted).toMatchObject({ method: 'reply', payload: { status: 'success' } });
        // The SDK's version is Date.now(): the shadow takes it.
        expect(posted.payload.version).toBeGreaterThan(1_700_000_000_000);
        const fetched = await next(() => sdk.getShadow());
        expect(fetched).toMatchObject({
            method: 'reply',
            payload: { status: 'success', state: { reported: { power: 'on', level: 3 } } },
        });
        // Date.now() may repeat within a millisecond: a later call waits a little.
        await new Promise((r) => setTimeout(r, 5));
        expect(await next(() => sdk.deleteShadow('level'))).toMatchObject({ payload: { status: 'success' } });
        expect(okData<ShadowAnswer>(await getShadow(device.deviceId)).state.reported).toEqual({ power: 'on' });
        await new Promise((r) => setTimeout(r, 5));
        expect(await next(() => sdk.deleteShadow())).toMatchObject({ payload: { status: 'success' } });
        expect(okData<ShadowAnswer>(await getShadow(device.deviceId)).state.reported).toEqual({});
        // The cloud's desired state reaches onShadow as control.
        const version = okData<ShadowAnswer>(await getShadow(device.deviceId)).version;
        const control = await next(() => void setDesired(device.deviceId, '{"power":"off"}', version + 1));
        expect(control).toMatchObject({
            method: 'control',
            version: version + 1,
            payload: { state: { desired: { power: 'off' } } },
        });
        expect(log.filter((line) => line.includes('拒绝'))).toEqual([]);
    });
});

const clustered = await clusterRedisReachable();

describe.skipIf(!clustered)('in a cluster (two brokers, one Redis)', () => {
    const brokers: Array<{ broker: Broker; url: string }> = [];
    takeTurnOnRedis();
    beforeAll(async () => {
        for (let i = 0; i < 2; i++) {
            const b = await createBroker({ db: s.db, redisUrl: REDIS_URL, log: () => undefined });
            brokers.push({ broker: b, url: `mqtt://127.0.0.1:${await b.listen(0, '127.0.0.1')}` });
        }
        // The API's process is the second broker's.
        s.access.attach(brokers[1].broker);
    }, 60_000);
    afterAll(async () => {
        for (const c of clients) c.end(true);
        for (const { broker: b } of brokers) await b.close();
    });

    it('the desired state set through one process reaches the device connected to the other', async () => {
        const device = await newDevice(s, product.productKey);
        const dev = await shadowDevice(device, brokers[0].url);
        await until(async () => (await brokers[1].broker.directory.byId(device.deviceId))?.status === 'ONLINE');
        const answer = okData<ShadowAnswer>(await setDesired(device.deviceId, '{"fan":2}'));
        expect(answer).toMatchObject({ sent: true, online: true });
        await until(() => dev.replies.length > 0);
        expect(dev.replies).toEqual([expect.objectContaining({ method: 'control', version: 1 })]);
    });
});
