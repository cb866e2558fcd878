import type { SQL } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Lease } from '../../server/cluster/lease';
import { createMembership, type Membership } from '../../server/cluster/membership';
import type { Db } from '../../server/db/client';

/**
 * The heartbeat's renewal and self-fencing on a fake clock and a fake database: a renewal that hangs costs one beat
 * (the next beat tries again), a member that cannot renew for NODE_TIMEOUT / 2 fences, a renewal that succeeds lifts
 * the fence (after marking its devices again when the others had declared it lost), and a process paused past its
 * lease reads itself fenced at its first check, before any timer runs.
 */

const TIMEOUT = 3_000; // heartbeats every 1 s, the lease lasts 1.5 s
const dialect = new PgDialect();
const textOf = (q: SQL) => dialect.sqlToQuery(q).sql;

/** A database whose renewal answers as told: 'ok', 'expired' (the others declared this member lost), or 'hang'. */
function fakeDb() {
    const calls: string[] = [];
    const state = { renewal: 'ok' as 'ok' | 'expired' | 'hang', renewals: 0, nodeId: '' };
    const execute = (q: SQL) => {
        const text = textOf(q);
        if (text.includes('UPDATE cluster_nodes n')) {
            state.renewals++;
            calls.push('renew');
            if (state.renewal === 'hang') return new Promise(() => undefined);
            const expired = state.renewal === 'expired';
            if (expired) state.renewal = 'ok'; // registered again: the next renewal finds a fresh row
            return Promise.resolve({ rows: [{ expired }] });
        }
        if (text.includes('INSERT INTO cluster_nodes')) calls.push('register');
        if (text.includes('ORDER BY started_at')) return Promise.resolve({ rows: [{ node_id: state.nodeId }] });
        return Promise.resolve({ rows: [] });
    };
    const db = { execute, transaction: (fn: (tx: unknown) => unknown) => fn({ execute }) } as unknown as Db;
    return { db, calls, state };
}

async function member(events: string[]) {
    const fake = fakeDb();
    const membership: Membership = await createMembership({
        db: fake.db,
        timeoutMs: TIMEOUT,
        figures: () => ({}),
        clock: () => Date.now(),
        onFenced: () => events.push(`fenced@${Date.now() - start}`),
        onUnfenced: () => events.push('unfenced'),
        onRevived: () => events.push('revived'),
        log: () => undefined,
    });
    fake.state.nodeId = membership.nodeId;
    return { membership, ...fake };
}

let start = 0;
beforeEach(() => {
    vi.useFakeTimers({ now: new Date('2026-12-06T00:00:00Z') });
    start = Date.now();
});
afterEach(() => vi.useRealTimers());

describe('heartbeat renewal and self-fencing', () => {
    it('a hung renewal fences within NODE_TIMEOUT / 2 and the beats go on until one renews', async () => {
        const events: string[] = [];
        const { membership, state } = await member(events);
        expect(membership.fenced).toBe(false);
        state.renewal = 'hang';
        const renewedAt = Date.now() - start; // the last renewal was sent at the start
        await vi.advanceTimersByTimeAsync(TIMEOUT / 2 + 1);
        expect(events).toEqual([`fenced@${renewedAt + TIMEOUT / 2}`]);
        expect(membership.fenced).toBe(true);
        // The heartbeat does not stop for good: each beat gives up its renewal and the next one tries again.
        const before = state.renewals;
        await vi.advanceTimersByTimeAsync(5_000);
        expect(state.renewals - before).toBeGreaterThanOrEqual(4);
        expect(membership.fenced).toBe(true);
        state.renewal = 'ok';
        await vi.advanceTimersByTimeAsync(1_000);
        expect(membership.fenced).toBe(false);
        expect(events.slice(1)).toEqual(['unfenced']);
        await membership.leave();
    });

    it('a member declared lost registers again and marks its devices before its fence lifts', async () => {
        const events: string[] = [];
        const { membership, state, calls } = await member(events);
        state.renewal = 'hang';
        await vi.advanceTimersByTimeAsync(TIMEOUT + 1_000);
        expect(membership.fenced).toBe(true);
        state.renewal = 'expired';
        calls.length = 0;
        await vi.advanceTimersByTimeAsync(1_000);
        expect(calls.slice(0, 2)).toEqual(['renew', 'register']);
        expect(events.slice(1)).toEqual(['revived', 'unfenced']);
        expect(membership.fenced).toBe(false);
        await membership.leave();
    });

    it('a process paused past its lease is fenced at its first check, before any timer runs', async () => {
        const events: string[] = [];
        const { membership } = await member(events);
        // SIGSTOP for 2 x NODE_TIMEOUT: the clock moves on, no timer has run yet.
        vi.setSystemTime(Date.now() + 2 * TIMEOUT);
        expect(events).toEqual([]);
        expect(membership.fenced).toBe(true);
        expect(events).toHaveLength(1);
        await membership.leave();
    });
});

describe('Lease', () => {
    it('runs from when the renewal was sent, not from when it answered', () => {
        let now = 0;
        const fenced: number[] = [];
        const lease = new Lease(10_000, { onFenced: () => fenced.push(now) }, () => now);
        now = 4_000;
        lease.renewed(1_000); // sent at 1 s, answered at 4 s: the lease ends at 6 s
        now = 5_999;
        expect(lease.check()).toBe(false);
        now = 6_000;
        expect(lease.check()).toBe(true);
        expect(fenced).toEqual([6_000]);
        // A late answer to a renewal sent before the lease ran out does not lift the fence.
        now = 12_000;
        lease.renewed(5_000);
        expect(lease.check()).toBe(true);
        lease.renewed(11_000);
        expect(lease.check()).toBe(false);
        lease.stop();
    });
});
