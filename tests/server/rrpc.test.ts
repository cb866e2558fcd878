import { and, asc, eq, ne } from 'drizzle-orm';
import type { MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deviceMessages } from '../../server/db/schema';
import { createBroker } from '../../server/mqtt/broker';
import { RRPC_TIMEOUT_MS, type DownlinkResult, type RrpcResult } from '../../server/mqtt/downlink';
import { alibabaCredentials } from '../../server/mqtt/signIn';
import { createTestServer, type TestServer } from '../../server/testing';
import { sdkDevice, type SdkDevice } from './alibabaSdk';
import { createDevice, createProduct, type TestProduct } from './devicesSupport';
import { connect, secretOf, startBroker, subscribe, until, type Broker } from './mqttSupport';
import { REDIS_URL, clusterRedisReachable, takeTurnOnRedis } from './redisTurn';
import { call, form, json } from './support';
import { expectRefused, okData } from './telemetrySupport';

/**
 * Alibaba's RRPC: a thing-model service marked sync is called on `/sys/{pk}/{dn}/rrpc/request/{messageId}` and the
 * device's `/sys/{pk}/{dn}/rrpc/response/{messageId}` is the API call's answer (8 s at most; a timeout and an offline
 * device answered with Alibaba's RrpcCode), asynchronous services keep their `thing/service` topics; the RRpc API
 * (`POST /api/device/rrpc`) on the system topics and on a custom topic `/ext/rrpc/{messageId}{topic}`; Alibaba's Node
 * SDK answering with `reply(x, 'sync')`; and, in a cluster, an answer that reaches another process than the caller's.
 */

let s: TestServer;
let broker: Broker;
let url: string;
let product: TestProduct;
const clients: MqttClient[] = [];
const sdks: SdkDevice[] = [];

interface Dev {
    deviceId: number;
    productKey: string;
    deviceName: string;
    secret: string;
}

/** A device of the product with the sync service Reboot (Delay → Result) and the async service Ping. */
async function device(): Promise<Dev> {
    const row = await createDevice(s, product.productKey);
    const deviceId = Number(row.deviceId);
    return { deviceId, productKey: row.productKey, deviceName: row.deviceName, secret: await secretOf(s, deviceId) };
}

async function signIn(d: Dev, at = url) {
    const client = await connect(at, alibabaCredentials(d));
    clients.push(client);
    return client;
}

const sys = (d: Dev, rest: string) => `/sys/${d.productKey}/${d.deviceName}/${rest}`;
const int = (min: number, max: number) => ({ type: 'int', specs: { min: String(min), max: String(max), step: '1' } });

/** Every message the client gets, with its topic. */
function inbox(client: MqttClient) {
    const got: Array<{ topic: string; payload: Buffer }> = [];
    client.on('message', (topic, payload) => got.push({ topic, payload }));
    return got;
}

/**
 * The device answers every RRPC request on its response topic with `answer(request)`: a service call's Alink answer,
 * or any bytes.
 */
async function answering(client: MqttClient, d: Dev, answer: (request: Buffer) => string | Buffer) {
    await subscribe(client, sys(d, 'rrpc/request/+'));
    client.on('message', (topic, payload) => {
        if (topic.startsWith(sys(d, 'rrpc/request/')))
            client.publish(topic.replace('/rrpc/request/', '/rrpc/response/'), answer(payload));
    });
}

const serviceCall = (d: Dev, identifier: string, params: Record<string, unknown>, extra: Record<string, string> = {}) =>
    call(
        s,
        'POST',
        '/api/device/serviceTestSet',
        form({ deviceId: d.deviceId, identifier, params: JSON.stringify(params), ...extra }),
    );

const rrpcCall = (d: Dev, request: string, extra: Record<string, string | number> = {}) =>
    call(
        s,
        'POST',
        '/api/device/rrpc',
        form({ deviceId: d.deviceId, requestBase64Byte: Buffer.from(request).toString('base64'), ...extra }),
    );

