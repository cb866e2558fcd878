import type { Figure } from '../run';
import { benchName, closedPort } from './destinations';
import {
    destination,
    flow,
    httpConfig,
    perSecond,
    profiled,
    rabbitmqConfig,
    ratio,
    removeFlow,
    STORE,
    type Bench,
} from './flows';
import type { PlatformStats } from './processes';

/**
 * Figure 3 of issue 39: posts stored per second (each acknowledged by PUBACK; every device waits for it before its
 * next) with no flow, with 10 flows (each selecting every post to an HTTP destination of its own, the bench's
 * receiver: the worst case, every route reading the store flat out beside ingest), and with one flow whose RabbitMQ
 * destination is down (a closed port: its route retries with backoff). Each for half a phase, twice, interleaved
 * (the machine's other load drifts); the flows of a step are made for it and deleted after, so each starts at the
 * newest message with no backlog.
 */

const MODES = ['noFlow', 'tenFlows', 'destinationDown'] as const;
type Mode = (typeof MODES)[number];
const ROUNDS = 2;

interface Sum {
    written: number;
    ms: number;
    cpu: number;
    delivered: number;
    failed: number;
    /** CPU µs of the main thread and of the busiest other (PGlite's worker). */
    main: number;
    other: number;
}

async function flowsFor(b: Bench, mode: Mode, hooks: number[], down: number): Promise<number[]> {
    if (mode === 'noFlow') return [];
    if (mode === 'destinationDown') return [await flow(b, [down])];
    const ids: number[] = [];
    for (const hook of hooks) ids.push(await flow(b, [hook]));
    return ids;
}

async function step(b: Bench, mode: Mode, flows: number[], sum: Sum) {
    const [c0, s0]: [number, PlatformStats] = [b.http.count(), await b.platform.stats()];
    const run = await profiled(b, `ingest-${mode}`, () => b.devices.flood(b.seconds / 2));
    const s1 = await b.platform.stats();
    sum.written += s1.written - s0.written;
    sum.ms += run.ms;
    sum.cpu += s1.cpu - s0.cpu;
    sum.delivered += b.http.count() - c0;
    sum.failed += s1.failed - s0.failed;
    const used = (tid: string) => (s1.threads[tid] ?? 0) - (s0.threads[tid] ?? 0);
    const others = Object.keys(s1.threads).filter((tid) => tid !== String(s1.pid));
    sum.main += used(String(s1.pid));
    sum.other += Math.max(0, ...others.map(used));
    for (const id of flows) await removeFlow(b, id);
}

export async function ingest(b: Bench): Promise<Figure[]> {
    const hooks: number[] = [];
    for (let i = 0; i < 10; i++) hooks.push(await destination(b, 'http', httpConfig(b.http.url)));
    const down = await destination(b, 'rabbitmq', rabbitmqConfig(benchName('down'), await closedPort()));
    const sums = new Map<Mode, Sum>(
        MODES.map((m) => [m, { written: 0, ms: 0, cpu: 0, delivered: 0, failed: 0, main: 0, other: 0 }]),
    );
    for (let round = 0; round < ROUNDS; round++)
        for (const mode of MODES) await step(b, mode, await flowsFor(b, mode, hooks, down), sums.get(mode)!);
    const rate = (m: Mode) => perSecond(sums.get(m)!.written, sums.get(m)!.ms);
    const perMessage = (m: Mode, what: 'cpu' | 'main' | 'other') =>
        Math.round((sums.get(m)![what] / Math.max(1, sums.get(m)!.written)) * 10) / 10;
    const cpu = (m: Mode): Figure => ({
        name: `ingest.${m}CpuPerMessage`,
        value: perMessage(m, 'cpu'),
        unit: `µs/msg (main thread ${perMessage(m, 'main')}, ${STORE === 'Pglite' ? 'PGlite worker' : 'busiest other thread'} ${perMessage(m, 'other')})`,
    });
    const ten = sums.get('tenFlows')!;
    return [
        { name: `ingest.noFlow${STORE}`, value: rate('noFlow'), unit: 'msg/s' },
        { name: `ingest.tenFlows${STORE}`, value: rate('tenFlows'), unit: 'msg/s' },
        ratio('ingest.tenFlowsOfNoFlow', rate('tenFlows'), rate('noFlow')),
        { name: 'ingest.tenFlowsDelivered', value: perSecond(ten.delivered, ten.ms), unit: 'rows/s (all 10 flows)' },
        { name: `ingest.destinationDown${STORE}`, value: rate('destinationDown'), unit: 'msg/s' },
        ratio('ingest.destinationDownOfNoFlow', rate('destinationDown'), rate('noFlow')),
        { name: 'ingest.destinationDownFailedSends', value: sums.get('destinationDown')!.failed, unit: 'sends' },
        ...MODES.map(cpu),
    ];
}
