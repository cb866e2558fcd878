import type { Connection, EventContext, Sender } from 'rhea';
import { describe, expect, it, vi } from 'vitest';
import type { QueuedMessage } from '../../server/amqp/copies';
import { groupOf, pump, rateOf, spareCredit, tick, wake, type Consumer } from '../../server/amqp/delivery';
import { drop, openConsumer, outcome, type LinkState } from '../../server/amqp/links';
import { refusal } from '../../server/amqp/saslCheck';

// The AMQP service's steps without a socket: delivery within a group (credit, round robin, claims), the outcomes of
// a consumer's deliveries, a consumer leaving, and the sign-in's refusals.

const message = (id: number): QueuedMessage => ({
    id,
    groupId: 1,
    messageId: `m${id}`,
    topic: 't',
    generateTime: 0,
    payload: String(id),
});

/** A receiver link's sender side with `credit`, recording what it sent. */
function fakeSender(credit: number, presettled = false) {
    const sent: string[] = [];
    const sender = {
        credit,
        sendable() {
            return this.credit > 0;
        },
        send(m: { message_id: string }) {
            this.credit--;
            sent.push(m.message_id);
            return { settled: presettled, id: m.message_id };
        },
        close() {},
    };
    return { sender: sender as unknown as Sender, sent };
}

function state(rows: QueuedMessage[] = []) {
    const calls = {
        acked: [] as number[],
        released: [] as number[][],
        claimed: [] as number[],
        /** The ids kept by each releaseUnknown. */
        kept: [] as number[][],
        /** Claims that fail (the database's answer lost) before they succeed again. */
        failClaims: 0,
    };
    const s: LinkState = {
        groups: new Map(),
        consumers: new WeakMap(),
        log: () => undefined,
        closed: false,
        queue: {
            claim: (_g: number, limit: number) => {
                calls.claimed.push(limit);
                if (calls.failClaims > 0 && calls.failClaims--) return Promise.reject(new Error('connection lost'));
                return Promise.resolve(rows.splice(0, limit));
            },
            releaseUnknown: (_g: number, held: Iterable<number>) => (calls.kept.push([...held]), Promise.resolve()),
            ack: (id: number) => void calls.acked.push(id),
            release: (ids: number[]) => (calls.released.push(ids), Promise.resolve()),
        },
    };
    return { s, calls };
}

const connection = () => ({ close() {} }) as unknown as Connection;
const settle = () => new Promise((r) => setImmediate(r));

function consumerOf(s: LinkState, credit: number, presettled = false) {
    const { sender, sent } = fakeSender(credit, presettled);
    openConsumer(s, connection(), sender, { groupId: 1, authId: 'ak', clientId: `c${Math.random()}` });
    return { c: s.consumers.get(sender)!, sender, sent };
}

