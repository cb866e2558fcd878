import { sql, type SQL } from 'drizzle-orm';

/**
 * Many rows as a few array parameters, for multi-row statements that `unnest` them side by side: cheaper for the
 * database to read than one JSON document per row set (json_to_recordset), and one parameter each however many rows.
 */

/** A bigint[] (or int[]) parameter: integers written as PostgreSQL's array text, nothing to quote. */
export function bigintArray(values: number[]): SQL {
    for (const v of values) if (!Number.isSafeInteger(v)) throw new Error(`not an integer: ${v}`);
    return sql`${`{${values.join(',')}}`}::bigint[]`;
}

/** A jsonb[] of the values in their order, sent as one JSON array. */
export function jsonbArray(values: unknown[]): SQL {
    return sql`ARRAY(SELECT e FROM jsonb_array_elements(${JSON.stringify(values)}::jsonb) WITH ORDINALITY AS j(e, n) ORDER BY n)`;
}

/** A text[] parameter (the driver quotes each element; null elements are NULL). */
export function textArray(values: Array<string | null>): SQL {
    return sql`${sql.param(values)}::text[]`;
}
