import { sql } from 'drizzle-orm';
import type { MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COUNT_CAP } from '../../server/domain/messageLog';
import { sweepOldMessages } from '../../server/domain/retention';
import { utcDay } from '../../server/db/partitions';
import { alibabaCredentials } from '../../server/mqtt/signIn';
import { createTestServer, type TestServer } from '../../server/testing';
import { connect, secretOf, startBroker, subscribe, until, type Broker } from './mqttSupport';
import { call } from './support';
import { expectRefused, freshLamp, okData, qs } from './telemetrySupport';

interface LogRecord {
    id: string;
    time: string;
    deviceName: string;
    method: string;
    topic: string;
    messageId: string;
    payload: string;
}
interface LogPage {
    records: LogRecord[];
    total: number;
}

let s: TestServer;
let broker: Broker;
let url: string;
const clients: MqttClient[] = [];

async function lamp() {
    const device = await freshLamp(s);
    return { ...device, deviceId: Number(device.deviceId), secret: await secretOf(s, Number(device.deviceId)) };
}

async function log(params: Record<string, string | number | undefined>): Promise<LogPage> {
    return okData<LogPage>(await call(s, 'GET', `/api/log/messages?${qs(params)}`));
}

async function rows(query: string): Promise<Array<Record<string, unknown>>> {
    return ((await s.db.execute(sql.raw(query))) as unknown as { rows: Array<Record<string, unknown>> }).rows;
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

describe('GET /api/log/messages', () => {
    it('shows what a connected device sent and received: uplink, downlink (by its message id) and status', async () => {
        const device = await lamp();
        const client = await connect(url, alibabaCredentials(device));
        clients.push(client);
        const sys = `/sys/${device.productKey}/${device.deviceName}`;
        await subscribe(client, `${sys}/thing/service/property/set`);
        client.on('message', (t, payload) => {
            if (t !== `${sys}/thing/service/property/set`) return;
            const req = JSON.parse(payload.toString()) as { id: string; params: unknown };
            client.publish(`${t}_reply`, JSON.stringify({ id: req.id, code: 200, data: req.params }));
        });
        await client.publishAsync(
            `${sys}/thing/event/property/post`,
            JSON.stringify({ id: '7', params: { Brightness: 61 } }),
            { qos: 1 },
        );
        await client.publishAsync(`/${device.productKey}/${device.deviceName}/user/update`, '{"hello":"世界"}', {
            qos: 1,
        });
        const set = await broker.downlink.setProperties(device.deviceId, { Brightness: 40 }, { sync: true });
        expect(set.state).toBe('replied');
        await until(
            async () =>
                (await log({ productKey: device.productKey, direction: 'status', deviceName: device.deviceName }))
                    .total > 0,
        );
        await broker.writer.drain();

        const mine = { productKey: device.productKey, deviceName: device.deviceName };
        const up = await log(mine);
        expect(up.total).toBe(3);
        expect(up.records.map((r) => [r.method, r.topic])).toEqual([
            ['thing.service.property.set_reply', `${sys}/thing/service/property/set_reply`],
            ['user.message', `/${device.productKey}/${device.deviceName}/user/update`],
            ['thing.event.property.post', `${sys}/thing/event/property/post`],
        ]);
        expect(up.records[0]).toMatchObject({ deviceName: device.deviceName, messageId: set.messageId });
        expect(JSON.parse(up.records[2].payload)).toEqual({ Brightness: 61 });
        expect(JSON.parse(up.records[1].payload)).toEqual({
            topic: `/${device.productKey}/${device.deviceName}/user/update`,
            payload: '{"hello":"世界"}',
        });
        expect(up.records[0].time).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);

        const down = await log({ ...mine, direction: 'down' });
        expect(down.records).toHaveLength(1);
        expect(down.records[0]).toMatchObject({
            method: 'thing.service.property.set',
            topic: `${sys}/thing/service/property/set`,
            messageId: set.messageId,
        });
        expect(JSON.parse(down.records[0].payload)).toMatchObject({ direction: 'down', params: { Brightness: 40 } });

        const status = await log({ ...mine, direction: 'status' });
        expect(status.records[0]).toMatchObject({
            method: 'device.status',
            topic: `/as/mqtt/status/${device.productKey}/${device.deviceName}`,
        });
        expect(JSON.parse(status.records[0].payload)).toMatchObject({ status: 'online' });

        // The whole product, without a device name: the newest uplink is this device's reply.
        const product = await log({ productKey: device.productKey, pageSize: 1 });
        expect(product.records[0].messageId).toBe(set.messageId);
        // By message id: the call downlink, its reply uplink, within the product.
        expect(
            (await log({ productKey: device.productKey, direction: 'down', messageId: set.messageId })).records,
        ).toHaveLength(1);
        expect((await log({ productKey: device.productKey, messageId: set.messageId })).records[0].method).toBe(
            'thing.service.property.set_reply',
        );
        // A message without an Alink id is found by its log id.
        const post = up.records[2];
        expect(
            (await log({ productKey: device.productKey, messageId: post.messageId })).records.map((r) => r.id),
        ).toEqual([post.id]);
        // A property named `id` in a post is a value, not a message id: the post keeps its log id and is not found by it.
        const [valued] = await rows(`INSERT INTO device_messages (device_id, product_id, ts, method, identifier, data)
            SELECT id, product_id, now() - interval '1 hour', 'thing.event.property.post', NULL,
                   jsonb_build_object('id', '${set.messageId}') FROM devices WHERE id = ${device.deviceId} RETURNING id`);
        expect(
            (await log({ productKey: device.productKey, messageId: set.messageId })).records.map((r) => r.method),
        ).toEqual(['thing.service.property.set_reply']);
        const byLogId = await log({ productKey: device.productKey, messageId: String(valued.id) });
        expect(byLogId.records.map((r) => [r.id, r.messageId])).toEqual([[String(valued.id), String(valued.id)]]);
        await rows(`DELETE FROM device_messages WHERE id = ${String(valued.id)}`);
        // Another device name, or a time range before these messages: nothing.
        expect(await log({ productKey: device.productKey, deviceName: 'noSuchLamp' })).toEqual({
            records: [],
            total: 0,
        });
        expect((await log({ ...mine, endTime: Date.now() - 3_600_000 })).total).toBe(0);
        expect((await log({ ...mine, startTime: Date.now() - 3_600_000, endTime: Date.now() + 1000 })).total).toBe(3);
    });

    it('pages newest first through messages written by the batch writer', async () => {
        const device = await lamp();
        const base = Date.now() - 60_000;
        await Promise.all(
            Array.from({ length: 25 }, (_, i) =>
                broker.writer.write({
                    deviceId: device.deviceId,
                    ts: new Date(base + i * 1000),
                    method: 'thing.event.LampFault.post',
                    identifier: 'LampFault',
                    data: { FaultCode: i },
                }),
            ),
        );
        const q = { productKey: device.productKey, deviceName: device.deviceName, pageSize: 10 };
        const first = await log({ ...q, pageNumber: 1 });
        expect(first.total).toBe(25);
        expect(first.records.map((r) => JSON.parse(r.payload).FaultCode)).toEqual([
            24, 23, 22, 21, 20, 19, 18, 17, 16, 15,
        ]);
        const last = await log({ ...q, pageNumber: 3 });
        expect(last.records.map((r) => JSON.parse(r.payload).FaultCode)).toEqual([4, 3, 2, 1, 0]);
        expect((await log({ ...q, pageNumber: 4 })).records).toEqual([]);
        // The time range bounds both ends (inclusive).
        const ranged = await log({ ...q, startTime: base + 5000, endTime: base + 7000 });
        expect(ranged.records.map((r) => JSON.parse(r.payload).FaultCode)).toEqual([7, 6, 5]);
    });

    it(`counts at most ${COUNT_CAP} messages`, async () => {
        const device = await lamp();
        await rows(`INSERT INTO device_messages (device_id, product_id, ts, method, identifier, data)
            SELECT ${device.deviceId}, d.product_id, now() - make_interval(secs => g), 'thing.event.property.post', NULL,
                   jsonb_build_object('Brightness', g % 100)
            FROM generate_series(1, ${COUNT_CAP + 50}) g, devices d WHERE d.id = ${device.deviceId}`);
        const page = await log({ productKey: device.productKey, deviceName: device.deviceName, pageSize: 20 });
        expect(page.total).toBe(COUNT_CAP);
        expect(page.records).toHaveLength(20);
    });

    it('walks the partial indexes of 0012_message_log.sql (the predicates match them)', async () => {
        const [{ id }] = await rows(`SELECT id FROM products LIMIT 1`);
        const plan = async (where: string, order = 'm.product_id, m.ts DESC, m.id DESC') => {
            await rows('SET enable_seqscan = off');
            try {
                const out = await rows(`EXPLAIN SELECT id FROM device_messages m WHERE ${where}
                    ORDER BY ${order} LIMIT 10`);
                return out.map((r) => String(r['QUERY PLAN'])).join('\n');
            } finally {
                await rows('SET enable_seqscan = on');
            }
        };
        expect(
            await plan(
                `m.product_id = ${id} AND m.method <> 'device.status' AND (m.data->>'direction') IS DISTINCT FROM 'down'`,
            ),
        ).toMatch(/device_messages_p\d{8}_product_up_idx/);
        const down = `(m.data->>'direction') = 'down'`;
        expect(await plan(`m.product_id = ${id} AND ${down}`)).toMatch(/device_messages_p\d{8}_product_down_idx/);
        expect(await plan(`m.device_id = 1 AND ${down}`, 'm.device_id, m.ts DESC, m.id DESC')).toMatch(
            /device_messages_p\d{8}_device_down_idx/,
        );
        expect(await plan(`m.product_id = ${id} AND m.method = 'device.status'`)).toMatch(
            /device_messages_p\d{8}_product_status_idx/,
        );
        expect(
            await plan(
                `m.product_id = ${id} AND m.method <> 'thing.event.property.post' AND (m.data->>'id') = 'x'`,
                'm.product_id',
            ),
        ).toMatch(/device_messages_p\d{8}_product_message_id_idx/);
    });

    it.each([
        [{}, 400, '请选择产品'],
        [{ productKey: 'x', direction: 'sideways' }, 400, '消息方向只能是 up、down 或 status'],
        [{ productKey: 'x', startTime: 'yesterday' }, 400, '开始时间格式不正确：应为毫秒时间戳'],
        [{ productKey: 'x', endTime: '1e12' }, 400, '结束时间格式不正确：应为毫秒时间戳'],
        [{ productKey: 'x', startTime: 2000, endTime: 1000 }, 400, '开始时间不能晚于结束时间'],
        [{ productKey: 'x', pageSize: 0 }, 400, '每页条数必须是正整数'],
        [{ productKey: 'x', pageSize: 5000 }, 400, '每页条数不能超过1000'],
        [{ productKey: 'x', messageId: 'm'.repeat(65) }, 400, '消息ID不能超过64个字符'],
        [{ productKey: 'noSuchProduct' }, 404, '产品不存在'],
    ])('refuses %j with %i %s', async (params, status, msg) => {
        expectRefused(await call(s, 'GET', `/api/log/messages?${qs(params)}`), status, msg);
    });
});

