import type { MqttClient } from 'mqtt';
import { sql } from 'drizzle-orm';
import rhea from 'rhea';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { amqpCredentials } from '../../server/amqp/signIn';
import { rowsOf } from '../../server/db/rows';
import { accessKeys } from '../../server/db/schema';
import { createTestServer, type TestServer } from '../../server/testing';
import { until, type Broker } from './mqttSupport';
import {
    consume,
    createAccessKey,
    lampDevice,
    ok200,
    refusal,
    startDelivery,
    subscribeLamp,
    type Consumer,
} from './amqpSupport';
import { call, form } from './support';

/**
 * Server-side subscription over AMQP 1.0 with a real rhea consumer signing in as Alibaba's samples do: sign-in
 * variants, delivery with Alibaba's application properties, redelivery of released messages, load sharing within a
 * group, and credit-based flow control.
 */

let s: TestServer;
let broker: Broker;
let mqttUrl: string;
let port: number;
let key: { id: number; accessKey: string; accessSecret: string };
const consumers: Consumer[] = [];
const devices: MqttClient[] = [];

async function consumer(opts: Omit<Parameters<typeof consume>[1], 'accessKey' | 'accessSecret'>) {
    const c = await consume(port, { ...key, ...opts });
    consumers.push(c);
    return c;
}

async function device() {
    const d = await lampDevice(s, mqttUrl);
    devices.push(d.client);
    return d;
}

beforeAll(async () => {
    s = await createTestServer({ amqp: { pollMs: 100 } });
    ({ broker, url: mqttUrl, amqpPort: port } = await startDelivery(s));
    key = await createAccessKey(s);
});

afterAll(async () => {
    for (const c of consumers) await c.close().catch(() => undefined);
    for (const d of devices) d.end(true);
    await broker?.close();
    await s?.close();
});

