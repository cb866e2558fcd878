import { afterAll, beforeAll, expect, it } from 'vitest';
import { consume } from './amqpSupport';
import { CLOSE_BOUND_MS, fuzzAmqp } from './fuzzRun';
import { startFuzzPlatform, watchMemory, type FuzzPlatform } from './fuzzPlatform';
import { prng } from './fuzzSupport';

/**
 * AMQP fuzzing, CI-sized (`npm run bench -- fuzz` runs more): FUZZ_CASES (10,000) generated AMQP 1.0 and SASL cases
 * from a fixed seed against the AMQP and AMQPS listeners (tests/server/fuzzRun.ts): mutated SASL exchanges on
 * connections of their own, and session frames after a valid sign-in and open, many per connection. No crash (a
 * consumer still signs in on both), no hang (every connection closes within CLOSE_BOUND_MS once ended), memory
 * within the bound.
 */

const SEED = Number(process.env.FUZZ_SEED ?? 20261206) + 1;
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

it(`AMQP 1.0 and SASL on AMQP and AMQPS: ${CASES} cases from seed ${SEED}`, async () => {
    const cpu = process.cpuUsage();
    const figures = await fuzzAmqp(f.amqp, f.consumer, CASES, prng(SEED));
    const grown = { ...memory.grown(), cpuSeconds: (process.cpuUsage(cpu).user + process.cpuUsage(cpu).system) / 1e6 };
    console.log('AMQP fuzzing', figures, grown);
    expect(figures.cases).toBeGreaterThanOrEqual(CASES);
    expect(figures.hung, `connections open ${CLOSE_BOUND_MS} ms after we ended them`).toBe(0);
    const { accessKey, accessSecret, groupId } = f.consumerSecrets;
    for (const [port, connection] of [
        [f.p.ports.amqp, {}],
        [f.p.ports.amqps, { transport: 'tls', ca: f.p.ca, servername: 'localhost' }],
    ] as const) {
        const c = await consume(port, { accessKey, accessSecret, groupId, connection });
        await c.close();
    }
    expect(grown.peak, 'RSS peak growth, MB').toBeLessThan(BOUND.peak);
    expect(grown.heap, 'heap growth, MB').toBeLessThan(BOUND.heap);
}, 300_000);
