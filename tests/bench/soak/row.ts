import os from 'node:os';
import path from 'node:path';
import type { BenchDevice } from '../harness';
import { startChild, type Child } from './children';
import { consoleClient, type ConsoleClient } from './consoleClient';
import { cpuMs, merged, percentiles, rssMb, slope } from './figures';
import type { PlatformFigures } from './platformFigures';
import { makeSchedule, type Schedule } from './schedule';

/**
 * One row of the soak: a fleet posting on the schedule against a target (the platform's processes, or Mosquitto),
 * receivers of everything (consumer groups, or subscribers), and, for the platform, a console client; a line a
 * minute, and the run's totals. What is stored and fired is the platform's to count (soak.ts).
 */

/** Devices per fleet process: the machine's open-file limit is 20,000 (hard), less the process's own. */
const PER_FLEET = 18_000;
const SOURCES = 4;
const RSS_EVERY_MS = 10_000;

export interface Target {
    name: string;
    devices: BenchDevice[];
    alibaba: boolean;
    pids: number[];
    mqttPorts: number[];
    /** Opens the receivers on the consumers process. */
    receivers(consumers: Child, schedule: Schedule): Promise<unknown>;
    /** The platform processes' own figures at a minute's end. */
    figures?: () => Promise<Array<PlatformFigures | undefined>>;
    /** The console's address and session, for the platform. */
    console?: { url: string; cookie: string; productKey: string };
}

export interface Minute {
    minute: number;
    sent: number;
    acked: number;
    puback: { p50: number; p99: number; max: number };
    lateP99: number;
    received: number[];
    lagP99: number;
    console?: { p99: number; max: number; errors: number };
    rss: number[];
    cores: number[];
    platform?: Array<PlatformFigures | undefined>;
}

export interface RowResult {
    name: string;
    schedule: Schedule;
    minutes: Minute[];
    total: { sent: number; acked: number; unanswered: number };
    puback: { p50: number; p99: number; max: number };
    lag: { p50: number; p99: number; max: number };
    console?: { p50: number; p99: number; max: number; errors: number };
    missing: number[];
    duplicatesDelivered: number[];
    /** MB per minute after warm-up, per process. */
    rssSlope: number[];
    kbPerDevice: number;
    cpuMsPer1000: number;
    connectMs: number;
    highs: Array<[number, number, number, number]>;
    /** The fleet's acknowledgement bytes per slice. */
    slices: Array<{ file: string; from: number }>;
}

const T0 = performance.now();
export const step = (what: string) =>
    process.stderr.write(`soak: ${((performance.now() - T0) / 1000).toFixed(1)} s ${what}\n`);

async function connectFleet(target: Target) {
    const fleets: Child[] = [];
    const sliceSize = Math.ceil(target.devices.length / Math.max(2, Math.ceil(target.devices.length / PER_FLEET)));
    for (let from = 0; from < target.devices.length; from += sliceSize) {
        fleets.push(await startChild('tests/bench/soak/fleet.ts', `fleet ${fleets.length}`));
    }
    const answers = await Promise.all(
        fleets.map((f, k) =>
            f.ask<{ connected: number; failed: number; ms: number }>('connect', {
                devices: target.devices.slice(k * sliceSize, (k + 1) * sliceSize),
                from: k * sliceSize,
                ports: target.mqttPorts,
                sources: SOURCES,
                alibaba: target.alibaba,
            }),
        ),
    );
    const failed = answers.reduce((n, a) => n + a.failed, 0);
    if (failed) throw new Error(`${target.name}: ${failed} of ${target.devices.length} devices did not connect`);
    return { fleets, sliceSize, connectMs: Math.max(...answers.map((a) => a.ms)) };
}

/** Asks every process for its minute and samples the target's processes. */
async function minuteOf(
    n: number,
    parts: { fleets: Child[]; consumers: Child; console?: ConsoleClient; target: Target },
    cpuBefore: number[],
    seconds: number,
    run: { puback: string[]; lag: string[] },
): Promise<Minute> {
    const fleet = await Promise.all(
        parts.fleets.map((f) => f.ask<{ sent: number; acked: number; puback: string; late: string }>('minute')),
    );
    const got = await parts.consumers.ask<{ received: number[]; lag: string }>('minute');
    const cpu = parts.target.pids.map(cpuMs);
    run.puback.push(...fleet.map((f) => f.puback));
    run.lag.push(got.lag);
    const minute: Minute = {
        minute: n,
        sent: fleet.reduce((s, f) => s + f.sent, 0),
        acked: fleet.reduce((s, f) => s + f.acked, 0),
        puback: percentiles(merged(fleet.map((f) => f.puback)), 1000),
        lateP99: percentiles(merged(fleet.map((f) => f.late)), 1000).p99,
        received: got.received,
        lagP99: percentiles(merged([got.lag])).p99,
        console: parts.console?.minute(),
        rss: parts.target.pids.map(rssMb),
        cores: cpu.map((c, i) => Math.round(((c - cpuBefore[i]) / (seconds * 1000)) * 100) / 100),
        platform: await parts.target.figures?.(),
    };
    cpu.forEach((c, i) => (cpuBefore[i] = c));
    return minute;
}

