// The embedded database in a worker thread (PGLITE_WORKER=1): PGlite runs here, on its own core, while the main thread
// answers HTTP and MQTT. server/db/pgliteRemote.ts is the other side: it sends statements and transactions as messages.
// Plain JavaScript, so the sources (tsx) and the bundle (dist-server) start it alike.
import fs from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite, protocol } from '@electric-sql/pglite';
import { fastResults, slowResults } from './wireRows.mjs';

/**
 * File sizes answered from memory between writes. PostgreSQL asks a relation file's size (lseek to its end) for every
 * relation a statement plans or scans, and PGlite's file system answers each with an fstat system call: about a tenth
 * of this thread's time under the API mix. Only this thread writes the data directory (it is locked to the process),
 * and only through node:fs's synchronous calls, so a kept answer stays true until one of them changes the file: a write
 * or truncate through a descriptor forgets the files open under that path, any other change (by path) forgets them all.
 * PGLITE_FSTAT_CACHE=0 asks the system every time.
 */
const statsByFd = new Map();
const pathByFd = new Map();
const forgetPath = (fd) => {
    const file = pathByFd.get(fd);
    if (file === undefined) return statsByFd.clear();
    for (const [other, otherFile] of pathByFd) if (otherFile === file) statsByFd.delete(other);
};
if (process.env.PGLITE_FSTAT_CACHE !== '0') {
    const { fstatSync, openSync, closeSync, writeSync, ftruncateSync } = fs;
    fs.fstatSync = (fd, options) => {
        if (options !== undefined) return fstatSync(fd, options);
        let stats = statsByFd.get(fd);
        if (!stats) statsByFd.set(fd, (stats = fstatSync(fd)));
        return stats;
    };
    fs.openSync = (file, ...rest) => {
        const fd = openSync(file, ...rest);
        statsByFd.delete(fd);
        if (typeof file === 'string') pathByFd.set(fd, file);
        else pathByFd.delete(fd);
        // Opening may have created or truncated it.
        forgetPath(fd);
        return fd;
    };
    fs.closeSync = (fd) => {
        statsByFd.delete(fd);
        pathByFd.delete(fd);
        return closeSync(fd);
    };
    fs.writeSync = (fd, ...rest) => {
        forgetPath(fd);
        return writeSync(fd, ...rest);
    };
    fs.ftruncateSync = (fd, ...rest) => {
        forgetPath(fd);
        return ftruncateSync(fd, ...rest);
    };
    for (const name of [
        'truncateSync',
        'renameSync',
        'unlinkSync',
        'rmdirSync',
        'rmSync',
        'mkdirSync',
        'symlinkSync',
        'writeFileSync',
        'appendFileSync',
        'copyFileSync',
        'chmodSync',
        'fchmodSync',
        'futimesSync',
        'utimesSync',
        'lutimesSync',
    ]) {
        const original = fs[name];
        fs[name] = (...args) => {
            statsByFd.clear();
            return original(...args);
        };
    }
}

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

/**
 * PGLITE_STATS=FILE (a bench aid, tests/bench/api.ts with API_PROFILE): each statement's text with the time this thread
 * spent running it and parsing its answer, as [when (µs, process.hrtime's clock), µs] pairs, written to FILE every 2 s.
 */