async function logOf(deviceId: number) {
    return s.db
        .select({ method: deviceMessages.method, data: deviceMessages.data })
        .from(deviceMessages)
        .where(and(eq(deviceMessages.deviceId, deviceId), ne(deviceMessages.method, 'device.status')))
        .orderBy(asc(deviceMessages.ts), asc(deviceMessages.id));
}

beforeAll(async () => {
    s = await createTestServer();
    ({ broker, url } = await startBroker(s));
    product = await createProduct(s);
    const functions = [
        {
            type: 'service',
            identifier: 'Reboot',
            name: '重启',
            callType: 'sync',
            inputData: [{ identifier: 'Delay', name: '延时', dataType: int(0, 60) }],
            outputData: [{ identifier: 'Result', name: '结果', dataType: int(0, 1) }],
        },
        { type: 'service', identifier: 'Ping', name: '探测', callType: 'async', inputData: [], outputData: [] },
    ];
    for (const f of functions) {
        const saved = await call(s, 'POST', '/api/function/save', json({ productId: product.productId, ...f }));
        expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    }
});

afterAll(async () => {
    for (const c of clients) c.end(true);
    for (const d of sdks) d.end(true);
    await broker?.close();
    await s?.close();
});

describe('a synchronous service goes through RRPC', () => {
    it("is called on rrpc/request/{messageId}, and the device's rrpc/response is the API's answer", async () => {
        const d = await device();
        const client = await signIn(d);
        await subscribe(client, sys(d, 'thing/service/#'));
        const got = inbox(client);
        await answering(client, d, (request) => {
            const { id } = JSON.parse(request.toString()) as { id: string };
            return JSON.stringify({ id, code: 200, data: { Result: 1 } });
        });
        const result = okData<DownlinkResult>(await serviceCall(d, 'Reboot', { Delay: 5 }));
        expect(result).toEqual({
            messageId: expect.stringMatching(/^\d+$/),
            state: 'replied',
            code: 200,
            data: { Result: 1 },
            rrpcCode: 'SUCCESS',
        });
        // The call came on the RRPC topic of its message id, as Alibaba sends it, and on no thing/service topic.
        expect(got.map((m) => [m.topic, JSON.parse(m.payload.toString())])).toEqual([
            [
                sys(d, `rrpc/request/${result.messageId}`),
                { id: result.messageId, version: '1.0', params: { Delay: 5 }, method: 'thing.service.Reboot' },
            ],
        ]);
        await until(async () => (await logOf(d.deviceId)).length === 2);
        expect(await logOf(d.deviceId)).toEqual([
            {
                method: 'thing.service.Reboot',
                data: { direction: 'down', id: result.messageId, params: { Delay: 5 }, rrpc: true },
            },
            {
                method: 'rrpc.response',
                data: {
                    direction: 'up',
                    id: result.messageId,
                    reply: { id: result.messageId, code: 200, data: { Result: 1 } },
                },
            },
        ]);
    });

    it("answers the device's own code and message (a refusal) as it came", async () => {
        const d = await device();
        const client = await signIn(d);
        await answering(client, d, (request) => {
            const { id } = JSON.parse(request.toString()) as { id: string };
            return JSON.stringify({ id, code: 460, message: 'busy', data: {} });
        });
        expect(okData<DownlinkResult>(await serviceCall(d, 'Reboot', {}))).toMatchObject({
            state: 'replied',
            code: 460,
            message: 'busy',
            rrpcCode: 'SUCCESS',
        });
    });

    it('times out as Alibaba does: TIMEOUT after the timeout given, 8 s at most; an offline device is OFFLINE', async () => {
        const d = await device();
        const client = await signIn(d);
        await subscribe(client, sys(d, 'rrpc/request/+'));
        const short = okData<DownlinkResult>(await serviceCall(d, 'Reboot', { Delay: 1 }, { timeout: '300' }));
        expect(short).toMatchObject({ state: 'timeout', rrpcCode: 'TIMEOUT', message: '设备未在规定时间内应答' });
        // A longer timeout than Alibaba's is held to its 8 s.
        const started = Date.now();
        const capped = okData<DownlinkResult>(await serviceCall(d, 'Reboot', {}, { timeout: '60000' }));
        const waited = Date.now() - started;
        expect(capped).toMatchObject({ state: 'timeout', rrpcCode: 'TIMEOUT' });
        expect(waited).toBeGreaterThanOrEqual(RRPC_TIMEOUT_MS - 50);
        expect(waited).toBeLessThan(RRPC_TIMEOUT_MS + 3_000);
        expect((await logOf(d.deviceId)).filter((r) => r.method === 'thing.service.Reboot_reply')).toHaveLength(2);
        const away = await device();
        expect(okData<DownlinkResult>(await serviceCall(away, 'Reboot', {}))).toMatchObject({
            state: 'offline',
            rrpcCode: 'OFFLINE',
        });
    }, 20_000);

    it('ends at once as OFFLINE when the device leaves during the call', async () => {
        const d = await device();
        const client = await signIn(d);
        await subscribe(client, sys(d, 'rrpc/request/+'));
        client.on('message', () => client.end(true));
        const started = Date.now();
        expect(okData<DownlinkResult>(await serviceCall(d, 'Reboot', {}))).toMatchObject({
            state: 'offline',
            rrpcCode: 'OFFLINE',
        });
        expect(Date.now() - started).toBeLessThan(RRPC_TIMEOUT_MS / 2);
    });

    it('leaves asynchronous services as they were: thing/service/{identifier}, sent, or its _reply waited for', async () => {
        const d = await device();
        const client = await signIn(d);
        await subscribe(client, sys(d, 'thing/service/#'));
        await subscribe(client, sys(d, 'rrpc/request/+'));
        const got = inbox(client);
        client.on('message', (topic, payload) => {
            if (topic !== sys(d, 'thing/service/Ping')) return;
            const { id } = JSON.parse(payload.toString()) as { id: string };
            client.publish(`${topic}_reply`, JSON.stringify({ id, code: 200, data: {} }));
        });
        const sent = okData<DownlinkResult>(await serviceCall(d, 'Ping', {}));
        expect(sent).toEqual({ messageId: expect.any(String), state: 'sent' });
        const waited = okData<DownlinkResult>(await serviceCall(d, 'Ping', {}, { sync: 'true' }));
        expect(waited).toEqual({ messageId: expect.any(String), state: 'replied', code: 200, data: {} });
        // (Subscribed to thing/service/#, the device also gets its own _reply.)
        const calls = got.filter((m) => !m.topic.endsWith('_reply')).map((m) => m.topic);
        expect(calls).toEqual([sys(d, 'thing/service/Ping'), sys(d, 'thing/service/Ping')]);
    });

    it("is answered by Alibaba's Node SDK through onService and reply(x, 'sync')", async () => {
        const d = await device();
        const sdk = await sdkDevice(broker, url, d);
        sdks.push(sdk);
        const seen: unknown[] = [];
        sdk.onService('Reboot', (request, reply) => {
            seen.push(request.params);
            reply({ code: 200, data: { Result: 1 } }, 'sync');
        });
        const result = okData<DownlinkResult>(await serviceCall(d, 'Reboot', { Delay: 3 }));
        expect(result).toMatchObject({ state: 'replied', code: 200, data: { Result: 1 }, rrpcCode: 'SUCCESS' });
        expect(seen).toEqual([{ Delay: 3 }]);
    });
});

