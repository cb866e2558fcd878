import { gunzipSync } from 'node:zlib';
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { categories, devices, products } from '../../server/db/schema';
import { DeviceClusterIndex } from '../../server/domain/deviceClusters';
import { createTestServer, type TestServer } from '../../server/testing';
import { call } from './support';

let s: TestServer;
let productId: number;
beforeAll(async () => {
    s = await createTestServer({ seed: false });
    const [leaf] = await s.db.select().from(categories).where(eq(categories.level, 3)).limit(1);
    [{ id: productId }] = await s.db
        .insert(products)
        .values({
            productKey: 'ClusterTest01',
            productName: '聚合测试',
            nodeType: 0,
            categoryId: leaf.id,
            networkType: 5,
            dataType: 0,
        })
        .returning({ id: products.id });
    // 300 devices around Beijing, 200 around Shanghai (0.05° apart on a grid), 1 alone in Urumqi.
    await s.db.execute(sql`
        INSERT INTO devices (product_id, device_name, status, username, client_id, secret, longitude, latitude)
        SELECT ${productId}, 'c' || g, CASE WHEN g % 2 = 0 THEN 'ONLINE' ELSE 'OFFLINE' END, 'u' || g, 'c' || g, 's',
               CASE WHEN g <= 300 THEN 116.0 + (g % 20) * 0.05 ELSE 121.0 + (g % 20) * 0.05 END,
               CASE WHEN g <= 300 THEN 39.5 + (g / 20) * 0.05 ELSE 31.0 + ((g - 300) / 20) * 0.05 END
        FROM generate_series(1, 500) AS g`);
    await s.db.execute(sql`
        INSERT INTO devices (product_id, device_name, status, username, client_id, secret, longitude, latitude)
        VALUES (${productId}, 'urumqi', 'INACTIVE', 'uq', 'uq', 's', 87.62, 43.82)`);
});
afterAll(() => s?.close());

interface Answer {
    total: number;
    zoom: number;
    clusters: Array<{ clusterId: number; longitude: number; latitude: number; count: number; expansionZoom: number }>;
    devices: Array<{ deviceId: number; productId: number; deviceName: string; status: string; longitude: number }>;
    truncated: boolean;
    rebuilding: boolean;
    whole?: boolean;
}

const clusters = async (query: string) => {
    const answer = await call<{ code: number; data: Answer }>(s, 'GET', `/api/device/queryLonLatClusters?${query}`);
    expect(answer.status).toBe(200);
    return answer.body.data;
};
const shown = (a: Answer) => a.clusters.reduce((n, c) => n + c.count, 0) + a.devices.length;

describe('the device map clusters', () => {
    it('gathers the whole country into a few clusters at zoom 3 and counts every device once', async () => {
        const a = await clusters('zoom=3.6&bbox=73,18,135,54');
        expect(a.total).toBe(501);
        expect(a.zoom).toBe(3);
        expect(shown(a)).toBe(501);
        expect(a.clusters.length).toBeGreaterThanOrEqual(2);
        expect(a.clusters.length).toBeLessThan(10);
        // Urumqi stands alone: a device, not a cluster, with what a click needs to open it.
        expect(a.devices).toEqual([expect.objectContaining({ deviceName: 'urumqi', productId, status: 'INACTIVE' })]);
        const big = a.clusters.sort((x, y) => y.count - x.count)[0];
        expect(big.expansionZoom).toBeGreaterThan(3);
    });

    it('answers only what is inside the bounding box', async () => {
        const a = await clusters('zoom=6&bbox=115,38,118,42');
        expect(shown(a)).toBe(300);
        expect(a.total).toBe(501);
    });

    it('shows devices one by one past zoom 14, named, with status and product', async () => {
        const a = await clusters('zoom=16&bbox=115.99,39.49,116.06,39.56');
        expect(a.clusters).toEqual([]);
        expect(a.devices.length).toBeGreaterThan(0);
        for (const d of a.devices) {
            expect(d.deviceName).toMatch(/^c\d+$/);
            expect(d.productId).toBe(productId);
            expect(['ONLINE', 'OFFLINE']).toContain(d.status);
        }
    });

    it('refuses a missing or out-of-range zoom and a malformed bbox with 400', async () => {
        for (const query of ['', 'zoom=abc', 'zoom=-1', 'zoom=23', 'zoom=3&bbox=1,2,3']) {
            const res = await s.fetch(`/api/device/queryLonLatClusters?${query}`);
            expect(res.status).toBe(400);
            const body = (await res.json()) as { msg: string };
            expect(body.msg).toMatch(/zoom 应为|bbox 格式应为/);
        }
    });

    it('answers 401 without a session', async () => {
        const res = await s.anonFetch('/api/device/queryLonLatClusters?zoom=3');
        expect(res.status).toBe(401);
    });

    it('sends the gzipped bytes it keeps, for the clusters and for the whole map', async () => {
        // Zoom 12 over Beijing: single devices, a few kilobytes (answers under a kilobyte go as they are).
        const nearBeijing = '/api/device/queryLonLatClusters?zoom=12&bbox=116,39,117,41';
        for (const target of [nearBeijing, '/api/device/queryLonLatList']) {
            const plain = await (await s.fetch(target)).text();
            const first = await s.fetch(target, { headers: { 'accept-encoding': 'gzip' } });
            expect(first.headers.get('content-encoding')).toBe('gzip');
            const bytes = Buffer.from(await first.arrayBuffer());
            expect(gunzipSync(bytes).toString('utf8')).toBe(plain);
            const again = Buffer.from(
                await (await s.fetch(target, { headers: { 'accept-encoding': 'gzip' } })).arrayBuffer(),
            );
            expect(again.equals(bytes)).toBe(true);
        }
    });

    it('follows devices added, moved, switched and deleted, rebuilding off the request path', async () => {
        const index = new DeviceClusterIndex(s.db);
        const at = async (zoom: number, bbox: [number, number, number, number]) => index.query(zoom, bbox);
        const before = await at(3, [73, 18, 135, 54]);
        expect(shown(before)).toBe(501);

        const [added] = await s.db
            .insert(devices)
            .values({
                productId,
                deviceName: 'lhasa',
                status: 'ONLINE',
                username: 'lh',
                clientId: 'lh',
                secret: 's',
                longitude: 91.11,
                latitude: 29.65,
            })
            .returning({ id: devices.id });
        await index.settle();
        const lhasa = [90, 29, 92, 30] as [number, number, number, number];
        expect((await at(10, lhasa)).devices).toEqual([
            expect.objectContaining({ deviceId: added.id, status: 'ONLINE' }),
        ]);

        await s.db.update(devices).set({ status: 'DISABLE', longitude: 91.5 }).where(eq(devices.id, added.id));
        await index.settle();
        expect((await at(10, lhasa)).devices).toEqual([
            expect.objectContaining({ deviceId: added.id, status: 'DISABLE', longitude: 91.5 }),
        ]);

        await s.db.delete(devices).where(eq(devices.id, added.id));
        await index.settle();
        expect((await at(10, lhasa)).devices).toEqual([]);
        expect((await at(3, [73, 18, 135, 54])).total).toBe(501);
    });

    it('keeps answering from the previous index while a new one is built, and catches up by itself', async () => {
        const index = new DeviceClusterIndex(s.db, { checkEveryMs: 0 });
        await index.settle();
        const urumqi = async () => (await index.query(10, [87, 43, 88, 44])).devices[0]?.status;
        const before = await urumqi();
        await s.db.execute(sql`UPDATE devices SET status = 'DISABLE' WHERE device_name = 'urumqi'`);
        // Answered at once from the index built before the change.
        expect(await urumqi()).toBe(before);
        // Requests keep coming; one of them starts the rebuild in the background, and the change shows.
        await expect.poll(urumqi, { timeout: 10_000, interval: 50 }).toBe('DISABLE');
    });
});