function printMinute(name: string, m: Minute) {
    const c = m.console ? `; console p99 ${m.console.p99} ms (${m.console.errors} errors)` : '';
    const f = m.platform
        ? `; ingest queue ${m.platform.map((x) => x?.ingestQueue ?? '?').join('/')}, consumer backlog ` +
          `${m.platform[0]?.amqpBacklog ?? '?'}, pool waiting ${m.platform.map((x) => x?.poolWaiting ?? '?').join('/')}`
        : '';
    step(
        `${name} minute ${m.minute}: ${m.sent} sent, ${m.acked} acked; PUBACK p50 ${m.puback.p50} p99 ${m.puback.p99} ` +
            `max ${m.puback.max} ms (sent late p99 ${m.lateP99} ms); received ${m.received.join('/')}, lag p99 ` +
            `${m.lagP99} ms${c}; RSS ${m.rss.join('/')} MB; CPU ${m.cores.join('/')} cores${f}`,
    );
}

/** Runs the row for `minutes` at `rate` posts a second, then stops the fleet and waits for the receivers. */
export async function soakRow(target: Target, rate: number, minutes: number): Promise<RowResult> {
    const seconds = minutes * 60;
    const rssBefore = target.pids.map(rssMb);
    step(`${target.name}: connecting ${target.devices.length} devices`);
    const { fleets, sliceSize, connectMs } = await connectFleet(target);
    const rssConnected = target.pids.map(rssMb);
    const kbPerDevice = Math.round(
        ((rssConnected.reduce((a, b) => a + b, 0) - rssBefore.reduce((a, b) => a + b, 0)) * 1024) /
            target.devices.length,
    );
    step(`${target.name}: connected in ${connectMs} ms, RSS ${rssBefore.join('/')} → ${rssConnected.join('/')} MB`);
    const consumers = await startChild('tests/bench/soak/consumers.ts', 'consumers');
    const schedule = makeSchedule(target.devices.length, rate, seconds);
    await target.receivers(consumers, schedule);
    const consoleLoop = target.console && consoleClient(target.console);
    await Promise.all(fleets.map((f) => f.ask('start', schedule)));
    const cpuStart = target.pids.map(cpuMs);
    const cpuBefore = [...cpuStart];
    const rssSamples: Array<Array<[number, number]>> = target.pids.map(() => []);
    const sampler = setInterval(() => {
        const at = (Date.now() - schedule.start) / 60_000;
        target.pids.forEach((pid, i) => rssSamples[i].push([at, rssMb(pid)]));
    }, RSS_EVERY_MS);
    const minutesDone: Minute[] = [];
    const run = { puback: [] as string[], lag: [] as string[] };
    try {
        await new Promise((r) => setTimeout(r, schedule.start - Date.now()));
        for (let n = 1; n <= minutes; n++) {
            await new Promise((r) => setTimeout(r, schedule.start + n * 60_000 - Date.now()));
            const m = await minuteOf(n, { fleets, consumers, console: consoleLoop, target }, cpuBefore, 60, run);
            minutesDone.push(m);
            printMinute(target.name, m);
        }
    } finally {
        clearInterval(sampler);
        consoleLoop?.stop();
    }
    const cpuUsed = target.pids.reduce((s, pid, i) => s + cpuMs(pid) - cpuStart[i], 0);
    const files = fleets.map((_, k) => path.join(os.tmpdir(), `soak-acked-${target.name}-${k}.bin`));
    const stopped = await Promise.all(
        fleets.map((f, k) =>
            f.ask<{ sent: number; acked: number; unanswered: number; highs: RowResult['highs'] }>('stop', {
                ackedFile: files[k],
            }),
        ),
    );
    const slices = files.map((file, k) => ({ file, from: k * sliceSize }));
    const drained = await consumers.ask<{ missing: number[]; duplicates: number[]; waitedMs: number }>('missing', {
        slices,
    });
    step(`${target.name}: receivers ${drained.missing.join('/')} missing after waiting ${drained.waitedMs} ms`);
    const warm = Math.min(1, minutes / 4);
    await Promise.all([...fleets, consumers].map((c) => c.stop()));
    return {
        name: target.name,
        schedule,
        minutes: minutesDone,
        total: {
            sent: stopped.reduce((s, f) => s + f.sent, 0),
            acked: stopped.reduce((s, f) => s + f.acked, 0),
            unanswered: stopped.reduce((s, f) => s + f.unanswered, 0),
        },
        puback: percentiles(merged(run.puback), 1000),
        lag: percentiles(merged(run.lag)),
        console: consoleLoop?.total(),
        missing: drained.missing,
        duplicatesDelivered: drained.duplicates,
        rssSlope: rssSamples.map((samples) => slope(samples.filter(([t]) => t >= warm))),
        kbPerDevice,
        cpuMsPer1000: Math.round((cpuUsed / (stopped.reduce((s, f) => s + f.acked, 0) / 1000)) * 10) / 10,
        connectMs,
        highs: stopped.flatMap((f) => f.highs),
        slices,
    };
}
