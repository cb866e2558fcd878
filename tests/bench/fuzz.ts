import { fuzzAmqp, fuzzHttp, fuzzMqtt } from '../server/fuzzRun';
import { bodyRoutes, startFuzzPlatform } from '../server/fuzzPlatform';
import { prng } from '../server/fuzzSupport';
import type { BenchGroup, Figure } from './run';

/**
 * `npm run bench -- fuzz`: the CI fuzzing run (tests/server/fuzz.test.ts) longer, FUZZ_BENCH_CASES cases per protocol
 * (default 100,000) from FUZZ_SEED, against one in-process server's plain and TLS listeners. Figures: cases and
 * connections per protocol, the slowest close (ms), connections that hung, HTTP answers of 500 and above (listed on
 * stderr), and the RSS and heap growth, the highest seen. A hang, a 5xx or a server that no longer signs a device in
 * fails the group.
 */

const CASES = Number(process.env.FUZZ_BENCH_CASES ?? 100_000);
const SEED = Number(process.env.FUZZ_SEED ?? 20261206);
const MB = 1024 * 1024;

const group: BenchGroup = {
    name: 'fuzz',
    async run(): Promise<Figure[]> {
        const f = await startFuzzPlatform();
        const rss0 = process.memoryUsage().rss;
        const heap0 = process.memoryUsage().heapUsed;
        let peak = 0;
        const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss - rss0)), 100);
        const figures: Figure[] = [];
        try {
            const runs = [
                ['mqtt', () => fuzzMqtt(f.mqtt, f.devices, CASES, prng(SEED))],
                ['amqp', () => fuzzAmqp(f.amqp, f.consumer, CASES, prng(SEED + 1))],
            ] as const;
            for (const [name, run] of runs) {
                const started = performance.now();
                const r = await run();
                process.stderr.write(`fuzz: ${name} ${JSON.stringify(r)}\n`);
                if (r.hung) throw new Error(`${name}: ${r.hung} connections did not close`);
                figures.push(
                    { name: `${name}.cases`, value: r.cases, unit: 'cases' },
                    { name: `${name}.connections`, value: r.connections, unit: 'connections' },
                    {
                        name: `${name}.casesPerSecond`,
                        value: Math.round(r.cases / ((performance.now() - started) / 1000)),
                        unit: 'cases/s',
                    },
                    { name: `${name}.slowestClose`, value: r.slowestCloseMs, unit: 'ms' },
                );
            }
            const http = await fuzzHttp(f.http, bodyRoutes(), CASES, prng(SEED + 2));
            for (const e of http.serverErrors)
                process.stderr.write(`fuzz: http ${e.status} ${e.path} ${JSON.stringify(e.body)} -> ${e.answer}\n`);
            figures.push(
                { name: 'http.cases', value: http.cases, unit: 'cases' },
                { name: 'http.serverErrors', value: http.serverErrors.length, unit: 'answers' },
                { name: 'http.slowest', value: http.slowestMs, unit: 'ms' },
            );
            global.gc?.();
            const { rss, heapUsed } = process.memoryUsage();
            figures.push(
                { name: 'rss.peakGrowth', value: Math.round(Math.max(peak, rss - rss0) / MB), unit: 'MB' },
                { name: 'rss.growth', value: Math.round((rss - rss0) / MB), unit: 'MB' },
                { name: 'heap.growth', value: Math.round((heapUsed - heap0) / MB), unit: 'MB' },
            );
            if (http.serverErrors.length) throw new Error(`${http.serverErrors.length} HTTP answers of 500 or above`);
            return figures;
        } finally {
            clearInterval(sampler);
            await f.close();
        }
    },
};

export default group;
