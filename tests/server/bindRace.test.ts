import { inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { devices } from '../../server/db/schema';
import { createTestServer, type TestServer } from '../../server/testing';
import { createDevice, createProduct, listForm, type TestProduct } from './devicesSupport';
import { createProject } from './projectsSupport';
import { PG_URL, postgresReachable } from './spawnServer';
import { call } from './support';

/**
 * A bind racing the delete of its project on PostgreSQL (row locks, READ COMMITTED): the bind either lands before
 * the delete (which then unbinds the devices) or answers 项目不存在 after it; never a deadlock answered 500.
 * Needs PostgreSQL (this machine kind runs it); required in CI (E2E_REQUIRED) and with DATABASE_URL.
 */
const REQUIRED = Boolean(process.env.E2E_REQUIRED || process.env.DATABASE_URL);
const available = await postgresReachable();
if (!available && REQUIRED) throw new Error(`PostgreSQL (${PG_URL}) is not reachable`);

let s: TestServer;
let product: TestProduct;

beforeAll(async () => {
    if (!available) return;
    const before = process.env.DATABASE_URL;
    process.env.DATABASE_URL = PG_URL;
    try {
        s = await createTestServer({ seed: false });
    } finally {
        if (before === undefined) delete process.env.DATABASE_URL;
        else process.env.DATABASE_URL = before;
    }
    product = await createProduct(s, { productName: '绑定竞争测试' });
});
afterAll(() => s?.close());

describe.skipIf(!available)('bind racing a project delete on PostgreSQL', () => {
    it('answers success or 项目不存在, and leaves no device bound to the deleted project', async () => {
        expect(s.kind).toBe('postgres');
        for (let round = 0; round < 12; round++) {
            const project = await createProject(s);
            const ds = [];
            for (let i = 0; i < 3; i++) ds.push(await createDevice(s, product.productKey));
            const ids = ds.map((d) => d.deviceId);
            // Half the rounds bind through the console's bind, half through the open API's associateDevice.
            const bind =
                round % 2
                    ? call(s, 'POST', '/api/device/bind', listForm({ projectId: project.id, deviceId: ids }))
                    : call(
                          s,
                          'GET',
                          `/api/project/associateDevice?projectId=${project.id}&${ids.map((id) => `deviceId=${id}`).join('&')}`,
                      );
            const [bound, removed] = await Promise.all([
                bind,
                call(s, 'DELETE', `/api/project/delete?ids=${project.id}`),
            ]);
            expect(removed.status, JSON.stringify(removed.body)).toBe(200);
            if (bound.status === 200) {
                expect(bound.body).toMatchObject({ data: { count: 3 } });
            } else {
                expect([bound.status, bound.body.msg]).toEqual([404, '项目不存在']);
            }
            const stored = await s.db
                .select({ projectId: devices.projectId })
                .from(devices)
                .where(inArray(devices.id, ids));
            expect(stored.map((r) => r.projectId)).toEqual([null, null, null]);
        }
    }, 60_000);
});
