import { existsSync } from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { drizzle as drizzleNodePg } from 'drizzle-orm/node-postgres';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import pg from 'pg';
import { survivesLostConnections } from './lostConnections';
import { setDataVersion, trackWrites } from './dataVersion';
import { lockDataDir } from './lock';
import { migrateDatabase } from './migrate';
import { compilePgliteWasm, openRemotePglite } from './pgliteRemote';
import { copyTemplateInto, existingTemplate } from './template';
import { schema } from './schema';

/** The one database type route code sees, whichever driver is underneath. */
import type { Db } from './db';

export type { Db, Tx } from './db';

export interface DatabaseHandle {
    db: Db;
    kind: 'pglite' | 'postgres';
    /** PGlite runs in a worker thread (the default; PGLITE_WORKER=0 keeps it in this thread). */
    inWorker?: boolean;
    /** PGlite only: the data directory held no database before this open (a first start). */
    created?: boolean;
    /**
     * PostgreSQL only: a connection of its own, outside the pool the routes and the ingest share, whose statements
     * are held to `statementTimeoutMs` (the cluster heartbeat, server/cluster/membership.ts).
     */
    dedicated?(statementTimeoutMs: number): DedicatedConnection;
    /** PostgreSQL only: the pool's connections, and each statement's time to those who ask (/metrics). */
    pool?: PoolFigures;
    close(): Promise<void>;
}

/** One connection of its own for work that must not wait behind others. */
export interface DedicatedConnection {
    /**
     * Runs `work` on the connection; when `signal` aborts first, the connection is given up (the next run opens a new
     * one) and the run rejects.
     */
    run<T>(work: (db: Db) => Promise<T>, signal: AbortSignal): Promise<T>;
    close(): Promise<void>;
}

export interface PoolFigures {
    stats(): { total: number; idle: number; waiting: number };
    /** Calls `listener` with each statement's time (ms) on the pool's connections; returns its removal. */
    onQuery(listener: (ms: number) => void): () => void;
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
    const options = pgSchema ? { options: `-c search_path="${pgSchema}"` } : {};
    const timed = timedClient();
    const pool = new pg.Pool({ connectionString: url, max: 10, Client: timed.Client, ...options });
    pool.on('error', (err) => console.error('PostgreSQL 连接错误 / connection error:', err.message));
    survivesLostConnections(pool);
    opts.whileStarting?.();
    let closed = false;
    const dedicated: DedicatedConnection[] = [];
    return {
        db: drizzleNodePg(pool, { schema }) as unknown as Db,
        kind: 'postgres',
        dedicated(statementTimeoutMs) {
            const connection = dedicatedConnection({ connectionString: url, ...options }, statementTimeoutMs);
            dedicated.push(connection);
            return connection;
        },
        pool: {
            stats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
            onQuery: timed.onQuery,
        },
        async close() {
            if (closed) return;
            closed = true;
            await Promise.all(dedicated.map((d) => d.close()));
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

/**
 * pg's Client with each query timed for those listening (the pool makes its connections of it): statements in
 * transactions too, and nothing to do while no one listens (/metrics off).
 */
function timedClient() {
    const listeners = new Set<(ms: number) => void>();
    class TimedClient extends pg.Client {
        // pg's query() has many overloads; each is passed on as it came.
        query(...args: unknown[]): never {
            const result = (super.query as (...a: unknown[]) => unknown)(...args);
            if (listeners.size && result instanceof Promise) {
                const start = performance.now();
                const end = () => {
                    const ms = performance.now() - start;
                    for (const l of listeners) l(ms);
                };
                result.then(end, end);
            }
            return result as never;
        }
    }
    return {
        Client: TimedClient,
        onQuery(listener: (ms: number) => void) {
            listeners.add(listener);
            return () => void listeners.delete(listener);
        },
    };
}

/**
 * A pool of one connection, its statements held to `statementTimeoutMs` by the server (statement_timeout: a lock
 * wait, a slow plan) and a little later by the client (query_timeout: a link that carries nothing). A run given up
 * releases its connection as broken, so the next run does not queue behind a statement that never answers.
 */
function dedicatedConnection(config: pg.PoolConfig, statementTimeoutMs: number): DedicatedConnection {
    const pool = new pg.Pool({
        ...config,
        max: 1,
        statement_timeout: statementTimeoutMs,
        query_timeout: statementTimeoutMs + 500,
        connectionTimeoutMillis: statementTimeoutMs,
        keepAlive: true,
        idleTimeoutMillis: 0,
    });
    pool.on('error', () => undefined); // an idle connection lost: the next run opens another
    survivesLostConnections(pool);
    return {
        async run(work, signal) {
            if (signal.aborted) throw new Error('aborted');
            const client = await pool.connect();
            let broken: Error | undefined;
            const giveUp = () => {
                broken ??= new Error('dedicated connection given up');
                client.release(broken);
            };
            signal.addEventListener('abort', giveUp, { once: true });
            try {
                return await work(drizzleNodePg(client, { schema }) as unknown as Db);
            } catch (err) {
                broken ??= err as Error;
                throw err;
            } finally {
                signal.removeEventListener('abort', giveUp);
                if (!signal.aborted) client.release(broken);
            }
        },
        close: () => pool.end(),
    };
}
