import { eq } from 'drizzle-orm';
import mqtt, { type IClientOptions, type MqttClient } from 'mqtt';
import { devices } from '../../server/db/schema';
import { createBroker, type Broker } from '../../server/mqtt/broker';
import { alibabaCredentials, sign } from '../../server/mqtt/signIn';
import type { TestServer } from '../../server/testing';
import { createDevice } from './devicesSupport';

export interface DeviceCredentials {
    deviceId: number;
    productKey: string;
    deviceName: string;
    secret: string;
}

/** The broker of a test server on an ephemeral port (never 1883: the machine runs Mosquitto there). */
export async function startBroker(s: TestServer, log: string[] = []) {
    const broker = await createBroker({ db: s.db, log: (m) => log.push(m) });
    s.access.attach(broker);
    const port = await broker.listen(0, '127.0.0.1');
    return { broker, port, url: `mqtt://127.0.0.1:${port}`, log };
}

export async function secretOf(s: TestServer, deviceId: number): Promise<string> {
    const [row] = await s.db.select({ secret: devices.secret }).from(devices).where(eq(devices.id, deviceId));
    return row.secret;
}

/** A new device of the product (POST /api/device/save) with its secret: what a device signs in with. */
export async function newDevice(s: TestServer, productKey: string): Promise<DeviceCredentials> {
    const row = await createDevice(s, productKey);
    const deviceId = Number(row.deviceId);
    return { deviceId, productKey: row.productKey, deviceName: row.deviceName, secret: await secretOf(s, deviceId) };
}

/** Alibaba's combine login request of a sub-device, signed with its secret. */
export function loginRequest(sub: DeviceCredentials, secret = sub.secret, id = '1') {
    const timestamp = String(Date.now());
    const clientId = `${sub.productKey}&${sub.deviceName}`;
    const content = `clientId${clientId}deviceName${sub.deviceName}productKey${sub.productKey}timestamp${timestamp}`;
    return JSON.stringify({
        id,
        params: {
            productKey: sub.productKey,
            deviceName: sub.deviceName,
            clientId,
            timestamp,
            signMethod: 'hmacsha1',
            sign: sign('hmacsha1', secret, content),
            cleanSession: 'true',
        },
    });
}

/** Connects, resolving with the client or rejecting with the CONNACK refusal (its `code`). */
export function connect(url: string, options: IClientOptions): Promise<MqttClient> {
    return new Promise((resolve, reject) => {
        const client = mqtt.connect(url, { reconnectPeriod: 0, connectTimeout: 5_000, ...options });
        client.once('connect', () => resolve(client));
        client.once('error', (err) => {
            client.end(true);
            reject(err);
        });
    });
}

/** The next message on a topic (subscribing first). */
export function nextMessage(client: MqttClient, topic: string, timeoutMs = 5_000): Promise<Record<string, unknown>> {
    return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no message on ${topic} within ${timeoutMs} ms`)), timeoutMs);
        const onMessage = (t: string, payload: Buffer) => {
            if (t !== topic) return;
            clearTimeout(timer);
            client.off('message', onMessage);
            resolve(JSON.parse(payload.toString()) as Record<string, unknown>);
        };
        client.on('message', onMessage);
    });
}

/** Subscribes; answers the granted QoS, or 128 when the broker refused the filter. */
export async function subscribe(client: MqttClient, topic: string): Promise<number | undefined> {
    try {
        const granted = await client.subscribeAsync(topic, { qos: 1 });
        return granted[0]?.qos;
    } catch (err) {
        if (/Subscribe error/.test((err as Error).message)) return 128;
        throw err;
    }
}

export async function until(check: () => Promise<boolean> | boolean, timeoutMs = 5_000) {
    const end = Date.now() + timeoutMs;
    while (Date.now() < end) {
        if (await check()) return;
        await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error('condition not met in time');
}

/**
 * Connects with a fixed client id (no timestamp: Alibaba's client id carries one) and `clean`; answers the client and
 * whether the broker had its session. `opened` collects the client for the file's clean-up.
 */
export function connectSession(
    url: string,
    device: Parameters<typeof alibabaCredentials>[0],
    clean: boolean,
    opened: MqttClient[],
): Promise<{ client: MqttClient; present: boolean }> {
    return new Promise((resolve, reject) => {
        const client = mqtt.connect(url, {
            ...alibabaCredentials(device, { id: 'session', timestamp: null }),
            clean,
            reconnectPeriod: 0,
            connectTimeout: 5_000,
        });
        opened.push(client);
        client.once('connect', (connack) => resolve({ client, present: connack.sessionPresent }));
        client.once('error', reject);
    });
}

/** A QoS 1 message `{ text }` published by the platform's broker itself (queued for offline persistent sessions). */
export function platformPublish(broker: Broker, topic: string, text: string): Promise<void> {
    return new Promise((resolve, reject) =>
        broker.aedes.publish(
            {
                cmd: 'publish',
                topic,
                payload: Buffer.from(JSON.stringify({ text })),
                qos: 1,
                retain: false,
                dup: false,
            },
            (err) => (err ? reject(err) : resolve()),
        ),
    );
}

export type { Broker };
