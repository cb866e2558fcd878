// @vitest-environment node
import { and, asc, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deviceMessages, devices, videoDevices } from '../../server/db/schema';
import { markLeftOnline } from '../../server/mqtt/presence';
import { createTestServer, type TestServer } from '../../server/testing';
import { productWithDevices } from './support';

/**
 * A server start in one process: no connection outlives the process, so the devices the previous run left ONLINE are
 * OFFLINE as of the start, and each change is in the device's message log. What connected after the start, what was
 * not ONLINE and video devices (their registration says their status) keep theirs.
 */
let s: TestServer;
let ids: number[];

beforeAll(async () => {
    s = await createTestServer({ seed: false });
    ids = await productWithDevices(s, 4);
});
afterAll(() => s?.close());

describe('markLeftOnline', () => {
    it('marks the previous run’s ONLINE devices OFFLINE as of the start and logs why, and nothing else', async () => {
        const start = new Date();
        const before = new Date(start.getTime() - 60_000);
        const after = new Date(start.getTime() + 1_000);
        const [left, reconnected, offline, camera] = ids;
        const set = (id: number, status: 'ONLINE' | 'OFFLINE', at: Date) =>
            s.db.update(devices).set({ status, statusTime: at, lastTime: at }).where(eq(devices.id, id));
        await set(left, 'ONLINE', before);
        await set(reconnected, 'ONLINE', after); // connected again after this start
        await set(offline, 'OFFLINE', before);
        await set(camera, 'ONLINE', before);
        await s.db.insert(videoDevices).values({ deviceId: camera, protocol: 'rtsp', host: '127.0.0.1' });

        expect(await markLeftOnline(s.db, start)).toBe(1);

        const rows = await s.db
            .select({ id: devices.id, status: devices.status, statusTime: devices.statusTime })
            .from(devices)
            .orderBy(asc(devices.id));
        expect(rows.map((r) => [r.id, r.status])).toEqual([
            [left, 'OFFLINE'],
            [reconnected, 'ONLINE'],
            [offline, 'OFFLINE'],
            [camera, 'ONLINE'],
        ]);
        expect(rows[0].statusTime?.toISOString()).toBe(start.toISOString());
        expect(rows[2].statusTime?.toISOString()).toBe(before.toISOString());

        const logged = await s.db
            .select({ deviceId: deviceMessages.deviceId, ts: deviceMessages.ts, data: deviceMessages.data })
            .from(deviceMessages)
            .where(eq(deviceMessages.method, 'device.status'));
        expect(logged).toEqual([{ deviceId: left, ts: start, data: { status: 'offline', reason: 'serverRestart' } }]);

        // Run again (a second start at the same moment): nothing left to change.
        expect(await markLeftOnline(s.db, start)).toBe(0);
        const again = await s.db
            .select({ id: deviceMessages.id })
            .from(deviceMessages)
            .where(and(eq(deviceMessages.method, 'device.status'), eq(deviceMessages.deviceId, left)));
        expect(again).toHaveLength(1);
    });
});
