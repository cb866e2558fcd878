import type { Figure } from '../run';
import { destination, flow, httpConfig, pct, postgresConfig, removeFlow, STORE, waitUntil, type Bench } from './flows';

/**
 * Figure 2 of issue 39: from a post's PUBACK (its device's time) to its arrival at the destination, at a steady
 * 1,000 posts/s spread over the devices for a phase: one flow with two destinations, a PostgreSQL table (the row's
 * `arrived` default clock_timestamp(), taken as the INSERT runs; its commit follows in the same statement) and the
 * HTTP receiver (the request's end, batch mode). One clock: every process is on this machine. Beside it, the anchor:
 * the same posts' write → PUBACK (what the platform already takes to store a post).
 */

/** FORWARD_BENCH_RATE: another rate, to see the latency of a platform that is not near its limit. */
const RATE = Number(process.env.FORWARD_BENCH_RATE ?? 1000);

/** PUBACK → arrival of each acknowledged post that arrived, ms, sorted. */
function delays(acks: Array<[number, number]>, arrivals: Map<number, number>): number[] {
    const out: number[] = [];
    for (const [seq, ackedAt] of acks) {
        const at = arrivals.get(seq);
        if (at !== undefined) out.push(at - ackedAt);
    }
    return out.sort((a, c) => a - c);
}

const spread = (label: string, sorted: number[], of: number): Figure[] => [
    { name: `${label}P50`, value: pct(sorted, 50), unit: 'ms' },
    { name: `${label}P99`, value: pct(sorted, 99), unit: 'ms' },
    { name: `${label}Max`, value: pct(sorted, 100), unit: 'ms' },
    { name: `${label}Arrived`, value: sorted.length, unit: `of ${of}` },
];

export async function latency(b: Bench): Promise<Figure[]> {
    const table = await b.pg.table();
    const ids = [
        await destination(b, 'postgres', postgresConfig(table)),
        await destination(b, 'http', httpConfig(b.http.url)),
    ];
    const id = await flow(b, ids);
    try {
        // The routes claimed and idle before the first post.
        await new Promise((r) => setTimeout(r, 1000));
        b.http.tracking(true);
        const { maxId } = await b.platform.gaps(Number.MAX_SAFE_INTEGER);
        const run = await b.devices.paced(b.seconds, RATE);
        await waitUntil(
            async () => b.http.arrivals().size >= run.acked && (await b.pg.count(table)) >= run.acked,
            30_000,
            100,
        );
        const toPostgres = delays(run.acks, await b.pg.arrivals(table, run.first));
        const toHttp = delays(run.acks, b.http.arrivals());
        b.http.tracking(false);
        const { gaps } = await b.platform.gaps(maxId);
        return [
            ...spread(`latency${RATE}.pubackToPostgresRow${STORE}`, toPostgres, run.acked),
            ...spread(`latency${RATE}.pubackToHttpReceived${STORE}`, toHttp, run.acked),
            { name: `latency${RATE}.anchorPublishToPubackP50`, value: pct(run.rtt, 50), unit: 'ms' },
            { name: `latency${RATE}.anchorPublishToPubackP99`, value: pct(run.rtt, 99), unit: 'ms' },
            { name: `latency${RATE}.idGapsWaitedFor`, value: gaps, unit: 'gaps (5 s each at most)' },
        ];
    } finally {
        await removeFlow(b, id);
    }
}
