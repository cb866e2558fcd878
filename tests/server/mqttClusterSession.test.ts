import { Redis } from 'ioredis';
import mqtt, { type MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createBroker } from '../../server/mqtt/broker';
import { alibabaCredentials } from '../../server/mqtt/signIn';
import { createTestServer, type TestServer } from '../../server/testing';
import { connect, connectSession, platformPublish, secretOf, until, type Broker } from './mqttSupport';
import { freshLamp } from './telemetrySupport';
import { REDIS_URL, clusterRedisReachable, takeTurnOnRedis } from './redisTurn';

/**
 * Two brokers sharing one Redis (REDIS_URL) as two processes of a cluster, in one test process so that each broker's
 * persistence can be watched: a clean CONNECT takes the short path (server/mqtt/fastConnect.ts) only for a client id
 * with no persistent session anywhere in the cluster (server/mqtt/sessionIndex.ts). Needs the machine's Redis (the
 * cluster tests' database 7); skipped without it unless required (E2E_REQUIRED).
 */

const available = await clusterRedisReachable();

let s: TestServer;
const brokers: Array<{ broker: Broker; url: string }> = [];
const clients: MqttClient[] = [];
let redis: Redis;

async function lamp() {
    const device = await freshLamp(s);
    return { ...device, deviceId: Number(device.deviceId), secret: await secretOf(s, Number(device.deviceId)) };
}
type Device = Awaited<ReturnType<typeof lamp>>;

const session = (at: number, device: Device, clean: boolean) => connectSession(brokers[at].url, device, clean, clients);
const toBroker = (at: number, topic: string, text: string) => platformPublish(brokers[at].broker, topic, text);

