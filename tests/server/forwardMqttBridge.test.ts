import { createServer, type Server } from 'node:net';
import { Aedes } from 'aedes';
import mqtt, { type MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mqttBridgeDestination, type MqttBridgeConfig } from '../../server/forward/destinations/mqttBridge';
import type { Sender } from '../../server/forward/destinations/types';
import {
    closedPort,
    expectedBody,
    expectTransient,
    randomName,
    sampleRecords,
    serviceReachable,
    tcpProxy,
    until,
} from './forwardSupport';

/**
 * The MQTT bridge against the machine's Mosquitto (127.0.0.1:1883): a subscriber of the test's own on a random topic
 * checks what arrived. Credentials are checked against an in-process aedes broker that accepts one user.
 */

const HOST = '127.0.0.1';
const PORT = 1883;
const available = await serviceReachable('Mosquitto', PORT, HOST);

const log = (): void => undefined;
const prefix = randomName('fwd/');

function config(overrides: Partial<MqttBridgeConfig> = {}): MqttBridgeConfig {
    return mqttBridgeDestination.schema.validateSync({
        url: `mqtt://${HOST}:${PORT}`,
        topicTemplate: `${prefix}/\${productKey}/\${deviceName}`,
        ...overrides,
    });
}

interface Received {
    topic: string;
    body: unknown;
    retain: boolean;
    qos: number;
}

describe('MQTT bridge configuration', () => {
    it('fills the defaults, generates a client id and keeps the password a secret', () => {
        const c = config();
        expect(c).toMatchObject({ qos: 1, retain: false });
        expect(c.clientId).toMatch(/^iot-forward-[0-9a-f]{12}$/);
        expect(config().clientId).not.toBe(c.clientId);
        expect(config({ clientId: ' bridge-1 ' }).clientId).toBe('bridge-1');
        expect(mqttBridgeDestination.secretFields).toEqual(['password']);
        expect(mqttBridgeDestination.kind).toBe('mqtt');
    });

    it.each([
        [{ url: '' }, '请填写服务器地址'],
        [{ url: 'http://a:1883' }, '服务器地址格式不正确'],
        [{ topicTemplate: '' }, '请填写主题模板'],
        [{ qos: 2 }, 'QoS应为 0 或 1'],
        [{ username: 'a\u0000' }, '用户名含有非法字符（空字符）'],
        [{ keepalive: 5 }, '配置含有未知字段：keepalive'],
    ])('refuses %j: %s', (overrides, message) => {
        expect(() => config(overrides as Partial<MqttBridgeConfig>)).toThrow(message);
    });
});

describe('MQTT bridge closed port', () => {
    it('fails a send at once as a transient error in Chinese', async () => {
        const sender = mqttBridgeDestination.open(config({ url: `mqtt://${HOST}:${await closedPort()}` }), { log });
        const started = Date.now();
        await expectTransient(sender.send(sampleRecords(1)), /无法连接 MQTT 服务器 .*连接被拒绝/);
        await expectTransient(sender.test(), /连接被拒绝/);
        expect(Date.now() - started).toBeLessThan(3_000);
        await sender.close();
    });
});

describe('MQTT bridge credentials (in-process aedes)', () => {
    let aedes: Aedes;
    let server: Server;
    let port: number;

    beforeAll(async () => {
        aedes = await Aedes.createBroker({
            // A refusal with return code 4 (bad user name or password), as brokers with a password file answer.
            authenticate: (_client, username, password, done) =>
                username === 'bridge' && password?.toString() === 'secret-1'
                    ? done(null, true)
                    : done(Object.assign(new Error('bad credentials'), { returnCode: 4 }) as never, false),
        });
        server = createServer(aedes.handle);
        await new Promise<void>((resolve) => server.listen(0, HOST, resolve));
        port = (server.address() as { port: number }).port;
    });

    afterAll(async () => {
        await new Promise<void>((resolve) => server.close(() => resolve()));
        await new Promise<void>((resolve) => aedes.close(() => resolve()));
    });

    it('test() passes with the right password and says 用户名或密码错误 otherwise', async () => {
        const url = `mqtt://${HOST}:${port}`;
        await mqttBridgeDestination.open(config({ url, username: 'bridge', password: 'secret-1' }), { log }).test();
        const bad = mqttBridgeDestination.open(config({ url, username: 'bridge', password: 'wrong' }), { log });
        await expectTransient(bad.test(), /拒绝连接：用户名或密码错误/);
        await expectTransient(bad.send(sampleRecords(1)), /拒绝连接：用户名或密码错误/);
        await bad.close();
    });
});