describe('GET /api/log/alerts', () => {
    it('answers an empty page while no notification was sent, and refuses bad paging', async () => {
        expect(okData(await call(s, 'GET', '/api/log/alerts?pageNumber=1&pageSize=10'))).toEqual({
            records: [],
            total: 0,
        });
        expectRefused(await call(s, 'GET', '/api/log/alerts?pageNumber=0'), 400, '页码必须是正整数');
    });
});

describe('retention (LOG_RETENTION_DAYS)', () => {
    it('drops the days of messages and property history older than the retention whole, and keeps the rest', async () => {
        const device = await lamp();
        const now = new Date();
        const day = 86_400_000;
        const at = (days: number) => new Date(now.getTime() - days * day).toISOString();
        for (const [days, n] of [
            [45, 7],
            [31, 3],
            [29, 4],
        ] as const) {
            // Back-dated rows with no day partition yet: stored in the default partition. The sweep's maintenance
            // splits off the day within the retention; the older ones are never given a partition (partitionWindow)
            // and are deleted from the default partition.
            await rows(`INSERT INTO device_messages (device_id, product_id, ts, method, identifier, data)
                SELECT ${device.deviceId}, d.product_id, '${at(days)}'::timestamptz + make_interval(secs => g), 'thing.event.property.post', NULL, '{"Brightness":1}'
                FROM generate_series(1, ${n}) g, devices d WHERE d.id = ${device.deviceId}`);
        }
        const mine = async (table: string) =>
            Number((await rows(`SELECT count(*)::int AS n FROM ${table} WHERE device_id = ${device.deviceId}`))[0].n);
        const partition = (days: number) =>
            `device_messages_p${utcDay(Date.parse(at(days)) + 1000).replaceAll('-', '')}`;
        const exists = async (name: string) =>
            (await rows(`SELECT to_regclass('${name}') IS NOT NULL AS there`))[0].there;
        // The demo seed's messages are recent: only these days are older than 30 days.
        const swept = await sweepOldMessages(s.db, 30, { now: () => now });
        expect(swept.messages).toBe(7 + 3);
        expect(swept.partitions).not.toContain(partition(29));
        expect(await exists(partition(45))).toBe(false);
        expect(await exists(partition(31))).toBe(false);
        expect(await exists(partition(29))).toBe(true);
        expect(await mine('device_messages')).toBe(4);
        expect(Number((await rows(`SELECT count(*)::int AS n FROM device_messages_default`))[0].n)).toBe(0);
        // A clock two days on: the day 29 days old goes too.
        const later = await sweepOldMessages(s.db, 30, { now: () => new Date(now.getTime() + 2 * day) });
        expect(later.partitions).toContain(partition(29));
        expect(await mine('device_messages')).toBe(0);
    });
});
