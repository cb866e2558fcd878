import amqp, { type Channel, type ChannelModel, type ConsumeMessage } from 'amqplib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rabbitmqDestination, type RabbitmqConfig } from '../../server/forward/destinations/rabbitmq';
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
 * The RabbitMQ destination against the machine's broker (127.0.0.1:5672, guest/guest): each test file declares an
 * exchange and a queue of its own (random names), consumes what the sender published and deletes both after.
 */

const HOST = '127.0.0.1';
const PORT = 5672;
const available = await serviceReachable('RabbitMQ', PORT, HOST);

const log = (): void => undefined;

function config(overrides: Partial<RabbitmqConfig> = {}): RabbitmqConfig {
    return rabbitmqDestination.schema.validateSync({
        host: HOST,
        password: 'guest',
        exchange: exchangeName,
        routingKeyTemplate: 'iot.${productKey}.${deviceName}',
        ...overrides,
    });
}

const exchangeName = randomName('fwd_ex_');
const queueName = randomName('fwd_q_');

describe('RabbitMQ destination configuration', () => {
    it('fills the defaults and keeps the password a secret', () => {
        const c = config();
        expect(c).toMatchObject({ port: 5672, username: 'guest', vhost: '/', tls: false, persistent: true });
        expect(rabbitmqDestination.secretFields).toEqual(['password']);
        expect(rabbitmqDestination.kind).toBe('rabbitmq');
    });

    it('accepts the default exchange and trims text', () => {
        expect(config({ exchange: '', host: `  ${HOST} ` })).toMatchObject({ exchange: '', host: HOST });
    });

    it.each([
        [{ host: '' }, '请填写主机'],
        [{ exchange: undefined }, '请填写交换机'],
        [{ routingKeyTemplate: ' ' }, '请填写路由键模板'],
        [{ port: 70_000 }, '端口必须是 1-65535 的整数'],
        [{ host: 'a\u0000b' }, '主机含有非法字符（空字符）'],
        [{ exchange: 'x\u0000' }, '交换机含有非法字符（空字符）'],
        [{ queue: 'q' }, '配置含有未知字段：queue'],
    ])('refuses %j: %s', (overrides, message) => {
        expect(() => config(overrides as Partial<RabbitmqConfig>)).toThrow(message);
    });
});

describe('RabbitMQ destination closed port', () => {
    it('fails a send at once as a transient error in Chinese', async () => {
        const sender = rabbitmqDestination.open(config({ port: await closedPort() }), { log });
        const started = Date.now();
        await expectTransient(sender.send(sampleRecords(1)), /无法连接 RabbitMQ .*连接被拒绝/);
        await expectTransient(sender.test(), /连接被拒绝/);
        expect(Date.now() - started).toBeLessThan(3_000);
        await sender.close();
    });
});

describe.skipIf(!available)('RabbitMQ destination on the machine broker', () => {
    let admin: ChannelModel;
    let channel: Channel;
    const received: ConsumeMessage[] = [];
    const senders: Sender[] = [];
    const open = (c: RabbitmqConfig) => {
        const sender = rabbitmqDestination.open(c, { log });
        senders.push(sender);
        return sender;
    };

    beforeAll(async () => {
        admin = await amqp.connect(`amqp://guest:guest@${HOST}:${PORT}`);
        channel = await admin.createChannel();
        await channel.assertExchange(exchangeName, 'topic', { durable: false, autoDelete: false });
        await channel.assertQueue(queueName, { durable: false, autoDelete: false });
        await channel.bindQueue(queueName, exchangeName, 'iot.#');
        await channel.consume(queueName, (m) => m && received.push(m), { noAck: true });
    });

    afterAll(async () => {
        for (const sender of senders) await sender.close();
        await channel?.deleteQueue(queueName);
        await channel?.deleteExchange(exchangeName);
        await admin?.close();
    });

    const receivedIds = () => received.map((m) => m.properties.messageId as string);

    it('publishes the records in order with the body, routing key and message id', async () => {
        const sender = open(config());
        const records = [...sampleRecords(3, 'pkA', 'lamp-1'), ...sampleRecords(2, 'pkA', 'lamp-2', 3)];
        await sender.send(records);
        const got = await until(() => {
            const mine = received.filter((m) => records.some((r) => r.id === m.properties.messageId));
            expect(mine).toHaveLength(records.length);
            return mine;
        });
        expect(got.map((m) => m.properties.messageId)).toEqual(records.map((r) => r.id));
        expect(got.map((m) => m.fields.routingKey)).toEqual([
            'iot.pkA.lamp-1',
            'iot.pkA.lamp-1',
            'iot.pkA.lamp-1',
            'iot.pkA.lamp-2',
            'iot.pkA.lamp-2',
        ]);
        expect(got.map((m) => JSON.parse(m.content.toString('utf8')))).toEqual(records.map(expectedBody));
        expect(got[0].properties.contentType).toBe('application/json');
        expect(got[0].properties.deliveryMode).toBe(2);
    });

    it('test() passes on a good configuration and names a missing exchange or bad credentials', async () => {
        await open(config()).test();
        await expect(open(config({ exchange: 'no_such_' + exchangeName })).test()).rejects.toThrow(
            `交换机 no_such_${exchangeName} 不存在`,
        );
        await expect(open(config({ password: 'wrong-password' })).test()).rejects.toThrow('用户名或密码错误');
    });

    it('a send to a missing exchange is transient and names the exchange; the sender recovers after', async () => {
        const missing = 'no_such_' + exchangeName;
        const sender = open(config({ exchange: missing }));
        await expectTransient(sender.send(sampleRecords(1)), new RegExp(`交换机 ${missing} 不存在`));
        await channel.assertExchange(missing, 'topic', { durable: false });
        try {
            await sender.send(sampleRecords(1));
        } finally {
            await channel.deleteExchange(missing);
        }
    });

    it('reconnects on the next send after the connection dropped', async () => {
        const proxy = await tcpProxy(PORT);
        try {
            const sender = open(config({ port: proxy.port }));
            const before = sampleRecords(1, 'pkR', 'dev');
            await sender.send(before);
            proxy.cut();
            const started = Date.now();
            await expectTransient(sender.send(sampleRecords(1, 'pkR', 'dev', 1)));
            expect(Date.now() - started).toBeLessThan(5_000);
            proxy.restore();
            const after = sampleRecords(2, 'pkR', 'dev', 2);
            await sender.send(after);
            await until(() =>
                expect(receivedIds()).toEqual(expect.arrayContaining([...before, ...after].map((r) => r.id))),
            );
        } finally {
            await proxy.close();
        }
    });
});
