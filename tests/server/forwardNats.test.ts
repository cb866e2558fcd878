import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { connect, type Msg, type NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { natsDestination, type NatsConfig } from '../../server/forward/destinations/nats';
import type { ForwardRecord, Sender } from '../../server/forward/destinations/types';
import {
    closedPort,
    expectedBody,
    expectTransient,
    randomName,
    sampleRecords,
    portOpen,
    serviceReachable,
    tcpProxy,
    until,
} from './forwardSupport';

/**
 * The NATS destination against the machine's server with JetStream (127.0.0.1:4222): core publishes checked by a
 * subscriber of the test's own, JetStream publishes by a stream with a random name and subject, deleted after.
 */

const HOST = '127.0.0.1';
const PORT = 4222;
const available = await serviceReachable('NATS', PORT, HOST);
const NATS_SERVER = '/usr/sbin/nats-server';

const log = (): void => undefined;
const prefix = randomName('fwd');
const streamName = randomName('FWD_');

function config(overrides: Partial<NatsConfig> = {}): NatsConfig {
    return natsDestination.schema.validateSync({
        servers: `nats://${HOST}:${PORT}`,
        subjectTemplate: `${prefix}.\${productKey}.\${deviceName}`,
        ...overrides,
    });
}

describe('NATS destination configuration', () => {
    it('fills the defaults and keeps the password and token secrets', () => {
        expect(natsDestination.schema.validateSync({ servers: ' nats://a:4222, b:4223 ' })).toEqual({
            servers: 'nats://a:4222, b:4223',
            subjectTemplate: 'iot.${productKey}.${deviceName}',
            jetstream: false,
        });
        expect(natsDestination.secretFields).toEqual(['password', 'token']);
        expect(natsDestination.kind).toBe('nats');
    });

    it.each([
        [{ servers: '' }, '请填写服务器地址'],
        [{ servers: 'http://a b' }, '服务器地址格式不正确'],
        [{ subjectTemplate: ' ' }, '请填写主题模板'],
        [{ token: 'a\u0000' }, '令牌含有非法字符（空字符）'],
        [{ jetstream: 'maybe' }, 'JetStream必须是布尔值'],
        [{ stream: 's' }, '配置含有未知字段：stream'],
    ])('refuses %j: %s', (overrides, message) => {
        expect(() => config(overrides as Partial<NatsConfig>)).toThrow(message);
    });
});

describe('NATS destination closed port', () => {
    it('fails a send at once as a transient error in Chinese', async () => {
        const sender = natsDestination.open(config({ servers: `nats://${HOST}:${await closedPort()}` }), { log });
        const started = Date.now();
        await expectTransient(sender.send(sampleRecords(1)), /无法连接 NATS/);
        await expectTransient(sender.test(), /无法连接 NATS/);
        expect(Date.now() - started).toBeLessThan(3_000);
        await sender.close();
    });
});

describe.skipIf(!available || !existsSync(NATS_SERVER))('NATS destination with credentials', () => {
    let server: ChildProcess;
    let port: number;

    beforeAll(async () => {
        port = await closedPort();
        server = spawn(NATS_SERVER, ['-a', HOST, '-p', String(port), '--user', 'fwd', '--pass', 'secret-1']);
        await until(async () => expect(await portOpen(HOST, port)).toBe(true));
    });

    afterAll(() => {
        server?.kill();
    });

    it('test() passes with the right password and says the credentials are wrong otherwise', async () => {
        const servers = `nats://${HOST}:${port}`;
        const good = natsDestination.open(config({ servers, user: 'fwd', password: 'secret-1' }), { log });
        await good.test();
        await good.close();
        const bad = natsDestination.open(config({ servers, user: 'fwd', password: 'wrong' }), { log });
        await expectTransient(bad.test(), /用户名、密码或令牌错误/);
        await bad.close();
    });
});

describe.skipIf(!available)('NATS destination on the machine server', () => {
    let nc: NatsConnection;
    let jsm: JetStreamManager;
    const received: Msg[] = [];
    const senders: Sender[] = [];
    const open = (c: NatsConfig) => {
        const sender = natsDestination.open(c, { log });
        senders.push(sender);
        return sender;
    };

    beforeAll(async () => {
        nc = await connect({ servers: `${HOST}:${PORT}` });
        jsm = await jetstreamManager(nc);
        await jsm.streams.add({ name: streamName, subjects: [`${prefix}.js.>`] });
        nc.subscribe(`${prefix}.core.>`, { callback: (_err, msg) => void received.push(msg) });
        await nc.flush();
    });

    afterAll(async () => {
        for (const sender of senders) await sender.close();
        await jsm?.streams.delete(streamName).catch(() => undefined);
        await nc?.close();
    });

    const coreConfig = (overrides: Partial<NatsConfig> = {}) =>
        config({ subjectTemplate: `${prefix}.core.\${productKey}.\${deviceName}`, ...overrides });
    const jsConfig = (overrides: Partial<NatsConfig> = {}) =>
        config({ subjectTemplate: `${prefix}.js.\${productKey}.\${deviceName}`, jetstream: true, ...overrides });
    const mine = (records: ForwardRecord[]) =>
        received.filter((m) => records.some((r) => r.id === m.headers?.get('Nats-Msg-Id')));

    it('core NATS: the records arrive in order with the body, subject and message id', async () => {
        const records = [...sampleRecords(3, 'pkN', 'd1'), ...sampleRecords(2, 'pkN', 'd2', 3)];
        await open(coreConfig()).send(records);
        // send resolved after the flush: the server has routed them, the subscriber may still be reading.
        const got = await until(() => {
            const m = mine(records);
            expect(m).toHaveLength(records.length);
            return m;
        });
        expect(got.map((m) => m.headers?.get('Nats-Msg-Id'))).toEqual(records.map((r) => r.id));
        expect(got.map((m) => m.subject)).toEqual([
            ...Array(3).fill(`${prefix}.core.pkN.d1`),
            ...Array(2).fill(`${prefix}.core.pkN.d2`),
        ]);
        expect(got.map((m) => m.json())).toEqual(records.map(expectedBody));
    });

    it('JetStream: stored in order with msgID = record id, a record sent twice stored once', async () => {
        const before = (await jsm.streams.info(streamName)).state.last_seq;
        const records = sampleRecords(4, 'pkJ', 'd1');
        const sender = open(jsConfig());
        await sender.send(records);
        await sender.send([records[3]]);
        const info = await jsm.streams.info(streamName);
        expect(info.state.last_seq - before).toBe(records.length);
        const stored = [];
        for (let seq = before + 1; seq <= info.state.last_seq; seq++)
            stored.push(await jsm.streams.getMessage(streamName, { seq }));
        expect(stored.map((m) => m!.header.get('Nats-Msg-Id'))).toEqual(records.map((r) => r.id));
        expect(stored.map((m) => m!.subject)).toEqual(records.map(() => `${prefix}.js.pkJ.d1`));
        expect(stored.map((m) => m!.json())).toEqual(records.map(expectedBody));
    });

    it('JetStream without a stream for the subject: transient, naming the subject', async () => {
        const sender = open(config({ subjectTemplate: `${prefix}.none.\${deviceName}`, jetstream: true }));
        await expectTransient(
            sender.send(sampleRecords(1)),
            new RegExp(`没有 JetStream 流匹配主题 ${prefix}.none.lamp-1`),
        );
        await expectTransient(sender.test(), new RegExp(`没有 JetStream 流匹配主题 ${prefix}.none.deviceName`));
    });

    it('test() passes when a stream takes the sample subject and on core NATS', async () => {
        await open(jsConfig()).test();
        await open(coreConfig()).test();
    });

    it('fails at once while disconnected and sends again after the reconnect', async () => {
        const proxy = await tcpProxy(PORT);
        try {
            const sender = open(coreConfig({ servers: `nats://${HOST}:${proxy.port}` }));
            const before = sampleRecords(1, 'pkR', 'd');
            await sender.send(before);
            proxy.cut();
            const started = Date.now();
            await expectTransient(sender.send(sampleRecords(1, 'pkR', 'd', 1)));
            expect(Date.now() - started).toBeLessThan(6_000);
            proxy.restore();
            const after = sampleRecords(2, 'pkR', 'd', 2);
            await until(() => sender.send(after), 10_000);
            await until(() => expect(mine([...before, ...after])).toHaveLength(3));
        } finally {
            await proxy.close();
        }
    }, 20_000);

    it('JetStream: a batch resent after a reconnect is stored once', async () => {
        const proxy = await tcpProxy(PORT);
        try {
            const sender = open(jsConfig({ servers: `nats://${HOST}:${proxy.port}` }));
            const before = (await jsm.streams.info(streamName)).state.last_seq;
            const batch = sampleRecords(3, 'pkD', 'd');
            await sender.send(batch);
            proxy.cut();
            await expectTransient(sender.send(sampleRecords(1, 'pkD', 'd', 3)));
            proxy.restore();
            // The delivery loop retries the whole batch: JetStream drops the ids it already stored.
            const retried = [...batch, ...sampleRecords(1, 'pkD', 'd', 4)];
            await until(() => sender.send(retried), 10_000);
            const info = await jsm.streams.info(streamName);
            expect(info.state.last_seq - before).toBe(4);
            const last = await jsm.streams.getMessage(streamName, { seq: info.state.last_seq });
            expect(last!.header.get('Nats-Msg-Id')).toBe(retried[3].id);
        } finally {
            await proxy.close();
        }
    }, 20_000);
});