describe('sign-in', () => {
    it.each(['hmacsha1', 'hmacsha256'] as const)('accepts an AccessKey signature made with %s', async (signMethod) => {
        const { groupId } = await subscribeLamp(s);
        const c = await consumer({ groupId, signMethod });
        expect(c.connection.is_open()).toBe(true);
    });

    it('accepts the project code as iotInstanceId', async () => {
        const { groupId, projectCode } = await subscribeLamp(s);
        const c = await consumer({ groupId, iotInstanceId: projectCode });
        expect(c.connection.is_open()).toBe(true);
    });

    it('refuses a wrong secret and an unknown AccessKey at SASL', async () => {
        const { groupId } = await subscribeLamp(s);
        expect(await refusal(port, { ...key, accessSecret: 'wrong', groupId })).toMatchObject({
            condition: 'amqp:unauthorized-access',
        });
        expect(await refusal(port, { ...key, accessKey: 'LTAInoSuchKey', groupId })).toMatchObject({
            condition: 'amqp:unauthorized-access',
        });
    });

    it('closes a sign-in the database cannot check as forced: rhea reconnects and is delivered to once it answers', async () => {
        const { groupId } = await subscribeLamp(s);
        // The database fails every query (a blip) until the consumer has been closed once.
        const select = s.db.select.bind(s.db);
        let down = true;
        const failing = vi.spyOn(s.db, 'select').mockImplementation(((...args: Parameters<typeof select>) => {
            if (down) throw new Error('connection to the database lost');
            return select(...args);
        }) as typeof select);
        const creds = amqpCredentials({ clientId: 'blip', ...key, consumerGroupId: groupId });
        const connection = rhea.create_container().connect({
            host: '127.0.0.1',
            port,
            username: creds.username,
            password: creds.password,
            reconnect: true,
            initial_reconnect_delay: 50,
            max_reconnect_delay: 200,
        });
        const errors: Array<{ condition?: string; description?: string }> = [];
        const bodies: string[] = [];
        connection.on('connection_error', (context) => {
            errors.push(context.error as never);
            failing.mockRestore();
            down = false;
        });
        connection.on('disconnected', () => undefined);
        connection.on('message', (context) => {
            const body = context.message?.body as { content?: Buffer } | Buffer;
            bodies.push(String(Buffer.isBuffer(body) ? body : body?.content));
        });
        try {
            connection.open_receiver({ source: { address: 'default' } });
            await until(() => errors.length > 0);
            expect(errors[0]).toMatchObject({
                condition: 'amqp:connection:forced',
                description: '平台暂时无法校验登录（数据库不可用），请稍后重新连接',
            });
            // Reconnected by itself, signed in, and its group's messages come.
            const d = await device();
            await until(async () => {
                await d.post({ Brightness: 61 });
                return bodies.some((b) => b.includes('"Brightness"'));
            }, 10_000);
            expect(errors).toHaveLength(1);
        } finally {
            failing.mockRestore();
            connection.close();
        }
    });

    it("keeps a reconnection's sign-in when an earlier check of the same username fails after it (a slow database blip)", async () => {
        const { groupId } = await subscribeLamp(s);
        const creds = amqpCredentials({ clientId: 'late', ...key, consumerGroupId: groupId });
        // The first sign-in's AccessKey lookup hangs until `fail` (a query slowed by a blip); later ones answer, and so
        // does every other select (the server's own reads, made meanwhile, are not held).
        let fail: ((err: Error) => void) | undefined;
        const select = s.db.select.bind(s.db);
        const held = vi.spyOn(s.db, 'select').mockImplementation(((...args: Parameters<typeof select>) => {
            const query = select(...args);
            return {
                from: (table: typeof accessKeys) =>
                    table === accessKeys && !fail
                        ? { where: () => new Promise((_, reject) => (fail = reject)) }
                        : query.from(table),
            };
        }) as unknown as typeof s.db.select);
        const open = (reconnect: boolean) =>
            rhea.create_container().connect({
                host: '127.0.0.1',
                port,
                username: creds.username,
                password: creds.password,
                reconnect,
            });
        const first = open(false);
        first.on('connection_error', () => undefined);
        first.on('disconnected', () => undefined);
        await until(() => fail !== undefined);
        held.mockRestore();
        // The reconnection signs in and opens; then the first check fails, as the blip ends.
        const second = open(false);
        const errors: unknown[] = [];
        second.on('connection_error', (context) => errors.push(context.error));
        second.on('disconnected', () => undefined);
        const bodies: string[] = [];
        second.on('message', (context) => {
            const body = context.message?.body as { content?: Buffer } | Buffer;
            bodies.push(String(Buffer.isBuffer(body) ? body : body?.content));
        });
        await new Promise((resolve) => second.once('connection_open', resolve));
        fail!(new Error('connection to the database lost'));
        await until(() => first.is_closed() || !first.is_open());
        try {
            second.open_receiver({ source: { address: 'default' } });
            const d = await device();
            await until(async () => {
                await d.post({ Brightness: 62 });
                return bodies.some((b) => b.includes('"Brightness":62'));
            }, 10_000);
            expect(errors).toEqual([]);
        } finally {
            first.close();
            second.close();
        }
    });

    it('refuses a stale timestamp, a disabled key, an unknown group and a group of another project', async () => {
        const { groupId } = await subscribeLamp(s);
        expect(await refusal(port, { ...key, groupId, timestamp: Date.now() - 3_600_000 })).toMatchObject({
            condition: 'amqp:unauthorized-access',
            description: expect.stringContaining('timestamp'),
        });
        expect(await refusal(port, { ...key, groupId: 99999 })).toMatchObject({ condition: 'amqp:not-found' });
        expect(await refusal(port, { ...key, groupId, iotInstanceId: 'P_OTHER' })).toMatchObject({
            condition: 'amqp:unauthorized-access',
            description: expect.stringContaining('不属于项目'),
        });
        const other = await createAccessKey(s);
        ok200(await call(s, 'POST', '/api/accessKey/enable', form({ id: other.id, enabled: 'false' })));
        expect(await refusal(port, { ...other, groupId })).toEqual({
            condition: 'amqp:unauthorized-access',
            description: 'AccessKey 已禁用',
        });
        ok200(await call(s, 'POST', '/api/accessKey/enable', form({ id: other.id, enabled: 'true' })));
        expect(await refusal(port, { ...other, groupId })).toBeUndefined();
        // Disabling a key disconnects the consumers signed in with it.
        const signedIn = await consume(port, { ...other, groupId });
        const closed = new Promise<unknown>((r) => signedIn.connection.once('connection_close', (c) => r(c.error)));
        ok200(await call(s, 'POST', '/api/accessKey/enable', form({ id: other.id, enabled: 'false' })));
        expect(await closed).toMatchObject({ condition: 'amqp:unauthorized-access' });
        ok200(await call(s, 'POST', '/api/accessKey/enable', form({ id: other.id, enabled: 'true' })));
        ok200(await call(s, 'POST', '/api/accessKey/delete', form({ id: other.id })));
        expect(await refusal(port, { ...other, groupId })).toMatchObject({ condition: 'amqp:unauthorized-access' });
    });
});

