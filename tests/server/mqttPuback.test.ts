import { connect as netConnect, type Socket } from 'node:net';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { rowsOf } from '../../server/db/rows';
import type { FenceToken } from '../../server/cluster/fence';
import { createBroker } from '../../server/mqtt/broker';
import { deliveryOf, RESEND_CHECK_COUNT, RESEND_CHECK_MS, RESEND_LATE_MS } from '../../server/mqtt/resend';
import { alibabaCredentials } from '../../server/mqtt/signIn';
import { createTestServer, type TestServer } from '../../server/testing';
import { connectPacket, packetReader, qos1Publisher } from '../bench/mqtt/packets';
import { secretOf, startBroker, until, type Broker } from './mqttSupport';
import { freshLamp } from './telemetrySupport';

/**
 * A PUBACK means stored: when the uplink cannot store a QoS 1 message (the database falters), the device gets no
 * PUBACK and its connection closes, so it sends the message again after reconnecting; that copy is stored once. A
 * message whose PUBACK was lost after it was stored (the connection or the process died) and that the device sends
 * again on its next connection is acknowledged without being stored or told to rules a second time.
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
function rawSocket(to = port) {
    const socket = netConnect({ port: to, host: '127.0.0.1' });
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

/** A signed-in raw connection of `device` (to the broker on `to`). */
async function signedIn(device: Awaited<ReturnType<typeof lamp>>, to = port) {
    const creds = alibabaCredentials(device);
    const raw = rawSocket(to);
    raw.socket.write(connectPacket(creds.clientId, creds.username, creds.password, 60));
    await until(() => raw.types.includes(CONNACK));
    return raw;
}

describe('a resend after a lost PUBACK', () => {
    it('is acknowledged, stored once and told to rules once, with or without DUP', async () => {
        const device = await lamp();
        const publishPacket = qos1Publisher(`/sys/${device.productKey}/${device.deviceName}/thing/event/property/post`);
        const body = JSON.stringify({ id: '41', version: '1.0', params: { Brightness: 41 } });
        let told = 0;
        const stop = broker.uplink.onAccepted((m) => {
            if (m.device.deviceId === device.deviceId) told++;
        });
        try {
            const first = await signedIn(device);
            first.socket.write(publishPacket(11, body));
            await until(() => first.types.includes(PUBACK));
            // The PUBACK "lost": the device never read it and its connection dies.
            first.socket.destroy();
            expect(await storedPosts(device.deviceId, 41)).toBe(1);

            // mqtt.js resends its unacknowledged messages as they were (DUP not set) right after CONNACK.
            const second = await signedIn(device);
            second.socket.write(publishPacket(11, body));
            await until(() => second.types.includes(PUBACK));
            // Another client sets DUP, as MQTT 3.1.1 asks.
            const dup = publishPacket(11, body);
            dup[0] |= 0x08;
            second.socket.write(dup);
            await until(() => second.types.filter((t) => t === PUBACK).length === 2);
            expect(await storedPosts(device.deviceId, 41)).toBe(1);
            expect(told).toBe(1);

            // The same packet id with other bytes is a new message, stored.
            second.socket.write(
                publishPacket(11, JSON.stringify({ id: '42', version: '1.0', params: { Brightness: 42 } })),
            );
            await until(() => second.types.filter((t) => t === PUBACK).length === 3);
            expect(await storedPosts(device.deviceId, 42)).toBe(1);
            expect(told).toBe(2);
            second.socket.destroy();
        } finally {
            stop();
        }
    });

    it('is looked for only with DUP set, in the first seconds or the first messages of a connection, and never for QoS 0', () => {
        const packet = { qos: 1, messageId: 5, payload: Buffer.from('{"id":"1"}') };
        expect(deliveryOf(packet, 0)?.checkResent).toBe(true);
        expect(deliveryOf(packet, RESEND_CHECK_MS + 1, RESEND_CHECK_COUNT)?.checkResent).toBe(false);
        expect(deliveryOf({ ...packet, dup: true }, RESEND_CHECK_MS + 1, RESEND_CHECK_COUNT)?.checkResent).toBe(true);
        // A platform past its limit reads a reconnected device's resends late: they are still its first messages.
        expect(deliveryOf(packet, RESEND_CHECK_MS + 1, RESEND_CHECK_COUNT - 1)?.checkResent).toBe(true);
        expect(deliveryOf(packet, 0, RESEND_CHECK_COUNT)?.checkResent).toBe(true);
        expect(deliveryOf(packet, RESEND_LATE_MS, 0)?.checkResent).toBe(false);
        expect(deliveryOf({ ...packet, messageId: 6 }, 0)?.resendKey).not.toBe(deliveryOf(packet, 0)?.resendKey);
        expect(deliveryOf({ ...packet, payload: Buffer.from('{"id":"2"}') }, 0)?.resendKey).not.toBe(
            deliveryOf(packet, 0)?.resendKey,
        );
        expect(deliveryOf({ qos: 0, payload: packet.payload }, 0)).toBeUndefined();
    });
});