describe.skipIf(!available)('MQTT bridge on the machine Mosquitto', () => {
    let subscriber: MqttClient;
    const received: Received[] = [];
    const senders: Sender[] = [];
    const open = (c: MqttBridgeConfig) => {
        const sender = mqttBridgeDestination.open(c, { log });
        senders.push(sender);
        return sender;
    };

    beforeAll(async () => {
        subscriber = await mqtt.connectAsync(`mqtt://${HOST}:${PORT}`, { clientId: randomName('fwd-sub-') });
        subscriber.on('message', (topic, payload, packet) =>
            received.push({ topic, body: JSON.parse(payload.toString()), retain: packet.retain, qos: packet.qos }),
        );
        await subscriber.subscribeAsync(`${prefix}/#`, { qos: 1 });
    });

    afterAll(async () => {
        for (const sender of senders) await sender.close();
        await subscriber?.endAsync();
    });

    const idsOf = (items: Received[]) => items.map((m) => (m.body as { id: string }).id);

    it('publishes the records in order with the body on the rendered topic', async () => {
        const records = [...sampleRecords(3, 'pkM', 'd1'), ...sampleRecords(2, 'pkM', 'd2', 3)];
        await open(config()).send(records);
        const got = await until(() => {
            const mine = received.filter((m) => records.some((r) => r.id === (m.body as { id: string }).id));
            expect(mine).toHaveLength(records.length);
            return mine;
        });
        expect(got.map((m) => m.topic)).toEqual([
            ...Array(3).fill(`${prefix}/pkM/d1`),
            ...Array(2).fill(`${prefix}/pkM/d2`),
        ]);
        expect(got.map((m) => m.body)).toEqual(records.map(expectedBody));
        expect(got.every((m) => m.qos === 1 && !m.retain)).toBe(true);
    });

    it('test() passes on the machine broker', async () => {
        await open(config()).test();
    });

    it('a topic the records make invalid is a permanent error', async () => {
        const sender = open(config({ topicTemplate: `${prefix}/\${label}` }));
        const [record] = sampleRecords(1);
        record.row.label = 'a/#/b';
        const err = await sender.send([record]).catch((e: unknown) => e);
        expect(err).toMatchObject({ name: 'DestinationError', permanent: true });
        expect((err as Error).message).toContain('MQTT 主题无效');
        // The connection stays up: the next batch goes through.
        await sender.send(sampleRecords(1));
    });

    it('fails at once while disconnected and sends again after the reconnect', async () => {
        const proxy = await tcpProxy(PORT);
        try {
            const sender = open(config({ url: `mqtt://${HOST}:${proxy.port}` }));
            const before = sampleRecords(1, 'pkR', 'd');
            await sender.send(before);
            proxy.cut();
            const started = Date.now();
            await until(() => expectTransient(sender.send(sampleRecords(1, 'pkR', 'd', 1)), /断开/));
            expect(Date.now() - started).toBeLessThan(3_000);
            proxy.restore();
            const after = sampleRecords(2, 'pkR', 'd', 2);
            await until(() => sender.send(after), 10_000);
            const expected = [...before, ...after].map((r) => r.id);
            await until(() => expect(idsOf(received)).toEqual(expect.arrayContaining(expected)));
        } finally {
            await proxy.close();
        }
    }, 20_000);
});