describe('the RRpc API (POST /api/device/rrpc)', () => {
    it('sends the bytes on the system RRPC topic and answers the device’s bytes in base64', async () => {
        const d = await device();
        const client = await signIn(d);
        await answering(client, d, (request) => Buffer.concat([Buffer.from('pong:'), request]));
        const result = okData<RrpcResult>(await rrpcCall(d, 'ping'));
        expect(result).toEqual({
            messageId: expect.stringMatching(/^\d+$/),
            rrpcCode: 'SUCCESS',
            payloadBase64Byte: Buffer.from('pong:ping').toString('base64'),
        });
    });

    it('answers TIMEOUT when the device is silent and OFFLINE when it is not connected', async () => {
        const d = await device();
        const client = await signIn(d);
        await subscribe(client, sys(d, 'rrpc/request/+'));
        expect(okData<RrpcResult>(await rrpcCall(d, 'ping', { timeout: 1000 }))).toEqual({
            messageId: expect.any(String),
            rrpcCode: 'TIMEOUT',
        });
        expect(okData<RrpcResult>(await rrpcCall(await device(), 'ping'))).toEqual({
            messageId: expect.any(String),
            rrpcCode: 'OFFLINE',
        });
    });

    it('calls a custom topic on /ext/rrpc/{messageId}{topic}; the device answers on the same topic, and only the platform hears it', async () => {
        const d = await device();
        const client = await signIn(d);
        const custom = `/${d.productKey}/${d.deviceName}/user/get`;
        // Alibaba's subscription: /ext/rrpc/+ followed by the custom topic.
        expect(await subscribe(client, `/ext/rrpc/+${custom}`)).toBe(1);
        const got = inbox(client);
        client.on('message', (topic, payload) => {
            client.publish(topic, `answer to ${payload.toString()}`);
        });
        const result = okData<RrpcResult>(await rrpcCall(d, 'open', { topic: custom }));
        expect(result).toMatchObject({
            rrpcCode: 'SUCCESS',
            payloadBase64Byte: Buffer.from('answer to open').toString('base64'),
        });
        await new Promise((r) => setTimeout(r, 200));
        // The request came once; the device's answer on the same topic did not come back to it as another request.
        expect(got.map((m) => [m.topic, m.payload.toString()])).toEqual([
            [`/ext/rrpc/${result.messageId}${custom}`, 'open'],
        ]);
        await until(async () => (await logOf(d.deviceId)).some((r) => r.method === 'rrpc.response'));
        expect((await logOf(d.deviceId)).map((r) => [r.method, r.data])).toEqual([
            ['rrpc.request', { direction: 'down', id: result.messageId, topic: custom, payload: 'open' }],
            ['rrpc.response', { direction: 'up', id: result.messageId, topic: custom, payload: 'answer to open' }],
        ]);
    });

    it('an answer that repeats the request is still the answer (only the platform’s own request is passed over)', async () => {
        const d = await device();
        const client = await signIn(d);
        const custom = `/${d.productKey}/${d.deviceName}/user/echo`;
        await subscribe(client, `/ext/rrpc/+${custom}`);
        client.on('message', (topic, payload) => client.publish(topic, payload));
        expect(okData<RrpcResult>(await rrpcCall(d, 'same', { topic: custom }))).toMatchObject({
            rrpcCode: 'SUCCESS',
            payloadBase64Byte: Buffer.from('same').toString('base64'),
        });
    });

    it('keeps other devices out of a device’s RRPC topics', async () => {
        const [d, other] = [await device(), await device()];
        const client = await signIn(other);
        expect(await subscribe(client, `/ext/rrpc/+/${d.productKey}/${d.deviceName}/user/get`)).toBe(128);
        expect(await subscribe(client, '/ext/rrpc/#')).toBe(128);
        expect(await subscribe(client, sys(d, 'rrpc/request/+'))).toBe(128);
        const closed = new Promise<void>((r) => client.once('close', () => r()));
        client.publish(`/ext/rrpc/1/${d.productKey}/${d.deviceName}/user/get`, 'x', { qos: 1 });
        await closed;
    });

    it.each([
        ['no request', { requestBase64Byte: '' }, '请输入 requestBase64Byte（Base64 编码的请求内容）'],
        ['a request that is no base64', { requestBase64Byte: 'not base64!' }, 'requestBase64Byte 不是有效的 Base64'],
        ['a timeout under 1 s', { timeout: 500 }, 'timeout 须为 1000~8000 的整数（毫秒）'],
        ['a timeout over 8 s', { timeout: 8001 }, 'timeout 须为 1000~8000 的整数（毫秒）'],
        ['another device’s topic', { topic: '/a1Other/dev/user/get' }, 'TOPIC'],
        ['a wildcard topic', { topic: 'OWN#' }, 'TOPIC'],
    ])('refuses %s (400), sending nothing', async (_what, extra, message) => {
        const d = await device();
        const client = await signIn(d);
        await subscribe(client, `/ext/rrpc/+/${d.productKey}/${d.deviceName}/user/#`);
        await subscribe(client, sys(d, 'rrpc/request/+'));
        const got = inbox(client);
        const own = `/${d.productKey}/${d.deviceName}/user/`;
        const values = Object.fromEntries(
            Object.entries(extra).map(([k, v]) => [k, typeof v === 'string' ? v.replace('OWN', own) : v]),
        );
        const answer = await call(
            s,
            'POST',
            '/api/device/rrpc',
            form({ deviceId: d.deviceId, requestBase64Byte: Buffer.from('x').toString('base64'), ...values }),
        );
        const expected = message === 'TOPIC' ? `Topic 须为该设备的自定义 Topic（${own}...），不能包含通配符` : message;
        expectRefused(answer, 400, expected);
        await new Promise((r) => setTimeout(r, 100));
        expect(got).toEqual([]);
    });
});