describe('delivery', () => {
    it("delivers a subscribed product's property post with Alibaba's topic, messageId and generateTime", async () => {
        const { groupId } = await subscribeLamp(s);
        const c = await consumer({ groupId });
        const d = await device();
        const before = Date.now();
        const got = c.next(1);
        const payload = await d.post({ Brightness: 42 });
        const [m] = await got;
        expect(m.body).toBe(payload);
        expect(m.properties.topic).toBe(d.topic);
        expect(String(m.properties.messageId)).toMatch(/^\d+$/);
        expect(m.messageId).toBe(m.properties.messageId);
        expect(Number(m.properties.generateTime)).toBeGreaterThanOrEqual(before - 1000);
        // The console's detail page counts it.
        await until(async () => {
            const detail = ok200<{ clients: Array<{ delivered: number; acknowledged: number }> }>(
                await call(s, 'GET', `/api/consumerGroup/detail?id=${groupId}`),
            );
            return detail.clients[0]?.acknowledged === 1;
        });
        const detail = ok200<{ clients: Array<{ clientId: string; address: string; delivered: number }> }>(
            await call(s, 'GET', `/api/consumerGroup/detail?id=${groupId}`),
        );
        expect(detail.clients).toHaveLength(1);
        expect(detail.clients[0]).toMatchObject({ delivered: 1, address: expect.stringMatching(/^127\.0\.0\.1:\d+$/) });
    });

    it('sends every message to each subscribed group, once per group', async () => {
        const a = await subscribeLamp(s);
        const b = await subscribeLamp(s);
        const ca = await consumer({ groupId: a.groupId });
        const cb = await consumer({ groupId: b.groupId });
        const d = await device();
        const gotA = ca.next(3);
        const gotB = cb.next(3);
        for (const v of [1, 2, 3]) await d.post({ Brightness: v });
        const bodies = (ms: Array<{ body: string }>) => ms.map((m) => JSON.parse(m.body).params.Brightness);
        expect(bodies(await gotA)).toEqual([1, 2, 3]);
        expect(bodies(await gotB)).toEqual([1, 2, 3]);
        await new Promise((r) => setTimeout(r, 300));
        expect(ca.messages).toHaveLength(3);
    });

    it('delivers a released message again (to the same group)', async () => {
        const { groupId } = await subscribeLamp(s);
        let released = false;
        const c = await consumer({
            groupId,
            receiver: { autoaccept: false },
            onMessage: (context) => {
                if (!released) {
                    released = true;
                    context.delivery?.release();
                } else context.delivery?.accept();
            },
        });
        const d = await device();
        const got = c.next(2);
        await d.post({ Brightness: 7 });
        const [first, second] = await got;
        expect(second.body).toBe(first.body);
        expect(second.properties.messageId).toBe(first.properties.messageId);
    });

    it('delivers unsettled messages of a consumer that went away to the next one', async () => {
        const { groupId } = await subscribeLamp(s);
        const first = await consumer({ groupId, receiver: { autoaccept: false } });
        const d = await device();
        const got = first.next(1);
        await d.post({ Brightness: 11 });
        const [held] = await got;
        await first.close();
        const second = await consumer({ groupId });
        const [again] = await second.next(1);
        expect(again.body).toBe(held.body);
    });

    it('gives back the messages of a consumer that went away while the database failed, once it answers', async () => {
        const { groupId } = await subscribeLamp(s);
        const first = await consumer({ groupId, receiver: { autoaccept: false } });
        const d = await device();
        const got = first.next(1);
        await d.post({ Brightness: 12 });
        const [held] = await got;
        // The release of the unsettled message fails (a database blip as the consumer leaves); the claim would
        // otherwise stay this process's, renewed, for as long as it runs.
        const execute = s.db.execute.bind(s.db);
        let refused = 0;
        const failing = vi.spyOn(s.db, 'execute').mockImplementation(((...args: Parameters<typeof execute>) => {
            if (JSON.stringify(args[0]).includes('owner = NULL')) {
                refused++;
                return Promise.reject(new Error('connection to the database lost'));
            }
            return execute(...args);
        }) as typeof execute);
        try {
            await first.close();
            await until(() => refused > 0);
        } finally {
            failing.mockRestore();
        }
        const second = await consumer({ groupId });
        const [again] = await second.next(1, 10_000);
        expect(again.body).toBe(held.body);
    });

    it('delivers the messages a claim took when the database lost its answer', async () => {
        const { groupId } = await subscribeLamp(s);
        const d = await device();
        await d.post({ Brightness: 13 });
        await until(
            async () =>
                rowsOf(await s.db.execute(sql`SELECT 1 FROM amqp_queue WHERE group_id = ${groupId}`)).length > 0,
        );
        // The first claim runs in the database, then its answer is lost: the rows are this process's, unknown to it.
        const execute = s.db.execute.bind(s.db);
        let lost = 0;
        const losing = vi.spyOn(s.db, 'execute').mockImplementation((async (...args: Parameters<typeof execute>) => {
            const result = await execute(...args);
            if (!lost && JSON.stringify(args[0]).includes('SKIP LOCKED')) {
                lost++;
                throw new Error('connection to the database lost');
            }
            return result;
        }) as typeof execute);
        try {
            const c = await consumer({ groupId });
            const [got] = await c.next(1, 10_000);
            expect(lost).toBe(1);
            expect(got.body).toContain('"Brightness"');
        } finally {
            losing.mockRestore();
        }
    });

    it('shares a group between its connected consumers', async () => {
        const { groupId } = await subscribeLamp(s);
        const one = await consumer({ groupId, clientId: 'one' });
        const two = await consumer({ groupId, clientId: 'two' });
        const d = await device();
        for (let v = 1; v <= 10; v++) await d.post({ Brightness: v });
        await until(() => one.messages.length + two.messages.length === 10);
        expect(one.messages.length).toBeGreaterThan(0);
        expect(two.messages.length).toBeGreaterThan(0);
        const all = [...one.messages, ...two.messages].map((m) => JSON.parse(m.body).params.Brightness);
        expect(all.sort((x, y) => x - y)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
        const detail = ok200<{ clients: Array<{ clientId: string }> }>(
            await call(s, 'GET', `/api/consumerGroup/detail?id=${groupId}`),
        );
        expect(detail.clients.map((cl) => cl.clientId).sort()).toEqual(['one', 'two']);
    });

    it('sends no more than the credit a consumer grants (one at a time)', async () => {
        const { groupId } = await subscribeLamp(s);
        const d = await device();
        for (let v = 1; v <= 5; v++) await d.post({ Brightness: v });
        const c = await consumer({ groupId, receiver: { credit_window: 0, autoaccept: true } });
        await new Promise((r) => setTimeout(r, 300));
        expect(c.messages).toHaveLength(0);
        const seen: number[] = [];
        for (let i = 1; i <= 5; i++) {
            const got = c.next(1);
            c.receiver.add_credit(1);
            const [m] = await got;
            seen.push(JSON.parse(m.body).params.Brightness);
            // Nothing beyond the granted credit arrives.
            await new Promise((r) => setTimeout(r, 150));
            expect(c.messages).toHaveLength(i);
        }
        expect(seen).toEqual([1, 2, 3, 4, 5]);
    });

    it('keeps messages while no consumer is connected, shows them as backlog, and 清空堆积 clears them', async () => {
        const { groupId } = await subscribeLamp(s);
        const d = await device();
        for (let v = 1; v <= 3; v++) await d.post({ Brightness: v });
        await until(async () => {
            const detail = ok200<{ backlog: number }>(await call(s, 'GET', `/api/consumerGroup/detail?id=${groupId}`));
            return detail.backlog === 3;
        });
        const c = await consumer({ groupId });
        const got = await c.next(3);
        expect(got.map((m) => JSON.parse(m.body).params.Brightness)).toEqual([1, 2, 3]);
        await c.close();
        for (let v = 4; v <= 5; v++) await d.post({ Brightness: v });
        await until(async () => {
            const detail = ok200<{ backlog: number }>(await call(s, 'GET', `/api/consumerGroup/detail?id=${groupId}`));
            return detail.backlog === 2;
        });
        const cleared = ok200<{ cleared: number }>(
            await call(s, 'POST', '/api/consumerGroup/clear', form({ id: groupId })),
        );
        expect(cleared.cleared).toBe(2);
        const detail = ok200<{ backlog: number; dropped: number }>(
            await call(s, 'GET', `/api/consumerGroup/detail?id=${groupId}`),
        );
        expect(detail).toMatchObject({ backlog: 0, dropped: 2 });
    });

    it('sends property posts only (events are not a subscribed message type)', async () => {
        const { groupId } = await subscribeLamp(s);
        const c = await consumer({ groupId });
        const d = await device();
        await d.client.publishAsync(
            `/sys/${d.topic.split('/')[2]}/${d.topic.split('/')[3]}/thing/event/LampFault/post`,
            JSON.stringify({ id: 'e1', params: { value: { FaultCode: 2 } } }),
            { qos: 1 },
        );
        const got = c.next(1);
        await d.post({ Brightness: 5 });
        const [m] = await got;
        expect(JSON.parse(m.body).params).toEqual({ Brightness: 5 });
        await new Promise((r) => setTimeout(r, 200));
        expect(c.messages).toHaveLength(1);
    });
});
