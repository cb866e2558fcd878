import { AsyncLocalStorage } from 'node:async_hooks';
import type { PGlite } from '@electric-sql/pglite';

/**
 * What has been written, per table, in this process. PGlite is used by one process only (the data directory is
 * locked), so every write passes here: an answer computed from some tables, while none of them was written, is
 * still the answer. PostgreSQL may be shared by several processes, so it has none of this.
 *
 * Every finished write moves a sequence number on and marks the tables it may have changed with it: the tables its
 * statement writes into (INSERT INTO, UPDATE, DELETE FROM, MERGE INTO, in a WITH too), those the schema's functions
 * it calls name, and those their triggers and cascading foreign keys write in turn (read from the catalog). Tables it
 * only reads (a join, a subquery) are not marked: the broker's message batches join devices but write only the message
 * log and latest values, and must not drop every device answer. A write whose targets cannot be told (no DML keyword,
 * or it calls nextval / setval) marks every table it names; one that names no known table, any DDL, and every exec()
 * mark all tables.
 */
export type DataVersion = () => number;

export interface TableVersions {
    /** The sequence number of the last finished write. */
    seq(): number;
    /** Whether a write that may have changed one of these tables finished after `seq`. */
    changedSince(tables: Iterable<string>, seq: number): boolean;
    /** Loads what the writes of each table reach (once, and again after DDL); writes before that mark all tables. */
    ready(): Promise<void>;
    /** Runs fn and answers, with its value, the tables its statements (and nested reads it joined) named. */
    record<T>(fn: () => Promise<T>): Promise<{ value: T; tables: Set<string> }>;
}

const versions = new WeakMap<object, DataVersion>();
const trackers = new WeakMap<DataVersion, TableVersions>();
/** The tables the statements of the current computation named (TableVersions.record). */
const reading = new AsyncLocalStorage<Set<string>>();

/** Statements that only read: a plain SELECT that locks nothing, calls no sequence and writes into nothing. */
const SELECT = /^\s*select\b/i;
const WRITES_ANYWAY =
    /\b(insert|update|delete|into|nextval|setval|pg_advisory\w*|pg_notify|set_config|for\s+(update|share|no\s+key\s+update|key\s+share))\b/i;
const DDL = /^\s*(create|alter|drop|comment|grant|revoke|reindex|cluster|vacuum|analyze|do)\b/i;
const WORD = /[A-Za-z_][A-Za-z0-9_$]*/g;
/** The table a DML statement (or a WITH part of one) writes into, optionally schema-qualified and quoted. */
const TARGET =
    /\b(?:insert\s+into|update|delete\s+from|merge\s+into)\s+(?:only\s+)?(?:"?[A-Za-z_][\w$]*"?\s*\.\s*)?"?([A-Za-z_][\w$]*)"?/gi;
const SEQUENCE_CALL = /\b(nextval|setval)\b/i;

export function readsOnly(statement: string): boolean {
    return SELECT.test(statement) && !WRITES_ANYWAY.test(statement);
}

type Query = (...args: unknown[]) => Promise<unknown>;
interface Client {
    query: Query;
    exec: Query;
}

/** Tables, sequences and views of the current schema; what writing each reaches (triggers, cascades). */
const CATALOG = {
    relations: `SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p', 'S', 'v', 'm', 'f')`,
    cascades: `SELECT pa.relname AS parent, ch.relname AS child FROM pg_constraint k
               JOIN pg_class ch ON ch.oid = k.conrelid JOIN pg_class pa ON pa.oid = k.confrelid
               JOIN pg_namespace n ON n.oid = ch.relnamespace
               WHERE k.contype = 'f' AND n.nspname = current_schema()
                 AND (k.confdeltype IN ('c', 'n', 'd') OR k.confupdtype IN ('c', 'n', 'd'))`,
    triggers: `SELECT c.relname, p.prosrc FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
               JOIN pg_proc p ON p.oid = t.tgfoid JOIN pg_namespace n ON n.oid = c.relnamespace
               WHERE NOT t.tgisinternal AND n.nspname = current_schema()`,
    functions: `SELECT p.proname, p.prosrc FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
                WHERE n.nspname = current_schema()`,
    // A partition's rows are its parent's (device_messages_p20261128 of device_messages, 0026_partitions.sql).
    partitions: `SELECT pa.relname AS parent, ch.relname AS child FROM pg_inherits i
                 JOIN pg_class ch ON ch.oid = i.inhrelid JOIN pg_class pa ON pa.oid = i.inhparent
                 JOIN pg_namespace n ON n.oid = ch.relnamespace WHERE n.nspname = current_schema()`,
};

