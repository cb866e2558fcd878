import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { CopyTarget, QueuedMessage } from '../../server/amqp/copies';
import { copiesOf, inserted, queueState, takeOnInsert } from '../../server/amqp/queue';
import type { Db } from '../../server/db/client';
import { DAY_MS, partitionWindow } from '../../server/db/partitions';
import type { DeviceEntry } from '../../server/mqtt/directory';
import { DEVICE_TIME_KEY, messageTime, withDeviceTime } from '../../server/mqtt/messageTime';
import { FencedWrite, flush, writerState, type WriterState } from '../../server/mqtt/writer';
import { copiesByTarget, outsideMadeDays } from '../../server/mqtt/writerBatch';
import { storeAccepted, uplinkState, type AcceptedMessage } from '../../server/mqtt/uplinkStore';
import type { MessageWrite, MessageWriter } from '../../server/mqtt/writer';

// The ingest path's steps, each on its own: the time window rule, the store-then-tell step of the uplink, the
// writer's flush and retry, and the AMQP queue's copies.

const NOW = Date.UTC(2026, 11, 6, 12);
const device = { deviceId: 7, productId: 3, productKey: 'pk', deviceName: 'dn' } as DeviceEntry;

describe('messageTime', () => {
    it('keeps a device time within [now - retention, now + 1 day]', () => {
        for (const t of [NOW, NOW - 30 * DAY_MS, NOW + DAY_MS, NOW - 1, String(NOW - 5)])
            expect(messageTime(t, 30, NOW)).toEqual({ ts: new Date(Number(t)) });
    });

    it('stores a time outside it at the server time, with the device time kept', () => {
        for (const t of [NOW - 30 * DAY_MS - 1, NOW + DAY_MS + 1, 1000, 946_684_800_000, String(NOW - 400 * DAY_MS)])
            expect(messageTime(t, 30, NOW)).toEqual({ ts: new Date(NOW), deviceTime: Number(t) });
    });

    it('uses the server time without a device time for a missing or malformed one', () => {
        for (const t of [undefined, null, 'soon', '12.5', NaN, Infinity, {}])
            expect(messageTime(t, 30, NOW)).toEqual({ ts: new Date(NOW) });
    });

    it('keeps the unused device time in the data under a key no identifier can have', () => {
        expect(withDeviceTime({ a: 1 }, { ts: new Date(NOW) })).toEqual({ a: 1 });
        expect(withDeviceTime({ a: 1 }, { ts: new Date(NOW), deviceTime: 5 })).toEqual({ a: 1, [DEVICE_TIME_KEY]: 5 });
        expect(/^[A-Za-z_][A-Za-z0-9_]*$/.test(DEVICE_TIME_KEY)).toBe(false);
    });
});

describe('partitionWindow', () => {
    it('bounds device_messages by the retention and every table by the days made ahead', () => {
        expect(partitionWindow('device_messages', NOW, 30)).toEqual({ first: '2026-11-06', last: '2026-12-08' });
        expect(partitionWindow('device_presence', NOW, 30)).toEqual({ first: '0000-01-01', last: '2026-12-08' });
        expect(outsideMadeDays(NOW, NOW)).toBe(false);
        expect(outsideMadeDays(NOW - DAY_MS, NOW)).toBe(true);
    });
});

/** A writer that records what it is asked to write and fails while `fail` says so. */
function fakeWriter(fail: () => Error | undefined) {
    const written: MessageWrite[] = [];
    const writer = {
        write: (m: MessageWrite) => {
            const err = fail();
            if (err) return Promise.reject(err);
            written.push(m);
            return Promise.resolve();
        },
    } as unknown as MessageWriter;
    return { writer, written };
}

const target: CopyTarget = { owner: 'me', leaseMs: 1000, takeOnInsert: () => new Map(), inserted: () => undefined };

function accepted(): AcceptedMessage {
    return {
        device,
        topic: 't',
        kind: 'property',
        values: { a: 1 },
        ts: new Date(NOW),
        requestId: '1',
        payload: Buffer.from('{}'),
    };
}

const write = (): MessageWrite => ({ deviceId: 7, ts: new Date(NOW), method: 'm', identifier: null, data: {} });

