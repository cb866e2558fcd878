import { afterAll, beforeAll, expect, it } from 'vitest';
import { fuzzHttp, getStatus } from './fuzzRun';
import { bodyRoutes, startFuzzPlatform, watchMemory, type FuzzPlatform } from './fuzzPlatform';
import { prng } from './fuzzSupport';

/**
 * HTTP body fuzzing, CI-sized (`npm run bench -- fuzz` runs more): FUZZ_CASES (10,000) generated bodies (JSON, form,
 * multipart; odd values, NUL bytes, huge numbers; half of them mutated as bytes) from a fixed seed, signed in, to the
 * API's POST/PUT routes (openapi.yaml) on the HTTP and HTTPS listeners. No answer of 500 or above (bad input answers
 * 400), every request answered within the bound, the API still answers afterwards, memory within the bound.
 */

const SEED = Number(process.env.FUZZ_SEED ?? 20261206) + 2;
const CASES = Number(process.env.FUZZ_CASES ?? 10_000);
/** Growth allowed over the run, MB: the RSS peak and the heap at the end. */
const BOUND = { peak: 150, heap: 100 };

let f: FuzzPlatform;
let memory: ReturnType<typeof watchMemory>;
beforeAll(async () => {
    f = await startFuzzPlatform();
    memory = watchMemory();
}, 300_000);
afterAll(async () => {
    memory?.stop();
    await f?.close();
});

it(`HTTP bodies on HTTP and HTTPS: ${CASES} cases from seed ${SEED}, no answer of 500 or above`, async () => {
    const cpu = process.cpuUsage();
    const figures = await fuzzHttp(f.http, bodyRoutes(), CASES, prng(SEED));
    const grown = { ...memory.grown(), cpuSeconds: (process.cpuUsage(cpu).user + process.cpuUsage(cpu).system) / 1e6 };
    console.log('HTTP fuzzing', { ...figures, serverErrors: figures.serverErrors.length }, grown);
    expect(figures.cases).toBe(CASES);
    expect(figures.serverErrors.slice(0, 5)).toEqual([]);
    for (const t of f.http) expect(await getStatus(t, '/api/product?pageNumber=1&pageSize=10')).toBe(200);
    expect(grown.peak, 'RSS peak growth, MB').toBeLessThan(BOUND.peak);
    expect(grown.heap, 'heap growth, MB').toBeLessThan(BOUND.heap);
}, 300_000);
