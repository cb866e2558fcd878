import { once } from 'node:events';
import { connect } from 'node:net';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redisStreamDestination, type RedisStreamConfig } from '../../server/forward/destinations/redisStream';
import type { Sender } from '../../server/forward/destinations/types';
import {
    closedPort,
    expectRefusal,
    randomName,
    record,
    refusalOf,
    serviceReachable,
    silentContext,
} from './forwardSupport';

/**
 * The Redis Stream destination against the machine's Redis (127.0.0.1:6379, database 0), on streams of its own
 * (random names), deleted after.
 */

const available = await serviceReachable('Redis', 6379);

/**
 * MONITOR on a socket of its own: each command the server runs, as [source, command (lower case), ...arguments].
 * ioredis' monitor() was not used: on a busy server a monitored line that arrives in the same chunk as MONITOR's +OK
 * is taken as a reply to no command ("Command queue state error"). Redis sends each monitored command as one RESP
 * simple string, a line with its quotes and control characters escaped, so splitting on CRLF is exact.
 */
async function monitorRedis() {
    const socket = connect(6379, '127.0.0.1');
    await once(socket, 'connect');
    socket.setEncoding('utf8');
    let buffered = '';
    const lines: string[] = [];
    socket.on('data', (chunk: string) => {
        const parts = (buffered + chunk).split('\r\n');
        buffered = parts.pop()!;
        lines.push(...parts);
    });
    socket.write('MONITOR\r\n');
    await expect.poll(() => lines[0], { timeout: 5000 }).toBe('+OK');
    const parse = (line: string) => {
        const [, source, rest] = /^\+\S+ \[\d+ ([^\]]+)\] (.*)$/.exec(line)!;
        const args = [...rest.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((m) => m[1]);
        return [source, args[0].toLowerCase(), ...args.slice(1)];
    };
    return {
        stop() {
            socket.destroy();
            return lines.slice(1).map(parse);
        },
    };
}

