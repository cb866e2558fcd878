import { readTables, tableVersionsOf } from './dataVersion';

interface Memo<V> {
    seq: number;
    tables: Set<string>;
    value: V;
}

/**
 * A lookup answered again from memory while none of the tables its statements read was written (dataVersion.ts):
 * the product of a productKey is looked up by nearly every device page and detail, and products change rarely.
 * Outside PGlite, and inside a transaction (which may see its own writes), it is just the lookup. Values are frozen:
 * every caller shares them. A computation recording its reads (the answer cache) is told the memo's tables too.
 */
export function tableMemo<D extends object, K, V>(
    load: (db: D, key: K) => Promise<V>,
    size = 1_000,
): (db: D, key: K) => Promise<V> {
    const memos = new WeakMap<object, Map<K, Memo<V>>>();
    return async (db, key) => {
        const tables = tableVersionsOf(db);
        if (!tables) return load(db, key);
        let memo = memos.get(db);
        if (!memo) memos.set(db, (memo = new Map()));
        const hit = memo.get(key);
        if (hit && !tables.changedSince(hit.tables, hit.seq)) {
            readTables(hit.tables);
            return hit.value;
        }
        await tables.ready();
        const seq = tables.seq();
        const read = await tables.record(() => load(db, key));
        readTables(read.tables);
        const value = (read.value && typeof read.value === 'object' ? Object.freeze(read.value) : read.value) as V;
        if (!tables.changedSince(read.tables, seq)) {
            if (memo.size >= size) memo.clear();
            memo.set(key, { seq, tables: read.tables, value });
        }
        return value;
    };
}
