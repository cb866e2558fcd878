// The embedded database in a worker thread (PGLITE_WORKER=1): PGlite runs here, on its own core, while the main thread
// answers HTTP and MQTT. server/db/pgliteRemote.ts is the other side: it sends statements and transactions as messages.
// Plain JavaScript, so the sources (tsx) and the bundle (dist-server) start it alike.
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite, parse, protocol } from '@electric-sql/pglite';

// The WebAssembly modules come compiled from the main thread (pgliteRemote.ts), shared by every worker of the process.
const { dir, loadDataDir, pgliteWasmModule, initdbWasmModule } = workerData;
const options = {
    loadDataDir: loadDataDir ? new Blob([loadDataDir]) : undefined,
    pgliteWasmModule,
    initdbWasmModule,
};
const pglite = dir ? new PGlite(dir, options) : new PGlite(options);

/** Open transactions by id: their PGlite transaction object and how to end them. */
const transactions = new Map();
let nextTransaction = 1;
const ROLLBACK = Symbol('rollback');

/** The error as plain fields (a PostgreSQL error's code, constraint, detail... survive the message). */
function plain(err) {
    const out = { message: String(err?.message ?? err), name: err?.name };
    for (const key of Object.keys(err ?? {})) {
        const value = err[key];
        if (value === undefined || typeof value === 'function' || typeof value === 'object') continue;
        out[key] = value;
    }
    return out;
}

/** Identity parsers for the types the caller reads as text (drizzle keeps dates and intervals as strings), by their key
 * ("1082,1114,...": a handful of sets, made once each). */
const parsersByKey = new Map();
const asText = (value) => value;
function rawParsers(key) {
    if (!key) return undefined;
    let parsers = parsersByKey.get(key);
    if (!parsers) {
        parsers = Object.fromEntries(key.split(',').map((type) => [Number(type), asText]));
        parsersByKey.set(key, parsers);
    }
    return parsers;
}

const wire = protocol.serialize;

/**
 * PGlite's parsers with the caller's text-kept types on top, one table per key. Given as options.parsers, PGlite copies
 * its whole table (over 300 types) into a new object for every statement: about 85 µs each. The table inherits
 * PGlite's own, so types PGlite adds later are seen.
 */
const mergedByKey = new Map();
function parsersWith(key) {
    if (!key) return pglite.parsers;
    let merged = mergedByKey.get(key);
    if (!merged) {
        merged = Object.assign(Object.create(pglite.parsers), rawParsers(key));
        mergedByKey.set(key, merged);
    }
    return merged;
}

/** Values PGlite's serializers would send as their plain text anyway (numbers, strings, booleans, nulls). */
const plainValues = (params) =>
    params.every((v) => v === null || v === undefined || ['string', 'number', 'bigint', 'boolean'].includes(typeof v));

function concat(parts) {
    const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const part of parts) {
        out.set(part, at);
        at += part.length;
    }
    return out;
}

/**
 * A statement with plain values in one pass of the wire protocol (Parse, Bind, Describe, Execute, Sync at once): PGlite's
 * query() makes six passes (it describes the statement first to pick each value's serializer), about 0.1 ms more of
 * this thread per statement. Same locks as query(): it waits for an open transaction and for the statement before it.
 */
function oneTrip(message) {
    return pglite._runExclusiveTransaction(() =>
        pglite._runExclusiveQuery(async () => {
            const bytes = concat([
                wire.parse({ text: message.sql }),
                wire.bind({ values: message.params.map((v) => (v === null || v === undefined ? null : String(v))) }),
                wire.describe({ type: 'P' }),
                wire.execute({}),
                wire.sync(),
            ]);
            let messages;
            try {
                ({ messages } = await pglite.execProtocol(bytes));
            } catch (err) {
                if (err && typeof err === 'object') err.query = message.sql;
                throw err;
            }
            return parse.parseResults(messages, parsersWith(message.rawTypes), { rowMode: message.rowMode })[0];
        }),
    );
}

async function run(message) {
    switch (message.op) {
        case 'ready':
            await pglite.waitReady;
            return null;
        case 'query': {
            if (!message.tx && plainValues(message.params)) {
                const result = await oneTrip(message);
                return { rows: result.rows, fields: result.fields, affectedRows: result.affectedRows };
            }
            const target = message.tx ? transactions.get(message.tx).tx : pglite;
            const result = await target.query(message.sql, message.params, {
                rowMode: message.rowMode,
                parsers: rawParsers(message.rawTypes),
            });
            return { rows: result.rows, fields: result.fields, affectedRows: result.affectedRows };
        }
        case 'exec': {
            const target = message.tx ? transactions.get(message.tx).tx : pglite;
            return (await target.exec(message.sql)).map((r) => ({
                rows: r.rows,
                fields: r.fields,
                affectedRows: r.affectedRows,
            }));
        }
        case 'begin':
            return await new Promise((resolve, reject) => {
                const id = nextTransaction++;
                pglite
                    .transaction(
                        (tx) =>
                            new Promise((commit, rollback) => {
                                transactions.set(id, { tx, commit, rollback });
                                resolve(id);
                            }),
                    )
                    .then(
                        () => transactions.get(id)?.ended?.resolve(null),
                        (err) => {
                            const open = transactions.get(id);
                            if (!open) return reject(err);
                            if (err === ROLLBACK) open.ended?.resolve(null);
                            else open.ended?.reject(err);
                        },
                    )
                    .finally(() => transactions.delete(id));
            });
        case 'end': {
            const open = transactions.get(message.tx);
            return await new Promise((resolve, reject) => {
                open.ended = { resolve, reject };
                if (message.commit) open.commit();
                else open.rollback(ROLLBACK);
            });
        }
        case 'close':
            await pglite.close();
            return null;
        default:
            throw new Error(`unknown op ${message.op}`);
    }
}

parentPort.on('message', (message) => {
    run(message).then(
        (result) => parentPort.postMessage({ id: message.id, ok: true, result }),
        (err) => parentPort.postMessage({ id: message.id, ok: false, error: plain(err) }),
    );
});