const clustered = await clusterRedisReachable();

describe.skipIf(!clustered)(
    'in a cluster (two brokers, one Redis): the answer reaches the caller on the other process',
    () => {
        const brokers: Array<{ broker: Broker; url: string }> = [];
        takeTurnOnRedis();
        beforeAll(async () => {
            for (let i = 0; i < 2; i++) {
                const b = await createBroker({ db: s.db, redisUrl: REDIS_URL, log: () => undefined });
                brokers.push({ broker: b, url: `mqtt://127.0.0.1:${await b.listen(0, '127.0.0.1')}` });
            }
        }, 60_000);
        afterAll(async () => {
            for (const c of clients) c.end(true);
            for (const { broker: b } of brokers) await b.close();
        });

        /** A device connected to the first broker, ONLINE for the second (which reads the status). */
        async function onFirst() {
            const d = await device();
            const client = await signIn(d, brokers[0].url);
            await until(async () => (await brokers[1].broker.directory.byId(d.deviceId))?.status === 'ONLINE');
            return { d, client };
        }

        it('a synchronous service called through the second process', async () => {
            const { d, client } = await onFirst();
            await answering(client, d, (request) => {
                const { id } = JSON.parse(request.toString()) as { id: string };
                return JSON.stringify({ id, code: 200, data: { Result: 0 } });
            });
            expect(await brokers[1].broker.downlink.invokeService(d.deviceId, 'Reboot', { Delay: 2 })).toMatchObject({
                state: 'replied',
                code: 200,
                data: { Result: 0 },
                rrpcCode: 'SUCCESS',
            });
        });

        it('a custom-topic RRPC called through the second process, its answer kept from the device', async () => {
            const { d, client } = await onFirst();
            const custom = `/${d.productKey}/${d.deviceName}/user/get`;
            await subscribe(client, `/ext/rrpc/+${custom}`);
            const got = inbox(client);
            client.on('message', (topic, payload) => client.publish(topic, `re:${payload.toString()}`));
            const result = await brokers[1].broker.downlink.rrpc(d.deviceId, Buffer.from('q'), { topic: custom });
            expect(result).toMatchObject({
                rrpcCode: 'SUCCESS',
                payloadBase64Byte: Buffer.from('re:q').toString('base64'),
            });
            await new Promise((r) => setTimeout(r, 300));
            expect(got.map((m) => m.payload.toString())).toEqual(['q']);
        });
    },
);
