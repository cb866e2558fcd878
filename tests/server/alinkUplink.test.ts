import { and, asc, eq, ne } from 'drizzle-orm';
import type { MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { devices, deviceMessages } from '../../server/db/schema';
import { PROPERTY_POST } from '../../server/domain/telemetry';
import { DEVICE_TIME_KEY } from '../../server/mqtt/messageTime';
import { alibabaCredentials } from '../../server/mqtt/signIn';
import type { AcceptedMessage } from '../../server/mqtt/uplink';
import { createTestServer, type TestServer } from '../../server/testing';
import { answered, sdkDevice, type SdkDevice } from './alibabaSdk';
import { createDevice, createProduct, listForm } from './devicesSupport';
import { connect, nextMessage, secretOf, startBroker, subscribe, type Broker } from './mqttSupport';
import { call } from './support';
import { freshLamp, okData, type EventsPage, type HistoryPage, type PropertyRow } from './telemetrySupport';

/**
 * The Alink uplink beyond single posts, at the protocol (mqtt.js and Alibaba's Node SDK against the broker): events
 * in both their forms, batch and history posts stored under the devices' own times, and the device's tags, each
 * answered on `_reply`; every refusal answered with its code and reason, and nothing stored.
 */

let s: TestServer;
let broker: Broker;
let url: string;
const clients: MqttClient[] = [];
const sdks: SdkDevice[] = [];

const MINUTE = 60_000;
/** A whole second some minutes back: times the log keeps to the millisecond, the API shows to the second. */
const ago = (minutes: number) => Math.floor((Date.now() - minutes * MINUTE) / 1000) * 1000;

interface Dev {
    deviceId: number;
    productKey: string;
    deviceName: string;
    secret: string;
}

async function devOf(row: { deviceId: number | string; productKey: string; deviceName: string }): Promise<Dev> {
    const deviceId = Number(row.deviceId);
    return { deviceId, productKey: row.productKey, deviceName: row.deviceName, secret: await secretOf(s, deviceId) };
}

const lamp = async () => devOf(await freshLamp(s));

async function signIn(device: Dev) {
    const client = await connect(url, alibabaCredentials(device));
    clients.push(client);
    return client;
}

const sys = (d: Dev, rest: string) => `/sys/${d.productKey}/${d.deviceName}/${rest}`;

/** Publishes an Alink request (QoS 1) and answers the platform's reply on `{topic}_reply`. */
async function ask(client: MqttClient, topic: string, body: unknown): Promise<Record<string, unknown>> {
    await subscribe(client, `${topic}_reply`);
    const reply = nextMessage(client, `${topic}_reply`);
    await client.publishAsync(topic, typeof body === 'string' ? body : JSON.stringify(body), { qos: 1 });
    return reply;
}

const alink = (id: string, method: string, params: unknown) => ({ id, version: '1.0', params, method });

/** The device's rows of the message log (its status changes left out), oldest first. */
async function logOf(deviceId: number) {
    const rows = await s.db
        .select({
            ts: deviceMessages.ts,
            method: deviceMessages.method,
            identifier: deviceMessages.identifier,
            data: deviceMessages.data,
        })
        .from(deviceMessages)
        .where(and(eq(deviceMessages.deviceId, deviceId), ne(deviceMessages.method, 'device.status')))
        .orderBy(asc(deviceMessages.ts), asc(deviceMessages.id));
    return rows.map((r) => ({ ...r, ts: r.ts.getTime() }));
}

async function tagsOf(deviceId: number) {
    const answer = await call(s, 'GET', `/api/tag/get?type=2&objectId=${deviceId}`);
    expect(answer.status).toBe(200);
    return (answer.body.data as { list: Array<{ id: number; key: string; value: string }> }).list;
}

/** Every accepted message (what rules and subscriptions hear) while `fn` runs. */
async function acceptedDuring(fn: () => Promise<void>): Promise<AcceptedMessage[]> {
    const seen: AcceptedMessage[] = [];
    const stop = broker.uplink.onAccepted((m) => seen.push(m));
    try {
        await fn();
    } finally {
        stop();
    }
    return seen;
}

beforeAll(async () => {
    s = await createTestServer();
    ({ broker, url } = await startBroker(s));
});

afterAll(async () => {
    for (const c of clients) c.end(true);
    for (const d of sdks) d.end(true);
    await broker?.close();
    await s?.close();
});

describe('event posts', () => {
    const method = 'thing.event.LampFault.post';

    it("stores both forms with their values: { value, time } and the output values themselves (the SDKs')", async () => {
        const device = await lamp();
        const client = await signIn(device);
        const topic = sys(device, 'thing/event/LampFault/post');
        const t = ago(10);
        expect(await ask(client, topic, alink('1', method, { value: { FaultCode: 2 }, time: t }))).toMatchObject({
            id: '1',
            code: 200,
            method,
        });
        const before = Date.now();
        expect(await ask(client, topic, alink('2', method, { FaultCode: 3 }))).toMatchObject({ id: '2', code: 200 });
        const log = await logOf(device.deviceId);
        expect(log.map(({ method: m, identifier, data }) => ({ m, identifier, data }))).toEqual([
            { m: method, identifier: 'LampFault', data: { FaultCode: 2 } },
            { m: method, identifier: 'LampFault', data: { FaultCode: 3 } },
        ]);
        expect(log[0].ts).toBe(t);
        expect(log[1].ts).toBeGreaterThanOrEqual(before - 1000);
        const events = okData<EventsPage>(
            await call(s, 'GET', `/api/device/events?deviceId=${device.deviceId}&timeType=hour`),
        );
        const posted = events.resultList.filter((e) => e.method === method);
        expect(posted.map((e) => e.data)).toEqual([{ FaultCode: 3 }, { FaultCode: 2 }]);
    });

    it.each([
        ['an output the event lacks', { Nope: 1 }, '事件 LampFault 没有参数 Nope'],
        [
            'a value outside the enum',
            { value: { FaultCode: 9 } },
            '事件 LampFault 的参数 FaultCode 不是定义的枚举值（1、2、3）',
        ],
        ['the SDK form with a bad value', { FaultCode: 'x' }, '事件 LampFault 的参数 FaultCode 应为枚举值（整数）'],
        ['params that are no object', [1], 'params 应为对象'],
    ])('answers %s with 460 naming it, and stores nothing', async (_what, params, message) => {
        const device = await lamp();
        const client = await signIn(device);
        const reply = await ask(client, sys(device, 'thing/event/LampFault/post'), alink('5', method, params));
        expect(reply).toMatchObject({ id: '5', code: 460, message, method });
        expect(await logOf(device.deviceId)).toEqual([]);
    });

    it("answers the SDK's postEvent 200 and stores the values it sent", async () => {
        const device = await lamp();
        const sdk = await sdkDevice(broker, url, device);
        sdks.push(sdk);
        const res = await answered((cb) => sdk.postEvent('LampFault', { FaultCode: 1 }, cb));
        expect(res).toMatchObject({ code: 200, method });
        expect((await logOf(device.deviceId)).map((r) => r.data)).toEqual([{ FaultCode: 1 }]);
    });
});

describe('batch post (thing.event.property.batch.post)', () => {
    const BATCH = 'thing.event.property.batch.post';

    it('stores each value under its own time (one row per time) and answers on _reply', async () => {
        const device = await lamp();
        const client = await signIn(device);
        const [t1, t2, t3] = [ago(30), ago(20), ago(10)];
        const params = {
            properties: {
                Brightness: [
                    { value: 10, time: t1 },
                    { value: 20, time: t2 },
                ],
                LightSwitch: [{ value: 1, time: t1 }],
            },
            events: { LampFault: [{ value: { FaultCode: 1 }, time: t3 }] },
        };
        let reply: Record<string, unknown> = {};
        const accepted = await acceptedDuring(async () => {
            reply = await ask(client, sys(device, 'thing/event/property/batch/post'), alink('7', BATCH, params));
        });
        expect(reply).toEqual({ id: '7', code: 200, data: {}, message: 'success', method: BATCH, version: '1.0' });
        expect(await logOf(device.deviceId)).toEqual([
            { ts: t1, method: PROPERTY_POST, identifier: null, data: { Brightness: 10, LightSwitch: 1 } },
            { ts: t2, method: PROPERTY_POST, identifier: null, data: { Brightness: 20 } },
            { ts: t3, method: 'thing.event.LampFault.post', identifier: 'LampFault', data: { FaultCode: 1 } },
        ]);
        // Rules and subscriptions hear each value as a post of its own.
        expect(accepted.map((m) => [m.kind, m.values, m.ts.getTime(), m.requestId])).toEqual([
            ['event', { FaultCode: 1 }, t3, '7'],
            ['property', { Brightness: 10, LightSwitch: 1 }, t1, '7'],
            ['property', { Brightness: 20 }, t2, '7'],
        ]);
        // The platform's own views: the history of each value, the latest one on the properties tab.
        const history = okData<HistoryPage>(
            await call(
                s,
                'GET',
                `/api/device/propertyHistory?deviceId=${device.deviceId}&identifier=Brightness&startTime=${t1 - 1000}`,
            ),
        );
        expect(history.list.map((r) => r.value)).toEqual([20, 10]);
        const props = okData<{ properties: PropertyRow[] }>(
            await call(s, 'GET', `/api/device/properties?deviceId=${device.deviceId}`),
        ).properties;
        expect(props.find((p) => p.identifier === 'Brightness')?.value).toBe(20);
    });

    it("keeps a time outside the message window as data, the value stored at the server's time", async () => {
        const device = await lamp();
        const client = await signIn(device);
        const old = Date.now() - 40 * 24 * 60 * MINUTE;
        const before = Date.now();
        const reply = await ask(
            client,
            sys(device, 'thing/event/property/batch/post'),
            alink('8', BATCH, { properties: { Brightness: [{ value: 5, time: old }] } }),
        );
        expect(reply).toMatchObject({ code: 200 });
        const [row] = await logOf(device.deviceId);
        expect(row.data).toEqual({ Brightness: 5, [DEVICE_TIME_KEY]: old });
        expect(row.ts).toBeGreaterThanOrEqual(before - 1000);
    });

    it.each([
        ['not JSON', 'nope', '消息不是有效的 JSON 对象'],
        ['params that are no object', alink('1', BATCH, [1]), 'params 应为对象'],
        ['nothing to store', alink('1', BATCH, { properties: {}, events: {} }), '批量上报不能为空'],
        [
            'a property that is no list',
            alink('1', BATCH, { properties: { Brightness: { value: 1 } } }),
            'properties.Brightness 应为数组',
        ],
        [
            'an item without value',
            alink('1', BATCH, { properties: { Brightness: [{ time: ago(1) }] } }),
            'properties.Brightness[0] 应为 { value, time }',
        ],
        [
            'a time that is no epoch ms',
            alink('1', BATCH, { properties: { Brightness: [{ value: 1, time: 'yesterday' }] } }),
            'properties.Brightness[0] 的 time 应为毫秒时间戳',
        ],
        [
            'one bad value among good ones',
            alink('1', BATCH, {
                properties: {
                    Brightness: [
                        { value: 10, time: ago(3) },
                        { value: 101, time: ago(2) },
                    ],
                },
            }),
            '属性 Brightness 不能大于 100',
        ],
        [
            'an event the model lacks',
            alink('1', BATCH, {
                properties: { Brightness: [{ value: 10 }] },
                events: { Nope: [{ value: {}, time: ago(1) }] },
            }),
            '事件 Nope 未在物模型中定义',
        ],
    ])('answers %s with 460 naming it, and stores nothing', async (_what, body, message) => {
        const device = await lamp();
        const client = await signIn(device);
        const accepted = await acceptedDuring(async () => {
            const reply = await ask(client, sys(device, 'thing/event/property/batch/post'), body);
            expect(reply).toMatchObject({ code: 460, message, method: BATCH });
        });
        expect(accepted).toEqual([]);
        expect(await logOf(device.deviceId)).toEqual([]);
    });
});

describe('history post (thing.event.property.history.post)', () => {
    const HISTORY = 'thing.event.property.history.post';
    const identity = (d: Dev) => ({ productKey: d.productKey, deviceName: d.deviceName });

    it("stores the device's history under its times and tells no rule (past data)", async () => {
        const device = await lamp();
        const client = await signIn(device);
        const [t4, t5, t6] = [ago(50), ago(40), ago(45)];
        const params = [
            {
                identity: identity(device),
                properties: [{ Brightness: { value: 30, time: t4 } }, { Brightness: { value: 31, time: t5 } }],
                events: [{ LampFault: { value: { FaultCode: 2 }, time: t6 } }],
            },
        ];
        let reply: Record<string, unknown> = {};
        const accepted = await acceptedDuring(async () => {
            reply = await ask(client, sys(device, 'thing/event/property/history/post'), alink('9', HISTORY, params));
        });
        expect(reply).toEqual({ id: '9', code: 200, data: {}, message: 'success', method: HISTORY, version: '1.0' });
        expect(accepted).toEqual([]);
        expect(await logOf(device.deviceId)).toEqual([
            { ts: t4, method: PROPERTY_POST, identifier: null, data: { Brightness: 30 } },
            { ts: t6, method: 'thing.event.LampFault.post', identifier: 'LampFault', data: { FaultCode: 2 } },
            { ts: t5, method: PROPERTY_POST, identifier: null, data: { Brightness: 31 } },
        ]);
    });

    it('lets a gateway post the history of its own sub-devices, and of no other device', async () => {
        const gatewayProduct = await createProduct(s, { nodeType: 1 });
        const gateway = await devOf(await createDevice(s, gatewayProduct.productKey));
        const [sub, stranger] = [await lamp(), await lamp()];
        const added = await call(
            s,
            'POST',
            '/api/device/subDevice/add',
            listForm({ gwId: gateway.deviceId, deviceId: [sub.deviceId] }),
        );
        expect(added.status, JSON.stringify(added.body)).toBe(200);
        const client = await signIn(gateway);
        const topic = sys(gateway, 'thing/event/property/history/post');
        const t = ago(15);
        const entry = (d: { productKey: string; deviceName: string }) => ({
            identity: d,
            properties: [{ Brightness: { value: 44, time: t } }],
        });
        expect(await ask(client, topic, alink('1', HISTORY, [entry(identity(sub))]))).toMatchObject({ code: 200 });
        expect(await logOf(sub.deviceId)).toEqual([
            { ts: t, method: PROPERTY_POST, identifier: null, data: { Brightness: 44 } },
        ]);
        // A device not bound to this gateway (6401), one that does not exist (6100): refused whole.
        const mixed = [entry(identity(sub)), entry(identity(stranger))];
        expect(await ask(client, topic, alink('2', HISTORY, mixed))).toMatchObject({
            code: 6401,
            message: `设备 ${stranger.productKey}/${stranger.deviceName} 不是此网关的子设备`,
        });
        const unknown = { productKey: sub.productKey, deviceName: 'noSuchDevice' };
        expect(await ask(client, topic, alink('3', HISTORY, [entry(unknown)]))).toMatchObject({ code: 6100 });
        expect(await logOf(sub.deviceId)).toHaveLength(1);
        expect(await logOf(stranger.deviceId)).toEqual([]);
        expect(await logOf(gateway.deviceId)).toEqual([]);
    });

    it.each([
        ['params that are no list', { identity: {} }, 'params 应为非空数组'],
        ['an empty list', [], 'params 应为非空数组'],
        ['an entry without identity', [{ properties: [] }], 'params[0].identity 应为 { productKey, deviceName }'],
        ['a value without time', 'noTime', 'params[0].properties[0].Brightness 缺少 time'],
        ['a bad value', 'badValue', '属性 Brightness 不能大于 100'],
    ])('answers %s with 460 naming it, and stores nothing', async (_what, params, message) => {
        const device = await lamp();
        const client = await signIn(device);
        const body =
            params === 'noTime'
                ? [{ identity: identity(device), properties: [{ Brightness: { value: 1 } }] }]
                : params === 'badValue'
                  ? [
                        {
                            identity: identity(device),
                            properties: [
                                { Brightness: { value: 1, time: ago(5) } },
                                { Brightness: { value: 200, time: ago(4) } },
                            ],
                        },
                    ]
                  : params;
        const reply = await ask(client, sys(device, 'thing/event/property/history/post'), alink('4', HISTORY, body));
        expect(reply).toMatchObject({ id: '4', code: 460, message, method: HISTORY });
        expect(await logOf(device.deviceId)).toEqual([]);
    });
});

describe('tags from the device (thing.deviceinfo.update / delete)', () => {
    const UPDATE = 'thing.deviceinfo.update';
    const DELETE = 'thing.deviceinfo.delete';

    it('sets the tags the console shows and deletes them, each answered on _reply', async () => {
        const device = await lamp();
        const client = await signIn(device);
        const update = sys(device, 'thing/deviceinfo/update');
        const del = sys(device, 'thing/deviceinfo/delete');
        const pairs = [
            { attrKey: 'model', attrValue: 'X1' },
            { attrKey: 'maker', attrValue: 'ACME' },
        ];
        expect(await ask(client, update, alink('1', UPDATE, pairs))).toEqual({
            id: '1',
            code: 200,
            data: {},
            message: 'success',
            method: UPDATE,
            version: '1.0',
        });
        const first = await tagsOf(device.deviceId);
        expect(first.map(({ key, value }) => ({ key, value }))).toEqual([
            { key: 'model', value: 'X1' },
            { key: 'maker', value: 'ACME' },
        ]);
        // A key the device has already is updated in place.
        const point = '31.230416,121.473701';
        expect(
            await ask(
                client,
                update,
                alink('2', UPDATE, [
                    { attrKey: 'model', attrValue: 'X2' },
                    { attrKey: 'coordinate', attrValue: point },
                ]),
            ),
        ).toMatchObject({ code: 200 });
        const second = await tagsOf(device.deviceId);
        expect(second.find((t) => t.key === 'model')).toEqual({ ...first[0], value: 'X2' });
        const [located] = await s.db
            .select({ lat: devices.latitude, lng: devices.longitude })
            .from(devices)
            .where(eq(devices.id, device.deviceId));
        expect(located).toEqual({ lat: 31.230416, lng: 121.473701 });
        // Deleting keys the device lacks is no error; deleting coordinate takes the device off the map.
        const gone = [{ attrKey: 'maker' }, { attrKey: 'coordinate' }, { attrKey: 'absent' }];
        expect(await ask(client, del, alink('3', DELETE, gone))).toMatchObject({ id: '3', code: 200, method: DELETE });
        expect((await tagsOf(device.deviceId)).map((t) => [t.key, t.value])).toEqual([['model', 'X2']]);
        const [cleared] = await s.db
            .select({ lat: devices.latitude })
            .from(devices)
            .where(eq(devices.id, device.deviceId));
        expect(cleared.lat).toBeNull();
        expect(client.connected).toBe(true);
        // The requests are in the device's message log.
        expect((await logOf(device.deviceId)).map((r) => r.method)).toEqual([UPDATE, UPDATE, DELETE]);
    });

    const many = Array.from({ length: 51 }, (_, i) => ({ attrKey: `k${i}`, attrValue: 'v' }));
    it.each([
        [
            'update',
            'a key with a character the console refuses',
            [{ attrKey: 'a_b', attrValue: '1' }],
            '只允许包含数字、字母、.',
        ],
        ['update', 'a value over 128 characters', [{ attrKey: 'a', attrValue: 'v'.repeat(129) }], '不得超过128个字符'],
        ['update', 'a pair without attrValue', [{ attrKey: 'a' }], 'params[0] 缺少 attrValue'],
        ['update', 'more tags than a device may carry', many, '标签不能超过50个'],
        ['update', 'params that are no list', { attrKey: 'a', attrValue: 'b' }, 'params 应为非空数组'],
        ['delete', 'a pair without attrKey', [{}], 'params[0] 缺少 attrKey'],
        ['delete', 'an empty list', [], 'params 应为非空数组'],
    ])('%s: answers %s with 460 naming it, and changes nothing', async (action, _what, params, message) => {
        const device = await lamp();
        const client = await signIn(device);
        const update = sys(device, 'thing/deviceinfo/update');
        await ask(client, update, alink('0', UPDATE, [{ attrKey: 'keep', attrValue: 'me' }]));
        const before = await tagsOf(device.deviceId);
        const method = action === 'update' ? UPDATE : DELETE;
        const reply = await ask(client, sys(device, `thing/deviceinfo/${action}`), alink('6', method, params));
        expect(reply).toMatchObject({ id: '6', code: 460, message, method });
        expect(await tagsOf(device.deviceId)).toEqual(before);
        expect(client.connected).toBe(true);
    });

    it("answers the SDK's postTags and deleteTags, and the tags follow", async () => {
        const device = await lamp();
        const sdk = await sdkDevice(broker, url, device);
        sdks.push(sdk);
        const posted = await answered((cb) =>
            sdk.postTags(
                [
                    { attrKey: 'firmware', attrValue: 'v1.2' },
                    { attrKey: 'site', attrValue: 'B3' },
                ],
                cb,
            ),
        );
        expect(posted).toMatchObject({ code: 200, method: UPDATE });
        expect((await tagsOf(device.deviceId)).map((t) => [t.key, t.value])).toEqual([
            ['firmware', 'v1.2'],
            ['site', 'B3'],
        ]);
        const deleted = await answered((cb) => sdk.deleteTags(['site'], cb));
        expect(deleted).toMatchObject({ code: 200, method: DELETE });
        expect((await tagsOf(device.deviceId)).map((t) => t.key)).toEqual(['firmware']);
    });
});
