import type { Figure } from '../run';
import type { DirectJob } from './direct';
import type { PlatformStats } from './processes';
import { PG_URL, AMQP_URL } from './destinations';
import {
    destination,
    enable,
    flow,
    httpConfig,
    OTHER_THREAD,
    perSecond,
    postgresConfig,
    profiled,
    rabbitmqConfig,
    ratio,
    removeFlow,
    STORE,
    waitUntil,
    type Bench,
} from './flows';

/**
 * Figure 1 of issue 39 for one destination kind: selected-and-delivered messages per second through the platform
 * beside the kind's library writing the same rows straight, in batches of the route's size, in the same sitting.
 * - live: the flow enabled while every device posts (QoS 1, waiting for each PUBACK) for a phase: ingest and what
 *   arrived at the destination in the window, and how far the route was behind at its end;
 * - drain: the flow stopped while the devices post for half a phase, then started: the backlog's messages selected
 *   and delivered per second (the forwarding pipeline's own rate, ingest not competing), from enabling it and from
 *   the first arrival on (the flow's start, its sender's connection made, left out), beside
 * - direct: the library alone for half a phase (direct.ts), right before.
 */

type Kind = 'postgres' | 'rabbitmq' | 'http';

interface Side {
    config: Record<string, unknown>;
    count(): Promise<number>;
    /** Empties what the destination holds (the queue), where that keeps the phases alike. */
    reset(): Promise<unknown>;
    job(seconds: number): DirectJob;
}

async function sideOf(b: Bench, kind: Kind): Promise<Side> {
    if (kind === 'postgres') {
        const table = await b.pg.table();
        return {
            config: postgresConfig(table),
            count: () => b.pg.count(table),
            reset: async () => undefined,
            job: (seconds) => ({ kind, url: PG_URL, table, seconds, batch: b.batch }),
        };
    }
    if (kind === 'rabbitmq') {
        const queue = await b.rabbit.queue();
        return {
            config: rabbitmqConfig(queue),
            count: () => b.rabbit.count(queue),
            reset: () => b.rabbit.purge(queue),
            job: (seconds) => ({ kind, url: AMQP_URL, queue, seconds, batch: b.batch }),
        };
    }
    return {
        config: httpConfig(b.http.url),
        count: async () => b.http.count(),
        reset: async () => undefined,
        job: (seconds) => ({ kind, url: b.http.url, seconds, batch: b.batch }),
    };
}

async function live(b: Bench, side: Side) {
    const [c0, s0] = [await side.count(), await b.platform.stats()];
    const flood = await b.devices.flood(b.seconds);
    const [c1, s1] = [await side.count(), await b.platform.stats()];
    const written = s1.written - s0.written;
    // Caught up: everything stored in the window delivered (bounded, so a slow route does not stall the run).
    const t = performance.now();
    const caughtUp = await waitUntil(async () => (await side.count()) - c0 >= written, 60_000, 100);
    return {
        ingest: perSecond(written, flood.ms),
        delivered: perSecond(c1 - c0, flood.ms),
        behind: written - (c1 - c0),
        catchUpMs: caughtUp ? performance.now() - t : NaN,
    };
}

async function drain(b: Bench, side: Side, id: number, kind: Kind) {
    await enable(b, id, false);
    const s0 = await b.platform.stats();
    await b.devices.flood(b.seconds / 2);
    const backlog = (await b.platform.stats()).written - s0.written;
    await side.reset();
    const direct = await b.platform.direct(side.job(b.seconds / 2));
    await side.reset();
    const before = await side.count();
    return profiled(b, `drain-${kind}`, async () => {
        const s1 = await b.platform.stats();
        const t0 = performance.now();
        await enable(b, id, true);
        // The first arrival: the flow's start (the API call, its route and sender opened) is behind it.
        let first: { ms: number; count: number } | undefined;
        await waitUntil(
            async () => {
                const n = (await side.count()) - before;
                if (n > 0) first ??= { ms: performance.now() - t0, count: n };
                return n >= backlog;
            },
            120_000,
            20,
        );
        const ms = performance.now() - t0;
        const delivered = (await side.count()) - before;
        const s2 = await b.platform.stats();
        const cpu = threadSplit(s1, s2, delivered);
        // The route's read of the store alone, over as many of the newest messages: the platform's side of a drain.
        const read = await b.platform.read(Math.max(backlog, b.batch));
        const readCpu = threadSplit(s2, await b.platform.stats(), read.messages);
        return { backlog, delivered, ms, first: first ?? { ms, count: delivered }, direct, cpu, read, readCpu };
    });
}

