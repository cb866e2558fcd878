import { and, eq, sql } from 'drizzle-orm';
import type { MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deviceMessages } from '../../server/db/schema';
import { alibabaCredentials } from '../../server/mqtt/signIn';
import { createTestServer, type TestServer } from '../../server/testing';
import { connect, secretOf, startBroker, until, type Broker } from './mqttSupport';
import { freshLamp } from './telemetrySupport';

/**
 * SIGTERM's drain (broker.drain) on a stalled database: it keeps its bound, closes the devices without acknowledging
 * what was not stored, and the message stored once the database answers again is the one its device sends again.
 * The stall is a transaction held open on the server's own database, holding the message table's write lock.
 */

let s: TestServer;
let broker: Broker;
let url: string;
let log: string[];
const clients: MqttClient[] = [];

beforeAll(async () => {
    s = await createTestServer();
    ({ broker, url, log } = await startBroker(s));
});

afterAll(async () => {
    for (const c of clients) c.end(true);
    await broker?.close();
    await s?.close();
});

/** Holds the writes of device messages (on PGlite, every statement) until the returned function is called. */
async function stallDatabase(): Promise<() => Promise<void>> {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let holding!: () => void;
    const held = new Promise<void>((resolve) => (holding = resolve));
    const transaction = s.db.transaction(async (tx) => {
        // PGlite has one connection, which the open transaction holds; PostgreSQL's other connections wait on the lock.
        await tx.execute(sql`lock table device_messages in exclusive mode`);
        holding();
        await released;
    });
    await held;
    return async () => {
        release();
        await transaction;
    };
}

describe('the broker drain on a stalled database', () => {
    it('ends within its bound, acknowledges nothing unstored, and the message is stored once the database answers', async () => {
        const row = await freshLamp(s);
        const device = {
            deviceId: Number(row.deviceId),
            productKey: row.productKey,
            deviceName: row.deviceName,
            secret: await secretOf(s, Number(row.deviceId)),
        };
        const client = await connect(url, alibabaCredentials(device));
        clients.push(client);
        let closed = false;
        client.on('close', () => (closed = true));
        let acknowledged = false;

        const topic = `/sys/${device.productKey}/${device.deviceName}/thing/event/property/post`;
        // A first post, stored and acknowledged, leaves the device's lookups cached: the next goes straight to the writer.
        await client.publishAsync(topic, JSON.stringify({ id: '70', params: { Brightness: 70 } }), { qos: 1 });

        const resume = await stallDatabase();
        try {
            client.publish(topic, JSON.stringify({ id: '71', params: { Brightness: 71 } }), { qos: 1 }, (err) => {
                if (!err) acknowledged = true;
            });
            // The post is in the writer's batch, which waits for the database.
            await until(() => broker.writer.writing);

            const started = Date.now();
            await broker.drain(300);
            const took = Date.now() - started;
            // Before the bound, the drain waited for the writer however long the database stalled (here: for ever).
            expect(took).toBeLessThan(5_000);
            await until(() => closed);
            expect(acknowledged).toBe(false);
            expect(
                log.some((line) => line.includes('drain timed out: 1 messages neither stored nor acknowledged')),
            ).toBe(true);
        } finally {
            await resume();
        }
        // The write in hand goes through once the database answers; the device, never acknowledged, sends it again
        // (elsewhere, in a cluster) and the writer's resend check finds it stored.
        await until(() => broker.inflight === 0);
        await broker.writer.drain();
        const stored = await s.db
            .select({ data: deviceMessages.data })
            .from(deviceMessages)
            .where(
                and(
                    eq(deviceMessages.deviceId, device.deviceId),
                    eq(deviceMessages.method, 'thing.event.property.post'),
                ),
            );
        expect(stored.map((r) => (r.data as { Brightness?: number }).Brightness).sort()).toEqual([70, 71]);
    });
});
