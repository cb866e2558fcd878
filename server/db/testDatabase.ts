import { createHash, randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { openDatabase } from './client';
import { MIGRATIONS_FOLDER } from './migrate';

/**
 * A database of its own for each test server on a real PostgreSQL (DATABASE_URL), copied from a migrated template
 * database: CREATE DATABASE … TEMPLATE copies the files (about 0.4 s under load) where migrating a fresh schema ran
 * every migration and made every partition (3.3 s), and dropping the copy is one statement where dropping the schema
 * cascaded over hundreds of partitions (1 s). The template is made once per machine and migrations (its name carries
 * their hash), by the first test server that finds none, under an advisory lock so two test processes do not both
 * make it, and under another name until it is complete, so a run killed midway leaves no half-made template.
 */

/** The migrations' content as a short key: a changed migration makes a new template. */
function migrationsKey(): string {
    const hash = createHash('sha256');
    for (const name of readdirSync(MIGRATIONS_FOLDER).sort())
        if (name.endsWith('.sql')) hash.update(name).update(readFileSync(path.join(MIGRATIONS_FOLDER, name)));
    hash.update(readFileSync(path.join(MIGRATIONS_FOLDER, 'meta/_journal.json')));
    return hash.digest('hex').slice(0, 12);
}

/** `url` naming another database. */
export function withDatabase(url: string, database: string): string {
    const u = new URL(url);
    u.pathname = `/${database}`;
    return u.toString();
}

/** Runs `work` on a connection to the database of `url` (the server's catalogue is shared by all its databases). */
async function onAdmin<T>(url: string, work: (c: pg.Client) => Promise<T>): Promise<T> {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
        return await work(client);
    } finally {
        await client.end();
    }
}

const exists = async (c: pg.Client, name: string) =>
    (await c.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount === 1;

/** The migrated template's name, made first when the server has none for these migrations. */
async function ensureTemplate(url: string): Promise<string> {
    const name = `iot_test_tpl_${migrationsKey()}`;
    await onAdmin(url, async (c) => {
        if (await exists(c, name)) return;
        // Session-level lock on the database of `url`: every test process connects to the same one.
        await c.query('SELECT pg_advisory_lock(hashtext($1))', [name]);
        try {
            if (await exists(c, name)) return;
            const building = `${name}_b${randomBytes(4).toString('hex')}`;
            await c.query(`CREATE DATABASE "${building}"`);
            const handle = await openDatabase({ databaseUrl: withDatabase(url, building) });
            await handle.close();
            await c.query(`ALTER DATABASE "${building}" RENAME TO "${name}"`);
        } finally {
            await c.query('SELECT pg_advisory_unlock(hashtext($1))', [name]);
        }
    });
    return name;
}

export interface TestDatabase {
    url: string;
    drop(): Promise<void>;
}

/** A new database copied from the migrated template; `drop` removes it (and any connection left to it). */
export async function createTestDatabase(url: string): Promise<TestDatabase> {
    const template = await ensureTemplate(url);
    const name = `t_${randomBytes(6).toString('hex')}`;
    await onAdmin(url, (c) => c.query(`CREATE DATABASE "${name}" TEMPLATE "${template}"`));
    return {
        url: withDatabase(url, name),
        drop: () =>
            onAdmin(url, (c) => c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)).then(() => undefined),
    };
}
