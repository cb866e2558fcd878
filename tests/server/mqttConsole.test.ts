import type { MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { alibabaCredentials } from '../../server/mqtt/signIn';
import { createTestServer, type TestServer } from '../../server/testing';
import { connect, nextMessage, secretOf, startBroker, subscribe, until, type Broker } from './mqttSupport';
import { call, form } from './support';
import { freshLamp, okData } from './telemetrySupport';

let s: TestServer;
let broker: Broker;
let url: string;
const clients: MqttClient[] = [];

async function onlineLamp() {
    const row = await freshLamp(s);
    const device = { ...row, deviceId: Number(row.deviceId), secret: await secretOf(s, Number(row.deviceId)) };
    const client = await connect(url, alibabaCredentials(device));
    clients.push(client);
    await subscribe(client, `/sys/${device.productKey}/${device.deviceName}/thing/service/#`);
    await subscribe(client, `/${device.productKey}/${device.deviceName}/user/#`);
    return { device, client };
}

/** Answers every downlink call of the device with code 200 and its params as data. */
function answerAll(client: MqttClient) {
    client.on('message', (topic, payload) => {
        if (!topic.includes('/thing/service/') || topic.endsWith('_reply')) return;
        const req = JSON.parse(payload.toString()) as { id: string; params: unknown };
        client.publish(`${topic}_reply`, JSON.stringify({ id: req.id, code: 200, data: req.params }));
    });
}

beforeAll(async () => {
    s = await createTestServer();
    ({ broker, url } = await startBroker(s));
});

afterAll(async () => {
    for (const c of clients) c.end(true);
    await broker?.close();
    await s?.close();
});

describe('downlink from the console', () => {
    it('sets a property and answers the device reply', async () => {
        const { device, client } = await onlineLamp();
        answerAll(client);
        const answer = await call(
            s,
            'POST',
            '/api/device/propertyTestSet',
            form({ deviceId: device.deviceId, params: JSON.stringify({ Brightness: 55 }) }),
        );
        expect(okData(answer)).toMatchObject({ state: 'replied', code: 200, data: { Brightness: 55 } });
    });

    it('invokes a service synchronously when asked', async () => {
        const { device, client } = await onlineLamp();
        answerAll(client);
        const answer = await call(
            s,
            'POST',
            '/api/device/serviceTestSet',
            form({
                deviceId: device.deviceId,
                identifier: 'SetSchedule',
                params: JSON.stringify({ OnTime: '18:30', OffTime: '06:00' }),
                sync: 'true',
            }),
        );
        expect(okData(answer)).toMatchObject({ state: 'replied', code: 200 });
    });

    it.each([
        [{ params: '{"Brightness":55}' }, '缺少设备ID'],
        [{ deviceId: 1, params: 'not json' }, '属性值不是有效的 JSON'],
        [{ deviceId: 1, params: '[1]' }, '属性值应为 JSON 对象'],
        [{ deviceId: 1, params: '{"Brightness":1}', timeout: '5' }, 'timeout 须为 100~60000 的整数（毫秒）'],
    ])('refuses bad input %j with 400', async (body, msg) => {
        const answer = await call(s, 'POST', '/api/device/propertyTestSet', form(body));
        expect(answer.status).toBe(400);
        expect(answer.body).toEqual({ code: 1, msg });
    });

    it('refuses a value the thing model does not allow, naming it', async () => {
        const { device } = await onlineLamp();
        const answer = await call(
            s,
            'POST',
            '/api/device/propertyTestSet',
            form({ deviceId: device.deviceId, params: '{"Brightness":300}' }),
        );
        expect(answer.status).toBe(400);
        expect(answer.body).toEqual({ code: 1, msg: '属性 Brightness 不能大于 100' });
    });

    it('publishes a message to the device’s own topic, and only there', async () => {
        const { device, client } = await onlineLamp();
        const topic = `/${device.productKey}/${device.deviceName}/user/get`;
        const arrived = nextMessage(client, topic);
        const answer = await call(
            s,
            'POST',
            '/ms3/publishMessage',
            form({ deviceId: device.deviceId, topic, payload: '{"hello":"设备"}', qos: 1 }),
        );
        expect(answer.body).toMatchObject({ code: '000000' });
        expect(await arrived).toEqual({ hello: '设备' });
        const elsewhere = await call(
            s,
            'POST',
            '/ms3/publishMessage',
            form({ deviceId: device.deviceId, topic: '/other/topic', payload: 'x' }),
        );
        expect(elsewhere.status).toBe(400);
        expect(elsewhere.body).toEqual({ code: '999999', msg: '只能发布到该设备自己的 Topic' });
    });
});

describe('live traffic', () => {
    it('streams a device’s uplink as server-sent events', async () => {
        const { device, client } = await onlineLamp();
        const res = await s.fetch(`/api/monitor/stream?deviceId=${device.deviceId}`);
        expect(res.headers.get('content-type')).toContain('text/event-stream');
        const reader = res.body!.getReader();
        const decoder = new TextDecoder();
        let text = '';
        const read = async (needle: string) => {
            while (!text.includes(needle)) {
                const { value, done } = await reader.read();
                if (done) throw new Error('stream ended');
                text += decoder.decode(value);
            }
        };
        await read('event: ready');
        const topic = `/sys/${device.productKey}/${device.deviceName}/thing/event/property/post`;
        await client.publishAsync(topic, JSON.stringify({ id: '7', params: { Brightness: 12 } }), { qos: 1 });
        await read('"Brightness');
        expect(text).toContain(`"direction":"up"`);
        await read('post_reply');
        await reader.cancel();
    });

    it('counts connected devices and messages per second on /monitor/real', async () => {
        const { device, client } = await onlineLamp();
        const topic = `/sys/${device.productKey}/${device.deviceName}/thing/event/property/post`;
        for (let i = 0; i < 5; i++) {
            await client.publishAsync(topic, JSON.stringify({ id: String(i), params: { Brightness: i } }), { qos: 1 });
        }
        await until(async () => {
            const data = okData2(await call(s, 'GET', '/api/monitor/real'));
            return data.upPerSecond > 0 && data.products.some((p) => p.productKey === device.productKey);
        }, 8_000);
        const data = okData2(await call(s, 'GET', '/api/monitor/real'));
        expect(data.running).toBe(true);
        expect(data.connected).toBeGreaterThanOrEqual(1);
        expect(data.products.find((p) => p.productKey === device.productKey)?.productName).toBe('智能路灯_L1');
    });
});

function okData2(answer: { status: number; body: Record<string, unknown> }) {
    expect(answer.status).toBe(200);
    return answer.body.data as {
        running: boolean;
        connected: number;
        upPerSecond: number;
        products: Array<{ productKey: string; productName: string }>;
    };
}

describe('without a broker', () => {
    it('says device access is not running', async () => {
        const other = await createTestServer({ seed: false });
        try {
            const answer = await call(
                other,
                'POST',
                '/api/device/propertyTestSet',
                form({ deviceId: 1, params: '{}' }),
            );
            expect(answer.status).toBe(400);
            expect(answer.body).toEqual({ code: 1, msg: '设备接入服务（MQTT）未运行，请检查服务器启动日志' });
        } finally {
            await other.close();
        }
    });
});
