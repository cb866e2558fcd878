import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, pgliteInWorker, type DatabaseHandle } from '../../server/db/client';
import { products } from '../../server/db/schema';
import { migratedTemplate } from '../../server/db/template';

/**
 * The embedded database runs in a worker thread unless PGLITE_WORKER=0 (server/db/pgliteRemote.ts): drizzle reads and
 * writes through it as through PGlite in process, transactions commit or roll back, PostgreSQL's error fields reach the
 * caller (the 409 / 404 mapping reads them), and a statement outside an open transaction waits for it to end.
 */
const rows = <T>(r: unknown) => (r as { rows: T[] }).rows;
let handle: DatabaseHandle;
const previous = process.env.PGLITE_WORKER;

beforeAll(async () => {
    process.env.PGLITE_WORKER = '1';
    handle = await openDatabase({ loadDataDir: await migratedTemplate() });
    expect(handle.inWorker).toBe(true);
    await handle.db.execute(sql`CREATE TABLE worker_probe (id int PRIMARY KEY, note text)`);
}, 120_000);

afterAll(async () => {
    await handle?.close();
    if (previous === undefined) delete process.env.PGLITE_WORKER;
    else process.env.PGLITE_WORKER = previous;
});

describe('embedded database in a worker thread', () => {
    it('answers drizzle queries with the same values (timestamps as text, as drizzle asks)', async () => {
        const [now] = rows<{ t: string; n: number }>(
            await handle.db.execute(sql`SELECT '2026-11-27 01:02:03+00'::timestamptz AS t, 41 + 1 AS n`),
        );
        expect(now).toEqual({ t: '2026-11-27 01:02:03+00', n: 42 });
        // The migrated schema is there, and the query builder's array rows map back to objects.
        expect(await handle.db.select({ id: products.id }).from(products).limit(1)).toEqual([]);
    });

    it('commits a transaction, and rolls back one that throws', async () => {
        await handle.db.transaction(async (tx) => {
            await tx.execute(sql`INSERT INTO worker_probe VALUES (1, '提交')`);
        });
        await expect(
            handle.db.transaction(async (tx) => {
                await tx.execute(sql`INSERT INTO worker_probe VALUES (2, '回滚')`);
                throw new Error('stop');
            }),
        ).rejects.toThrow('stop');
        expect(rows<{ id: number }>(await handle.db.execute(sql`SELECT id FROM worker_probe ORDER BY id`))).toEqual([
            { id: 1 },
        ]);
    });

    // As PGlite in process answers them (int8 as a number).
    it('takes numbers, text, booleans, big integers and nulls as values, and goes on after a failed statement', async () => {
        const [row] = rows<Record<string, unknown>>(
            await handle.db.execute(
                sql`SELECT ${41}::int + 1 AS n, ${'文字'}::text AS t, ${true}::bool AS b, ${12345678901234n}::int8 AS big,
                    ${null}::text AS nothing, ${2.5}::float8 AS f`,
            ),
        );
        expect(row).toEqual({ n: 42, t: '文字', b: true, big: 12345678901234, nothing: null, f: 2.5 });
        const err = await handle.db.execute(sql`SELECT 1 / ${0}::int`).catch((e: unknown) => e);
        expect(((err as { cause?: { code?: string } }).cause ?? (err as { code?: string })).code).toBe('22012');
        expect(rows(await handle.db.execute(sql`SELECT ${'after'} AS next`))).toEqual([{ next: 'after' }]);
    });

    it("hands PostgreSQL's error code and constraint to the caller", async () => {
        const err = await handle.db.execute(sql`INSERT INTO worker_probe VALUES (1, 'again')`).catch((e: unknown) => e);
        const cause = (err as { cause?: { code?: string; constraint?: string } }).cause ?? err;
        expect((cause as { code?: string }).code).toBe('23505');
        expect((cause as { constraint?: string }).constraint).toBe('worker_probe_pkey');
    });

    it('keeps a statement from outside an open transaction waiting until it ends', async () => {
        let release!: () => void;
        const held = new Promise<void>((r) => (release = r));
        const order: string[] = [];
        const transaction = handle.db.transaction(async (tx) => {
            await tx.execute(sql`INSERT INTO worker_probe VALUES (3, '事务内')`);
            await held;
            order.push('transaction');
        });
        await new Promise((r) => setTimeout(r, 50));
        const outside = handle.db.execute(sql`SELECT count(*)::int AS n FROM worker_probe`).then((r) => {
            order.push('outside');
            return rows<{ n: number }>(r)[0].n;
        });
        await new Promise((r) => setTimeout(r, 100));
        expect(order).toEqual([]);
        release();
        await transaction;
        // It ran after the commit, so it counts the transaction's row.
        expect(await outside).toBe(2);
        expect(order).toEqual(['transaction', 'outside']);
    });

    // The worker keeps statements parsed under a name (pgliteWorker.mjs): the same text runs again with new values.
    it('answers a statement run again with other values as the first time, after DDL and past the kept number', async () => {
        const select = (id: number) => handle.db.execute(sql`SELECT * FROM worker_probe WHERE id = ${id}`);
        await handle.db.execute(sql`INSERT INTO worker_probe VALUES (10, '十'), (11, '十一')`);
        for (let run = 0; run < 8; run++) {
            expect(rows(await select(10))).toEqual([{ id: 10, note: '十' }]);
            expect(rows(await select(11))).toEqual([{ id: 11, note: '十一' }]);
        }
        // A changed table: the statement is parsed again and shows the new column.
        await handle.db.execute(sql`ALTER TABLE worker_probe ADD COLUMN extra int DEFAULT 7`);
        expect(rows(await select(10))).toEqual([{ id: 10, note: '十', extra: 7 }]);
        // DDL the worker cannot see (inside a function a SELECT calls): the statement is parsed again all the same.
        await handle.db.execute(
            sql.raw(`CREATE FUNCTION worker_probe_widen() RETURNS void LANGUAGE plpgsql AS
                     $$ BEGIN ALTER TABLE worker_probe ADD COLUMN wider int DEFAULT 8; END $$`),
        );
        expect(rows(await select(10))).toEqual([{ id: 10, note: '十', extra: 7 }]);
        await handle.db.execute(sql`SELECT worker_probe_widen()`);
        expect(rows(await select(10))).toEqual([{ id: 10, note: '十', extra: 7, wider: 8 }]);
        // A statement that fails to parse, then one that fails to run, change nothing for the next ones.
        await expect(handle.db.execute(sql.raw('SELECT FROM WHERE'))).rejects.toThrow();
        await expect(handle.db.execute(sql.raw('SELECT FROM WHERE'))).rejects.toThrow();
        const text = 'SELECT 10 / $1::int AS q';
        const client = (handle.db as unknown as { $client: { query(t: string, p: unknown[]): Promise<unknown> } })
            .$client;
        await expect(client.query(text, [0])).rejects.toThrow();
        expect(rows(await client.query(text, [5]))).toEqual([{ q: 2 }]);
        // More distinct statements than are kept: the oldest are closed, and every one still answers.
        for (let i = 0; i < 520; i++)
            expect(rows(await client.query(`SELECT $1::int + ${i} AS n`, [1]))).toEqual([{ n: 1 + i }]);
        expect(rows(await client.query('SELECT $1::int + 0 AS n', [2]))).toEqual([{ n: 2 }]);
        expect(rows(await select(11))).toEqual([{ id: 11, note: '十一', extra: 7, wider: 8 }]);
    });
});

