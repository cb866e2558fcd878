import { Kafka, logLevel, type KafkaMessage } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kafkaDestination, type KafkaConfig } from '../../server/forward/destinations/kafka';
import type { Sender } from '../../server/forward/destinations/types';
import {
    closedPort,
    expectedBody,
    expectTransient,
    portOpen,
    randomName,
    sampleRecords,
    tcpProxy,
    until,
} from './forwardSupport';

/**
 * The Kafka destination. The configuration checks and the failures need no broker (a closed port, a TCP proxy that
 * accepts and drops); the delivery test needs one on KAFKA_BROKERS (default 127.0.0.1:9092) and is skipped, saying
 * so, when none answers. This machine has no Kafka; a run that sets KAFKA_BROKERS and E2E_REQUIRED requires it.
 */

const BROKERS = process.env.KAFKA_BROKERS || '127.0.0.1:9092';
const [brokerHost, brokerPort] = BROKERS.split(',')[0].trim().split(':');
const available = await portOpen(brokerHost, Number(brokerPort));
if (!available && process.env.KAFKA_BROKERS && process.env.E2E_REQUIRED)
    throw new Error(`Kafka (${BROKERS}) is not reachable`);
if (!available) console.log(`skipped: the Kafka delivery tests, no broker answers on ${BROKERS} (set KAFKA_BROKERS)`);

const log = (): void => undefined;

function config(overrides: Record<string, unknown> = {}): KafkaConfig {
    return kafkaDestination.schema.validateSync({
        brokers: BROKERS,
        topicTemplate: 'iot-${productKey}',
        ...overrides,
    });
}

describe('Kafka destination configuration', () => {
    it('fills the defaults; the SASL block is the secret', () => {
        expect(config({ brokers: ' a:9092, b:9093 ' })).toEqual({
            brokers: 'a:9092, b:9093',
            clientId: 'iot-forward',
            topicTemplate: 'iot-${productKey}',
            ssl: false,
            acks: -1,
        });
        const sasl = { mechanism: 'scram-sha-256', username: 'u', password: ' p ' };
        expect(config({ sasl }).sasl).toEqual(sasl);
        expect(kafkaDestination.secretFields).toEqual(['sasl']);
        expect(kafkaDestination.kind).toBe('kafka');
    });

    it.each([
        [{ brokers: '' }, '请填写Broker 地址'],
        [{ brokers: 'a:9092,b' }, 'Broker 地址格式不正确'],
        [{ topicTemplate: '' }, '请填写主题模板'],
        [{ acks: 0 }, '确认级别应为 -1（全部副本）或 1（仅 leader）'],
        [{ clientId: 'a\u0000' }, '客户端标识含有非法字符（空字符）'],
        [{ sasl: { mechanism: 'gssapi', username: 'u', password: 'p' } }, 'SASL 机制应为'],
        [{ sasl: { mechanism: 'plain', username: 'u' } }, '请填写 SASL 密码'],
        [{ sasl: { mechanism: 'plain', username: 'u', password: 'p', realm: 'x' } }, '配置含有未知字段：realm'],
        [{ partitions: 3 }, '配置含有未知字段：partitions'],
    ])('refuses %j: %s', (overrides, message) => {
        expect(() => config(overrides)).toThrow(message);
    });
});

describe('Kafka destination without a broker', () => {
    it('a send to a closed port fails as a transient error in Chinese within seconds', async () => {
        const sender = kafkaDestination.open(config({ brokers: `127.0.0.1:${await closedPort()}` }), { log });
        const started = Date.now();
        await expectTransient(sender.send(sampleRecords(2)), /无法连接 Kafka 127\.0\.0\.1:\d+：连接被拒绝/);
        await expectTransient(sender.test(), /连接被拒绝/);
        expect(Date.now() - started).toBeLessThan(15_000);
        await sender.close();
    }, 20_000);

    it('a broker that accepts and then drops the connection is transient too, and bounded', async () => {
        const proxy = await tcpProxy(await closedPort());
        try {
            const sender = kafkaDestination.open(config({ brokers: `127.0.0.1:${proxy.port}` }), { log });
            const started = Date.now();
            await expectTransient(sender.send(sampleRecords(1)), /Kafka 127\.0\.0\.1:\d+/);
            expect(Date.now() - started).toBeLessThan(15_000);
            await sender.close();
        } finally {
            await proxy.close();
        }
    }, 20_000);
});

describe.skipIf(!available)('Kafka destination on a broker', () => {
    const kafka = new Kafka({ clientId: 'forward-test', brokers: BROKERS.split(','), logLevel: logLevel.NOTHING });
    const admin = kafka.admin();
    const topic = randomName('fwd-');
    const senders: Sender[] = [];
    const open = (c: KafkaConfig) => {
        const sender = kafkaDestination.open(c, { log });
        senders.push(sender);
        return sender;
    };

    beforeAll(async () => {
        await admin.connect();
        await admin.createTopics({ topics: [{ topic, numPartitions: 3 }], waitForLeaders: true });
    }, 30_000);

    afterAll(async () => {
        for (const sender of senders) await sender.close();
        await admin.deleteTopics({ topics: [topic] }).catch(() => undefined);
        await admin.disconnect();
    });

    it('delivers keyed by productKey/deviceName, in order per device, with the body and message id', async () => {
        const records = [...sampleRecords(3, 'pkK', 'd1'), ...sampleRecords(3, 'pkK', 'd2', 3)];
        await open(config({ topicTemplate: topic })).send(records);
        const consumer = kafka.consumer({ groupId: randomName('fwd-g-') });
        const got: KafkaMessage[] = [];
        await consumer.connect();
        await consumer.subscribe({ topic, fromBeginning: true });
        await consumer.run({ eachMessage: async ({ message }) => void got.push(message) });
        try {
            await until(() => expect(got).toHaveLength(records.length), 30_000);
        } finally {
            await consumer.disconnect();
        }
        for (const device of ['d1', 'd2']) {
            const sent = records.filter((r) => r.deviceName === device);
            const mine = got.filter((m) => m.key?.toString() === `pkK/${device}`);
            expect(mine.map((m) => m.headers?.messageId?.toString())).toEqual(sent.map((r) => r.id));
            expect(mine.map((m) => JSON.parse(m.value!.toString()))).toEqual(sent.map(expectedBody));
        }
    }, 60_000);

    it('test() passes for an existing topic and names a missing one', async () => {
        await open(config({ topicTemplate: topic })).test();
        await expect(open(config({ topicTemplate: `${topic}-none` })).test()).rejects.toThrow(
            `主题不存在，请先创建主题（主题 ${topic}-none）`,
        );
    }, 30_000);
});