interface Catalog {
    relations: Set<string>;
    /** The relations each function of the schema names, and those of the functions it names, recursively. */
    functions: Map<string, Set<string>>;
    /** Every relation a write to the key may change, the key included. */
    reach: Map<string, Set<string>>;
}

const rowsOf = async <T>(query: Query, text: string) => ((await query(text)) as { rows: T[] }).rows;

async function loadCatalog(query: Query): Promise<Catalog> {
    const relations = new Set((await rowsOf<{ relname: string }>(query, CATALOG.relations)).map((r) => r.relname));
    const functions = new Map(
        (await rowsOf<{ proname: string; prosrc: string }>(query, CATALOG.functions)).map((f) => [f.proname, f.prosrc]),
    );
    // The relations a function's body names, and those of the functions it names, recursively.
    const named = (source: string, seen: Set<string>, out: Set<string>) => {
        for (const word of source.match(WORD) ?? []) {
            const name = word.toLowerCase();
            if (relations.has(name)) out.add(name);
            else if (functions.has(name) && !seen.has(name)) {
                seen.add(name);
                named(functions.get(name)!, seen, out);
            }
        }
        return out;
    };
    const edges = new Map<string, Set<string>>();
    const edge = (from: string, to: string) => {
        if (!edges.has(from)) edges.set(from, new Set());
        edges.get(from)!.add(to);
    };
    for (const r of await rowsOf<{ parent: string; child: string }>(query, CATALOG.cascades)) edge(r.parent, r.child);
    for (const r of await rowsOf<{ parent: string; child: string }>(query, CATALOG.partitions)) edge(r.child, r.parent);
    for (const t of await rowsOf<{ relname: string; prosrc: string }>(query, CATALOG.triggers))
        for (const to of named(t.prosrc, new Set(), new Set())) edge(t.relname, to);
    const functionTables = new Map(
        [...functions.keys()].map((f) => [f, named(functions.get(f)!, new Set([f]), new Set())]),
    );
    const reach = new Map<string, Set<string>>();
    for (const start of relations) {
        const out = new Set([start]);
        const todo = [start];
        while (todo.length) {
            for (const next of edges.get(todo.pop()!) ?? []) {
                if (out.has(next)) continue;
                out.add(next);
                todo.push(next);
            }
        }
        reach.set(start, out);
    }
    return { relations, functions: functionTables, reach };
}

/**
 * Follows the writes of a PGlite client: each statement outside a transaction that is not readsOnly, and each
 * transaction (committed or not), once it has finished. Answers the sequence number of the last write; its
 * per-table record is tableVersionsOf(db) once setDataVersion has tied it to the database.
 */
