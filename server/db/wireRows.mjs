// The answer to one statement read straight from PostgreSQL's wire protocol bytes, for the database's worker
// (pgliteWorker.mjs). Plain JavaScript, as the worker is.
import { Buffer } from 'node:buffer';
import { parse, protocol, messages, types } from '@electric-sql/pglite';

/** Messages the answer of a statement without an error carries and that change nothing in it. */
const IGNORED = new Set(
    [
        '1', // ParseComplete
        '2', // BindComplete
        '3', // CloseComplete
        'n', // NoData
        's', // PortalSuspended
        'I', // EmptyQueryResponse
        'Z', // ReadyForQuery
        'S', // ParameterStatus
        't', // ParameterDescription
        'N', // NoticeResponse (PGlite logs it only when debugging)
    ].map((c) => c.charCodeAt(0)),
);
const ROW_DESCRIPTION = 'T'.charCodeAt(0);
const DATA_ROW = 'D'.charCodeAt(0);
const COMMAND_COMPLETE = 'C'.charCodeAt(0);
/** Commands whose count is of rows written (PGlite's parseResults adds these). */
const WRITES = new Set(['INSERT', 'UPDATE', 'DELETE', 'COPY', 'MERGE']);

/** What PGlite's parseResults does with a value: null stays null, a type with a parser is parsed, the rest is text. */
function parserOf(parsers, type) {
    const parser = parsers?.[type] ?? types.parsers[type];
    return parser ? (text) => parser(text, type) : undefined;
}

/**
 * The first result of the answer, as `parse.parseResults(messages, parsers, { rowMode })[0]` gives it from PGlite's
 * messages, or undefined when the answer holds anything else than rows and completions (an error, a notification...):
 * then `slowResults` reads it. PGlite's own reader copies every field into a buffer of its own before decoding it (a
 * tenth of the worker's time under the API mix); this decodes each field in place.
 */
export function fastResults(bytes, parsers, rowMode) {
    const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    let fields = [];
    let decode = [];
    let rows = [];
    let first;
    let affectedRows = 0;
    let at = 0;
    while (at + 5 <= buf.length) {
        const type = buf[at];
        const end = at + 1 + buf.readInt32BE(at + 1);
        let p = at + 5;
        if (type === DATA_ROW) {
            const count = buf.readInt16BE(p);
            p += 2;
            const values = new Array(count);
            for (let i = 0; i < count; i++) {
                const length = buf.readInt32BE(p);
                p += 4;
                if (length < 0) values[i] = null;
                else {
                    const text = buf.utf8Slice(p, p + length);
                    p += length;
                    values[i] = decode[i] ? decode[i](text) : text;
                }
            }
            if (rowMode === 'array') rows.push(values);
            else {
                const row = {};
                for (let i = 0; i < count; i++) row[fields[i].name] = values[i];
                rows.push(row);
            }
        } else if (type === ROW_DESCRIPTION) {
            const count = buf.readInt16BE(p);
            p += 2;
            fields = new Array(count);
            decode = new Array(count);
            for (let i = 0; i < count; i++) {
                const zero = buf.indexOf(0, p);
                const name = buf.utf8Slice(p, zero);
                const dataTypeID = buf.readInt32BE(zero + 7);
                p = zero + 19;
                fields[i] = { name, dataTypeID };
                decode[i] = parserOf(parsers, dataTypeID);
            }
        } else if (type === COMMAND_COMPLETE) {
            const words = buf.utf8Slice(p, end - 1).split(' ');
            const count = parseInt(words[words.length - 1], 10);
            if (WRITES.has(words[0])) affectedRows += count;
            if (!first) {
                first = { rows, fields, command: words[0], affectedRows };
                if (!Number.isNaN(count)) first.rowCount = count;
            }
            rows = [];
            fields = [];
            decode = [];
        } else if (!IGNORED.has(type)) return undefined;
        at = end;
    }
    return first ?? { rows: [], fields: [], affectedRows: 0 };
}

/** The first result as PGlite reads it (its own message reader); its first database error thrown, as execProtocol does. */
export function slowResults(bytes, parsers, rowMode) {
    const read = [];
    new protocol.Parser().parse(bytes, (message) => read.push(message));
    const error = read.find((m) => m instanceof messages.DatabaseError);
    if (error) throw error;
    return parse.parseResults(read, parsers, { rowMode })[0];
}
