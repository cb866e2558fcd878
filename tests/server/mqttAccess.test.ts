import type { MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { alibabaCredentials, type SignMethod } from '../../server/mqtt/signIn';
import { createTestServer, type TestServer } from '../../server/testing';
import { connect, nextMessage, secretOf, startBroker, subscribe, until, type Broker } from './mqttSupport';
import { call, form } from './support';
import { freshLamp, okData, type HistoryPage, type PropertyRow } from './telemetrySupport';

let s: TestServer;
let broker: Broker;
let url: string;
const log: string[] = [];
const clients: MqttClient[] = [];

async function lamp() {
    const device = await freshLamp(s);
    return { ...device, deviceId: Number(device.deviceId), secret: await secretOf(s, Number(device.deviceId)) };
}

async function signIn(device: Awaited<ReturnType<typeof lamp>>, signMethod: SignMethod = 'hmacsha256') {
    const client = await connect(url, alibabaCredentials(device, { signMethod }));
    clients.push(client);
    return client;
}

async function statusOf(deviceId: number): Promise<string> {
    const data = okData<{ device: { status: string } }>(
        await call(s, 'GET', `/api/device/detail?deviceId=${deviceId}`),
    );
    return data.device.status;
}

beforeAll(async () => {
    s = await createTestServer();
    ({ broker, url } = await startBroker(s, log));
});

afterAll(async () => {
    for (const c of clients) c.end(true);
    await broker?.close();
    await s?.close();
});

describe('device sign-in', () => {
    it.each(['hmacmd5', 'hmacsha1', 'hmacsha256'] as const)('accepts Alibaba signatures made with %s', async (m) => {
        const device = await lamp();
        const client = await signIn(device, m);
        expect(client.connected).toBe(true);
    });

    it('accepts a signature without a timestamp, and unknown clientId keys are ignored', async () => {
        const device = await lamp();
        const creds = alibabaCredentials(device, { timestamp: null });
        const clientId = creds.clientId.replace('|securemode=3,', '|securemode=3,_v=sdk-c-4.0,');
        const client = await connect(url, { ...creds, clientId });
        clients.push(client);
        expect(client.connected).toBe(true);
    });

    it('accepts the plain username, clientId and password the detail page shows', async () => {
        const device = await lamp();
        const client = await connect(url, {
            clientId: `${device.productKey}.${device.deviceName}`,
            username: `${device.deviceName}&${device.productKey}`,
            password: device.secret,
        });
        clients.push(client);
        expect(client.connected).toBe(true);
    });

    it('refuses a wrong secret (4), an unknown device or product (2) and a disabled device (5)', async () => {
        const device = await lamp();
        const wrong = alibabaCredentials({ ...device, secret: 'x'.repeat(32) });
        await expect(connect(url, wrong)).rejects.toMatchObject({ code: 4 });
        const unknown = alibabaCredentials({ ...device, deviceName: 'noSuchDevice' });
        await expect(connect(url, unknown)).rejects.toMatchObject({ code: 2 });
        const noProduct = alibabaCredentials({ ...device, productKey: 'noSuchProduct' });
        await expect(connect(url, noProduct)).rejects.toMatchObject({ code: 2 });
        okData(await call(s, 'PUT', `/api/device/update?deviceId=${device.deviceId}&action=disable`));
        await expect(connect(url, alibabaCredentials(device))).rejects.toMatchObject({ code: 5 });
        expect(log.some((l) => l.includes('签名错误'))).toBe(true);
    });

    it('signs a device in again without the database, and forgets it at once when disabled, deleted or renamed', async () => {
        const [a, b, c] = [await lamp(), await lamp(), await lamp()];
        for (const d of [a, b, c]) (await signIn(d)).end(true);
        // Signed in before: the broker keeps the entry (a reconnect storm needs no lookup).
        expect(broker.directory.signedInBefore(a.productKey, a.deviceName)).toMatchObject({ deviceId: a.deviceId });
        const again = await signIn(a);
        expect(again.connected).toBe(true);
        again.end(true);
        // Disabled, deleted, renamed: refused at once, as the table says, not as the kept entry does.
        okData(await call(s, 'PUT', `/api/device/update?deviceId=${a.deviceId}&action=disable`));
        await expect(connect(url, alibabaCredentials(a))).rejects.toMatchObject({ code: 5 });
        okData(await call(s, 'DELETE', `/api/device?deviceId=${b.deviceId}`));
        await expect(connect(url, alibabaCredentials(b))).rejects.toMatchObject({ code: 2 });
        okData(
            await call(
                s,
                'POST',
                '/api/device/update',
                form({ deviceId: c.deviceId, newDeviceName: `${c.deviceName}x`, remark: '灯' }),
            ),
        );
        await expect(connect(url, alibabaCredentials(c))).rejects.toMatchObject({ code: 2 });
        expect((await signIn({ ...c, deviceName: `${c.deviceName}x` })).connected).toBe(true);
        // Enabled again: signs in (a disabled device is never kept, so nothing stale to forget).
        okData(await call(s, 'PUT', `/api/device/update?deviceId=${a.deviceId}&action=enable`));
        expect((await signIn(a)).connected).toBe(true);
    });

    it('answers devices signing in at once each for itself (one lookup for all)', async () => {
        const [a, b] = [await lamp(), await lamp()];
        // Asked in one tick: answered by one statement, each with its own device or its own refusal.
        const found = await Promise.all([
            broker.directory.byName(a.productKey, a.deviceName),
            broker.directory.byName(b.productKey, b.deviceName),
            broker.directory.byName(a.productKey, 'noSuchDevice'),
            broker.directory.byName('noSuchProduct', a.deviceName),
            broker.directory.byName(a.productKey, a.deviceName),
        ]);
        expect(found).toEqual([
            expect.objectContaining({ deviceId: a.deviceId, deviceName: a.deviceName, secret: a.secret }),
            expect.objectContaining({ deviceId: b.deviceId, deviceName: b.deviceName, secret: b.secret }),
            { unknownProduct: false },
            { unknownProduct: true },
            expect.objectContaining({ deviceId: a.deviceId, enabled: true, passthrough: false }),
        ]);
        expect(found[0]).not.toBe(found[4]);
        const results = await Promise.allSettled([
            connect(url, alibabaCredentials(a)),
            connect(url, alibabaCredentials({ ...b, secret: 'x'.repeat(32) })),
            connect(url, alibabaCredentials({ ...b, deviceName: 'noSuchDevice' })),
            connect(url, alibabaCredentials(b, { id: 'other' })),
        ]);
        for (const r of results) if (r.status === 'fulfilled') clients.push(r.value);
        expect(results.map((r) => (r.status === 'fulfilled' ? 0 : (r.reason as { code: number }).code))).toEqual([
            0, 4, 2, 0,
        ]);
    });
});

describe('status', () => {
    it('is ONLINE while connected and OFFLINE after, with lastTime', async () => {
        const device = await lamp();
        expect(await statusOf(device.deviceId)).toBe('INACTIVE');
        const client = await signIn(device);
        await until(async () => (await statusOf(device.deviceId)) === 'ONLINE');
        client.end(true);
        await until(async () => (await statusOf(device.deviceId)) === 'OFFLINE');
        const data = okData<{ device: { lastTime: string } }>(
            await call(s, 'GET', `/api/device/detail?deviceId=${device.deviceId}`),
        );
        expect(data.device.lastTime).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
    });

    it('a second connection of the same device takes over and the device stays ONLINE', async () => {
        const device = await lamp();
        const first = await connect(url, alibabaCredentials(device, { id: 'first' }));
        const closed = new Promise<void>((r) => first.once('close', () => r()));
        const second = await signIn(device);
        await closed;
        first.end(true);
        expect(second.connected).toBe(true);
        await until(async () => (await statusOf(device.deviceId)) === 'ONLINE');
        await new Promise((r) => setTimeout(r, 100));
        expect(await statusOf(device.deviceId)).toBe('ONLINE');
        expect(broker.isOnline(device.deviceId)).toBe(true);
    });

    it('disabling a connected device disconnects it at once', async () => {
        const device = await lamp();
        const client = await signIn(device);
        const closed = new Promise<void>((r) => client.once('close', () => r()));
        okData(await call(s, 'PUT', `/api/device/update?deviceId=${device.deviceId}&action=disable`));
        await closed;
        expect(await statusOf(device.deviceId)).toBe('DISABLE');
    });
});

describe('topic rights', () => {
    it('grants the device its own topics and refuses others', async () => {
        const device = await lamp();
        const client = await signIn(device);
        expect(await subscribe(client, `/sys/${device.productKey}/${device.deviceName}/thing/service/#`)).toBe(1);
        expect(await subscribe(client, `/${device.productKey}/${device.deviceName}/user/get`)).toBe(1);
        expect(await subscribe(client, `/sys/${device.productKey}/+/thing/service/#`)).toBe(128);
        expect(await subscribe(client, '#')).toBe(128);
    });

    it('lets a device publish only on the topics its Topic tab lists as 发布', async () => {
        const device = await lamp();
        const client = await signIn(device);
        const answer = await call(
            s,
            'GET',
            `/api/topic/list?productKey=${device.productKey}&deviceName=${device.deviceName}`,
        );
        const topics = answer.body.data as Array<{
            name: string;
            topics: Array<{ topic: string; permission: string }>;
        }>;
        const publishable = topics.flatMap((c) => c.topics).filter((t) => t.permission === '发布');
        expect(publishable.length).toBeGreaterThan(5);
        // A listed filter (the RRPC answer's `+`, its message id) is published on as a topic of it.
        for (const t of publishable) await client.publishAsync(t.topic.replace('+', '1'), '{}', { qos: 1 });
        expect(client.connected).toBe(true);
        // 属性设置 is the platform's to send: a device publishing it is closed.
        const closed = new Promise<void>((r) => client.once('close', () => r()));
        client.publish(`/sys/${device.productKey}/${device.deviceName}/thing/service/property/set`, '{}', { qos: 1 });
        await closed;
    });

    it('answers an NTP request with the server times', async () => {
        const device = await lamp();
        const client = await signIn(device);
        await subscribe(client, `/ext/ntp/${device.productKey}/${device.deviceName}/response`);
        const answer = nextMessage(client, `/ext/ntp/${device.productKey}/${device.deviceName}/response`);
        await client.publishAsync(
            `/ext/ntp/${device.productKey}/${device.deviceName}/request`,
            JSON.stringify({ deviceSendTime: '1571724098000' }),
        );
        expect(await answer).toMatchObject({
            deviceSendTime: '1571724098000',
            serverRecvTime: expect.stringMatching(/^\d{13}$/),
        });
    });

    it('closes a device that publishes outside its topics, and logs it', async () => {
        const device = await lamp();
        const client = await signIn(device);
        const closed = new Promise<void>((r) => client.once('close', () => r()));
        client.publish(`/sys/${device.productKey}/someoneElse/thing/event/property/post`, '{}', { qos: 1 });
        await closed;
        expect(log.some((l) => l.includes('拒绝发布') && l.includes('someoneElse'))).toBe(true);
    });
});

describe('property post', () => {
    const post = (id: string, params: unknown) =>
        JSON.stringify({ id, version: '1.0', params, method: 'thing.event.property.post' });

    it('stores valid values (latest and history) and replies 200', async () => {
        const device = await lamp();
        const client = await signIn(device);
        const topic = `/sys/${device.productKey}/${device.deviceName}/thing/event/property/post`;
        await subscribe(client, `${topic}_reply`);
        const reply = nextMessage(client, `${topic}_reply`);
        await client.publishAsync(topic, post('41', { Brightness: 73, LightSwitch: 1, ActivePower: { value: 12.5 } }), {
            qos: 1,
        });
        expect(await reply).toMatchObject({ id: '41', code: 200, method: 'thing.event.property.post' });
        const rows = okData<{ properties: PropertyRow[] }>(
            await call(s, 'GET', `/api/device/properties?deviceId=${device.deviceId}`),
        ).properties;
        const byId = Object.fromEntries(rows.map((r) => [r.identifier, r.value]));
        expect(byId).toMatchObject({ Brightness: 73, LightSwitch: 1, ActivePower: 12.5 });
        const history = okData<HistoryPage>(
            await call(
                s,
                'GET',
                `/api/device/propertyHistory?deviceId=${device.deviceId}&identifier=Brightness&pageNumber=1&pageSize=10`,
            ),
        );
        expect(history.list.map((r) => r.value)).toEqual([73]);
    });

    it.each([
        ['not JSON', 'not json', '消息不是有效的 JSON 对象'],
        ['an unknown identifier', post('1', { Nope: 1 }), '属性 Nope 未在物模型中定义'],
        ['a value out of range', post('2', { Brightness: 101 }), '属性 Brightness 不能大于 100'],
        ['a float for an int', post('3', { Brightness: 1.5 }), '属性 Brightness 应为整数'],
        ['an undefined enum value', post('4', { WorkMode: 7 }), '属性 WorkMode 不是定义的枚举值（0、1、2）'],
        ['a string too long', post('5', { FirmwareVersion: 'v'.repeat(33) }), '属性 FirmwareVersion 长度不能超过 32'],
        ['a string for a bool', post('6', { LightSwitch: 'on' }), '属性 LightSwitch 应为 0 或 1'],
    ])('answers %s with code 460 naming it, and stores nothing', async (_what, payload, message) => {
        const device = await lamp();
        const client = await signIn(device);
        const topic = `/sys/${device.productKey}/${device.deviceName}/thing/event/property/post`;
        await subscribe(client, `${topic}_reply`);
        const reply = nextMessage(client, `${topic}_reply`);
        await client.publishAsync(topic, payload, { qos: 1 });
        expect(await reply).toMatchObject({ code: 460, message });
        const rows = okData<{ properties: PropertyRow[] }>(
            await call(s, 'GET', `/api/device/properties?deviceId=${device.deviceId}`),
        ).properties;
        expect(rows.every((r) => r.value === null)).toBe(true);
    });

    it('stores an event post checked against its output parameters', async () => {
        const device = await lamp();
        const client = await signIn(device);
        const topic = `/sys/${device.productKey}/${device.deviceName}/thing/event/LampFault/post`;
        await subscribe(client, `${topic}_reply`);
        let reply = nextMessage(client, `${topic}_reply`);
        await client.publishAsync(topic, JSON.stringify({ id: '9', params: { value: { FaultCode: 9 } } }), { qos: 1 });
        expect(await reply).toMatchObject({ code: 460 });
        reply = nextMessage(client, `${topic}_reply`);
        await client.publishAsync(topic, JSON.stringify({ id: '10', params: { value: { FaultCode: 2 } } }), { qos: 1 });
        expect(await reply).toMatchObject({ id: '10', code: 200, method: 'thing.event.LampFault.post' });
        const events = okData<{ resultList: Array<{ method: string; data: unknown }> }>(
            await call(s, 'GET', `/api/device/events?deviceId=${device.deviceId}&timeType=hour&pageSize=50`),
        );
        expect(events.resultList.find((e) => e.method === 'thing.event.LampFault.post')?.data).toEqual({
            FaultCode: 2,
        });
    });
});

describe('accepted messages (what rules and subscriptions act on)', () => {
    it('hands on each stored property or event post, and never a refused one', async () => {
        const seen: Array<{ kind: string; identifier?: string; values: unknown; requestId: string }> = [];
        const stop = broker.uplink.onAccepted((m) =>
            seen.push({ kind: m.kind, identifier: m.identifier, values: m.values, requestId: m.requestId }),
        );
        try {
            const device = await lamp();
            const client = await signIn(device);
            const base = `/sys/${device.productKey}/${device.deviceName}/thing/event`;
            await subscribe(client, `${base}/+/post_reply`);
            let reply = nextMessage(client, `${base}/property/post_reply`);
            await client.publishAsync(
                `${base}/property/post`,
                JSON.stringify({ id: '7', params: { Brightness: 101 } }),
            );
            expect(await reply).toMatchObject({ code: 460 });
            reply = nextMessage(client, `${base}/property/post_reply`);
            await client.publishAsync(`${base}/property/post`, JSON.stringify({ id: '8', params: { Brightness: 40 } }));
            expect(await reply).toMatchObject({ code: 200 });
            reply = nextMessage(client, `${base}/LampFault/post_reply`);
            await client.publishAsync(
                `${base}/LampFault/post`,
                JSON.stringify({ id: '9', params: { value: { FaultCode: 2 } } }),
            );
            expect(await reply).toMatchObject({ code: 200 });
            expect(seen).toEqual([
                { kind: 'property', identifier: undefined, values: { Brightness: 40 }, requestId: '8' },
                { kind: 'event', identifier: 'LampFault', values: { FaultCode: 2 }, requestId: '9' },
            ]);
        } finally {
            stop();
        }
    });
});

describe('downlink', () => {
    it('sets a property and waits for the device reply', async () => {
        const device = await lamp();
        const client = await signIn(device);
        const topic = `/sys/${device.productKey}/${device.deviceName}/thing/service/property/set`;
        await subscribe(client, topic);
        client.on('message', (t, payload) => {
            if (t !== topic) return;
            const req = JSON.parse(payload.toString()) as { id: string; params: unknown };
            client.publish(`${topic}_reply`, JSON.stringify({ id: req.id, code: 200, data: req.params }));
        });
        const result = await broker.downlink.setProperties(device.deviceId, { Brightness: 40 }, { sync: true });
        expect(result).toMatchObject({ state: 'replied', code: 200, data: { Brightness: 40 } });
    });

    it('refuses read-only properties and bad values before sending', async () => {
        const device = await lamp();
        await signIn(device);
        await expect(broker.downlink.setProperties(device.deviceId, { ActivePower: 1 })).rejects.toThrow('只读');
        await expect(broker.downlink.setProperties(device.deviceId, { Brightness: 500 })).rejects.toThrow(
            '属性 Brightness 不能大于 100',
        );
    });

    it('invokes a service; a device that does not answer times out, one that is offline is said so', async () => {
        const device = await lamp();
        const client = await signIn(device);
        await subscribe(client, `/sys/${device.productKey}/${device.deviceName}/thing/service/#`);
        const silent = await broker.downlink.invokeService(
            device.deviceId,
            'SetSchedule',
            { OnTime: '18:00', OffTime: '06:00' },
            { sync: true, timeoutMs: 200 },
        );
        expect(silent.state).toBe('timeout');
        const other = await lamp();
        const offline = await broker.downlink.invokeService(other.deviceId, 'SetSchedule', {}, { sync: true });
        expect(offline.state).toBe('offline');
    });
});

describe('text values', () => {
    it('keeps a text property that looks like a number as text', async () => {
        const device = await lamp();
        const client = await signIn(device);
        const topic = `/sys/${device.productKey}/${device.deviceName}/thing/event/property/post`;
        await subscribe(client, `${topic}_reply`);
        const reply = nextMessage(client, `${topic}_reply`);
        await client.publishAsync(topic, JSON.stringify({ id: '1', params: { FirmwareVersion: '6' } }), { qos: 1 });
        expect(await reply).toMatchObject({ code: 200 });
        const rows = okData<{ properties: PropertyRow[] }>(
            await call(s, 'GET', `/api/device/properties?deviceId=${device.deviceId}`),
        ).properties;
        expect(rows.find((r) => r.identifier === 'FirmwareVersion')?.value).toBe('6');
    });
});
