import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../server/db/client';

/**
 * Two processes started at the same instant on an empty PostgreSQL database both migrate it: the migration runs under
 * an advisory lock, so the second waits and finds the migrations applied. Needs PostgreSQL (DATABASE_URL, or this
 * machine's on 5432); its own database, made and dropped here.
 */
const base = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

describe('migrations under an advisory lock', () => {
    it('two concurrent starts on a fresh database both succeed', async () => {
        const name = `migrate_lock_${process.pid}_${Date.now()}`;
        const admin = new pg.Client({ connectionString: base });
        await admin.connect();
        await admin.query(`CREATE DATABASE ${name}`);
        const url = new URL(base);
        url.pathname = `/${name}`;
        try {
            for (let round = 0; round < 3; round++) {
                if (round) {
                    await admin.query(`DROP DATABASE ${name} WITH (FORCE)`);
                    await admin.query(`CREATE DATABASE ${name}`);
                }
                const opened = await Promise.allSettled([
                    openDatabase({ databaseUrl: url.toString() }),
                    openDatabase({ databaseUrl: url.toString() }),
                ]);
                for (const o of opened) if (o.status === 'fulfilled') await o.value.close();
                expect(opened.map((o) => (o.status === 'rejected' ? String(o.reason) : 'ok'))).toEqual(['ok', 'ok']);
            }
        } finally {
            await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
            await admin.end();
        }
    }, 60_000);
});
