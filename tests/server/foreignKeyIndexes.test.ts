// @vitest-environment node
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../../server/db/rows';
import { createTestServer, type TestServer } from '../../server/testing';

/**
 * Deleting a device (or a product, a rule, a project) makes PostgreSQL look up every row whose foreign key names it,
 * for its cascade, set null or refusal. Without an index leading with that column each delete reads the whole table,
 * so every foreign key into the large tables has one (a partial index on `col IS NOT NULL` serves `col = $1`).
 */
let s: TestServer;
beforeAll(async () => {
    s = await createTestServer({ seed: false });
});
afterAll(() => s?.close());

describe('foreign keys', () => {
    it('into devices, products and rules each have an index leading with their column', async () => {
        const result = await s.db.execute(sql`
            SELECT c.conrelid::regclass::text AS "table", a.attname AS "column", c.confrelid::regclass::text AS "references"
            FROM pg_constraint c
            JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = c.conkey[1]
            WHERE c.contype = 'f' AND c.confrelid IN ('devices'::regclass, 'products'::regclass, 'rules'::regclass)
                AND NOT EXISTS (
                    SELECT 1 FROM pg_index i
                    WHERE i.indrelid = c.conrelid AND i.indkey[0] = c.conkey[1]
                        AND (i.indpred IS NULL
                            OR pg_get_expr(i.indpred, i.indrelid) = '(' || quote_ident(a.attname) || ' IS NOT NULL)'))
            ORDER BY 1, 2`);
        expect(rowsOf(result)).toEqual([]);
    });
});
