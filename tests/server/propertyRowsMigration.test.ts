import { randomBytes } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import { readMigrationFiles } from 'drizzle-orm/migrator';
import { PgDialect, type PgSession } from 'drizzle-orm/pg-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type DatabaseHandle } from '../../server/db/client';
import { MIGRATIONS_FOLDER, migrateDatabase } from '../../server/db/migrate';
import { moveLegacyRows } from '../../server/db/partitionMover';
import { categories, deviceLatest } from '../../server/db/schema';
import { deviceCredentials, newDeviceSecret } from '../../server/domain/devices';
import { propertyHistory } from '../../server/domain/telemetry';

// Migration 0018 moves the latest values (device_properties) into one device_latest row per device and the property
// history rows without their property post (property_records) into device_messages: the answers stay the same.
let handle: DatabaseHandle;
let deviceId: number;
const T1 = new Date('2026-01-01T00:00:00Z');
const T2 = new Date('2026-01-01T00:01:00Z');

beforeAll(async () => {
    // In-memory PGlite, or a schema of its own in DATABASE_URL's PostgreSQL.
    const databaseUrl = process.env.DATABASE_URL || undefined;
    const pgSchema = `t_${randomBytes(6).toString('hex')}`;
    handle = await openDatabase(
        databaseUrl ? { databaseUrl, pgSchema, dropSchemaOnClose: true, migrate: false } : { migrate: false },
    );
    const before18 = readMigrationFiles({ migrationsFolder: MIGRATIONS_FOLDER }).filter(
        (m) => m.folderMillis < 1795619492572,
    );
    await new PgDialect().migrate(
        before18.map((m) => ({ ...m, sql: m.sql.map((stmt) => stmt.replaceAll('"public".', '')) })),
        handle.db._.session as unknown as PgSession,
        { migrationsFolder: MIGRATIONS_FOLDER, migrationsSchema: databaseUrl ? pgSchema : 'drizzle' },
    );
    const db = handle.db;
    await db.insert(categories).values({ name: '传感器', level: 1 });
    const [leaf] = await db.select().from(categories).limit(1);
    // Raw SQL, not the schema's insert: columns later migrations add (products.product_secret, devices.registered_at,
    // 0034) do not exist yet at this point, and drizzle names every column of the schema.
    const product = { id: 0, productKey: 'Mig18' };
    const made = await db.execute(sql`
        INSERT INTO products (product_key, product_name, node_type, category_id, network_type, data_type)
        VALUES (${product.productKey}, '迁移', 0, ${leaf.id}, 5, 0) RETURNING id`);
    product.id = Number((made as unknown as { rows: Array<{ id: number }> }).rows[0].id);
    const { username, clientId } = deviceCredentials(product.productKey, 'm1');
    const inserted = await db.execute(sql`
        INSERT INTO devices (product_id, device_name, status, enabled, username, client_id, secret)
        VALUES (${product.id}, 'm1', 'ONLINE', true, ${username}, ${clientId}, ${newDeviceSecret()}) RETURNING id`);
    const device = (inserted as unknown as { rows: Array<{ id: number }> }).rows[0];
    deviceId = Number(device.id);
    await db.execute(sql`
        INSERT INTO device_properties (device_id, identifier, value, desired, ts) VALUES
            (${deviceId}, 'Brightness', '70', '90', ${T2.toISOString()}), (${deviceId}, 'WorkMode', '1', NULL, ${T1.toISOString()})`);
    // T1 has its property post; T2's history row has none (written before posts were logged).
    await db.execute(sql`
        INSERT INTO device_messages (device_id, product_id, ts, method, identifier, data) VALUES
            (${deviceId}, ${product.id}, ${T1.toISOString()}, 'thing.event.property.post', NULL, '{"Brightness":60,"WorkMode":1}')`);
    await db.execute(sql`
        INSERT INTO property_records (device_id, identifier, ts, value) VALUES
            (${deviceId}, 'Brightness', ${T1.toISOString()}, '60'), (${deviceId}, 'WorkMode', ${T1.toISOString()}, '1'),
            (${deviceId}, 'Brightness', ${T2.toISOString()}, '70')`);
    await migrateDatabase(handle.db, databaseUrl ? pgSchema : undefined);
    // 0026 leaves the old message rows to the mover (partitioned tables): the upgrade is both.
    await moveLegacyRows(handle.db);
}, 60_000);

afterAll(async () => {
    await handle?.close();
});

describe('migration 0018 (property rows)', () => {
    it('keeps each device’s latest values and desired values in one row', async () => {
        const [row] = await handle.db.select().from(deviceLatest).where(eq(deviceLatest.deviceId, deviceId));
        expect(row).toEqual({
            deviceId,
            props: { Brightness: { v: 70, t: T2.getTime() }, WorkMode: { v: 1, t: T1.getTime() } },
            desired: { Brightness: 90 },
            ts: T2,
        });
    });

    it('keeps the property history, adding a post only where none was logged', async () => {
        const q = { deviceId, start: T1, end: T2, ascending: true, limit: 10, offset: 0 };
        const brightness = await propertyHistory(handle.db, { ...q, identifier: 'Brightness' }, 'UTC');
        expect(brightness.list.map((r) => r.value)).toEqual([60, 70]);
        expect(brightness.total).toBe(2);
        const workMode = await propertyHistory(handle.db, { ...q, identifier: 'WorkMode' }, 'UTC');
        expect(workMode).toMatchObject({ list: [{ value: 1 }], total: 1 });
    });
});