describe('a fenced member', () => {
    it('stores and acknowledges nothing it reads after its lease ran out: the connection closes', async () => {
        let fenced = false;
        const own = await createBroker({ db: s.db, log: () => undefined, fenced: () => fenced });
        const ownPort = await own.listen(0, '127.0.0.1');
        try {
            const device = await lamp();
            const raw = await signedIn(device, ownPort);
            fenced = true;
            const publishPacket = qos1Publisher(
                `/sys/${device.productKey}/${device.deviceName}/thing/event/property/post`,
            );
            raw.socket.write(publishPacket(3, JSON.stringify({ id: '3', version: '1.0', params: { Brightness: 43 } })));
            await Promise.race([raw.closed, new Promise((r) => setTimeout(r, 5_000))]);
            expect(raw.socket.destroyed).toBe(true);
            expect(raw.types).toEqual([CONNACK]);
            expect(await storedPosts(device.deviceId, 43)).toBe(0);
        } finally {
            await own.close();
        }
    });

    /** A member registered under `incarnation` whose heartbeat is `ageMs` old by the database's clock. */
    async function member(nodeId: string, incarnation: string, ageMs: number) {
        await s.db.execute(sql`
            INSERT INTO cluster_nodes (node_id, incarnation, heartbeat_at)
            VALUES (${nodeId}, ${incarnation}, now() - ${`${ageMs} milliseconds`}::interval)
            ON CONFLICT (node_id) DO UPDATE SET incarnation = excluded.incarnation, heartbeat_at = excluded.heartbeat_at`);
    }

    /** A broker of member `nodeId` that does not know yet whether it is fenced (a process just resumed). */
    async function memberBroker(token: () => FenceToken) {
        const own = await createBroker({ db: s.db, log: () => undefined, fenced: () => false, fence: token });
        return { own, port: await own.listen(0, '127.0.0.1') };
    }

    async function post(device: Awaited<ReturnType<typeof lamp>>, to: number, marker: number) {
        const raw = await signedIn(device, to);
        const publishPacket = qos1Publisher(`/sys/${device.productKey}/${device.deviceName}/thing/event/property/post`);
        raw.socket.write(publishPacket(5, JSON.stringify({ id: '5', version: '1.0', params: { Brightness: marker } })));
        await Promise.race([raw.closed, until(async () => raw.types.includes(PUBACK), 5_000)]);
        return raw;
    }

    it('has a batch under way when its lease lapsed refused by the database: nothing stored, no PUBACK', async () => {
        const nodeId = `fence-lapsed-${Date.now()}`;
        await member(nodeId, 'a', 0);
        const token = { nodeId, incarnation: 'a', leaseMs: 1_500 };
        const { own, port: ownPort } = await memberBroker(() => token);
        try {
            const device = await lamp();
            const kept = await post(device, ownPort, 44);
            expect(kept.types).toEqual([CONNACK, PUBACK]);
            expect(await storedPosts(device.deviceId, 44)).toBe(1);
            // Paused past its lease: the others see its heartbeat 3 s old, while it has not looked at its clock yet.
            await member(nodeId, 'a', 3_000);
            const refused = await post(device, ownPort, 45);
            await Promise.race([refused.closed, new Promise((r) => setTimeout(r, 5_000))]);
            expect(refused.types).toEqual([CONNACK]);
            expect(refused.socket.destroyed).toBe(true);
            expect(await storedPosts(device.deviceId, 45)).toBe(0);
        } finally {
            await own.close();
        }
    });

    it('has a message accepted under an incarnation it has since left refused: registered again, not stored', async () => {
        const nodeId = `fence-revived-${Date.now()}`;
        await member(nodeId, 'a', 0);
        // The member's own view stays at incarnation a; meanwhile it was declared lost and registered again as b
        // (its renewal after the pause reached the database before the batch it had under way).
        const { own, port: ownPort } = await memberBroker(() => ({ nodeId, incarnation: 'a', leaseMs: 1_500 }));
        try {
            await member(nodeId, 'b', 0);
            const device = await lamp();
            const refused = await post(device, ownPort, 46);
            await Promise.race([refused.closed, new Promise((r) => setTimeout(r, 5_000))]);
            expect(refused.types).toEqual([CONNACK]);
            expect(await storedPosts(device.deviceId, 46)).toBe(0);
        } finally {
            await own.close();
        }
    });
});
