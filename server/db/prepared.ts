import { sql } from 'drizzle-orm';
import { PgTransaction } from 'drizzle-orm/pg-core';
import type { Db, Tx } from './client';

/** A value of a statement built once: a placeholder named after it, filled in when it runs. */
export type Bind = <T>(name: string, value: T) => T | ReturnType<typeof sql.placeholder>;

/** Values as they are: the statement is built for this call. */
export const inline: Bind = (_name, value) => value;
/** Placeholders: the statement is built once per shape and run with the values (prepared). */
export const placeholder: Bind = (name) => sql.placeholder(name);

interface Prepared<R> {
    execute(values: Record<string, unknown>): Promise<R>;
}

/**
 * Statements built once per database and shape, then run with their values. Drizzle builds a select's SQL text
 * anew on every call: a device page took about 0.15 ms of the event loop to build, about what PGlite takes to run it.
 * `build` makes the statement of one shape (which filters it has) with `placeholder` binds and answers it prepared
 * (`.prepare(name)`; PostgreSQL keeps it per connection under that name). Inside a transaction, the statement is
 * built for the call (prepared statements belong to the database's own session).
 */
export function preparedByShape<A, R>(
    build: (db: Db, shape: string, args: A) => Prepared<R>,
    /** Shapes kept per database at most (all are dropped when more come): for shapes that carry values. */
    max = Infinity,
): (db: Db | Tx, shape: string, args: A) => Prepared<R> | undefined {
    const statements = new WeakMap<object, Map<string, Prepared<R>>>();
    return (db, shape, args) => {
        if (db instanceof PgTransaction) return undefined;
        let byShape = statements.get(db);
        if (!byShape) statements.set(db, (byShape = new Map()));
        let statement = byShape.get(shape);
        if (!statement) {
            if (byShape.size >= max) byShape.clear();
            byShape.set(shape, (statement = build(db as Db, shape, args)));
        }
        return statement;
    };
}
