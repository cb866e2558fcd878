import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDatabase } from '../../server/seed';
import { isNotNull } from 'drizzle-orm';
import { devices } from '../../server/db/schema';
import { DEMO_PRODUCTS } from '../../server/seed/demo';
import { DEMO_DEVICES } from '../../server/seed/devices';
import { SCENES } from '../../server/seed/reference';
import { createTestServer, type TestServer } from '../../server/testing';
import { counters, realCounts } from './devicesSupport';
import { rowCounts } from './support';

let demo: TestServer;
let plain: TestServer;
beforeAll(async () => {
    [demo, plain] = await Promise.all([createTestServer(), createTestServer({ seed: false })]);
});
afterAll(async () => {
    await demo?.close();
    await plain?.close();
});

describe('seed', () => {
    it('fills demo content: scenes, projects, products of both node types, thing models, logs', async () => {
        const counts = await rowCounts(demo.db);
        expect(counts).toMatchObject({ scenes: SCENES.length, products: DEMO_PRODUCTS.length, productLogs: 3 });
        expect(counts.projects).toBeGreaterThanOrEqual(3);
        expect(counts.categories).toBeGreaterThanOrEqual(10);
        expect(counts.thingFunctions).toBeGreaterThan(10);
        expect(counts.standardFunctions).toBeGreaterThan(10);
        expect(DEMO_PRODUCTS.some((p) => p.nodeType === 1)).toBe(true);
        expect(DEMO_PRODUCTS.some((p) => p.gatewayType === 1)).toBe(true);
        const types = new Set(DEMO_PRODUCTS.flatMap((p) => p.functions ?? []).map((f) => f.type));
        expect([...types].sort()).toEqual(['event', 'property', 'service']);
    });

    it('adds demo devices of every status, some bound to projects, some placed, a gateway with sub-devices', async () => {
        const rows = await demo.db.select().from(devices);
        expect(rows).toHaveLength(DEMO_DEVICES.length);
        // No device is seeded ONLINE: 在线 means connected, and only the live demo's simulations connect (demoLive.test.ts).
        expect(new Set(rows.map((d) => d.status))).toEqual(new Set(['INACTIVE', 'OFFLINE', 'DISABLE']));
        expect(rows.every((d) => d.enabled === (d.status !== 'DISABLE'))).toBe(true);
        expect(rows.every((d) => (d.status === 'INACTIVE') === (d.lastTime === null))).toBe(true);
        expect(rows.filter((d) => d.projectId !== null).length).toBeGreaterThanOrEqual(3);
        const located = rows.filter((d) => d.longitude !== null && d.latitude !== null);
        expect(located.some((d) => d.latitude! > 39 && d.latitude! < 41)).toBe(true); // Beijing
        expect(located.some((d) => d.latitude! > 30 && d.latitude! < 32)).toBe(true); // Shanghai
        const subs = await demo.db.select().from(devices).where(isNotNull(devices.gwId));
        expect(subs.length).toBeGreaterThanOrEqual(2);
        const perGateway = new Map<number, number>();
        for (const d of subs) perGateway.set(d.gwId!, (perGateway.get(d.gwId!) ?? 0) + 1);
        expect(Math.max(...perGateway.values())).toBeGreaterThanOrEqual(2);
        expect(new Set(rows.map((d) => d.secret)).size).toBe(rows.length);
        expect(await counters(demo)).toEqual(await realCounts(demo));
    });

    it('is idempotent: a second run changes nothing', async () => {
        const before = await rowCounts(demo.db);
        expect(await seedDatabase(demo.db, { demo: true, live: true })).toEqual({
            seeded: false,
            demo: false,
            live: false,
        });
        expect(await rowCounts(demo.db)).toEqual(before);
    });

    it('with SEED_DEMO=0 holds only reference data, and does not add demo rows later', async () => {
        const counts = await rowCounts(plain.db);
        expect(counts).toMatchObject({
            projects: 0,
            products: 0,
            thingFunctions: 0,
            productLogs: 0,
            devices: 0,
            scenes: SCENES.length,
        });
        expect(counts.categories).toBeGreaterThan(0);
        await seedDatabase(plain.db, { demo: true });
        expect((await rowCounts(plain.db)).products).toBe(0);
    });
});
