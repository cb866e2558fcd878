import type { PGlite } from '@electric-sql/pglite';

/**
 * A number that moves on after every statement that may have changed data, in this process. PGlite is used by one
 * process only (the data directory is locked), so every write passes here: an answer computed while the number
 * stayed the same is still the answer. PostgreSQL may be shared by several processes, so it has no such number.
 */
export type DataVersion = () => number;

const versions = new WeakMap<object, DataVersion>();

/** Statements that only read: a plain SELECT that locks nothing, calls no sequence and writes into nothing. */
const SELECT = /^\s*select\b/i;
const WRITES_ANYWAY =
    /\b(insert|update|delete|into|nextval|setval|pg_advisory\w*|pg_notify|set_config|for\s+(update|share|no\s+key\s+update|key\s+share))\b/i;

export function readsOnly(statement: string): boolean {
    return SELECT.test(statement) && !WRITES_ANYWAY.test(statement);
}

/**
 * Counts the writes of a PGlite client: each statement outside a transaction that is not readsOnly, and each
 * transaction (whatever it ran, committed or not), moves the version on once it has finished.
 */
export function trackWrites(client: PGlite): DataVersion {
    let version = 0;
    const query = client.query.bind(client);
    const exec = client.exec.bind(client);
    const transaction = client.transaction.bind(client);
    client.query = (async (statement: string, ...rest: unknown[]) => {
        try {
            return await (query as (...args: unknown[]) => Promise<unknown>)(statement, ...rest);
        } finally {
            if (!readsOnly(statement)) version++;
        }
    }) as PGlite['query'];
    client.exec = (async (...args: Parameters<PGlite['exec']>) => {
        try {
            return await exec(...args);
        } finally {
            version++;
        }
    }) as PGlite['exec'];
    client.transaction = (async (...args: Parameters<PGlite['transaction']>) => {
        try {
            return await transaction(...args);
        } finally {
            version++;
        }
    }) as PGlite['transaction'];
    return () => version;
}

export function setDataVersion(db: object, version: DataVersion): void {
    versions.set(db, version);
}

/** The data version of a database opened by openDatabase, or undefined (PostgreSQL, or a database made elsewhere). */
export function dataVersionOf(db: object): DataVersion | undefined {
    return versions.get(db);
}
