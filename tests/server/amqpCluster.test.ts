import type { MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { alibabaCredentials } from '../../server/mqtt/signIn';
import { consume, type Consumer } from './amqpSupport';
import { connect, until } from './mqttSupport';
import { createCluster, PG_URL, postgresReachable, type ServerProcess } from './spawnServer';

/**
 * Two server processes on one PostgreSQL (no Redis: delivery goes through the database queue): a consumer connected
 * to either receives the property posts of devices connected to either, once per consumer group, and two consumers
 * of one group on the two processes share its messages without duplicates. Needs the machine's PostgreSQL; required
 * in CI (E2E_REQUIRED) and with DATABASE_URL.
 */

const REQUIRED = Boolean(process.env.E2E_REQUIRED || process.env.DATABASE_URL);

const available = await postgresReachable();
if (!available && REQUIRED) throw new Error(`PostgreSQL (${PG_URL}) is not reachable`);

type Proc = ServerProcess;
const cluster = createCluster('iot_amqp');
const devices: MqttClient[] = [];
const consumers: Consumer[] = [];
const start = (waitForSeed: boolean) => cluster.start({ waitForSeed, amqp: true });
const api = (p: Proc, method: string, target: string, body?: Record<string, string | number>) =>
    p.api(method, target, body);

describe.skipIf(!available)('two server processes deliver as one', () => {
    let first: Proc;
    let second: Proc;
    let key: { accessKey: string; accessSecret: string };
    let productKey: string;
    let groupA: number;
    let groupB: number;

    beforeAll(async () => {
        first = await start(true);
        second = await start(false);
        key = (await api(first, 'POST', '/api/accessKey/create')).data as typeof key;
        const products = await api(first, 'GET', '/api/subscription/products');
        const lamp = (
            products.data as unknown as Array<{ productKey: string; productName: string; projectCode: string }>
        ).find((p) => p.productName.startsWith('智能路灯'))!;
        productKey = lamp.productKey;
        groupA = Number(
            (await api(first, 'POST', '/api/consumerGroup/save', { projectCode: lamp.projectCode, name: 'ga' })).data
                .id,
        );
        groupB = Number(
            (await api(first, 'POST', '/api/consumerGroup/save', { projectCode: lamp.projectCode, name: 'gb' })).data
                .id,
        );
        const saved = await api(first, 'POST', '/api/subscription/save', {
            projectCode: lamp.projectCode,
            productKey,
            group: `${groupA},${groupB}`,
            message: 'post',
        });
        expect(saved.code, saved.msg).toBe(200);
    }, 200_000);

    afterAll(async () => {
        for (const c of consumers) await c.close().catch(() => undefined);
        for (const d of devices) d.end(true);
        await cluster.close();
    });

    async function device(p: Proc) {
        const saved = await api(first, 'POST', '/api/device/save', { productKey, deviceName: `a${Date.now()}` });
        const deviceId = Number(saved.data.deviceId);
        const detail = await api(first, 'GET', `/api/device/detail?deviceId=${deviceId}`);
        const d = detail.data.device as { productKey: string; deviceName: string; secret: string };
        const client = await connect(`mqtt://127.0.0.1:${p.mqttPort}`, alibabaCredentials(d));
        devices.push(client);
        const topic = `/sys/${d.productKey}/${d.deviceName}/thing/event/property/post`;
        return (v: number) =>
            client.publishAsync(topic, JSON.stringify({ id: String(v), params: { Brightness: v } }), { qos: 1 });
    }

    const values = (c: Consumer) =>
        c.messages.map((m) => JSON.parse(m.body).params.Brightness as number).filter((v) => v > 0);

    it('a consumer on either process receives the posts of devices on either, once per group', async () => {
        const onSecond = await consume(second.amqpPort, { ...key, groupId: groupA, clientId: 'a-on-second' });
        const onFirst = await consume(first.amqpPort, { ...key, groupId: groupB, clientId: 'b-on-first' });
        consumers.push(onSecond, onFirst);
        const fromFirst = await device(first);
        const fromSecond = await device(second);
        // The second process reads the new subscription within a few seconds.
        await until(async () => {
            await fromSecond(0);
            const zero = (c: Consumer) => c.messages.some((m) => JSON.parse(m.body).params.Brightness === 0);
            return zero(onSecond) && zero(onFirst);
        }, 15_000);
        onSecond.messages.length = 0;
        onFirst.messages.length = 0;
        for (let v = 1; v <= 5; v++) await fromFirst(v);
        for (let v = 6; v <= 10; v++) await fromSecond(v);
        await until(() => onSecond.messages.length >= 10 && onFirst.messages.length >= 10, 15_000);
        await new Promise((r) => setTimeout(r, 500));
        expect(values(onSecond).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
        expect(values(onFirst).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
        await onSecond.close();
        await onFirst.close();
    });

    it("one group's consumers on both processes share its messages, each delivered once", async () => {
        const one = await consume(first.amqpPort, { ...key, groupId: groupA, clientId: 'one' });
        const two = await consume(second.amqpPort, { ...key, groupId: groupA, clientId: 'two' });
        consumers.push(one, two);
        const post = await device(first);
        for (let v = 41; v <= 80; v++) await post(v);
        await until(() => values(one).length + values(two).length >= 40, 15_000).catch((err) => {
            throw new Error(`${String(err)}: one ${JSON.stringify(values(one))} two ${JSON.stringify(values(two))}`);
        });
        await new Promise((r) => setTimeout(r, 500));
        const all = [...values(one), ...values(two)].sort((a, b) => a - b);
        expect(all).toEqual(Array.from({ length: 40 }, (_, i) => 41 + i));
        expect(values(one).length).toBeGreaterThan(0);
        expect(values(two).length).toBeGreaterThan(0);
    });
});
