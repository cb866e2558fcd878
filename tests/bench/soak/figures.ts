import { readFileSync } from 'node:fs';
import * as hdr from 'hdr-histogram-js';
import { cpuMsOf } from '../procStat';

/** The soak's arithmetic: merged latency histograms, a process's memory and CPU, and the memory slope. */

/** Merges compressed HdrHistograms (fleet.ts, consumers.ts) into one. */
export function merged(encoded: string[]) {
    const total = hdr.build({ lowestDiscernibleValue: 1, highestTrackableValue: 3_600_000_000 });
    for (const e of encoded) total.add(hdr.decodeFromCompressedBase64(e));
    return total;
}

/** p50 / p99 / max of a histogram, divided by `unit` (1000: µs recorded, ms printed), rounded to 0.1. */
export function percentiles(h: ReturnType<typeof merged>, unit = 1) {
    const at = (p: number) => Math.round((h.getValueAtPercentile(p) / unit) * 10) / 10;
    return { count: h.totalCount, p50: at(50), p99: at(99), max: Math.round((h.maxValue / unit) * 10) / 10 };
}

/** A process's resident memory in MB (0 once it has exited). */
export function rssMb(pid: number): number {
    try {
        const status = readFileSync(`/proc/${pid}/status`, 'utf8');
        return Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 102.4) / 10;
    } catch {
        return 0;
    }
}

/** CPU ms so far of a process, 0 once it has exited. */
export function cpuMs(pid: number): number {
    try {
        return cpuMsOf(pid);
    } catch {
        return 0;
    }
}

/** Least-squares slope of (minutes, MB) samples: MB per minute. */
export function slope(samples: Array<[number, number]>): number {
    const n = samples.length;
    if (n < 2) return NaN;
    const mx = samples.reduce((s, [x]) => s + x, 0) / n;
    const my = samples.reduce((s, [, y]) => s + y, 0) / n;
    const sxy = samples.reduce((s, [x, y]) => s + (x - mx) * (y - my), 0);
    const sxx = samples.reduce((s, [x]) => s + (x - mx) ** 2, 0);
    return sxx ? Math.round((sxy / sxx) * 100) / 100 : NaN;
}
