import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type DatabaseHandle } from '../../server/db/client';
import { products } from '../../server/db/schema';
import { migratedTemplate } from '../../server/db/template';

/**
 * PGLITE_WORKER=1 runs the embedded database in a worker thread (server/db/pgliteRemote.ts): drizzle reads and
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
});
