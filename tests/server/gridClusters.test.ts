// @vitest-environment node
import { eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { READONLY_ROLE_ID } from '../../schemas/rights';
import { devices, products, projects } from '../../server/db/schema';
import { CLUSTER_MAX_ZOOM } from '../../server/domain/deviceClusters';
import { insertDevices } from '../../server/domain/deviceWrite';
import { createTestServer, type TestServer } from '../../server/testing';
import { as, json, makeUser } from './rolesSupport';

/**
 * The device map of a user who is not an administrator: their projects' devices clustered for the view they ask,
 * however many there are, and never anyone else's (routes/deviceStats.ts, domain/gridClusters.ts).
 */
type Answer = {
    data: {
        whole?: boolean;
        total: number;
        zoom: number;
        clusters: Array<{ longitude: number; latitude: number; count: number; expansionZoom: number }>;
        devices: Array<{ deviceId: number; deviceName: string; longitude: number; latitude: number; status: string }>;
        truncated: boolean;
    };
};

let s: TestServer;
let get: (path: string) => Promise<Response>;
const ours = new Set<number>();
/**
 * 200 devices on both sides of a grid cell's edge at zoom 4 (longitude 83.671875°: cells there are 3.5° wide), around
 * Ürümqi, and 300 around Lhasa, all in the user's project (whose demo devices are in the east).
 */
const EDGE = 200;
const LHASA = 300;

beforeAll(async () => {
    s = await createTestServer();
    const [project] = await s.db.select().from(projects).where(eq(projects.code, 'P2024001'));
    const [product] = await s.db.select().from(products).limit(1);
    const rows = Array.from({ length: EDGE + LHASA }, (_, i) =>
        i < EDGE
            ? {
                  deviceName: `grid_edge_${i}`,
                  longitude: i % 2 ? 83.6 + (i % 7) / 100 : 83.68 + (i % 7) / 100,
                  latitude: 43.35 + (i % 10) / 100,
              }
            : { deviceName: `grid_lhasa_${i}`, longitude: 91 + (i % 20) / 100, latitude: 29.5 + (i % 15) / 100 },
    );
    const inserted = await s.db.transaction((tx) => insertDevices(tx, product, rows));
    const ids = inserted.map((d) => d.id);
    await s.db.update(devices).set({ projectId: project.id }).where(inArray(devices.id, ids));
    const located = await s.db
        .select({ id: devices.id, lng: devices.longitude })
        .from(devices)
        .where(eq(devices.projectId, project.id));
    for (const d of located) if (d.lng !== null) ours.add(Number(d.id));
    const reader = await makeUser(s, { username: 'gridreader', roleId: READONLY_ROLE_ID, projectCodes: ['P2024001'] });
    get = as(s, reader.token);
}, 120_000);
afterAll(() => s?.close());

const clusters = (query: string) => json<Answer>(get(`/api/device/queryLonLatClusters?${query}`));
const shown = (a: Answer) => a.data.clusters.reduce((n, c) => n + c.count, 0) + a.data.devices.length;

describe("a user's projects on the device map, clustered by the database", () => {
    it('answers clusters, not thousands of single points, counting every located device of the projects once', async () => {
        const country = await clusters('zoom=4&bbox=73,18,135,54');
        expect(country.data.whole).toBeUndefined();
        expect(country.data.total).toBe(ours.size);
        expect(shown(country)).toBe(ours.size);
        // Two towns of devices at country zoom: two clusters (plus the demo's eastern ones), not 500 points.
        expect(country.data.clusters.length + country.data.devices.length).toBeLessThan(20);
        const west = country.data.clusters.filter((c) => c.longitude < 100).map((c) => c.count);
        // The town across the cell edge is one cluster, not two drawn on top of each other.
        expect(west.sort((a, b) => a - b)).toEqual([EDGE, LHASA]);
        // A click zooms to where the town's devices (0.14° of longitude) span two cells (0.055° at zoom 10), not one
        // zoom at a time; there it falls apart into several.
        const edge = country.data.clusters.find((c) => c.count === EDGE)!;
        expect(edge.expansionZoom).toBe(10);
        const there = await clusters(`zoom=${edge.expansionZoom}&bbox=83.5,43.3,83.8,43.5`);
        expect(there.data.clusters.length + there.data.devices.length).toBeGreaterThan(1);
        expect(shown(there)).toBe(EDGE);
        for (const d of country.data.devices) expect(ours.has(d.deviceId)).toBe(true);
    });

    it('splits a cluster when the map zooms in on it, and answers only what is in view', async () => {
        const city = await clusters('zoom=11&bbox=83.5,43.3,83.8,43.5');
        expect(city.data.total).toBe(ours.size);
        expect(shown(city)).toBe(EDGE);
        const country = await clusters('zoom=4&bbox=73,18,135,54');
        expect(city.data.clusters.length + city.data.devices.length).toBeGreaterThan(
            country.data.clusters.length + country.data.devices.length,
        );
        for (const c of city.data.clusters) {
            expect(c.longitude).toBeGreaterThanOrEqual(83.5);
            expect(c.longitude).toBeLessThanOrEqual(83.8);
        }
    });

    it('answers every device alone past the last clustering zoom', async () => {
        const street = await clusters(`zoom=${CLUSTER_MAX_ZOOM + 1}&bbox=83.6,43.35,83.66,43.45`);
        expect(street.data.clusters).toEqual([]);
        expect(street.data.devices.length).toBeGreaterThan(0);
        for (const d of street.data.devices) {
            expect(ours.has(d.deviceId)).toBe(true);
            expect(d.deviceName).toMatch(/^grid_edge_\d+$/);
            expect(d.longitude).toBeGreaterThanOrEqual(83.6);
            expect(d.latitude).toBeLessThanOrEqual(43.45);
        }
        const [first] = street.data.devices;
        const [row] = await s.db.select().from(devices).where(eq(devices.id, first.deviceId));
        expect(first).toMatchObject({ deviceName: row.deviceName, status: row.status, longitude: row.longitude });
    });

    it('sends the whole project at once when it fits the client, and clusters above that', async () => {
        const whole = await clusters(`zoom=4&bbox=73,18,135,54&whole=${ours.size}`);
        expect(whole.data.whole).toBe(true);
        expect(new Set(whole.data.devices.map((d) => d.deviceId))).toEqual(ours);
        const over = await clusters(`zoom=4&bbox=73,18,135,54&whole=${ours.size - 1}`);
        expect(over.data.whole).toBeUndefined();
        expect(shown(over)).toBe(ours.size);
    });

    it("never shows another project's devices, while the administrator's map has them", async () => {
        const admin = await json<Answer>(s.fetch('/api/device/queryLonLatClusters?zoom=4&bbox=73,18,135,54'));
        expect(admin.data.total).toBeGreaterThan(ours.size);
        const mine = await clusters('zoom=18&bbox=-180,-90,180,90');
        expect(mine.data.devices.map((d) => d.deviceId).sort((a, b) => a - b)).toEqual([...ours].sort((a, b) => a - b));
    });
});
