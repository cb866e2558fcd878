import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PG_URL, servicesAvailable } from './spawnServer';

/**
 * A database connection lost while a process holds it between statements (a transaction waiting on other work, as
 * the chaos suite's database cut does to a loaded process) fails that work, and the process lives on. Run in a child
 * process: a crash is its exit, not an error thrown into the test runner.
 */
const enabled = await servicesAvailable('pgConnectionLoss', { postgres: true });

const script = (kind: 'pool' | 'dedicated') => `
import pg from 'pg';
import { openDatabase } from './server/db/client';
import { sql } from 'drizzle-orm';
const handle = await openDatabase({ databaseUrl: process.env.PG_URL, migrate: false });
const admin = new pg.Client({ connectionString: process.env.PG_URL });
await admin.connect();
const work = async (db) => {
    const { rows } = await db.execute(sql\`SELECT pg_backend_pid() AS pid\`);
    await admin.query('SELECT pg_terminate_backend($1)', [rows[0].pid]);
    // Between statements: the connection's loss arrives with no query to fail.
    await new Promise((r) => setTimeout(r, 500));
    await db.execute(sql\`SELECT 1\`);
};
const outcome = await (${kind === 'pool' ? 'handle.db.transaction(work)' : 'handle.dedicated(5000).run(work, new AbortController().signal)'})
    .then(() => 'finished', (err) => 'failed: ' + String(err?.message ?? err).split('\\n')[0]);
// The pool still answers on a new connection.
const { rows } = await handle.db.execute(sql\`SELECT 41 + 1 AS n\`);
console.log(JSON.stringify({ outcome, after: rows[0].n }));
await admin.end();
await handle.close();
`;

function runChild(kind: 'pool' | 'dedicated') {
    return spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script(kind)], {
        cwd: path.resolve(import.meta.dirname, '../..'),
        env: { ...process.env, PG_URL },
        encoding: 'utf8',
        timeout: 60_000,
    });
}

describe.skipIf(!enabled)('a PostgreSQL connection lost between statements', () => {
    it.each(['pool', 'dedicated'] as const)(
        'fails the work on it (%s) and the process lives on, its pool answering on a new connection',
        (kind) => {
            const child = runChild(kind);
            expect(child.status, child.stderr).toBe(0);
            const result = JSON.parse(child.stdout.trim().split('\n').pop()!) as { outcome: string; after: number };
            expect(result.outcome).toMatch(/^failed: /);
            expect(Number(result.after)).toBe(42);
        },
        90_000,
    );
});
