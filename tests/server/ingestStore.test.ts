import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../server/db/client';
import { DAY_MS, dayPartitions, maintainPartitions, maintenanceSettled, utcDay } from '../../server/db/partitions';
import { createDirectory, type DeviceEntry } from '../../server/mqtt/directory';
import { createUplink } from '../../server/mqtt/uplink';
import { createMessageWriter } from '../../server/mqtt/writer';
import { createTestServer, type TestServer } from '../../server/testing';
import { subscribeLamp } from './amqpSupport';
import { freshLamp } from './telemetrySupport';

// The ingest path's promise (server/mqtt/uplink.ts, writer.ts, server/amqp/copies.ts): uplink.handle resolves only
// once the message row and its subscription copies are stored (the broker's PUBACK waits for it), rejects with
// neither stored when they cannot be, and a device's time outside the retention window does not make partitions.

let s: TestServer;

beforeAll(async () => {
    s = await createTestServer();
    // The seed's history days get their partitions, as the server's first maintenance gives them.
    await maintainPartitions(s.db, new Date(), 30);
});

afterAll(async () => {
    await s?.close();
});

type Row = Record<string, unknown>;
const rows = async (q: string) => ((await s.db.execute(sql.raw(q))) as unknown as { rows: Row[] }).rows;
const count = async (q: string) => Number((await rows(`SELECT count(*)::int AS n FROM ${q}`))[0].n);

/** An uplink of its own over `db` (the test's broker side), its property posts copied to the server's AMQP queue. */
function uplinkOver(db: Db, retentionDays?: number) {
    const directory = createDirectory(db);
    const writer = createMessageWriter(db);
    const uplink = createUplink({
        directory,
        writer,
        publish: async () => undefined,
        log: () => undefined,
        retentionDays,
    });
    s.amqp.attach({ uplink } as unknown as Parameters<TestServer['amqp']['attach']>[0]);
    return { directory, writer, uplink };
}

async function lampEntry(directory: ReturnType<typeof createDirectory>) {
    const lamp = await freshLamp(s);
    const found = await directory.byName(lamp.productKey, lamp.deviceName);
    expect('deviceId' in found).toBe(true);
    return found as DeviceEntry;
}

const postTopic = (d: DeviceEntry) => `/sys/${d.productKey}/${d.deviceName}/thing/event/property/post`;
const post = (id: string, params: Record<string, unknown>) =>
    Buffer.from(JSON.stringify({ id, version: '1.0', method: 'thing.event.property.post', params }));

describe('store, then resolve', () => {
    it('rejects a property post whose subscription copy cannot be stored, stores neither, and keeps its resend once', async () => {
        const { groupId } = await subscribeLamp(s);
        const { directory, uplink } = uplinkOver(s.db);
        const device = await lampEntry(directory);
        const where = `device_id = ${device.deviceId}`;
        const payload = post('4711', { Brightness: 7 });
        // The queue's table is away: the copy cannot be stored.
        await rows('ALTER TABLE amqp_queue RENAME TO amqp_queue_away');
        let outcome: unknown;
        try {
            outcome = await uplink.handle(device, postTopic(device), payload).then(
                () => 'stored',
                (err: unknown) => err,
            );
        } finally {
            await rows('ALTER TABLE amqp_queue_away RENAME TO amqp_queue');
        }
        expect(outcome).toBeInstanceOf(Error);
        expect(await count(`device_messages WHERE ${where}`)).toBe(0);
        expect(await count(`device_latest WHERE ${where}`)).toBe(0);
        // The device resends (no PUBACK came): the message and its copy, once each.
        await uplink.handle(device, postTopic(device), payload);
        expect(await rows(`SELECT data FROM device_messages WHERE ${where}`)).toEqual([{ data: { Brightness: 7 } }]);
        expect(await count(`amqp_queue WHERE ${where} AND group_id = ${groupId}`)).toBe(1);
    });

    it('rejects a message the writer cannot store after its retry; resolves when the retry stores it', async () => {
        let failNext = 0;
        const faulty = new Proxy(s.db, {
            get(target, prop, receiver) {
                if (prop === 'execute')
                    return (q: unknown) =>
                        failNext-- > 0
                            ? Promise.reject(new Error('connection lost'))
                            : (target.execute as (q: unknown) => Promise<unknown>)(q);
                return Reflect.get(target, prop, receiver) as unknown;
            },
        });
        const { directory, uplink } = uplinkOver(faulty);
        const device = await lampEntry(directory);
        const where = `device_id = ${device.deviceId}`;
        // The batch and its one-by-one retry both fail.
        failNext = 2;
        await expect(uplink.handle(device, postTopic(device), post('1', { Brightness: 1 }))).rejects.toThrow(
            'connection lost',
        );
        expect(await count(`device_messages WHERE ${where}`)).toBe(0);
        // The batch fails, its retry stores it.
        failNext = 1;
        await uplink.handle(device, postTopic(device), post('2', { Brightness: 2 }));
        expect(await rows(`SELECT data FROM device_messages WHERE ${where}`)).toEqual([{ data: { Brightness: 2 } }]);
        // Every path that stores: an event post, a service reply, a custom topic.
        for (const [topic, body] of [
            [
                `/sys/${device.productKey}/${device.deviceName}/thing/event/LampFault/post`,
                '{"id":"3","params":{"value":{}}}',
            ],
            [
                `/sys/${device.productKey}/${device.deviceName}/thing/service/property/set_reply`,
                '{"id":"4","code":200}',
            ],
            [`/${device.productKey}/${device.deviceName}/user/update`, 'hello'],
        ]) {
            failNext = 2;
            await expect(uplink.handle(device, topic, Buffer.from(body)), topic).rejects.toThrow('connection lost');
        }
        expect(await count(`device_messages WHERE ${where}`)).toBe(1);
    });
});

