import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type DatabaseHandle } from '../../server/db/client';

/**
 * The database's worker keeps its files' sizes between writes (server/db/pgliteWorker.mjs): PostgreSQL learns how many
 * blocks a table has from them, so a size kept past a write would hide the rows of the blocks added since (or make the
 * next extension fail). Tables growing, shrinking under VACUUM and growing again, read after every step, and read again
 * after a restart, show each write.
 */
const rows = <T>(r: unknown) => (r as { rows: T[] }).rows;
let dir: string;
let handle: DatabaseHandle;
const previous = process.env.PGLITE_WORKER;

const open = () => openDatabase({ pgliteDir: path.join(dir, 'pgdata') });
const state = async () => {
    const [row] = rows<{ n: number; bytes: number }>(
        await handle.db.execute(
            sql`SELECT (SELECT count(*) FROM size_probe)::int AS n, pg_relation_size('size_probe')::int AS bytes`,
        ),
    );
    return row;
};
const add = (from: number, count: number) =>
    handle.db.execute(
        sql`INSERT INTO size_probe SELECT g, repeat('x', 500) FROM generate_series(${from}::int, ${from + count - 1}::int) AS g`,
    );

beforeAll(async () => {
    process.env.PGLITE_WORKER = '1';
    dir = mkdtempSync(path.join(os.tmpdir(), 'iot-sizes-'));
    handle = await open();
    expect(handle.inWorker).toBe(true);
    await handle.db.execute(sql`CREATE TABLE size_probe (id int, pad text)`);
}, 120_000);

afterAll(async () => {
    await handle?.close();
    rmSync(dir, { recursive: true, force: true });
    if (previous === undefined) delete process.env.PGLITE_WORKER;
    else process.env.PGLITE_WORKER = previous;
});

describe('embedded database files on disk, read through the worker', () => {
    it('sees every block a table grows by, as soon as it is written', async () => {
        let bytes = 0;
        for (let step = 1; step <= 20; step++) {
            await add(step * 1000, 150);
            const now = await state();
            expect(now.n).toBe(step * 150);
            expect(now.bytes).toBeGreaterThan(bytes);
            bytes = now.bytes;
        }
    });

    it('sees a table truncated by VACUUM, then growing again, and the same after a restart', async () => {
        await handle.db.execute(sql`DELETE FROM size_probe`);
        await handle.db.execute(sql`VACUUM size_probe`);
        expect(await state()).toEqual({ n: 0, bytes: 0 });
        await add(1, 400);
        const grown = await state();
        expect(grown.n).toBe(400);
        expect(grown.bytes).toBeGreaterThan(0);
        await handle.close();
        handle = await open();
        expect(await state()).toEqual(grown);
        await add(401, 400);
        expect((await state()).n).toBe(800);
    }, 60_000);
});