describe('delivery', () => {
    it('claims as far as the credit goes and shares the messages round robin', async () => {
        const { s, calls } = state([1, 2, 3, 4, 5].map(message));
        const a = consumerOf(s, 2);
        const b = consumerOf(s, 1);
        await settle();
        await settle();
        pump(s, groupOf(s, 1));
        expect(calls.claimed[0]).toBe(2);
        expect([...a.sent, ...b.sent].sort()).toEqual(['m1', 'm2', 'm3']);
        expect(a.sent).toHaveLength(2);
        expect(b.sent).toHaveLength(1);
        expect(spareCredit(s, 1, 10)).toBe(0);
    });

    it('deletes a pre-settled delivery once sent', async () => {
        const { s, calls } = state([message(1)]);
        consumerOf(s, 5, true);
        await settle();
        await settle();
        expect(calls.acked).toEqual([1]);
    });

    it('an accepted or rejected delivery is deleted; a released one goes first in line again', async () => {
        const { s, calls } = state([1, 2].map(message));
        const a = consumerOf(s, 2);
        await settle();
        await settle();
        const [d1, d2] = [...a.c.unsettled.keys()];
        outcome(s, { sender: a.sender, delivery: d1 } as EventContext, 'accepted');
        expect(calls.acked).toEqual([1]);
        expect(a.c.acknowledged).toBe(1);
        outcome(s, { sender: a.sender, delivery: d2 } as EventContext, 'again');
        expect(groupOf(s, 1).buffer.map((m) => m.id)).toEqual([2]);
        expect(calls.acked).toEqual([1]);
    });

    it('a consumer that leaves: what it accepted in its close is deleted, the rest delivered again or given back', async () => {
        const { s, calls } = state([1, 2].map(message));
        const a = consumerOf(s, 2);
        await settle();
        await settle();
        const [d1] = [...a.c.unsettled.keys()];
        (d1 as unknown as { remote_state: unknown }).remote_state = new (class {
            static composite_type = 'accepted';
        })();
        drop(s, a.c as Consumer);
        expect(calls.acked).toEqual([1]);
        // No consumer left here: the unsettled one is given back to the queue for others.
        expect(calls.released).toEqual([[2]]);
        expect(groupOf(s, 1).consumers).toEqual([]);
    });

    it('after a failed claim, gives back the rows it may own unknowingly (keeping those it holds) before claiming again', async () => {
        const { s, calls } = state([1, 2, 3].map(message));
        const a = consumerOf(s, 1);
        await settle();
        await settle();
        expect(a.sent).toEqual(['m1']);
        calls.failClaims = 1;
        a.sender.sendable = () => true;
        (a.sender as unknown as { credit: number }).credit = 2;
        pump(s, groupOf(s, 1));
        await settle();
        await settle();
        // The failed claim leaves the group unsure: the next pump settles that first, keeping m1 (unsettled here).
        expect(calls.kept).toEqual([[1]]);
        await settle();
        await settle();
        expect(a.sent).toEqual(['m1', 'm2', 'm3']);
    });

    it('a group that caught up claims again only after the linger; a backlog is claimed back to back', async () => {
        vi.useFakeTimers({ toFake: ['setTimeout', 'Date'] });
        try {
            const rows = [1, 2].map(message);
            const { s, calls } = state(rows);
            s.claimLingerMs = 25;
            const a = consumerOf(s, 100);
            await settle();
            await settle();
            // The first claim asked for 100 and found 2: caught up.
            expect(calls.claimed).toEqual([100]);
            expect(a.sent).toEqual(['m1', 'm2']);
            rows.push(message(3));
            wake(s, [1]);
            await settle();
            expect(calls.claimed).toHaveLength(1);
            vi.advanceTimersByTime(25);
            await settle();
            await settle();
            expect(calls.claimed).toHaveLength(2);
            expect(a.sent).toEqual(['m1', 'm2', 'm3']);
            // A claim that filled the credit (the group is behind) is followed by the next one without waiting.
            rows.push(...Array.from({ length: 150 }, (_, i) => message(4 + i)));
            vi.advanceTimersByTime(25);
            wake(s, [1]);
            await settle();
            await settle();
            expect(calls.claimed).toEqual([100, 98, 97]);
            expect(a.sent).toHaveLength(100);
            (a.sender as unknown as { credit: number }).credit = 50;
            wake(s, [1]);
            await settle();
            await settle();
            expect(calls.claimed).toEqual([100, 98, 97, 50]);
            expect(a.sent).toHaveLength(150);
        } finally {
            vi.useRealTimers();
        }
    });

    it("a tick's deliveries to a consumer are written with its socket corked, uncorked on the next tick", async () => {
        const { s } = state([1, 2, 3].map(message));
        const calls: string[] = [];
        const socket = { cork: () => calls.push('cork'), uncork: () => calls.push('uncork') };
        const connection = { close() {} } as unknown as Connection;
        s.sockets = new WeakMap([[connection, socket as never]]);
        const { sender, sent } = fakeSender(3);
        openConsumer(s, connection, sender, { groupId: 1, authId: 'ak', clientId: 'c1' });
        await settle();
        await settle();
        expect(sent).toEqual(['m1', 'm2', 'm3']);
        expect(calls).toEqual(['cork', 'uncork']);
    });

    it('counts deliveries per second over the last ten complete seconds', () => {
        const { s } = state();
        const g = groupOf(s, 9);
        g.bucketAt = 1000;
        for (let sec = 1000; sec < 1010; sec++) tick(g, 3, sec);
        expect(rateOf(g, 1010)).toBe(3);
        expect(rateOf(g, 1100)).toBe(0);
    });
});

describe('sign-in refusal', () => {
    const group = { id: 5, projectCode: 'p1' } as never;
    it('names what is wrong, else nothing', () => {
        const now = 1_000_000_000;
        expect(refusal(true, now, group, '5', '', now)).toBeUndefined();
        expect(refusal(true, now, group, '5', 'p1', now)).toBeUndefined();
        expect(refusal(false, now, group, '5', '', now)?.description).toBe('AccessKey 已禁用');
        expect(refusal(true, now - 16 * 60_000, group, '5', '', now)?.condition).toBe('amqp:unauthorized-access');
        expect(refusal(true, now, undefined, '6', '', now)).toEqual({
            condition: 'amqp:not-found',
            description: '消费者组 6 不存在',
        });
        expect(refusal(true, now, group, '5', 'p2', now)?.description).toBe('消费者组 5 不属于项目 p2');
    });
});
