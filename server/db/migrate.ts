import { fromRoot } from '../paths';
import { readMigrationFiles } from 'drizzle-orm/migrator';
import { drizzle } from 'drizzle-orm/node-postgres';
import { PgDialect, type PgSession } from 'drizzle-orm/pg-core';
import pg from 'pg';
import type { Db } from './db';

export const MIGRATIONS_FOLDER = fromRoot('server', 'db', 'migrations');

/** pg_advisory_lock's first key: the platform's migrations (the second is the schema's hash). */
const MIGRATION_LOCK = 0x696f7401;

/**
 * Applies the committed drizzle-kit migrations with drizzle's own migrator (the same one
 * drizzle-orm/pglite and drizzle-orm/node-postgres `migrate()` call), with one change: drizzle-kit writes
 * foreign keys as REFERENCES "public"."table", which would point outside the schema when the connection's
 * search_path is a per-test-run schema (t_xxx). Dropping the "public". qualifier makes every statement
 * resolve through search_path; on a default connection that is still public. The bookkeeping table goes
 * into the same schema so each test schema starts with no migrations applied.
 *
 * On PostgreSQL the migration runs on one connection of the pool holding a session advisory lock, so processes
 * started at the same instant on one database take turns: the second finds the migrations applied and does nothing.
 * PGlite is one process's own database: no lock.
 */
export async function migrateDatabase(db: Db, schemaName?: string): Promise<void> {
    const migrations = readMigrationFiles({ migrationsFolder: MIGRATIONS_FOLDER }).map((m) => ({
        ...m,
        sql: m.sql.map((stmt) => stmt.replaceAll('"public".', '')),
    }));
    const config = { migrationsFolder: MIGRATIONS_FOLDER, migrationsSchema: schemaName ?? 'drizzle' };
    const pool = poolOf(db);
    if (!pool) {
        await new PgDialect().migrate(migrations, db._.session as unknown as PgSession, config);
        return;
    }
    const client = await pool.connect();
    let broken: Error | undefined;
    try {
        await client.query('SELECT pg_advisory_lock($1, hashtext($2))', [MIGRATION_LOCK, config.migrationsSchema]);
        try {
            const locked = drizzle(client) as unknown as Db;
            await new PgDialect().migrate(migrations, locked._.session as unknown as PgSession, config);
        } finally {
            await client.query('SELECT pg_advisory_unlock($1, hashtext($2))', [
                MIGRATION_LOCK,
                config.migrationsSchema,
            ]);
        }
    } catch (err) {
        broken = err as Error;
        throw err;
    } finally {
        // A connection whose unlock failed may still hold the lock: it leaves the pool.
        client.release(broken);
    }
}

/** The node-postgres pool under a Drizzle database, none for PGlite. */
function poolOf(db: Db): pg.Pool | undefined {
    const client = (db as unknown as { $client?: unknown }).$client;
    return client instanceof pg.Pool ? client : undefined;
}
