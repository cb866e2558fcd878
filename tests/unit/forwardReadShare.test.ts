import { describe, expect, it } from 'vitest';
import type { MessagesRead, StoredMessage } from '../../server/forward/messages';
import { sharedReads, type StoreRead } from '../../server/forward/readShare';
import type { Db } from '../../server/db/client';

const db = {} as Db;

/** A store of messages 1..max (odd ids project 1, even ids project 2) whose reads are recorded; `fail` fails the next. */
function countingStore(max: number) {
    const state = { reads: [] as Array<[number, number]>, fail: false };
    const message = (id: number): StoredMessage => ({
        id,
        ts: new Date(0),
        method: 'thing.event.property.post',
        data: {},
        projectId: id % 2 ? 1 : 2,
        productKey: 'pk',
        deviceName: `d${id}`,
    });
    const read: StoreRead = async (after, upTo, limit) => {
        state.reads.push([after, upTo]);
        if (state.fail) {
            state.fail = false;
            throw new Error('connection lost');
        }
        const ids: number[] = [];
        for (let id = after + 1; id <= Math.min(upTo, max) && ids.length < limit; id++) ids.push(id);
        const through = ids.length < limit ? upTo : ids[ids.length - 1];
        return { messages: ids.map(message), through } satisfies MessagesRead;
    };
    return { read, state };
}

const ids = (r: MessagesRead) => r.messages.map((m) => m.id);

describe('reads shared by the routes of a process', () => {
    it('reads a block once for every route of every project, each taking its own messages from its position', async () => {
        const { read, state } = countingStore(100);
        const reads = sharedReads(db, 10, 64, read);
        const [a, b] = await Promise.all([reads(1, 0, 100), reads(2, 0, 100)]);
        expect(ids(a)).toEqual([1, 3, 5, 7, 9]);
        expect(ids(b)).toEqual([2, 4, 6, 8, 10]);
        expect(a.through).toBe(10);
        // A route further on in the same block, and a route of the next block (read ahead meanwhile).
        expect(ids(await reads(1, 6, 100))).toEqual([7, 9]);
        expect(ids(await reads(2, 10, 100))).toEqual([12, 14, 16, 18, 20]);
        expect(state.reads.filter(([after]) => after === 0)).toHaveLength(1);
        expect(state.reads.filter(([after]) => after === 10)).toHaveLength(1);
    });

    it('reads the block at the head on from where it was read, never past the horizon it is given', async () => {
        const { read, state } = countingStore(100);
        const reads = sharedReads(db, 10, 64, read);
        expect(await reads(1, 0, 4)).toEqual({ messages: expect.any(Array), through: 4 });
        expect(ids(await reads(1, 0, 7))).toEqual([1, 3, 5, 7]);
        expect(state.reads).toEqual([
            [0, 4],
            [4, 7],
        ]);
    });

    it('reads a block again once it was left out of the recent ones', async () => {
        const { read, state } = countingStore(100);
        const reads = sharedReads(db, 10, 2, read);
        for (const after of [0, 10, 20, 0]) await reads(1, after, 30);
        // Blocks 0, 1 (ahead), 2 (ahead), block 0 again: only two blocks are kept.
        expect(state.reads.filter(([after]) => after === 0)).toHaveLength(2);
    });

    it('does not keep a failed read: the next route asking reads again', async () => {
        const { read, state } = countingStore(100);
        const reads = sharedReads(db, 10, 64, read);
        state.fail = true;
        await expect(reads(1, 0, 10)).rejects.toThrow('connection lost');
        expect(ids(await reads(1, 0, 10))).toEqual([1, 3, 5, 7, 9]);
        expect(state.reads).toHaveLength(2);
    });
});