describe('the first call of the dashboard map (whole=N)', () => {
    it('answers every located device, whatever the view, when at most N are located', async () => {
        // A view far from every device: the whole answer is not cut to it.
        const a = await clusters('zoom=4.3&bbox=-10,-10,-9,-9&whole=501');
        expect(a).toMatchObject({ whole: true, total: 501, zoom: 4, clusters: [], truncated: false });
        expect(a.devices).toHaveLength(501);
        expect(a.devices.find((d) => d.deviceName === 'urumqi')).toMatchObject({ productId, longitude: 87.62 });
        // Each device as the whole list gives it (name, product, position, status).
        const list = await call<{ data: { list: Answer['devices'] } }>(s, 'GET', '/api/device/queryLonLatList');
        const byId = (l: Answer['devices']) => [...l].sort((x, y) => x.deviceId - y.deviceId);
        expect(byId(a.devices)).toEqual(byId(list.body.data.list));
    });

    it("answers the view's clusters as without it when more than N are located", async () => {
        const over = await clusters('zoom=3&bbox=73,18,135,54&whole=500');
        expect(over.whole).toBeUndefined();
        expect(over).toEqual(await clusters('zoom=3&bbox=73,18,135,54'));
        expect(over.clusters.length).toBeGreaterThanOrEqual(2);
    });

    it('refuses a limit that is not a positive whole number, in Chinese', async () => {
        for (const whole of ['0', '-3', 'ten', '1.5']) {
            const res = await s.fetch(`/api/device/queryLonLatClusters?zoom=3&whole=${whole}`);
            expect(res.status).toBe(400);
            expect(((await res.json()) as { msg: string }).msg).toBe('whole 应为正整数');
        }
    });
});

describe('the whole-map answer with a limit', () => {
    it('answers the list when few devices are located, only the count beyond the limit', async () => {
        const whole = await call<{ data: { list: unknown[]; total: number; truncated?: boolean } }>(
            s,
            'GET',
            '/api/device/queryLonLatList?limit=1000',
        );
        expect(whole.body.data.list).toHaveLength(501);
        expect(whole.body.data.truncated).toBeUndefined();
        const over = await call<{ data: { list: unknown[]; total: number; truncated?: boolean } }>(
            s,
            'GET',
            '/api/device/queryLonLatList?limit=500',
        );
        expect(over.body.data).toEqual({ list: [], total: 501, truncated: true });
        const bad = await s.fetch('/api/device/queryLonLatList?limit=0');
        expect(bad.status).toBe(400);
        expect(((await bad.json()) as { msg: string }).msg).toBe('limit 应为正整数');
    });
});