describe('storeAccepted', () => {
    it('writes the message with its copies, then tells the listeners', async () => {
        const { writer, written } = fakeWriter(() => undefined);
        const s = uplinkState({ directory: {} as never, writer, publish: async () => undefined, log: () => undefined });
        const told: AcceptedMessage[] = [];
        s.acceptedListeners.push((m) => told.push(m));
        s.copiers.push(() => ({
            target,
            rows: [{ groupId: 1, deviceId: 7, messageId: 'x', topic: 't', generateTime: 1, payload: '{}' }],
        }));
        const m = accepted();
        await storeAccepted(s, m, write());
        expect(written).toHaveLength(1);
        expect(written[0].copies?.rows.map((r) => r.groupId)).toEqual([1]);
        expect(told).toEqual([m]);
    });

    it('rejects when the write fails, and tells no listener', async () => {
        const { writer, written } = fakeWriter(() => new Error('database gone'));
        const s = uplinkState({ directory: {} as never, writer, publish: async () => undefined, log: () => undefined });
        const told: AcceptedMessage[] = [];
        s.acceptedListeners.push((m) => told.push(m));
        await expect(storeAccepted(s, accepted(), write())).rejects.toThrow('database gone');
        expect(written).toEqual([]);
        expect(told).toEqual([]);
    });

    it('a listener that throws does not fail the stored message', async () => {
        const { writer } = fakeWriter(() => undefined);
        const s = uplinkState({ directory: {} as never, writer, publish: async () => undefined, log: () => undefined });
        s.acceptedListeners.push(() => {
            throw new Error('rule broke');
        });
        s.acceptedListeners.push(() => Promise.reject(new Error('rule broke later')));
        await expect(storeAccepted(s, accepted(), write())).resolves.toBeUndefined();
    });
});

/** A database whose execute fails for the next `failures` calls, recording each call. */
function faultyDb(failures: number) {
    const calls: unknown[] = [];
    const db = {
        execute: (q: unknown) => {
            calls.push(q);
            return failures-- > 0 ? Promise.reject(new Error(`fault ${calls.length}`)) : Promise.resolve({ rows: [] });
        },
    } as unknown as Db;
    return { db, calls };
}

function queued(s: WriterState, m: MessageWrite) {
    return new Promise<void>((resolve, reject) => {
        s.queue.push(Object.assign(m, { done: (err?: unknown) => (err ? reject(err) : resolve()) }));
    });
}

const settle = (p: Promise<unknown>) =>
    p.then(
        () => 'ok',
        (e: Error) => e.message,
    );

describe('writer flush', () => {
    // The messages are written at NOW, so the clock reads NOW: a message outside the days made ahead would ask for
    // partition maintenance, one more statement each test counts.
    beforeEach(() => {
        vi.useFakeTimers({ toFake: ['Date'] });
        vi.setSystemTime(NOW);
    });
    afterEach(() => vi.useRealTimers());

    it('one statement for the batch; each message resolves when it committed', async () => {
        const { db, calls } = faultyDb(0);
        const s = writerState(db);
        const done = [queued(s, write()), queued(s, write())];
        await flush(s);
        expect(await Promise.all(done.map(settle))).toEqual(['ok', 'ok']);
        expect(calls).toHaveLength(1);
        expect(s.written).toBe(2);
        expect(s.batches).toBe(1);
    });

    it('a failed batch is retried one message at a time: the one that fails again rejects, the others resolve', async () => {
        // The batch fails, then the first message's own statement fails, the second's commits.
        const { db, calls } = faultyDb(2);
        const s = writerState(db);
        const done = [queued(s, write()), queued(s, write())];
        await flush(s);
        expect(await Promise.all(done.map(settle))).toEqual(['fault 2', 'ok']);
        expect(calls).toHaveLength(3);
        expect(s.written).toBe(1);
    });

    it('refuses here a message accepted under an incarnation the member has left, and writes the others', async () => {
        const { db, calls } = faultyDb(0);
        const fence = { nodeId: 'n', incarnation: 'b', leaseMs: 1_500 };
        const s = writerState(db, { fence: () => fence });
        const done = [
            queued(s, Object.assign(write(), { incarnation: 'a' })),
            queued(s, Object.assign(write(), { incarnation: 'b' })),
        ];
        await flush(s);
        expect(await Promise.all(done.map(settle))).toEqual([new FencedWrite().message, 'ok']);
        expect(calls).toHaveLength(1);
        expect(s.written).toBe(1);
    });

    it('a batch the database refused as fenced is not retried one by one: every message is refused', async () => {
        const fenceRefusal = Object.assign(new Error('fenced'), { code: 'P0901' });
        const calls: unknown[] = [];
        const db = { execute: (q: unknown) => (calls.push(q), Promise.reject(fenceRefusal)) } as unknown as Db;
        const fence = { nodeId: 'n', incarnation: 'a', leaseMs: 1_500 };
        const s = writerState(db, { fence: () => fence });
        const done = [
            queued(s, Object.assign(write(), { incarnation: 'a' })),
            queued(s, Object.assign(write(), { incarnation: 'a' })),
        ];
        await flush(s);
        expect(await Promise.all(done.map(settle))).toEqual([new FencedWrite().message, new FencedWrite().message]);
        expect(calls).toHaveLength(1);
    });

    it('groups the batch copies by their queue', () => {
        const other: CopyTarget = { ...target, owner: 'other' };
        const copy = (groupId: number) => ({
            groupId,
            deviceId: 7,
            messageId: 'x',
            topic: 't',
            generateTime: 1,
            payload: '',
        });
        const byTarget = copiesByTarget([
            { ...write(), copies: { target, rows: [copy(1), copy(2)] } },
            write(),
            { ...write(), copies: { target: other, rows: [copy(3)] } },
            { ...write(), copies: { target, rows: [copy(4)] } },
        ]);
        expect([...byTarget].map(([t, rows]) => [t.owner, rows.map((r) => r.groupId)])).toEqual([
            ['me', [1, 2, 4]],
            ['other', [3]],
        ]);
    });
});

