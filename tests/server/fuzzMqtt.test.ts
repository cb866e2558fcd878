import { afterAll, beforeAll, expect, it } from 'vitest';
import { CLOSE_BOUND_MS, fuzzMqtt } from './fuzzRun';
import { startFuzzPlatform, watchMemory, type FuzzPlatform } from './fuzzPlatform';
import { prng } from './fuzzSupport';
import { postAndReply, tlsLamp } from './tlsSupport';

/**
 * MQTT fuzzing, CI-sized (`npm run bench -- fuzz` runs more): FUZZ_CASES (10,000) generated MQTT 3.1.1 / 5 cases
 * from a fixed seed against the MQTT and MQTTS listeners (tests/server/fuzzRun.ts): mutated sign-in streams on
 * connections of their own, and packets after a valid sign-in, many per connection. No crash (a device still signs in
 * and posts on both), no hang (every connection closes within CLOSE_BOUND_MS once ended), memory within the bound.
 */

const SEED = Number(process.env.FUZZ_SEED ?? 20261206);
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

it(`MQTT 3.1.1 / 5 on MQTT and MQTTS: ${CASES} cases from seed ${SEED}`, async () => {
    const cpu = process.cpuUsage();
    const figures = await fuzzMqtt(f.mqtt, f.devices, CASES, prng(SEED));
    const grown = { ...memory.grown(), cpuSeconds: (process.cpuUsage(cpu).user + process.cpuUsage(cpu).system) / 1e6 };
    console.log('MQTT fuzzing', figures, grown);
    expect(figures.cases).toBeGreaterThanOrEqual(CASES);
    expect(figures.hung, `connections open ${CLOSE_BOUND_MS} ms after we ended them`).toBe(0);
    for (const url of [`mqtt://127.0.0.1:${f.p.ports.mqtt}`, `mqtts://localhost:${f.p.ports.mqtts}`]) {
        const lamp = await tlsLamp(f.s, url, url.startsWith('mqtts') ? 2 : 3, { ca: f.p.ca });
        const client = await lamp.connect();
        const reply = await postAndReply(client, lamp.device.productKey, lamp.device.deviceName, { LightSwitch: 1 });
        expect(reply.code).toBe(200);
        client.end(true);
    }
    expect(grown.peak, 'RSS peak growth, MB').toBeLessThan(BOUND.peak);
    expect(grown.heap, 'heap growth, MB').toBeLessThan(BOUND.heap);
}, 300_000);
