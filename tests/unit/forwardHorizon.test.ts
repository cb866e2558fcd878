import { describe, expect, it } from 'vitest';
import type { Db } from '../../server/db/client';
import { sharedHorizon } from '../../server/forward/horizon';

/** A store whose ids are 1..max; each scan (of the ids after the last one scanned) is held until `answer()`. */
function heldStore() {
    const state = { max: 0, scanned: 0, scans: 0, held: [] as Array<() => void> };
    const db = {
        execute: async () => {
            state.scans++;
            await new Promise<void>((resolve) => state.held.push(resolve));
            const from = state.scanned;
            state.scanned = state.max;
            return { rows: Array.from({ length: state.max - from }, (_, i) => ({ id: from + i + 1 })) };
        },
    } as unknown as Db;
    const answer = () => state.held.splice(0).forEach((release) => release());
    return { db, state, answer };
}

describe('the horizon shared by the routes of a process', () => {
    it('answers a route behind the last scan at once, scanning on in the background once the scan is 20 ms old', async () => {
        const { db, state, answer } = heldStore();
        let clock = 0;
        const horizon = sharedHorizon(db, 5_000, () => clock);
        state.max = 10;
        const first = horizon(0);
        answer();
        expect(await first).toBe(10);
        // Behind the answer: no wait, no scan while it is fresh.
        expect(await horizon(4)).toBe(10);
        expect(state.scans).toBe(1);
        // Older than 20 ms: the last answer at once, a scan started meanwhile.
        clock = 25;
        state.max = 30;
        expect(await horizon(4)).toBe(10);
        expect(state.scans).toBe(2);
        answer();
        await new Promise((r) => setTimeout(r, 0));
        expect(await horizon(12)).toBe(30);
    });

    it('makes a route at the last answer wait for the scan, one scan for the routes asking together', async () => {
        const { db, state, answer } = heldStore();
        const horizon = sharedHorizon(db, 5_000, () => 0);
        state.max = 5;
        const [a, b] = [horizon(0), horizon(0)];
        await new Promise((r) => setTimeout(r, 0));
        expect(state.scans).toBe(1);
        answer();
        expect([await a, await b]).toEqual([5, 5]);
        state.max = 8;
        const c = horizon(5);
        await new Promise((r) => setTimeout(r, 0));
        expect(state.scans).toBe(2);
        answer();
        expect(await c).toBe(8);
    });
});