export function trackWrites(client: PGlite): DataVersion {
    let seq = 0;
    let allAt = 0;
    const lastWrite = new Map<string, number>();
    let catalog: Catalog | undefined;
    let loading: Promise<void> | undefined;
    let ddl = 0;
    const named = new Map<string, string[]>();

    const tablesOf = (statement: string): string[] => {
        let tables = named.get(statement);
        if (!tables) {
            const found = new Set<string>();
            for (const word of statement.match(WORD) ?? []) {
                const name = word.toLowerCase();
                if (catalog!.relations.has(name)) found.add(name);
            }
            tables = [...found];
            if (named.size >= 5_000) named.clear();
            named.set(statement, tables);
        }
        return tables;
    };
    const targets = new Map<string, string[]>();
    /** The tables a write statement writes into, and those the schema's functions it calls name. */
    const targetsOf = (statement: string): string[] => {
        let tables = targets.get(statement);
        if (!tables) {
            const found = new Set<string>();
            for (const [, name] of statement.matchAll(TARGET))
                if (catalog!.relations.has(name.toLowerCase())) found.add(name.toLowerCase());
            for (const word of statement.match(WORD) ?? [])
                for (const table of catalog!.functions.get(word.toLowerCase()) ?? []) found.add(table);
            // Targets it cannot tell: every table it names.
            tables = found.size && !SEQUENCE_CALL.test(statement) ? [...found] : tablesOf(statement);
            if (targets.size >= 5_000) targets.clear();
            targets.set(statement, tables);
        }
        return tables;
    };
    /** What a finished write marks: undefined for every table. */
    const writesOf = (statement: string): string[] | undefined => {
        if (DDL.test(statement)) {
            ddl++;
            catalog = undefined;
        }
        if (!catalog) return undefined;
        const tables = targetsOf(statement);
        return tables.length ? tables : undefined;
    };
    const mark = (tables: Iterable<string> | undefined) => {
        seq++;
        if (!tables || !catalog) {
            allAt = seq;
            return;
        }
        for (const table of tables)
            for (const reached of catalog.reach.get(table) ?? [table]) lastWrite.set(reached, seq);
    };
    const noteRead = (statement: string) => {
        const store = reading.getStore();
        if (store && catalog) for (const table of tablesOf(statement)) store.add(table);
    };

    const query = client.query.bind(client) as Query;
    const exec = client.exec.bind(client) as Query;
    const transaction = client.transaction.bind(client) as (fn: (tx: Client) => Promise<unknown>) => Promise<unknown>;
    client.query = (async (statement: string, ...rest: unknown[]) => {
        const read = readsOnly(statement);
        if (read) noteRead(statement);
        try {
            return await query(statement, ...rest);
        } finally {
            if (!read) mark(writesOf(statement));
        }
    }) as PGlite['query'];
    client.exec = (async (...args: unknown[]) => {
        try {
            return await exec(...args);
        } finally {
            ddl++;
            catalog = undefined;
            mark(undefined);
        }
    }) as PGlite['exec'];
    client.transaction = (async (fn: (tx: Client) => Promise<unknown>) => {
        const written = new Set<string>();
        let all = false;
        try {
            return await transaction((tx) => {
                const txQuery = tx.query.bind(tx);
                const txExec = tx.exec.bind(tx);
                tx.query = async (statement: unknown, ...rest: unknown[]) => {
                    const text = String(statement);
                    if (readsOnly(text)) noteRead(text);
                    else {
                        const tables = writesOf(text);
                        if (tables) for (const t of tables) written.add(t);
                        else all = true;
                    }
                    return txQuery(statement, ...rest);
                };
                tx.exec = async (...args: unknown[]) => {
                    ddl++;
                    catalog = undefined;
                    all = true;
                    return txExec(...args);
                };
                return fn(tx);
            });
        } finally {
            mark(all ? undefined : written);
        }
    }) as PGlite['transaction'];

    const version: DataVersion = () => seq;
    trackers.set(version, {
        seq: () => seq,
        changedSince(tables, since) {
            if (allAt > since || !catalog) return true;
            for (const table of tables) if ((lastWrite.get(table) ?? 0) > since) return true;
            return false;
        },
        ready() {
            if (catalog) return Promise.resolve();
            loading ??= (async () => {
                const before = ddl;
                const loaded = await loadCatalog(query);
                if (ddl !== before) return;
                // Statements were matched against the old catalog.
                named.clear();
                targets.clear();
                catalog = loaded;
            })().finally(() => (loading = undefined));
            return loading;
        },
        async record(fn) {
            const tables = new Set<string>();
            const value = await reading.run(tables, fn);
            return { value, tables };
        },
    });
    return version;
}

/** Adds tables to what the current computation read (a value it took from a cache of its own). */
export function readTables(tables: Iterable<string>): void {
    const store = reading.getStore();
    if (store) for (const table of tables) store.add(table);
}

export function setDataVersion(db: object, version: DataVersion): void {
    versions.set(db, version);
}

/** The data version of a database opened by openDatabase, or undefined (PostgreSQL, or a database made elsewhere). */
export function dataVersionOf(db: object): DataVersion | undefined {
    return versions.get(db);
}

/** The per-table record of the writes of a database opened by openDatabase (PGlite), or undefined. */
export function tableVersionsOf(db: object): TableVersions | undefined {
    const version = versions.get(db);
    return version && trackers.get(version);
}
