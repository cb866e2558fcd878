import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { fromRoot } from '../paths';

/**
 * PGlite in a worker thread (server/db/pgliteWorker.mjs), seen from the main thread with the part of PGlite's interface
 * drizzle and the server use: query, exec, transaction, close. PGlite runs one statement at a time either way; in a
 * worker its parsing, planning and execution leave the main thread free for HTTP and MQTT, so the two cores both work.
 * Statements of an open transaction go to that transaction; others wait behind it in PGlite's own lock, as in process.
 */

interface Reply {
    id: number;
    ok: boolean;
    result?: unknown;
    error?: Record<string, unknown> & { message: string };
}

interface QueryOptions {
    rowMode?: 'array' | 'object';
    parsers?: Record<number, (value: string, type: number) => unknown>;
}

export interface QueryResult {
    rows: unknown[];
    fields: Array<{ name: string; dataTypeID: number }>;
    affectedRows?: number;
}

export interface RemoteClient {
    query(sql: string, params?: unknown[], options?: QueryOptions): Promise<QueryResult>;
    exec(sql: string): Promise<QueryResult[]>;
}

export interface RemotePglite extends RemoteClient {
    transaction<T>(fn: (tx: RemoteClient) => Promise<T>): Promise<T>;
    close(): Promise<void>;
    waitReady: Promise<void>;
}

const WORKER_FILE = fromRoot('server', 'db', 'pgliteWorker.mjs');

interface WasmModules {
    pgliteWasmModule: WebAssembly.Module;
    initdbWasmModule: WebAssembly.Module;
}
let compiled: Promise<WasmModules> | undefined;

/**
 * PGlite's WebAssembly compiled once per process and handed to every worker, as PGlite in process keeps its compiled
 * copy for the next instance: a worker compiling it again costs about 0.8 s of CPU per database opened (test servers).
 */
function wasmModules(): Promise<WasmModules> {
    compiled ??= (async () => {
        const dist = path.dirname(createRequire(fromRoot('package.json')).resolve('@electric-sql/pglite'));
        const compile = async (file: string) => WebAssembly.compile(await readFile(path.join(dist, file)));
        const [pgliteWasmModule, initdbWasmModule] = await Promise.all([
            compile('pglite.wasm'),
            compile('initdb.wasm'),
        ]);
        return { pgliteWasmModule, initdbWasmModule };
    })().catch((err: unknown) => {
        compiled = undefined;
        throw err;
    });
    return compiled;
}

/** Starts compiling PGlite's WebAssembly ahead of the first open (a failure is the open's to report). */
export function compilePgliteWasm(): void {
    wasmModules().catch(() => undefined);
}

/**
 * The types a caller's parsers keep as text, as one key ("1082,1114,..."; the worker keeps one set of parsers per key).
 * Only such parsers can cross to the worker (drizzle's all do). Checked on every statement, as drizzle makes new parser
 * functions for each: about 2 µs, against about 170 µs of this thread's time for the statement's round trip.
 */
function rawTypes(parsers: QueryOptions['parsers']): string | undefined {
    if (!parsers) return undefined;
    const types = Object.keys(parsers);
    for (const type of types) {
        const probe = `probe-${type}`;
        if (parsers[Number(type)](probe, Number(type)) !== probe)
            throw new Error(`PGlite worker: the parser for type ${type} is not the identity`);
    }
    return types.join(',');
}

/** An error with the fields PostgreSQL gave (code, constraint, detail...), as callers read them. */
function rebuild(error: NonNullable<Reply['error']>): Error {
    const err = new Error(error.message);
    Object.assign(err, error);
    return err;
}

export async function openRemotePglite(dir: string | undefined, loadDataDir?: ArrayBuffer): Promise<RemotePglite> {
    const worker = new Worker(WORKER_FILE, {
        workerData: { dir, loadDataDir, ...(await wasmModules()) },
        transferList: loadDataDir ? [loadDataDir] : [],
    });
    // The worker keeps the process alive only while a statement is out, as PGlite in process would: a database left
    // open does not hold the process at its end.
    worker.unref();
    const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
    let nextId = 1;
    let failure: Error | undefined;
    worker.on('message', (reply: Reply) => {
        const waiter = pending.get(reply.id);
        if (!waiter) return;
        pending.delete(reply.id);
        if (pending.size === 0) worker.unref();
        if (reply.ok) waiter.resolve(reply.result);
        else waiter.reject(rebuild(reply.error!));
    });
    const fail = (err: Error) => {
        failure = err;
        for (const waiter of pending.values()) waiter.reject(err);
        pending.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`PGlite worker exited (${code})`)));

    const send = <T>(message: Record<string, unknown>): Promise<T> => {
        if (failure) return Promise.reject(failure);
        const id = nextId++;
        return new Promise<T>((resolve, reject) => {
            if (pending.size === 0) worker.ref();
            pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
            worker.postMessage({ ...message, id });
        });
    };

    const clientOf = (tx?: number): RemoteClient => ({
        // async: a parser that cannot cross rejects the call, as a failing statement would.
        query: async (sql, params = [], options = {}) =>
            send<QueryResult>({
                op: 'query',
                sql,
                params,
                tx,
                rowMode: options.rowMode,
                rawTypes: rawTypes(options.parsers),
            }),
        exec: (sql) => send<QueryResult[]>({ op: 'exec', sql, tx }),
    });

    return {
        ...clientOf(),
        // A worker that could not open the database ends there (its error is the one the caller gets).
        waitReady: send<null>({ op: 'ready' }).then(
            () => undefined,
            async (err: Error) => {
                await worker.terminate();
                throw err;
            },
        ),
        async transaction<T>(fn: (tx: RemoteClient) => Promise<T>): Promise<T> {
            const tx = await send<number>({ op: 'begin' });
            let result: T;
            try {
                result = await fn(clientOf(tx));
            } catch (err) {
                await send({ op: 'end', tx, commit: false });
                throw err;
            }
            await send({ op: 'end', tx, commit: true });
            return result;
        },
        async close() {
            if (failure) return;
            try {
                await send({ op: 'close' });
            } finally {
                await worker.terminate();
            }
        },
    };
}