describe.skipIf(!available)('forwarding to a Redis Stream', () => {
    const admin = new Redis({ host: '127.0.0.1', port: 6379, lazyConnect: true });
    const prefix = randomName('fwd:test');
    const senders: Sender[] = [];

    const open = async (extra: Record<string, unknown> = {}) => {
        const raw = { host: '127.0.0.1', streamTemplate: `${prefix}:\${productKey}`, ...extra };
        const config = await redisStreamDestination.schema.validate(raw);
        const sender = redisStreamDestination.open(config as RedisStreamConfig, silentContext);
        senders.push(sender);
        return sender;
    };
    const entries = async (key: string) => (await admin.xrange(key, '-', '+')).map(([, fields]) => fields);

    /** The ids of the connections named iot-forward (this file's senders among them). */
    const forwardClients = async () =>
        String(await admin.call('CLIENT', 'LIST', 'TYPE', 'normal'))
            .split('\n')
            .filter((line) => line.includes(' name=iot-forward '))
            .map((line) => /id=(\d+)/.exec(line)![1]);

    beforeAll(() => admin.connect());

    afterAll(async () => {
        await Promise.all(senders.map((s) => s.close()));
        const keys = await admin.keys(`${prefix}*`);
        if (keys.length) await admin.del(...keys);
        admin.disconnect();
    });

    it('adds one entry per record, in order, with the selected columns and _id, _device, _ts', async () => {
        const sender = await open();
        const sent = [
            record(1, { temp: 21.5, on: true, meta: { a: [1] }, none: null }),
            record(2, { temp: -3, text: '温度 "x"', _id: 'shadowed' }),
        ];
        await sender.send(sent);
        expect(await entries(`${prefix}:pk1`)).toEqual([
            [
                'temp',
                '21.5',
                'on',
                'true',
                'meta',
                '{"a":[1]}',
                'none',
                '',
                '_id',
                sent[0].id,
                '_device',
                'pk1/d-1',
            ].concat(['_ts', String(sent[0].ts)]),
            ['temp', '-3', 'text', '温度 "x"', '_id', sent[1].id, '_device', 'pk1/d-2', '_ts', String(sent[1].ts)],
        ]);
    });

    it('sends a batch of 500 as one MULTI/EXEC, each record to the stream its template names', async () => {
        const sender = await open({ streamTemplate: `${prefix}:\${deviceName}`, maxLen: 1000 });
        const monitor = await monitorRedis();
        const batch = Array.from({ length: 500 }, (_, i) => record(i % 2, { n: i }));
        await sender.send(batch);
        await new Promise((resolve) => setTimeout(resolve, 200));
        const seen = monitor.stop();
        const ours = seen.filter((line) => line[1] === 'xadd' && String(line[2]).startsWith(prefix));
        expect(ours).toHaveLength(500);
        const source = ours[0][0];
        // After the connection's own set-up (CLIENT SETNAME, INFO): the batch.
        const fromSender = seen.filter((line) => line[0] === source && !['client', 'info'].includes(line[1]));
        expect(fromSender.map((line) => line[1])).toEqual(['multi', ...new Array(500).fill('xadd'), 'exec']);
        expect((await entries(`${prefix}:d-0`)).map((f) => f[1])).toEqual(
            batch.filter((_, i) => i % 2 === 0).map((r) => String(r.row.n)),
        );
        expect(await admin.xlen(`${prefix}:d-1`)).toBe(250);
    });

    it('trims the stream to about maxLen', async () => {
        const sender = await open({ streamTemplate: `${prefix}:trim`, maxLen: 10 });
        for (let i = 0; i < 5; i++) await sender.send(Array.from({ length: 200 }, (_, k) => record(k, { n: k })));
        const length = await admin.xlen(`${prefix}:trim`);
        expect(length).toBeGreaterThanOrEqual(10);
        expect(length).toBeLessThan(1000);
    });

    it('refuses a key of another type as permanent; test() names its type', async () => {
        const key = `${prefix}:string`;
        await admin.set(key, 'x');
        const sender = await open({ streamTemplate: key });
        await expectRefusal(sender.send([record(1, { n: 1 })]), true, /不是 Stream/);
        await expectRefusal(sender.test(), false, new RegExp(`键 ${key} 已存在且类型为 string`));
    });

    it('refuses a template that renders an empty key as permanent', async () => {
        const sender = await open({ streamTemplate: '${missing}' });
        await expectRefusal(sender.send([record(1, { n: 1 })]), true, /生成了空的键名/);
    });

    it('answers a closed port with a transient error, and connects again once it can', async () => {
        const sender = await open({ port: await closedPort() });
        await expectRefusal(sender.send([record(1, { n: 1 })]), false, /无法连接 Redis 127\.0\.0\.1:\d+：连接被拒绝/);
        await expectRefusal(sender.test(), false, /无法连接 Redis/);
        const before = await forwardClients();
        const good = await open({ streamTemplate: `${prefix}:again` });
        await good.send([record(1, { n: 1 })]);
        const mine = (await forwardClients()).filter((id) => !before.includes(id));
        expect(mine).toHaveLength(1);
        await admin.client('KILL', 'ID', mine[0]);
        await new Promise((resolve) => setTimeout(resolve, 200));
        await good.send([record(2, { n: 2 })]);
        expect((await entries(`${prefix}:again`)).map((f) => f[1])).toEqual(['1', '2']);
    });

    it('tests the connection: passes on a good server and a new or stream key', async () => {
        await expect((await open()).test()).resolves.toBeUndefined();
        await expect((await open({ streamTemplate: `${prefix}:none` })).test()).resolves.toBeUndefined();
    });
});

describe('the Redis Stream destination configuration', () => {
    const schema = redisStreamDestination.schema;
    const good = { host: 'r.local', streamTemplate: ' iot:${productKey} ' };

    it('fills defaults, trims texts and lists the password as secret', async () => {
        const config = await schema.validate({ ...good, maxLen: '' });
        expect(config).toMatchObject({ port: 6379, db: 0, streamTemplate: 'iot:${productKey}', password: '' });
        expect(config.maxLen).toBeUndefined();
        expect(redisStreamDestination.secretFields).toEqual(['password']);
    });

    it('refuses bad ports, databases, lengths, unknown keys, NUL and a missing template', async () => {
        expect(await refusalOf(() => schema.validate({ ...good, port: 1.5 }))).toBe('端口必须是 1-65535 的整数');
        expect(await refusalOf(() => schema.validate({ ...good, db: 256 }))).toBe('数据库编号必须是 0-255 的整数');
        expect(await refusalOf(() => schema.validate({ ...good, maxLen: 0 }))).toMatch(/最大长度（MAXLEN）必须是/);
        expect(await refusalOf(() => schema.validate({ ...good, table: 't' }))).toMatch(/未知字段：table/);
        expect(await refusalOf(() => schema.validate({ ...good, streamTemplate: 'a\u0000' }))).toMatch(/含有非法字符/);
        expect(await refusalOf(() => schema.validate({ host: 'r' }))).toBe('请填写Stream 键模板');
    });
});
