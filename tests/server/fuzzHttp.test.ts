import { expect, it } from 'vitest';
import { fuzzHttp, getStatus } from './fuzzRun';
import { bodyRoutes, expectWithinMemoryBound, fuzzSettings, fuzzSuite } from './fuzzPlatform';
import { prng } from './fuzzSupport';

/**
 * HTTP body fuzzing, CI-sized (`npm run bench -- fuzz` runs more): FUZZ_CASES (10,000) generated bodies (JSON, form,
 * multipart; odd values, NUL bytes, huge numbers; half of them mutated as bytes) from a fixed seed, signed in, to the
 * API's POST/PUT routes (openapi.yaml) on the HTTP and HTTPS listeners. No answer of 500 or above (bad input answers
 * 400), every request answered within the bound, the API still answers afterwards, memory within the bound.
 */

const { seed, cases } = fuzzSettings(2);
const suite = fuzzSuite();

it(`HTTP bodies on HTTP and HTTPS: ${cases} cases from seed ${seed}, no answer of 500 or above`, async () => {
    const { figures, grown } = await suite.run((f) => fuzzHttp(f.http, bodyRoutes(), cases, prng(seed)));
    console.log('HTTP fuzzing', { ...figures, serverErrors: figures.serverErrors.length }, grown);
    expect(figures.cases).toBe(cases);
    expect(figures.serverErrors.slice(0, 5)).toEqual([]);
    for (const t of suite.platform.http) expect(await getStatus(t, '/api/product?pageNumber=1&pageSize=10')).toBe(200);
    expectWithinMemoryBound(grown);
}, 300_000);