describe('queue copies', () => {
    const db = { execute: () => Promise.resolve({ rows: [] }) } as unknown as Db;

    function state(opts: { notify?: boolean; takeOnInsert?: (g: number, n: number) => number } = {}) {
        const s = queueState({ db, backlogMax: 10, backlogHours: 1, log: () => undefined, ...opts });
        s.routes.byProduct = new Map([[3, [11, 12]]]);
        s.routes.at = Date.now();
        return s;
    }

    it('one copy per subscribed group of a property post, one message id', () => {
        const copies = copiesOf(state(), target, accepted());
        expect(copies?.rows.map((r) => r.groupId)).toEqual([11, 12]);
        expect(new Set(copies?.rows.map((r) => r.messageId)).size).toBe(1);
        expect(copiesOf(state(), target, { ...accepted(), kind: 'event' })).toBeUndefined();
        expect(copiesOf(state(), target, { ...accepted(), device: { ...device, productId: 4 } })).toBeUndefined();
    });

    it('claims on insert only without NOTIFY, as far as takeOnInsert allows', () => {
        const perGroup = new Map([
            [11, 3],
            [12, 1],
        ]);
        expect(takeOnInsert(state({ takeOnInsert: (g, n) => (g === 11 ? 2 : n) }), perGroup)).toEqual(
            new Map([
                [11, 2],
                [12, 1],
            ]),
        );
        expect(takeOnInsert(state({ notify: true, takeOnInsert: (_, n) => n }), perGroup)).toEqual(new Map());
    });

    it('tells its listeners what it claimed and which groups have copies left to claim, and counts them', () => {
        const s = state();
        const heard: Array<[number[], QueuedMessage[]]> = [];
        s.insertedListeners.push((groups, taken) => heard.push([[...groups], taken]));
        const taken = [{ id: 1, groupId: 11, messageId: 'x', topic: 't', generateTime: 1, payload: '' }];
        inserted(
            s,
            new Map([
                [11, 1],
                [12, 1],
            ]),
            taken,
        );
        // Group 11's one copy was claimed as inserted: nothing of it waits in the queue; group 12's does.
        expect(heard).toEqual([[[12], taken]]);
        expect(s.counters.enqueued).toBe(2);
    });

    it('with NOTIFY, tells every process of every group with new copies', () => {
        const notified: string[] = [];
        const s = state({ notify: true });
        s.db = { execute: (q: unknown) => (notified.push(JSON.stringify(q)), Promise.resolve()) } as never;
        inserted(
            s,
            new Map([
                [11, 2],
                [12, 1],
            ]),
            [],
        );
        expect(notified).toHaveLength(1);
        expect(notified[0]).toContain('"11,12"');
        expect(s.counters.enqueued).toBe(3);
    });
});