describe('where the embedded database runs', () => {
    it('runs it in a worker unless PGLITE_WORKER=0', () => {
        expect(pgliteInWorker({})).toBe(true);
        expect(pgliteInWorker({ PGLITE_WORKER: '1' })).toBe(true);
        expect(pgliteInWorker({ PGLITE_WORKER: '0' })).toBe(false);
        expect(pgliteInWorker({ PGLITE_WORKER: ' 0 ' })).toBe(false);
    });

    it('refuses a parser the worker cannot apply, as a failed statement', async () => {
        const client = (handle.db as unknown as { $client: { query: (...args: unknown[]) => Promise<unknown> } })
            .$client;
        await expect(
            client.query("SELECT 'a'::text AS t", [], { parsers: { 25: (v: string) => v.toUpperCase() } }),
        ).rejects.toThrow('is not the identity');
        // The same types with parsers that keep the text cross, and the answer is PostgreSQL's text.
        expect(await client.query("SELECT 'a'::text AS t", [], { parsers: { 25: (v: string) => v } })).toMatchObject({
            rows: [{ t: 'a' }],
        });
    });

    it('lets a process that leaves its database open end, as PGlite in process does', async () => {
        // A script that opens the database, reads, and returns without close(): it must exit by itself with its answer.
        const script = `(async () => {
            const { openDatabase } = await import('./server/db/client.ts');
            const { migratedTemplate } = await import('./server/db/template.ts');
            const handle = await openDatabase({ loadDataDir: await migratedTemplate() });
            const { rows } = await handle.db.execute('SELECT 40 + 2 AS n');
            console.log(JSON.stringify({ inWorker: handle.inWorker, rows }));
        })();`;
        const env = { ...process.env };
        delete env.PGLITE_WORKER;
        const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', '-e', script], {
            env,
            timeout: 90_000,
        });
        expect(JSON.parse(stdout.trim().split('\n').at(-1)!)).toEqual({ inWorker: true, rows: [{ n: 42 }] });
    }, 120_000);
});
