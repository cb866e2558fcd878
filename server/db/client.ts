import { existsSync } from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { drizzle as drizzleNodePg } from 'drizzle-orm/node-postgres';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import pg from 'pg';
import { setDataVersion, trackWrites } from './dataVersion';
import { lockDataDir } from './lock';
import { migrateDatabase } from './migrate';
import { compilePgliteWasm, openRemotePglite } from './pgliteRemote';
import { copyTemplateInto, existingTemplate } from './template';
import { schema } from './schema';

/** The one database type route code sees, whichever driver is underneath. */
export type Db = PgDatabase<PgQueryResultHKT, typeof schema>;
export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];

export interface DatabaseHandle {
    db: Db;
    kind: 'pglite' | 'postgres';
    /** PGlite runs in a worker thread (the default; PGLITE_WORKER=0 keeps it in this thread). */
    inWorker?: boolean;
    /** PGlite only: the data directory held no database before this open (a first start). */
    created?: boolean;
    close(): Promise<void>;
}

export interface OpenDatabaseOptions {
    /** PostgreSQL connection string. When absent, PGlite is used. */
    databaseUrl?: string;
    /** PGlite data directory (locked while open). Absent: an in-memory PGlite. */
    pgliteDir?: string;
    /** PostgreSQL only: work inside this schema (created if missing) instead of public. */
    pgSchema?: string;
    /** PostgreSQL only: drop pgSchema on close (test runs). */
    dropSchemaOnClose?: boolean;
    /** Apply the committed migrations (default true). */
    migrate?: boolean;
    /** In-memory PGlite only: start from this data directory tarball (a migrated template) instead of initdb. */
    loadDataDir?: Blob;
    /**
     * Called once the database is starting on its own (PGlite's worker booting, PostgreSQL's pool made): work for this
     * thread that should not delay the start (a server's module loading) begins here rather than before.
     */
    whileStarting?: () => void;
}

const SCHEMA_NAME = /^[a-z_][a-z0-9_]*$/;

/**
 * Opens PGlite or PostgreSQL with the same Drizzle schema and migrations.
 *
 * PGlite is a single connection. Its query() and transaction() share one mutex, so a statement issued
 * outside a transaction waits until the open transaction commits: requests cannot interleave inside
 * each other's transactions. The price: code inside `db.transaction(tx => ...)` must use `tx`, never
 * `db`, or it waits on itself forever.
 */
export async function openDatabase(opts: OpenDatabaseOptions = {}): Promise<DatabaseHandle> {
    const handle = opts.databaseUrl
        ? await openPostgres(opts.databaseUrl, opts)
        : await openPglite(opts.pgliteDir, opts.loadDataDir, opts.whileStarting);
    if (opts.migrate !== false) {
        try {
            await migrateDatabase(handle.db, opts.databaseUrl ? opts.pgSchema : undefined);
        } catch (err) {
            await handle.close();
            throw err;
        }
    }
    return handle;
}

/**
 * PGlite runs in a worker thread unless PGLITE_WORKER=0: its queries then leave this thread free for HTTP and MQTT (in
 * process a query blocks the event loop for its whole duration).
 */
export function pgliteInWorker(env: NodeJS.ProcessEnv = process.env): boolean {
    return env.PGLITE_WORKER?.trim() !== '0';
}

/** The embedded database lives in DATA_DIR/pgdata. */
export function pgliteDirOf(dataDir: string): string {
    return path.join(dataDir, 'pgdata');
}

async function openPglite(
    dir: string | undefined,
    loadDataDir: Blob | undefined,
    whileStarting: (() => void) | undefined,
): Promise<DatabaseHandle> {
    const inWorker = pgliteInWorker();
    // The worker's WebAssembly compiles (on V8's background threads) while the directory is locked and filled.
    if (inWorker) compilePgliteWasm();
    const release = dir ? await lockDataDir(dir) : undefined;
    let client: PGlite;
    const created = !dir || !existsSync(path.join(dir, 'PG_VERSION'));
    try {
        // A data directory without a database yet starts from the migrated template when this install has one.
        const fresh = dir && created && !copyTemplateInto(dir);
        const tarball = dir ? (fresh ? existingTemplate() : undefined) : loadDataDir;
        // The database in a worker thread (pgliteRemote.ts), with the same interface for drizzle; PGLITE_WORKER=0: here.
        client = inWorker
            ? ((await openRemotePglite(dir, tarball ? await tarball.arrayBuffer() : undefined)) as unknown as PGlite)
            : dir
              ? new PGlite(dir, { loadDataDir: tarball })
              : new PGlite({ loadDataDir: tarball });
        whileStarting?.();
        await client.waitReady;
    } catch (err) {
        await release?.();
        throw err;
    }
    let closed = false;
    const version = trackWrites(client);
    const db = drizzlePglite(client, { schema }) as unknown as Db;
    setDataVersion(db, version);
    return {
        db,
        kind: 'pglite',
        inWorker,
        created,
        async close() {
            if (closed) return;
            closed = true;
            try {
                await client.close();
            } finally {
                await release?.();
            }
        },
    };
}

async function openPostgres(url: string, opts: OpenDatabaseOptions): Promise<DatabaseHandle> {
    const pgSchema = opts.pgSchema;
    if (pgSchema !== undefined && !SCHEMA_NAME.test(pgSchema)) throw new Error(`invalid schema name: ${pgSchema}`);
    if (pgSchema) {
        const admin = new pg.Client({ connectionString: url });
        await admin.connect();
        try {
            await admin.query(`CREATE SCHEMA IF NOT EXISTS "${pgSchema}"`);
        } finally {
            await admin.end();
        }
    }
    // search_path set per connection, so every pooled connection resolves unqualified names in pgSchema.
    const pool = new pg.Pool({
        connectionString: url,
        max: 10,
        ...(pgSchema ? { options: `-c search_path="${pgSchema}"` } : {}),
    });
    pool.on('error', (err) => console.error('PostgreSQL 连接错误 / connection error:', err.message));
    opts.whileStarting?.();
    let closed = false;
    return {
        db: drizzleNodePg(pool, { schema }) as unknown as Db,
        kind: 'postgres',
        async close() {
            if (closed) return;
            closed = true;
            await pool.end();
            if (pgSchema && opts.dropSchemaOnClose) {
                const admin = new pg.Client({ connectionString: url });
                await admin.connect();
                try {
                    await admin.query(`DROP SCHEMA IF EXISTS "${pgSchema}" CASCADE`);
                } finally {
                    await admin.end();
                }
            }
        },
    };
}
