import { fromRoot } from '../paths';
import { readMigrationFiles } from 'drizzle-orm/migrator';
import { PgDialect, type PgSession } from 'drizzle-orm/pg-core';
import type { Db } from './client';

export const MIGRATIONS_FOLDER = fromRoot('server', 'db', 'migrations');

/**
 * Applies the committed drizzle-kit migrations with drizzle's own migrator (the same one
 * drizzle-orm/pglite and drizzle-orm/node-postgres `migrate()` call), with one change: drizzle-kit writes
 * foreign keys as REFERENCES "public"."table", which would point outside the schema when the connection's
 * search_path is a per-test-run schema (t_xxx). Dropping the "public". qualifier makes every statement
 * resolve through search_path; on a default connection that is still public. The bookkeeping table goes
 * into the same schema so each test schema starts with no migrations applied.
 */
export async function migrateDatabase(db: Db, schemaName?: string): Promise<void> {
    const migrations = readMigrationFiles({ migrationsFolder: MIGRATIONS_FOLDER }).map((m) => ({
        ...m,
        sql: m.sql.map((stmt) => stmt.replaceAll('"public".', '')),
    }));
    await new PgDialect().migrate(migrations, db._.session as unknown as PgSession, {
        migrationsFolder: MIGRATIONS_FOLDER,
        migrationsSchema: schemaName ?? 'drizzle',
    });
}
