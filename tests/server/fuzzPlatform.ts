import { afterAll, beforeAll, expect } from 'vitest';
import { amqpCredentials } from '../../server/amqp/signIn';
import { alibabaCredentials } from '../../server/mqtt/signIn';
import { COOKIE_NAME } from '../../server/sso/auth';
import { createTestServer, type TestServer } from '../../server/testing';
import { createAccessKey, subscribeLamp } from './amqpSupport';
import type { HttpTarget, MqttDevice, Target } from './fuzzRun';
import { secretOf } from './mqttSupport';
import { operations, spec } from './support';
import { freshLamp } from './telemetrySupport';
import { startTlsPlatform, type TlsPlatform } from './tlsSupport';

/**
 * A test server behind every listener (plain and TLS) with what the fuzzer signs in with: a lamp device, an AccessKey
 * and consumer group, the admin's session, and the API's POST/PUT routes with their body fields (openapi.yaml).
 */

type Json = Record<string, unknown>;

/** Devices signed in at once by the MQTT fuzzer (its connections in parallel). */
const FUZZ_DEVICES = 6;

/** Routes left out: they start outside work (a video push, an edge deployment) or sign in (throttled). */
const LEFT_OUT = /\/push|\/deploy|^\/sso\//;

function resolve(schema: Json | undefined): Json | undefined {
    const ref = schema?.$ref as string | undefined;
    if (!ref) return schema;
    return ref
        .replace(/^#\//, '')
        .split('/')
        .reduce<Json | undefined>((node, key) => node?.[key] as Json | undefined, spec);
}

export function bodyRoutes(): Array<{ path: string; fields: string[] }> {
    return operations
        .filter((o) => (o.method === 'POST' || o.method === 'PUT') && !LEFT_OUT.test(o.path) && !o.path.includes('{'))
        .map((o) => {
            const content = ((o.op.requestBody as Json | undefined)?.content ?? {}) as Record<string, Json>;
            const schema = resolve(Object.values(content)[0]?.schema as Json | undefined);
            return { path: o.path, fields: Object.keys((schema?.properties as Json | undefined) ?? {}) };
        });
}

export interface FuzzPlatform {
    s: TestServer;
    p: TlsPlatform;
    mqtt: Target[];
    amqp: Target[];
    http: HttpTarget[];
    /** One per fuzzing connection at a time. */
    devices: MqttDevice[];
    consumer(): { username: string; password: string };
    consumerSecrets: { accessKey: string; accessSecret: string; groupId: number };
    close(): Promise<void>;
}

export async function startFuzzPlatform(log: string[] = []): Promise<FuzzPlatform> {
    const s = await createTestServer({ amqp: { pollMs: 100, log: (m) => log.push(m) } });
    const p = await startTlsPlatform(s);
    const tls = { ca: p.ca, servername: 'localhost' };
    const devices: MqttDevice[] = [];
    for (let i = 0; i < FUZZ_DEVICES; i++) {
        const lamp = await freshLamp(s);
        const secret = await secretOf(s, Number(lamp.deviceId));
        devices.push({
            productKey: lamp.productKey,
            deviceName: lamp.deviceName,
            credentials: (target) =>
                alibabaCredentials(
                    { productKey: lamp.productKey, deviceName: lamp.deviceName, secret },
                    { securemode: target.tls ? 2 : 3 },
                ),
        });
    }
    const key = await createAccessKey(s);
    const { groupId } = await subscribeLamp(s);
    const cookie = `${COOKIE_NAME}=${s.token}`;
    return {
        s,
        p,
        mqtt: [{ port: p.ports.mqtt }, { port: p.ports.mqtts, tls }],
        amqp: [{ port: p.ports.amqp }, { port: p.ports.amqps, tls }],
        http: [
            { port: p.ports.http, cookie },
            { port: p.ports.https, tls, cookie },
        ],
        devices,
        consumerSecrets: { accessKey: key.accessKey, accessSecret: key.accessSecret, groupId },
        consumer: () =>
            amqpCredentials({
                clientId: `fuzz${Math.floor(Math.random() * 1e6)}`,
                accessKey: key.accessKey,
                accessSecret: key.accessSecret,
                consumerGroupId: groupId,
            }),
        async close() {
            await p.close();
            await s.close();
        },
    };
}

const MB = 1024 * 1024;

/** RSS and heap growth from now, with the RSS peak sampled every 100 ms. */
export function watchMemory() {
    global.gc?.();
    const rss0 = process.memoryUsage().rss;
    const heap0 = process.memoryUsage().heapUsed;
    let peak = 0;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss - rss0)), 100);
    return {
        /** Growth in MB: RSS now, its peak, and the heap after a collection when --expose-gc is on. */
        grown() {
            global.gc?.();
            const { rss, heapUsed } = process.memoryUsage();
            peak = Math.max(peak, rss - rss0);
            return { rss: (rss - rss0) / MB, peak: peak / MB, heap: (heapUsed - heap0) / MB };
        },
        stop: () => clearInterval(sampler),
    };
}

/** A fuzzing file's seed (FUZZ_SEED plus the file's offset) and case count (FUZZ_CASES, 10,000 by default). */
export function fuzzSettings(seedOffset: number) {
    return {
        seed: Number(process.env.FUZZ_SEED ?? 20261206) + seedOffset,
        cases: Number(process.env.FUZZ_CASES ?? 10_000),
    };
}

/** Growth allowed over a fuzzing run, MB: the RSS peak and the heap at the end. */
export const FUZZ_MEMORY_BOUND = { peak: 150, heap: 100 };

/**
 * A fuzzing file's platform, started before its test and closed after, with its memory watched from the start:
 * `run(fn)` runs the cases and answers their figures beside the memory grown and the CPU seconds spent.
 */
export function fuzzSuite() {
    let platform: FuzzPlatform | undefined;
    let memory: ReturnType<typeof watchMemory> | undefined;
    beforeAll(async () => {
        platform = await startFuzzPlatform();
        memory = watchMemory();
    }, 300_000);
    afterAll(async () => {
        memory?.stop();
        await platform?.close();
    });
    return {
        get platform(): FuzzPlatform {
            return platform!;
        },
        async run<T>(fn: (f: FuzzPlatform) => Promise<T>) {
            const cpu = process.cpuUsage();
            const figures = await fn(platform!);
            const used = process.cpuUsage(cpu);
            return { figures, grown: { ...memory!.grown(), cpuSeconds: (used.user + used.system) / 1e6 } };
        },
    };
}

/** The memory bound checked on what `fuzzSuite().run` answered. */
export function expectWithinMemoryBound(grown: { peak: number; heap: number }): void {
    expect(grown.peak, 'RSS peak growth, MB').toBeLessThan(FUZZ_MEMORY_BOUND.peak);
    expect(grown.heap, 'heap growth, MB').toBeLessThan(FUZZ_MEMORY_BOUND.heap);
}
