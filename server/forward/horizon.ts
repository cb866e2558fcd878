import { sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { rowsOf } from '../db/rows';

/**
 * How far routes may read device_messages: the end of the run of ids with no gap still open. Ids come from one
 * identity sequence, given out as rows are inserted and visible only when their batch commits; in a cluster another
 * process's batch with lower ids may commit after ours, so a route that read past a gap could skip its messages. A gap
 * is waited for `gapWaitMs` from when it was first seen (longer than any insert takes to commit), then passed: its ids
 * belonged to a batch rolled back, or to messages deleted since (a device deleted, a partition dropped).
 */

export interface Horizon {
    /** The highest id routes may read up to now; reads ahead of `from` (the lowest position of the routes). */
    advance(from: number): Promise<number>;
}

const SCAN = 10_000;

export function createHorizon(db: Db, gapWaitMs: number, now: () => number = Date.now): Horizon {
    let horizon = 0;
    /** The first id of the gap in front of the horizon and when it was first seen. */
    let gap: { at: number; since: number } | undefined;

    async function advance(from: number): Promise<number> {
        if (from > horizon) horizon = from;
        const ids = rowsOf<{ id: string | number }>(
            await db.execute(sql`SELECT id FROM device_messages WHERE id > ${horizon} ORDER BY id LIMIT ${SCAN}`),
        ).map((r) => Number(r.id));
        for (const id of ids) {
            if (id !== horizon + 1 && !gapPassed(horizon + 1)) break;
            horizon = id;
            gap = undefined;
        }
        return horizon;
    }

    function gapPassed(at: number): boolean {
        if (gap?.at !== at) gap = { at, since: now() };
        return now() - gap.since >= gapWaitMs;
    }

    return { advance };
}

/**
 * One horizon scan at a time for every route. A route behind the last answer takes it at once (ids up to it stay
 * settled however old it is) and a scan older than 20 ms is started for the next, so a draining route does not wait
 * for a scan at each batch; a route at the last answer waits for a scan.
 */
export function sharedHorizon(db: Db, gapWaitMs: number, now: () => number = Date.now) {
    const h = createHorizon(db, gapWaitMs, now);
    let inflight: Promise<number> | undefined;
    let last = { at: 0, value: 0 };
    const scan = (position: number) =>
        (inflight ??= h
            .advance(position)
            .then((value) => {
                last = { at: now(), value };
                return value;
            })
            .finally(() => (inflight = undefined)));
    return async (position: number): Promise<number> => {
        if (last.value <= position) return scan(position);
        if (now() - last.at >= 20) scan(position).catch(() => undefined);
        return last.value;
    };
}
