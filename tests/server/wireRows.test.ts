import { PGlite, protocol } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error: plain JavaScript of the database's worker, without types.
import { fastResults, slowResults } from '../../server/db/wireRows.mjs';

/**
 * The worker reads a statement's answer from the wire protocol's bytes itself (server/db/wireRows.mjs): whatever it
 * answers must be what PGlite's own reader and parseResults give for the same bytes, and it must leave errors and
 * anything it does not know to that reader.
 */
type Read = (bytes: Uint8Array, parsers: unknown, rowMode?: 'array' | 'object') => unknown;
const fast = fastResults as Read;
const slow = slowResults as Read;
const wire = protocol.serialize;
let pg: PGlite;

/** One statement as the worker sends it (Parse, Bind, Describe, Execute, Sync), answered as bytes. */
async function answer(text: string, values: Array<string | null> = []): Promise<Uint8Array> {
    const parts = [
        wire.parse({ name: '', text }),
        wire.bind({ statement: '', values }),
        wire.describe({ type: 'P' }),
        wire.execute({}),
        wire.sync(),
    ];
    const bytes = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const part of parts) {
        bytes.set(part, at);
        at += part.length;
    }
    return pg.execProtocolRaw(bytes);
}

beforeAll(async () => {
    pg = await PGlite.create();
    await pg.exec(`CREATE TABLE wire_probe (id int PRIMARY KEY, name text, data jsonb, at timestamptz, n numeric)`);
}, 60_000);

afterAll(async () => {
    await pg?.close();
});

describe('the worker reading answers from the wire protocol', () => {
    const cases: Array<[string, string, Array<string | null>]> = [
        [
            'values of many types, nulls and Chinese text',
            `SELECT 1::int AS a, 12345678901234::int8 AS b, '设备名称'::text AS c, NULL::text AS d, true AS e,
                    '{"k":[1,2]}'::jsonb AS f, '2026-11-27 01:02:03+00'::timestamptz AS g, 1.50::numeric AS h,
                    ARRAY[1,2,3] AS i, 2.5::float8 AS j, ''::text AS k`,
            [],
        ],
        ['many rows, a parameter', `SELECT g AS id, 'n' || g AS name FROM generate_series(1, $1::int) AS g`, ['500']],
        ['no rows', `SELECT 1 AS a WHERE false`, []],
        ['an insert without rows', `INSERT INTO wire_probe (id, name) SELECT g, 'x' FROM generate_series(1, 3) g`, []],
        ['an update returning rows', `UPDATE wire_probe SET name = '改' WHERE id <= 2 RETURNING id, name`, []],
        ['a delete', `DELETE FROM wire_probe WHERE id = 3`, []],
        ['a statement with no result', `SET application_name = 'probe'`, []],
        ['duplicate column names', `SELECT 1 AS a, 2 AS a`, []],
    ];
    for (const [what, text, values] of cases)
        it(`answers ${what} as PGlite's reader does`, async () => {
            const bytes = await answer(text, values);
            // The worker's text-kept types (drizzle keeps timestamps as text) over PGlite's parsers, as it passes them.
            const parsers = Object.assign(Object.create(pg.parsers), { 1184: (v: string) => v });
            for (const rowMode of ['array', 'object', undefined] as const) {
                const mine = fast(bytes, parsers, rowMode);
                expect(mine).toBeDefined();
                expect(mine).toEqual(slow(bytes, parsers, rowMode));
            }
        });

    it('leaves an error to PGlite, which throws it with its fields', async () => {
        const bytes = await answer(`INSERT INTO wire_probe (id) VALUES (1)`);
        expect(fast(bytes, pg.parsers)).toBeUndefined();
        expect(() => slow(bytes, pg.parsers)).toThrow(expect.objectContaining({ code: '23505' }));
    });
});
