import { expect, it } from 'vitest';
import { consume } from './amqpSupport';
import { CLOSE_BOUND_MS, fuzzAmqp } from './fuzzRun';
import { expectWithinMemoryBound, fuzzSettings, fuzzSuite } from './fuzzPlatform';
import { prng } from './fuzzSupport';

/**
 * AMQP fuzzing, CI-sized (`npm run bench -- fuzz` runs more): FUZZ_CASES (10,000) generated AMQP 1.0 and SASL cases
 * from a fixed seed against the AMQP and AMQPS listeners (tests/server/fuzzRun.ts): mutated SASL exchanges on
 * connections of their own, and session frames after a valid sign-in and open, many per connection. No crash (a
 * consumer still signs in on both), no hang (every connection closes within CLOSE_BOUND_MS once ended), memory
 * within the bound.
 */

const { seed, cases } = fuzzSettings(1);
const suite = fuzzSuite();

it(`AMQP 1.0 and SASL on AMQP and AMQPS: ${cases} cases from seed ${seed}`, async () => {
    const { figures, grown } = await suite.run((f) => fuzzAmqp(f.amqp, f.consumer, cases, prng(seed)));
    const f = suite.platform;
    console.log('AMQP fuzzing', figures, grown);
    expect(figures.cases).toBeGreaterThanOrEqual(cases);
    expect(figures.hung, `connections open ${CLOSE_BOUND_MS} ms after we ended them`).toBe(0);
    const { accessKey, accessSecret, groupId } = f.consumerSecrets;
    for (const [port, connection] of [
        [f.p.ports.amqp, {}],
        [f.p.ports.amqps, { transport: 'tls', ca: f.p.ca, servername: 'localhost' }],
    ] as const) {
        const c = await consume(port, { accessKey, accessSecret, groupId, connection });
        await c.close();
    }
    expectWithinMemoryBound(grown);
}, 300_000);
