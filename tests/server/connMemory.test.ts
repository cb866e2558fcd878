import type { MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FlatEmitter } from '../../server/mqtt/flatEmitter';
import type { FlatMatcher } from '../../server/mqtt/flatMatcher';
import { alibabaCredentials } from '../../server/mqtt/signIn';
import { createTestServer, type TestServer } from '../../server/testing';
import { deviceFilters } from '../bench/connMemory/devices';
import { connect, secretOf, startBroker, until, type Broker } from './mqttSupport';
import { freshLamp } from './telemetrySupport';

/**
 * What a connected device holds in the broker, and that it is returned on disconnect (issue 41): its subscriptions
 * are entries of the broker's flat topic matcher (server/mqtt/flatEmitter.ts, flatMatcher.ts), not a trie of Maps per device, and
 * none of them is left once the device is gone.
 */

let s: TestServer;
let broker: Broker;
let url: string;
const clients: MqttClient[] = [];

beforeAll(async () => {
    s = await createTestServer();
    ({ broker, url } = await startBroker(s));
});

afterAll(async () => {
    for (const c of clients) c.end(true);
    await broker?.close();
    await s?.close();
});

const emitterOf = (b: Broker) => (b.aedes as unknown as { mq: unknown }).mq;
const held = (m: FlatMatcher) => {
    let wild = 0;
    for (const level of m.byPrefix.values()) for (const entries of level.values()) wild += entries.length;
    let exact = 0;
    for (const values of m.exact.values()) exact += values.length;
    return { exact, wild };
};

describe('a device’s subscriptions in the broker', () => {
    it('are one matcher entry per filter while connected, and none once it disconnected', async () => {
        const emitter = emitterOf(broker);
        expect(emitter).toBeInstanceOf(FlatEmitter);
        const flat: FlatMatcher = (emitter as FlatEmitter).matcher;
        const before = held(flat);

        const row = await freshLamp(s);
        const device = {
            productKey: row.productKey,
            deviceName: row.deviceName,
            secret: await secretOf(s, Number(row.deviceId)),
        };
        const client = await connect(url, { ...alibabaCredentials(device), clean: true });
        clients.push(client);
        const filters = deviceFilters(device.productKey, device.deviceName);
        const granted = await client.subscribeAsync(filters, { qos: 1 });
        const accepted = granted.filter((g) => g.qos !== 128).map((g) => g.topic);
        const wildcards = accepted.filter((t) => /[+#]/.test(t)).length;
        expect(accepted.length).toBeGreaterThan(wildcards);
        expect(wildcards).toBeGreaterThan(0);
        expect(held(flat)).toEqual({
            exact: before.exact + accepted.length - wildcards,
            wild: before.wild + wildcards,
        });

        await client.endAsync();
        await until(() => held(flat).exact === before.exact && held(flat).wild === before.wild);
        expect(held(flat)).toEqual(before);
    });
});

describe('a device’s persistent session', () => {
    const storedSubscriptions = (clientId: string) =>
        (
            broker.aedes as unknown as {
                persistence: { subscriptionsByClient(c: { id: string }): Promise<Array<{ topic: string }>> };
            }
        ).persistence.subscriptionsByClient({ id: clientId });

    it('goes with its older clientId when the device signs in under a new one (a new sign-in timestamp)', async () => {
        const row = await freshLamp(s);
        const device = {
            productKey: row.productKey,
            deviceName: row.deviceName,
            secret: await secretOf(s, Number(row.deviceId)),
        };
        const first = alibabaCredentials(device, { timestamp: 1_700_000_000_000 });
        const older = await connect(url, { ...first, clean: false });
        clients.push(older);
        await older.subscribeAsync(`/sys/${device.productKey}/${device.deviceName}/thing/service/property/set`, {
            qos: 1,
        });
        await older.endAsync();
        expect(await storedSubscriptions(first.clientId)).toHaveLength(1);

        const second = alibabaCredentials(device, { timestamp: 1_700_000_600_000 });
        expect(second.clientId).not.toBe(first.clientId);
        const newer = await connect(url, { ...second, clean: false });
        clients.push(newer);
        await until(async () => (await storedSubscriptions(first.clientId)).length === 0);
        expect(await storedSubscriptions(first.clientId)).toEqual([]);
        await newer.endAsync();
    });
});
