import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { devices } from '../../server/db/schema';
import { DeviceMapCache, deviceMapVersion } from '../../server/domain/deviceMapCache';
import { createTestServer, type TestServer } from '../../server/testing';
import { call, form } from './support';

let s: TestServer;
beforeAll(async () => {
    s = await createTestServer();
});
afterAll(() => s?.close());

interface MapPoint {
    deviceId: number;
    deviceName: string;
    longitude: number;
    latitude: number;
    status: string;
}

async function mapPoints(): Promise<MapPoint[]> {
    const answer = await call(s, 'GET', '/api/device/queryLonLatList');
    expect(answer.body).toMatchObject({ code: 0 });
    return (answer.body.data as { list: MapPoint[] }).list;
}

async function anyProductKey(): Promise<string> {
    const list = await call(s, 'GET', '/api/product?pageNumber=1&pageSize=1');
    return (list.body.data as { records: Array<{ productKey: string }> }).records[0].productKey;
}

describe('the device map answer, cached until a device changes', () => {
    it('shows a device placed, moved, renamed, switched and deleted right away', async () => {
        const productKey = await anyProductKey();
        const before = await mapPoints();
        const saved = await call(
            s,
            'POST',
            '/api/device/save',
            form({ productKey, deviceName: 'map_cache_1', longitude: 113.26, latitude: 23.13 }),
        );
        const id = (saved.body.data as { deviceId: number }).deviceId;
        const placed = await mapPoints();
        expect(placed).toHaveLength(before.length + 1);
        expect(placed.find((p) => p.deviceId === id)).toMatchObject({ longitude: 113.26, latitude: 23.13 });

        // A location tag moves it (an UPDATE of the coordinates).
        await call(
            s,
            'POST',
            '/api/tag/save',
            form({ type: 2, objectId: id, items: JSON.stringify([{ key: 'coordinate', value: '30.66,104.07' }]) }),
        );
        expect((await mapPoints()).find((p) => p.deviceId === id)).toMatchObject({
            longitude: 104.07,
            latitude: 30.66,
        });

        // Status and name changes written straight to the table (as device access will) show too.
        await s.db.update(devices).set({ status: 'ONLINE', deviceName: 'map_cache_1b' }).where(eq(devices.id, id));
        expect((await mapPoints()).find((p) => p.deviceId === id)).toMatchObject({
            status: 'ONLINE',
            deviceName: 'map_cache_1b',
        });

        await s.db.delete(devices).where(eq(devices.id, id));
        expect((await mapPoints()).some((p) => p.deviceId === id)).toBe(false);
    });

    it('moves the version on map changes only, not on a remark edit', async () => {
        const v0 = await deviceMapVersion(s.db);
        await s.db.execute(sql`UPDATE devices SET remark = 'x' WHERE id = (SELECT min(id) FROM devices)`);
        expect(await deviceMapVersion(s.db)).toBe(v0);
        await s.db.execute(sql`UPDATE devices SET longitude = longitude WHERE id = (SELECT min(id) FROM devices)`);
        expect(await deviceMapVersion(s.db)).not.toBe(v0);
    });

    it('builds once per version and age, and shares a build in flight', async () => {
        let clock = 0;
        const cache = new DeviceMapCache(30_000, () => clock);
        let builds = 0;
        const build = async () => `map${++builds}`;
        const [a, b] = await Promise.all([cache.get(s.db, build), cache.get(s.db, build)]);
        expect([a, b, builds]).toEqual(['map1', 'map1', 1]);
        expect(await cache.get(s.db, build)).toBe('map1');
        clock += 30_000;
        expect(await cache.get(s.db, build)).toBe('map2');
        await s.db.execute(sql`UPDATE devices SET status = status WHERE id = (SELECT min(id) FROM devices)`);
        expect(await cache.get(s.db, build)).toBe('map3');
        expect(builds).toBe(3);
    });
});