/** Subscribes, publishes a marker from broker `from`, and answers every text received up to the marker. */
async function textsUntilMarker(client: MqttClient, from: number, topic: string, marker: string) {
    const texts: unknown[] = [];
    client.on('message', (_t, payload: Buffer) => texts.push(JSON.parse(payload.toString()).text));
    await client.subscribeAsync(topic, { qos: 1 });
    await toBroker(from, topic, marker);
    const end = Date.now() + 5000;
    while (!texts.includes(marker) && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
    return texts;
}

describe.skipIf(!available)('a clean session in a cluster (two brokers, one Redis)', () => {
    takeTurnOnRedis();
    beforeAll(async () => {
        redis = new Redis(REDIS_URL);
        s = await createTestServer();
        for (let i = 0; i < 2; i++) {
            const broker = await createBroker({ db: s.db, redisUrl: REDIS_URL, log: () => undefined });
            if (i === 0) s.access.attach(broker);
            const port = await broker.listen(0, '127.0.0.1');
            brokers.push({ broker, url: `mqtt://127.0.0.1:${port}` });
        }
    }, 60_000);

    afterAll(async () => {
        for (const c of clients) c.end(true);
        for (const { broker } of brokers) await broker.close();
        await s?.close();
        redis?.disconnect();
    });

    it('discards a persistent session held through the other process: nothing queued comes, then or later', async () => {
        const device = await lamp();
        const topic = `/${device.productKey}/${device.deviceName}/user/get`;
        // On the first process: a persistent session subscribes QoS 1 and leaves; a message is queued for it.
        const first = await session(0, device, false);
        await first.client.subscribeAsync(topic, { qos: 1 });
        await first.client.endAsync();
        await toBroker(0, topic, 'while away');
        // Clean, on the second process: the stored session ends there.
        const clean = await session(1, device, true);
        expect(clean.present).toBe(false);
        expect(await textsUntilMarker(clean.client, 0, topic, 'marker')).toEqual(['marker']);
        await clean.client.endAsync();
        // Back as a persistent session, on either process: nothing was kept.
        const later = await session(0, device, false);
        expect(later.present).toBe(false);
        expect(await textsUntilMarker(later.client, 1, topic, 'marker 2')).toEqual(['marker 2']);
        await later.client.endAsync();
    });

    it('takes the short path for a client id that never had a persistent session', async () => {
        const device = await lamp();
        const { broker } = brokers[1];
        const persistence = (broker.aedes as unknown as { persistence: Record<string, (...a: unknown[]) => unknown> })
            .persistence;
        const outgoing = vi.spyOn(persistence, 'outgoingStream');
        const cleanSubs = vi.spyOn(persistence, 'cleanSubscriptions');
        // No will stored for it here: none to delete (three Redis commands).
        const delWill = vi.spyOn(persistence, 'delWill');
        // aedes announces a connect and a disconnect with a publish on `$SYS/{broker}/(new|disconnect)/clients`.
        const publish = vi.spyOn(broker.aedes, 'publish');
        const announced = () =>
            publish.mock.calls
                .map(([packet]) => packet.topic)
                .filter((topic) => /^\$SYS\/[^/]+\/(new|disconnect)\/clients$/.test(topic));
        try {
            const client = await connect(brokers[1].url, alibabaCredentials(device));
            clients.push(client);
            const gone = new Promise<void>((r) => broker.aedes.once('clientDisconnect', () => setImmediate(r)));
            await client.endAsync();
            await gone;
            expect(outgoing).not.toHaveBeenCalled();
            expect(cleanSubs).not.toHaveBeenCalled();
            expect(delWill).not.toHaveBeenCalled();
            expect(announced()).toEqual([]);
        } finally {
            outgoing.mockRestore();
            cleanSubs.mockRestore();
            delWill.mockRestore();
            publish.mockRestore();
        }
    });

    it("removes the session of the device's older clientId, held on the other process, with what was queued to it", async () => {
        const device = await lamp();
        const topic = `/${device.productKey}/${device.deviceName}/user/get`;
        const first = alibabaCredentials(device, { timestamp: 1_700_000_000_000 });
        const older = await connect(brokers[0].url, { ...first, clean: false });
        clients.push(older);
        await older.subscribeAsync(topic, { qos: 1 });
        await older.endAsync();
        await toBroker(1, topic, 'while away');
        // aedes-persistence-redis' keys of a session: its subscriptions and its outgoing queue.
        const subsKey = `client:${encodeURIComponent(first.clientId)}`;
        const queueKey = `outgoing:${encodeURIComponent(first.clientId)}`;
        await until(async () => (await redis.llen(queueKey)) === 1);
        expect(await redis.hkeys(subsKey)).toEqual([topic]);

        // The device starts again (a new sign-in timestamp: a new clientId) and signs in on the other process.
        const second = alibabaCredentials(device, { timestamp: 1_700_000_600_000 });
        const newer = await connect(brokers[1].url, { ...second, clean: false });
        clients.push(newer);
        // aedes-persistence-redis removes them one command after another: the queue, then the id from its set.
        await until(
            async () =>
                (await redis.exists(subsKey, queueKey)) === 0 &&
                (await redis.sismember('clients', first.clientId)) === 0,
        );
        await newer.endAsync();
        // Under the older clientId again, on the process it was held on: no session is there any more.
        const again = mqtt.connect(brokers[0].url, { ...first, clean: false, reconnectPeriod: 0 });
        clients.push(again);
        const present = await new Promise<boolean>((resolve) =>
            again.once('connect', (connack) => resolve(connack.sessionPresent)),
        );
        expect(present).toBe(false);
        await again.endAsync();
    });

    it("closes another device's connection under the same client id on the other process", async () => {
        const [one, two] = [await lamp(), await lamp()];
        const older = await connect(brokers[0].url, alibabaCredentials(one, { id: 'same', timestamp: null }));
        clients.push(older);
        const closed = new Promise<void>((r) => older.once('close', () => r()));
        const newer = await connect(brokers[1].url, alibabaCredentials(two, { id: 'same', timestamp: null }));
        clients.push(newer);
        await closed;
        expect(newer.connected).toBe(true);
    });
});