const STATS = process.env.PGLITE_STATS;
const stats = new Map();
function noteStat(message, ms) {
    const key = message.op === 'query' ? message.sql : message.op;
    let entry = stats.get(key);
    if (!entry) stats.set(key, (entry = []));
    entry.push([Number(process.hrtime.bigint() / 1000n), Math.round(ms * 1000)]);
}
if (STATS) {
    const dump = () => fs.writeFileSync(STATS, JSON.stringify([...stats].map(([sql, at]) => ({ sql, at }))));
    setInterval(dump, 2000).unref();
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

/** Statements kept parsed in the database's session, by their text: the name each was parsed under. */
const named = new Map();
/** At most this many: the least recently used is closed when another comes. */
const NAMED_MAX = 500;
let nextName = 1;
/** Names to close in the next trip (evicted, or whose Parse may have failed: closing an unknown name is no error). */
const toClose = [];
/** Statements worth keeping parsed: plain reads and writes (never DDL or SET, which change what others mean). */
const KEEP_PARSED = /^\s*(select|insert|update|delete|with)\b/i;

/** The statement's name, parsing it under a new one first when it is not kept yet ([name, whether to parse]). */
function nameOf(text) {
    let name = named.get(text);
    if (name !== undefined) {
        // Most recently used last.
        named.delete(text);
        named.set(text, name);
        return [name, false];
    }
    if (!KEEP_PARSED.test(text)) return ['', true];
    name = `s${nextName++}`;
    named.set(text, name);
    if (named.size > NAMED_MAX) {
        const [oldest, oldName] = named.entries().next().value;
        named.delete(oldest);
        toClose.push(oldName);
    }
    return [name, true];
}

/** Forgets every kept statement (after DDL: closes them, so none keeps a plan of what was changed). */
function forgetNamed() {
    for (const name of named.values()) toClose.push(name);
    named.clear();
}

/**
 * A statement with plain values in one pass of the wire protocol (Parse, Bind, Describe, Execute, Sync at once): PGlite's
 * query() makes six passes (it describes the statement first to pick each value's serializer), about 0.1 ms more of
 * this thread per statement. A read or write is parsed once under a name and then only bound and executed: PostgreSQL
 * keeps its parse tree and, after five runs, may keep one generic plan (plan_cache_mode auto), where a device page
 * spent about 1 ms of this thread planning on every run. Same locks as query(): it waits for an open transaction and
 * for the statement before it.
 */
function oneTrip(message) {
    return pglite._runExclusiveTransaction(() => pglite._runExclusiveQuery(() => tripOnce(message, true)));
}

/** A result type its kept statement was planned for has changed (DDL the worker did not see, in a function). */
const STALE_PLAN = '0A000';

async function tripOnce(message, again) {
    const [name, parse_] = nameOf(message.sql);
    const closing = toClose.splice(0).map((old) => wire.close({ type: 'S', name: old }));
    const bytes = concat([
        ...closing,
        ...(parse_ ? [wire.parse({ name, text: message.sql })] : []),
        wire.bind({
            statement: name,
            values: message.params.map((v) => (v === null || v === undefined ? null : String(v))),
        }),
        wire.describe({ type: 'P' }),
        wire.execute({}),
        wire.sync(),
    ]);
    const t0 = STATS ? performance.now() : 0;
    const parsers = parsersWith(message.rawTypes);
    let result;
    try {
        // The answer's bytes as PostgreSQL wrote them (copied: PGlite hands a view of its memory), read below.
        const chunks = [];
        await pglite.execProtocolRawStream(bytes, { onRawData: (data) => chunks.push(data.slice()) });
        const answer = chunks.length === 1 ? chunks[0] : concat(chunks);
        result = fastResults(answer, parsers, message.rowMode) ?? slowResults(answer, parsers, message.rowMode);
    } catch (err) {
        // The Parse may have failed (then the name is unknown) or the statement: parse it afresh next time.
        if (name && named.get(message.sql) === name) {
            named.delete(message.sql);
            toClose.push(name);
        }
        if (again && !parse_ && err?.code === STALE_PLAN) {
            forgetNamed();
            return tripOnce(message, false);
        }
        if (err && typeof err === 'object') err.query = message.sql;
        throw err;
    }
    if (STATS) noteStat(message, performance.now() - t0);
    return result;
}

async function run(message) {
    switch (message.op) {
        case 'ready':
            await pglite.waitReady;
            return null;
        case 'query': {
            if (!KEEP_PARSED.test(message.sql)) forgetNamed();
            if (!message.tx && plainValues(message.params)) {
                const result = await oneTrip(message);
                return { rows: result.rows, fields: result.fields, affectedRows: result.affectedRows };
            }
            const target = message.tx ? transactions.get(message.tx).tx : pglite;
            const t0 = STATS ? performance.now() : 0;
            const result = await target.query(message.sql, message.params, {
                rowMode: message.rowMode,
                parsers: rawParsers(message.rawTypes),
            });
            if (STATS) noteStat(message, performance.now() - t0);
            return { rows: result.rows, fields: result.fields, affectedRows: result.affectedRows };
        }
        case 'exec': {
            forgetNamed();
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
        (result) => {
            parentPort.postMessage({ id: message.id, ok: true, result });
        },
        (err) => parentPort.postMessage({ id: message.id, ok: false, error: plain(err) }),
    );
});
