import { expect, it } from 'vitest';
import { CLOSE_BOUND_MS, fuzzMqtt } from './fuzzRun';
import { expectWithinMemoryBound, fuzzSettings, fuzzSuite } from './fuzzPlatform';
import { prng } from './fuzzSupport';
import { postAndReply, tlsLamp } from './tlsSupport';

/**
 * MQTT fuzzing, CI-sized (`npm run bench -- fuzz` runs more): FUZZ_CASES (10,000) generated MQTT 3.1.1 / 5 cases
 * from a fixed seed against the MQTT and MQTTS listeners (tests/server/fuzzRun.ts): mutated sign-in streams on
 * connections of their own, and packets after a valid sign-in, many per connection. No crash (a device still signs in
 * and posts on both), no hang (every connection closes within CLOSE_BOUND_MS once ended), memory within the bound.
 */

const { seed, cases } = fuzzSettings(0);
const suite = fuzzSuite();

it(`MQTT 3.1.1 / 5 on MQTT and MQTTS: ${cases} cases from seed ${seed}`, async () => {
    const { figures, grown } = await suite.run((f) => fuzzMqtt(f.mqtt, f.devices, cases, prng(seed)));
    const f = suite.platform;
    console.log('MQTT fuzzing', figures, grown);
    expect(figures.cases).toBeGreaterThanOrEqual(cases);
    expect(figures.hung, `connections open ${CLOSE_BOUND_MS} ms after we ended them`).toBe(0);
    for (const url of [`mqtt://127.0.0.1:${f.p.ports.mqtt}`, `mqtts://localhost:${f.p.ports.mqtts}`]) {
        const lamp = await tlsLamp(f.s, url, url.startsWith('mqtts') ? 2 : 3, { ca: f.p.ca });
        const client = await lamp.connect();
        const reply = await postAndReply(client, lamp.device.productKey, lamp.device.deviceName, { LightSwitch: 1 });
        expect(reply.code).toBe(200);
        client.end(true);
    }
    expectWithinMemoryBound(grown);
}, 300_000);