describe('device times outside the retention window', () => {
    it('stores 500 posts of 500 past days at the server time, the device time kept, with no partition made', async () => {
        const { directory, uplink } = uplinkOver(s.db, 30);
        const device = await lampEntry(directory);
        const before = (await dayPartitions(s.db, 'device_messages')).map((p) => p.name);
        const now = Date.now();
        const times = Array.from({ length: 500 }, (_, i) => now - (31 + i) * DAY_MS);
        await Promise.all(
            times.map((time, i) =>
                uplink.handle(device, postTopic(device), post(String(i), { Brightness: { value: i % 100, time } })),
            ),
        );
        await maintenanceSettled(s.db);
        await maintainPartitions(s.db, new Date(), 30);
        expect((await dayPartitions(s.db, 'device_messages')).map((p) => p.name)).toEqual(before);
        const stored = await rows(`SELECT (extract(epoch FROM ts) * 1000)::float8 AS ts, data FROM device_messages
            WHERE device_id = ${device.deviceId}`);
        expect(stored).toHaveLength(500);
        const after = Date.now();
        for (const r of stored) {
            expect(Number(r.ts)).toBeGreaterThanOrEqual(now - 1);
            expect(Number(r.ts)).toBeLessThanOrEqual(after + 1);
        }
        expect(stored.map((r) => (r.data as Record<string, number>).$deviceTime).sort()).toEqual([...times].sort());
    });

    it('keeps a device time within the window as the message time', async () => {
        const { directory, uplink } = uplinkOver(s.db, 30);
        const device = await lampEntry(directory);
        const time = Date.now() - 3 * DAY_MS;
        await uplink.handle(device, postTopic(device), post('1', { Brightness: { value: 5, time } }));
        const [r] = await rows(`SELECT (extract(epoch FROM ts) * 1000)::float8 AS ts, data FROM device_messages
            WHERE device_id = ${device.deviceId}`);
        expect(Number(r.ts)).toBe(time);
        expect(r.data).toEqual({ Brightness: 5 });
    });

    it('maintenance makes no partition for a message day past the retention, whatever waits in the default one', async () => {
        const [d] = await rows('SELECT id, product_id FROM devices ORDER BY id LIMIT 1');
        const before = (await dayPartitions(s.db, 'device_messages')).map((p) => p.name);
        const old = Array.from({ length: 50 }, (_, i) => new Date(Date.now() - (40 + i) * DAY_MS).toISOString());
        await rows(`INSERT INTO device_messages (device_id, product_id, ts, method, data)
            SELECT ${Number(d.id)}, ${Number(d.product_id)}, t::timestamptz, 'user.message', '{}'
            FROM unnest(ARRAY['${old.join("','")}']) t`);
        await maintainPartitions(s.db, new Date(), 30);
        expect((await dayPartitions(s.db, 'device_messages')).map((p) => p.name)).toEqual(before);
        expect(await count(`device_messages_default WHERE ts < now() - interval '39 days'`)).toBeGreaterThanOrEqual(50);
        // Within the window a waiting day still gets its partition.
        const recent = Date.now() - 10 * DAY_MS;
        await rows(`INSERT INTO device_messages (device_id, product_id, ts, method, data)
            VALUES (${Number(d.id)}, ${Number(d.product_id)}, '${new Date(recent).toISOString()}', 'user.message', '{}')`);
        await maintainPartitions(s.db, new Date(), 30);
        expect((await dayPartitions(s.db, 'device_messages')).map((p) => p.day)).toContain(utcDay(recent));
        expect(await count(`device_messages_default WHERE ts = '${new Date(recent).toISOString()}'`)).toBe(0);
    });
});
