import { connect as netConnect, type Socket } from 'node:net';
import type { MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { alibabaCredentials } from '../../server/mqtt/signIn';
import { createTestServer, type TestServer } from '../../server/testing';
import { connectPacket, subscribePacket } from '../bench/mqtt/packets';
import {
    connect,
    connectSession,
    nextMessage,
    platformPublish,
    secretOf,
    startBroker,
    type Broker,
} from './mqttSupport';
import { freshLamp } from './telemetrySupport';

/**
 * Sessions through the broker's two CONNECT paths (server/mqtt/fastConnect.ts): a clean session's short path and
 * aedes' own handler for persistent sessions, which must keep working beside it.
 */

let s: TestServer;
let broker: Broker;
let url: string;
let port: number;
const clients: MqttClient[] = [];
const sockets: Socket[] = [];

async function lamp() {
    const device = await freshLamp(s);
    return { ...device, deviceId: Number(device.deviceId), secret: await secretOf(s, Number(device.deviceId)) };
}

beforeAll(async () => {
    s = await createTestServer();
    ({ broker, url, port } = await startBroker(s));
});

afterAll(async () => {
    for (const c of clients) c.end(true);
    for (const k of sockets) k.destroy();
    await broker?.close();
    await s?.close();
});

const session = (device: Awaited<ReturnType<typeof lamp>>, clean: boolean) =>
    connectSession(url, device, clean, clients);
const toSubscribers = (topic: string, text: string) => platformPublish(broker, topic, text);

/** Opens a raw socket and answers it with a reader of the bytes it receives. */
function rawSocket() {
    const socket = netConnect({ port, host: '127.0.0.1' });
    sockets.push(socket);
    let received = Buffer.alloc(0);
    const waiters: Array<() => void> = [];
    socket.on('data', (chunk: Buffer) => {
        received = Buffer.concat([received, chunk]);
        for (const w of waiters.splice(0)) w();
    });
    socket.on('error', () => undefined);
    const closed = new Promise<void>((r) => socket.once('close', () => r()));
    return {
        socket,
        closed,
        /** Resolves once at least `n` bytes arrived. */
        async bytes(n: number): Promise<Buffer> {
            while (received.length < n) await new Promise<void>((r) => waiters.push(r));
            return received;
        },
    };
}

describe('a clean session', () => {
    it('connects and leaves without reading a session queue or publishing on $SYS (one process)', async () => {
        const device = await lamp();
        const outgoing = vi.spyOn(
            (broker.aedes as unknown as { persistence: { outgoingStream(c: unknown): unknown } }).persistence,
            'outgoingStream',
        );
        const sys: string[] = [];
        const onPublish = (packet: { topic: string }) => {
            if (packet.topic.startsWith('$SYS/') && !packet.topic.endsWith('/heartbeat')) sys.push(packet.topic);
        };
        broker.aedes.on('publish', onPublish);
        try {
            const client = await connect(url, alibabaCredentials(device));
            clients.push(client);
            const closed = new Promise<void>((r) => client.once('close', () => r()));
            client.end();
            await closed;
            expect(outgoing).not.toHaveBeenCalled();
            expect(sys).toEqual([]);
        } finally {
            outgoing.mockRestore();
            broker.aedes.off('publish', onPublish);
        }
    });

    it('answers packets that arrive right behind its CONNECT, in the same write', async () => {
        const device = await lamp();
        const creds = alibabaCredentials(device);
        const raw = rawSocket();
        const filter = `/${device.productKey}/${device.deviceName}/user/get`;
        raw.socket.write(
            Buffer.concat([
                connectPacket(creds.clientId, creds.username, creds.password, 60),
                subscribePacket(filter, 1),
                Buffer.from([0xc0, 0x00]), // PINGREQ
            ]),
        );
        // CONNACK (accepted, no session) first; then SUBACK (packet 1, QoS 1 granted) and PINGRESP, in either order
        // (the PINGREQ is answered at once, the SUBSCRIBE after its check).
        const got = await raw.bytes(4 + 5 + 2);
        expect([...got.subarray(0, 4)]).toEqual([0x20, 2, 0, 0]);
        const rest = got.subarray(4).toString('hex');
        expect(['d0009003000101', '9003000101d000']).toContain(rest);
    });

    it('is closed when it stops pinging (keep-alive)', async () => {
        const device = await lamp();
        const creds = alibabaCredentials(device);
        const raw = rawSocket();
        raw.socket.write(connectPacket(creds.clientId, creds.username, creds.password, 1));
        expect([...(await raw.bytes(4)).subarray(0, 4)]).toEqual([0x20, 2, 0, 0]);
        await raw.closed; // 1.5 keep-alive periods without a packet: the broker closes it
        expect(raw.socket.destroyed).toBe(true);
    });

    it("publishes the device's will when its connection drops", async () => {
        const device = await lamp();
        const topic = `/${device.productKey}/${device.deviceName}/user/update`;
        const wills: string[] = [];
        await new Promise<void>((r) =>
            broker.aedes.subscribe(
                topic,
                (packet: { payload: Buffer | string }, cb: () => void) => {
                    wills.push(packet.payload.toString());
                    cb();
                },
                r,
            ),
        );
        const client = await connect(url, {
            ...alibabaCredentials(device),
            will: { topic, payload: Buffer.from('gone'), qos: 0, retain: false },
        });
        clients.push(client);
        (client as unknown as { stream: Socket }).stream.destroy();
        const until = Date.now() + 5000;
        while (!wills.length && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
        expect(wills).toEqual(['gone']);
    });
});

describe('a persistent session (clean=false)', () => {
    it('leaves nothing behind when it stored no subscription: its next clean CONNECT takes the short path', async () => {
        const device = await lamp();
        const persistent = await session(device, false);
        await persistent.client.endAsync();
        const outgoing = vi.spyOn(
            (broker.aedes as unknown as { persistence: { outgoingStream(c: unknown): unknown } }).persistence,
            'outgoingStream',
        );
        try {
            const clean = await session(device, true);
            await clean.client.endAsync();
            expect(outgoing).not.toHaveBeenCalled();
        } finally {
            outgoing.mockRestore();
        }
    });

    it('gets what was queued while it was away; a clean session discards it', async () => {
        const device = await lamp();
        const topic = `/${device.productKey}/${device.deviceName}/user/get`;
        // First visit: subscribes QoS 1 and leaves.
        const first = await session(device, false);
        expect(first.present).toBe(false);
        await first.client.subscribeAsync(topic, { qos: 1 });
        await first.client.endAsync();
        await toSubscribers(topic, 'while away');
        // Back with its session: the queued message arrives.
        const second = await session(device, false);
        expect(second.present).toBe(true);
        expect(await nextMessage(second.client, topic)).toEqual({ text: 'while away' });
        await second.client.endAsync();
        await toSubscribers(topic, 'never delivered');
        // A clean session ends the stored one: nothing queued comes, only what it subscribes to now.
        const clean = await session(device, true);
        expect(clean.present).toBe(false);
        const texts: unknown[] = [];
        clean.client.on('message', (_t, payload: Buffer) => texts.push(JSON.parse(payload.toString()).text));
        await clean.client.subscribeAsync(topic, { qos: 1 });
        await toSubscribers(topic, 'marker');
        const until = Date.now() + 5000;
        while (!texts.includes('marker') && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
        expect(texts).toEqual(['marker']);
        await clean.client.endAsync();
        // And the persistent session is gone for good.
        const after = await session(device, false);
        expect(after.present).toBe(false);
        await after.client.endAsync();
    });
});
