import { sql, type SQL } from 'drizzle-orm';

/**
 * Many rows as a few array parameters, for multi-row statements that `unnest` them side by side: cheaper for the
 * database to read than one JSON document per row set (json_to_recordset), and one parameter each however many rows.
 */

/** Integers (null elements NULL) as PostgreSQL's array text of `type`: nothing to quote. */
function integerArray(values: Array<number | null>, type: 'int' | 'bigint'): SQL {
    for (const v of values) if (v !== null && !Number.isSafeInteger(v)) throw new Error(`not an integer: ${v}`);
    return sql`${`{${values.map((v) => (v === null ? 'NULL' : v)).join(',')}}`}::${sql.raw(type)}[]`;
}

/** A bigint[] parameter whose elements may be null. */
export const bigintArray = (values: Array<number | null>): SQL => integerArray(values, 'bigint');

/** An int[] parameter whose elements may be null. */
export const intArray = (values: Array<number | null>): SQL => integerArray(values, 'int');

/** A text[] parameter (the driver quotes each element; null elements are NULL). */
export function textArray(values: Array<string | null>): SQL {
    return sql`${sql.param(values)}::text[]`;
}

/**
 * The values as rows of one jsonb column, in order: `jsonb_array_elements` of one JSON array, for `ROWS FROM` beside
 * `unnest` of the other columns (which pairs rows by position, with no jsonb array to build and sort).
 */
export function jsonbElements(values: unknown[]): SQL {
    return sql`jsonb_array_elements(${JSON.stringify(values)}::jsonb)`;
}
