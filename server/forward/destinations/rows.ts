import type { ForwardRecord } from './types';

/**
 * The rows of a batch as a table's columns and values, for the SQL table kinds (PostgreSQL, MySQL). A mapping's
 * `from` names a selected column, or with `$` the record's own fields: `$id` (unique per message and flow: a key that
 * makes a retried batch's duplicates visible), `$ts` (when the platform stored the message, as a timestamp),
 * `$productKey`, `$deviceName`, `$topic`, `$flowId`, `$flowName`. Without mappings each selected name goes to the
 * column of that name (the names of the whole batch, in the order first seen; a row without one writes NULL).
 */

export interface ColumnMapping {
    column: string;
    from: string;
}

export interface InsertRows {
    columns: string[];
    /** The values row after row, `columns.length` per row: ready as the statement's parameters. */
    values: unknown[];
}

const RECORD_VALUES: Record<string, (record: ForwardRecord) => unknown> = {
    $id: (r) => r.id,
    $ts: (r) => new Date(r.ts),
    $productKey: (r) => r.productKey,
    $deviceName: (r) => r.deviceName,
    $topic: (r) => r.topic,
    $flowId: (r) => r.flowId,
    $flowName: (r) => r.flowName,
};

/** A value as a parameter: objects and arrays as JSON text (drivers would otherwise make SQL arrays or lists). */
export function sqlValue(value: unknown): unknown {
    if (value === undefined) return null;
    if (value !== null && typeof value === 'object' && !(value instanceof Date)) return JSON.stringify(value);
    return value;
}

/** The selected names of the batch, in the order first seen. */
function selectedNames(records: ForwardRecord[]): string[] {
    const names = new Set<string>();
    for (const record of records) for (const name in record.row) names.add(name);
    return [...names];
}

/** Which mapping takes a record field rather than a selected column. */
function readerOf(from: string): (record: ForwardRecord) => unknown {
    const own = Object.hasOwn(RECORD_VALUES, from) ? RECORD_VALUES[from] : undefined;
    return own ?? ((record) => (Object.hasOwn(record.row, from) ? record.row[from] : null));
}

/** The batch's columns and values, row after row. */
export function insertRows(records: ForwardRecord[], mappings: ColumnMapping[] | undefined): InsertRows {
    const pairs = mappings?.length
        ? mappings.map((m) => ({ column: m.column, read: readerOf(m.from) }))
        : selectedNames(records).map((name) => ({ column: name, read: (r: ForwardRecord) => r.row[name] }));
    const values: unknown[] = new Array(records.length * pairs.length);
    let i = 0;
    for (const record of records) for (const pair of pairs) values[i++] = sqlValue(pair.read(record));
    return { columns: pairs.map((p) => p.column), values };
}

/** The table columns a configuration's mappings write (to check they exist). */
export function mappedColumns(mappings: ColumnMapping[] | undefined): string[] {
    return (mappings ?? []).map((m) => m.column);
}