/** The platform's CPU per delivered message: its main thread, and its busiest other (PGlite's worker on PGlite). */
function threadSplit(before: PlatformStats, after: PlatformStats, messages: number) {
    const used = (tid: string) => (after.threads[tid] ?? 0) - (before.threads[tid] ?? 0);
    const others = Object.keys(after.threads).filter((tid) => tid !== String(after.pid));
    const busiest = others.reduce((a, c) => (used(a) >= used(c) ? a : c), others[0]);
    const per = (us: number) => Math.round((us / Math.max(1, messages)) * 10) / 10;
    return { main: per(used(String(after.pid))), other: busiest ? per(used(busiest)) : NaN };
}

export async function throughput(b: Bench, kind: Kind): Promise<Figure[]> {
    const side = await sideOf(b, kind);
    const id = await flow(b, [await destination(b, kind, side.config)]);
    try {
        const l = await live(b, side);
        const d = await drain(b, side, id, kind);
        const platform = perSecond(d.delivered, d.ms);
        const direct = perSecond(d.direct.rows, d.direct.ms);
        // The drain's rate from its first arrival on: the route's pace without the flow's start.
        const steady = perSecond(d.delivered - d.first.count, d.ms - d.first.ms);
        console.log(
            `forward: ${kind}: live ingest ${l.ingest}/s delivered ${l.delivered}/s (${l.behind} behind, caught up in ${Math.round(l.catchUpMs)} ms); ` +
                `drain ${d.delivered} of ${d.backlog} in ${Math.round(d.ms)} ms; direct ${d.direct.rows} in ${Math.round(d.direct.ms)} ms`,
        );
        return [
            { name: `${kind}.deliveredPlatform${STORE}`, value: platform, unit: 'msg/s' },
            { name: `${kind}.deliveredDirect`, value: direct, unit: `msg/s (batch ${b.batch})` },
            ratio(`${kind}.platformOfDirect`, platform, direct),
            { name: `${kind}.drainFirstArrival`, value: Math.round(d.first.ms), unit: 'ms after enabling' },
            ratio(`${kind}.platformAfterFirstOfDirect`, steady, direct),
            { name: `${kind}.storeReadAlone${STORE}`, value: perSecond(d.read.messages, d.read.ms), unit: 'msg/s' },
            { name: `${kind}.storeReadAloneCpu${OTHER_THREAD}`, value: d.readCpu.other, unit: 'µs/msg' },
            { name: `${kind}.drainCpuMainThread`, value: d.cpu.main, unit: 'µs/msg' },
            { name: `${kind}.drainCpu${OTHER_THREAD}`, value: d.cpu.other, unit: 'µs/msg' },
            { name: `${kind}.liveIngest${STORE}`, value: l.ingest, unit: 'msg/s' },
            { name: `${kind}.liveDelivered${STORE}`, value: l.delivered, unit: 'msg/s' },
            { name: `${kind}.liveBehindAtEnd`, value: l.behind, unit: 'messages' },
            { name: `${kind}.liveCatchUp`, value: Math.round(l.catchUpMs), unit: 'ms' },
        ];
    } finally {
        await removeFlow(b, id);
    }
}
