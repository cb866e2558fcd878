/**
 * Queue rows the database must eventually be told about (acknowledged messages to delete, claims to give back), sent
 * in batches and kept after a failed write until one succeeds. A write lost to a database blip would otherwise leave
 * the row claimed by this process, its lease renewed while the process lives: a released message never delivered
 * again, an acknowledged one delivered again after a restart.
 */

export interface PendingWritesOptions {
    /** Writes one batch of ids; rejects when the database did not take it. */
    write: (ids: number[]) => Promise<void>;
    /** Called with the count written, after each batch the database took. */
    written?: (count: number) => void;
    /** Says what failed (the ids are kept and retried). */
    failed: (err: unknown) => void;
    /** How long ids gather before a batch goes (0: at once). */
    lingerMs: number;
    maxBatch: number;
    /** First retry after a failure; doubled each time up to maxRetryMs. */
    retryMs?: number;
    maxRetryMs?: number;
}

interface State {
    options: PendingWritesOptions;
    ids: number[];
    /** The batch being written. */
    writing: number[];
    timer: NodeJS.Timeout | undefined;
    flushing: Promise<void>;
    retryMs: number;
    closed: boolean;
}

const FIRST_RETRY_MS = 500;
const MAX_RETRY_MS = 5_000;

/** Writes what is pending, batch by batch; on a failure the rest stays and a retry is scheduled. */
async function writeAll(s: State): Promise<void> {
    while (s.ids.length) {
        const batch = s.ids.splice(0, s.options.maxBatch);
        s.writing = batch;
        try {
            await s.options.write(batch);
            s.writing = [];
            s.options.written?.(batch.length);
            s.retryMs = s.options.retryMs ?? FIRST_RETRY_MS;
        } catch (err) {
            s.writing = [];
            s.ids.unshift(...batch);
            s.options.failed(err);
            schedule(s, s.retryMs);
            s.retryMs = Math.min(s.retryMs * 2, s.options.maxRetryMs ?? MAX_RETRY_MS);
            return;
        }
    }
}

function flush(s: State): Promise<void> {
    if (s.timer) clearTimeout(s.timer);
    s.timer = undefined;
    s.flushing = s.flushing.then(() => writeAll(s));
    return s.flushing;
}

function schedule(s: State, ms: number) {
    if (s.timer || s.closed) return;
    s.timer = setTimeout(() => void flush(s), ms);
    s.timer.unref();
}

export function pendingWrites(options: PendingWritesOptions) {
    const s: State = {
        options,
        ids: [],
        writing: [],
        timer: undefined,
        flushing: Promise.resolve(),
        retryMs: options.retryMs ?? FIRST_RETRY_MS,
        closed: false,
    };
    return {
        /** Ids to write in the next batch. */
        add(ids: number[]) {
            if (!ids.length) return;
            s.ids.push(...ids);
            if (!s.closed) schedule(s, options.lingerMs);
        },
        /** Writes what is pending now (one attempt per batch; what fails stays pending). */
        flush: () => flush(s),
        /** The ids not yet written: pending and in the batch being written. */
        ids: () => [...s.writing, ...s.ids],
        /** How many ids wait for a write. */
        get pending() {
            return s.ids.length;
        },
        /** No more retries (closing: what is still pending is left to the leases). */
        close() {
            s.closed = true;
            if (s.timer) clearTimeout(s.timer);
            s.timer = undefined;
        },
    };
}

export type PendingWrites = ReturnType<typeof pendingWrites>;
