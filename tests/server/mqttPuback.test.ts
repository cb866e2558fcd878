import { connect as netConnect, type Socket } from 'node:net';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { rowsOf } from '../../server/db/rows';
import { alibabaCredentials } from '../../server/mqtt/signIn';
import { createTestServer, type TestServer } from '../../server/testing';
import { connectPacket, packetReader, qos1Publisher } from '../bench/mqtt/packets';
import { secretOf, startBroker, until, type Broker } from './mqttSupport';
import { freshLamp } from './telemetrySupport';

/**
 * A PUBACK means stored: when the uplink cannot store a QoS 1 message (the database falters), the device gets no
 * PUBACK and its connection closes, so it sends the message again after reconnecting; that copy is stored once.
 */

let s: TestServer;
let broker: Broker;
let port: number;
const sockets: Socket[] = [];

beforeAll(async () => {
    s = await createTestServer();
    ({ broker, port } = await startBroker(s));
});

afterAll(async () => {
    for (const k of sockets) k.destroy();
    await broker?.close();
    await s?.close();
});

/** A raw connection: the packet types it received (high nibble of the first byte) and its close. */
function rawSocket() {
    const socket = netConnect({ port, host: '127.0.0.1' });
    sockets.push(socket);
    const types: number[] = [];
    const read = packetReader((type) => types.push(type));
    socket.on('data', read);
    socket.on('error', () => undefined);
    const closed = new Promise<void>((r) => socket.once('close', () => r()));
    return { socket, types, closed };
}

async function storedPosts(deviceId: number, marker: number): Promise<number> {
    const rows = rowsOf<{ n: number }>(
        await s.db.execute(sql`SELECT count(*)::int AS n FROM device_messages
            WHERE device_id = ${deviceId} AND method = 'thing.event.property.post'
            AND (data->>'Brightness')::int = ${marker}`),
    );
    return rows[0].n;
}

const CONNACK = 2;
const PUBACK = 4;

describe('store, then PUBACK', () => {
    it('withholds the PUBACK and closes the connection when the store fails; the resend is stored once', async () => {
        const device = await lamp();
        const creds = alibabaCredentials(device);
        const topic = `/sys/${device.productKey}/${device.deviceName}/thing/event/property/post`;
        const publishPacket = qos1Publisher(topic);
        const marker = 37;
        const body = JSON.stringify({ id: '1', version: '1.0', params: { Brightness: marker } });

        const failing = vi
            .spyOn(broker.uplink, 'handle')
            .mockRejectedValueOnce(new Error('connection to the database lost'));
        try {
            const first = rawSocket();
            first.socket.write(Buffer.concat([connectPacket(creds.clientId, creds.username, creds.password, 60)]));
            await until(() => first.types.includes(CONNACK));
            first.socket.write(publishPacket(7, body));
            await Promise.race([first.closed, new Promise((r) => setTimeout(r, 5_000))]);
            expect(failing).toHaveBeenCalledTimes(1);
            expect(first.types).toEqual([CONNACK]);
            expect(first.socket.destroyed).toBe(true);
            expect(await storedPosts(device.deviceId, marker)).toBe(0);

            // The device reconnects and sends it again (DUP, same packet id): stored and acknowledged.
            const second = rawSocket();
            second.socket.write(connectPacket(creds.clientId, creds.username, creds.password, 60));
            await until(() => second.types.includes(CONNACK));
            const resend = publishPacket(7, body);
            resend[0] |= 0x08;
            second.socket.write(resend);
            await until(() => second.types.includes(PUBACK));
            expect(second.types).toEqual([CONNACK, PUBACK]);
            expect(await storedPosts(device.deviceId, marker)).toBe(1);
            second.socket.destroy();
        } finally {
            failing.mockRestore();
        }
    });
});

async function lamp() {
    const device = await freshLamp(s);
    return { ...device, deviceId: Number(device.deviceId), secret: await secretOf(s, Number(device.deviceId)) };
}
