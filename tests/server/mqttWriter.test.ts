import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { devices } from '../../server/db/schema';
import { latestValues } from '../../server/domain/telemetry';
import { createMessageWriter, FencedWrite } from '../../server/mqtt/writer';
import { createTestServer, type TestServer } from '../../server/testing';
import { freshLamp } from './telemetrySupport';

// The broker's batch writer (server/mqtt/writer.ts): what a batch of mixed messages leaves in the message log and the
// devices' latest values, however the rows travel to the database.

let s: TestServer;

beforeAll(async () => {
    s = await createTestServer();
});

afterAll(async () => {
    await s?.close();
});

async function lamp() {
    const device = await freshLamp(s);
    return { ...device, deviceId: Number(device.deviceId) };
}

interface Row {
    method: string;
    identifier: string | null;
    data: unknown;
    ts: string;
    product_id: number;
}

async function messagesOf(deviceId: number): Promise<Row[]> {
    const result = await s.db.execute(
        sql`SELECT method, identifier, data, to_char(ts AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS') AS ts,
                product_id FROM device_messages WHERE device_id = ${deviceId} ORDER BY ts, id`,
    );
    return (result as unknown as { rows: Row[] }).rows;
}

describe('message writer', () => {
    it('writes nothing a fenced member had queued (a process resumed after a pause), and says so to each write', async () => {
        const a = await lamp();
        let fenced = false;
        const writer = createMessageWriter(s.db, { fenced: () => fenced });
        // Queued while the lease held; the member is fenced before the batch goes (the process was paused meanwhile).
        const queued = writer.propertyPost(a.deviceId, new Date(), { Brightness: 12 });
        fenced = true;
        await expect(queued).rejects.toBeInstanceOf(FencedWrite);
        expect(await messagesOf(a.deviceId)).toEqual([]);
        fenced = false;
        await writer.propertyPost(a.deviceId, new Date(), { Brightness: 13 });
        expect((await messagesOf(a.deviceId)).map((r) => r.data)).toEqual([{ Brightness: 13 }]);
    });

    it('stores one batch of property posts, events and replies: log rows in order, latest values, product', async () => {
        const a = await lamp();
        const b = await lamp();
        const writer = createMessageWriter(s.db);
        const t0 = Date.UTC(2026, 0, 2, 3, 4, 5, 678);
        const awkward = 'say "hi" \\ 路灯 {a,b} NULL';
        await Promise.all([
            writer.propertyPost(a.deviceId, new Date(t0), { Brightness: 10, LightSwitch: 1 }),
            writer.write({
                deviceId: a.deviceId,
                ts: new Date(t0 + 1),
                method: 'thing.event.Error.post',
                identifier: 'Error',
                data: { code: 7, text: awkward },
            }),
            writer.propertyPost(b.deviceId, new Date(t0 + 2), { Brightness: 20 }),
            writer.write({
                deviceId: a.deviceId,
                ts: new Date(t0 + 3),
                method: 'user.message',
                identifier: null,
                data: { topic: '/x/y', payload: awkward },
            }),
            writer.propertyPost(a.deviceId, new Date(t0 + 4), { Brightness: 11 }),
        ]);
        expect(writer.batches).toBe(1);
        expect(writer.written).toBe(5);

        const [{ productId }] = await s.db
            .select({ productId: devices.productId })
            .from(devices)
            .where(eq(devices.id, a.deviceId));
        expect(await messagesOf(a.deviceId)).toEqual([
            {
                method: 'thing.event.property.post',
                identifier: null,
                data: { Brightness: 10, LightSwitch: 1 },
                ts: '2026-01-02T03:04:05.678',
                product_id: productId,
            },
            {
                method: 'thing.event.Error.post',
                identifier: 'Error',
                data: { code: 7, text: awkward },
                ts: '2026-01-02T03:04:05.679',
                product_id: productId,
            },
            {
                method: 'user.message',
                identifier: null,
                data: { topic: '/x/y', payload: awkward },
                ts: '2026-01-02T03:04:05.681',
                product_id: productId,
            },
            {
                method: 'thing.event.property.post',
                identifier: null,
                data: { Brightness: 11 },
                ts: '2026-01-02T03:04:05.682',
                product_id: productId,
            },
        ]);
        expect(await latestValues(s.db, a.deviceId)).toEqual({ Brightness: 11, LightSwitch: 1 });
        expect(await latestValues(s.db, b.deviceId)).toEqual({ Brightness: 20 });
    });

    it('keeps the newer latest value when an older report arrives later', async () => {
        const a = await lamp();
        const writer = createMessageWriter(s.db);
        const t0 = Date.UTC(2026, 0, 2, 3, 4, 5);
        await writer.propertyPost(a.deviceId, new Date(t0), { Brightness: 50, LightSwitch: 1 });
        await writer.propertyPost(a.deviceId, new Date(t0 - 60_000), { Brightness: 5, ActivePower: 1.5 });
        expect(await latestValues(s.db, a.deviceId)).toEqual({ Brightness: 50, LightSwitch: 1, ActivePower: 1.5 });
        expect((await messagesOf(a.deviceId)).map((m) => m.data)).toEqual([
            { Brightness: 5, ActivePower: 1.5 },
            { Brightness: 50, LightSwitch: 1 },
        ]);
    });

    it('fails only the message of a device deleted meanwhile; the rest of its batch is stored', async () => {
        const a = await lamp();
        const gone = await lamp();
        await s.db.delete(devices).where(eq(devices.id, gone.deviceId));
        const writer = createMessageWriter(s.db);
        const results = await Promise.allSettled([
            writer.propertyPost(a.deviceId, new Date(), { Brightness: 1 }),
            writer.propertyPost(gone.deviceId, new Date(), { Brightness: 2 }),
            writer.write({
                deviceId: a.deviceId,
                ts: new Date(),
                method: 'thing.event.Error.post',
                identifier: 'Error',
                data: {},
            }),
        ]);
        expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
        expect((await messagesOf(a.deviceId)).map((m) => m.method)).toEqual([
            'thing.event.property.post',
            'thing.event.Error.post',
        ]);
        expect(await messagesOf(gone.deviceId)).toEqual([]);
        expect(await latestValues(s.db, a.deviceId)).toEqual({ Brightness: 1 });
    });
});
