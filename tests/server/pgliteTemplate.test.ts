import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../server/db/client';
import { openDatabase } from '../../server/db/client';
import { MIGRATIONS_FOLDER } from '../../server/db/migrate';
import { buildTemplate, existingTemplate, templateDirOf, templateFile } from '../../server/db/template';

/**
 * The migrated template `npm install` builds: a first start on an empty DATA_DIR loads it instead of initdb and the
 * migrations, and gets the same database; a data directory that already holds a database is never overwritten.
 */
/** One number from a SELECT ... AS n. */
const count = async (db: Db, query: ReturnType<typeof sql>) =>
    ((await db.execute(query)) as unknown as { rows: Array<{ n: number }> }).rows[0].n;

const migrations = readdirSync(MIGRATIONS_FOLDER).filter((f) => f.endsWith('.sql')).length;
const previous = process.env.PGLITE_TEMPLATE_DIR;
let root: string;

beforeAll(async () => {
    root = mkdtempSync(path.join(os.tmpdir(), 'iot-template-test-'));
    process.env.PGLITE_TEMPLATE_DIR = path.join(root, 'templates');
    await buildTemplate();
}, 120_000);

afterAll(() => {
    if (previous === undefined) delete process.env.PGLITE_TEMPLATE_DIR;
    else process.env.PGLITE_TEMPLATE_DIR = previous;
    rmSync(root, { recursive: true, force: true });
});

describe('embedded database template', () => {
    it('is found under the migrations it was built from', () => {
        expect(templateFile().startsWith(path.join(root, 'templates'))).toBe(true);
        expect(existingTemplate()).toBeDefined();
        // The directory form a first start on disk copies (faster than PGlite writing the tarball's files).
        expect(existsSync(path.join(templateDirOf(), 'PG_VERSION'))).toBe(true);
        expect(existsSync(path.join(templateDirOf(), 'postmaster.pid'))).toBe(false);
    });

    it('gives an empty data directory every migration and an empty schema, and keeps what is written there', async () => {
        const dir = path.join(root, 'pgdata');
        const first = await openDatabase({ pgliteDir: dir });
        try {
            expect(await count(first.db, sql`SELECT count(*)::int AS n FROM drizzle.__drizzle_migrations`)).toBe(
                migrations,
            );
            expect(await count(first.db, sql`SELECT count(*)::int AS n FROM products`)).toBe(0);
            await first.db.execute(sql`INSERT INTO scenes (name) VALUES ('模板之后写入')`);
        } finally {
            await first.close();
        }
        // Opened again: the database already exists, so the template is not loaded over it.
        const again = await openDatabase({ pgliteDir: dir });
        try {
            expect(await count(again.db, sql`SELECT count(*)::int AS n FROM scenes WHERE name = '模板之后写入'`)).toBe(
                1,
            );
        } finally {
            await again.close();
        }
    }, 120_000);

    it('fills again a data directory whose copy was cut short (files, but no PG_VERSION yet)', async () => {
        const dir = path.join(root, 'cut-short');
        mkdirSync(path.join(dir, 'base'), { recursive: true });
        writeFileSync(path.join(dir, 'base', 'half-written'), 'x');
        const db = await openDatabase({ pgliteDir: dir });
        try {
            expect(await count(db.db, sql`SELECT count(*)::int AS n FROM drizzle.__drizzle_migrations`)).toBe(
                migrations,
            );
        } finally {
            await db.close();
        }
    }, 120_000);
});
