import { spawn } from 'node:child_process';
import path from 'node:path';
import mqtt, { type MqttClient } from 'mqtt';
import { alibabaCredentials } from '../../server/mqtt/signIn';
import { compiled } from './compiled';
import type { BenchGroup, Figure } from './run';
import { lineReader } from './lineReader';

/**
 * `npm run bench -- rules`: ingest with the rule engine (docs/rules.md "Cost"). One broker process (in-memory PGlite,
 * the rule engine attached) and 1,000 lamp devices publishing QoS 1 property posts, each waiting for its PUBACK, as
 * `bench -- mqtt` measures ingest; run with 0, then 100, then 1,000 enabled rules on the same product, in one run
 * (tests/bench/rules/brokerProcess.ts says what the rules compare), then 1,000 rules matching `any` condition, which the
 * engine's guard index cannot narrow (the worst case: every rule evaluated on every message). Figures: rows committed
 * per second at each step, the cost against no rule in percent, rule evaluations per second and firings; then the
 * engine alone: microseconds of evaluation per message at each step (set beside the platform's time per message,
 * 1,000,000 / ingest rate, this is the share of ingest the rules take).
 */

const ROOT = path.resolve(import.meta.dirname, '../..');
const DEVICES = 1000;
const SECONDS = 6;
/** The steps run twice, interleaved, and each figure is their mean: the machine's other load drifts over a run. */
const ROUNDS = 2;
const RULES = ['0', '100', '1000', '1000any'];

const post = (n: number, device: number) =>
    JSON.stringify({
        id: String(n),
        version: '1.0',
        // Spread over 0..199.9 from one message to the next (a device's consecutive posts differ).
        params: { Brightness: n % 101, ActivePower: (((n + device * 37) * 7919) % 2000) / 10, LightSwitch: n % 2 },
        method: 'thing.event.property.post',
    });

async function flood(clients: MqttClient[], topicOf: (i: number) => string, seconds: number, from: number) {
    const until = performance.now() + seconds * 1000;
    await Promise.all(
        clients.map(async (c, i) => {
            let n = from;
            while (performance.now() < until) await c.publishAsync(topicOf(i), post(n++, i), { qos: 1 });
        }),
    );
}

const group: BenchGroup = {
    name: 'rules',
    async run(): Promise<Figure[]> {
        const { DATABASE_URL: _db, ...env } = process.env;
        const child = spawn(process.execPath, [await compiled('tests/bench/rules/brokerProcess.ts')], {
            cwd: ROOT,
            env: { ...env, DEVICES: String(DEVICES) },
            stdio: ['pipe', 'pipe', 'inherit'],
        });
        const next = lineReader(child);
        const ask = async <T>(cmd: string) => {
            child.stdin!.write(`${cmd}\n`);
            return JSON.parse(await next()) as T;
        };
        const figures: Figure[] = [];
        try {
            const ready = JSON.parse(await next()) as { port: number; devices: Array<[string, string, string]> };
            const clients: MqttClient[] = [];
            for (let i = 0; i < ready.devices.length; i += 100) {
                clients.push(
                    ...(await Promise.all(
                        ready.devices.slice(i, i + 100).map(([productKey, deviceName, secret]) =>
                            mqtt.connectAsync(`mqtt://127.0.0.1:${ready.port}`, {
                                ...alibabaCredentials({ productKey, deviceName, secret }),
                                reconnectPeriod: 0,
                                keepalive: 60,
                            }),
                        ),
                    )),
                );
            }
            const topic = (i: number) => `/sys/${ready.devices[i][0]}/${ready.devices[i][1]}/thing/event/property/post`;
            // Warm-up: connections settled, the thing model cached, the JIT warm.
            await flood(clients, topic, 2, 0);
            const sums = new Map<string, { written: number; evaluated: number; fired: number; seconds: number }>();
            let sent = 100_000;
            for (let round = 0; round < ROUNDS; round++) {
                for (const n of RULES) {
                    await ask(`rules ${n}`);
                    const before = await ask<{ written: number; evaluated: number; fired: number }>('stats');
                    const t0 = performance.now();
                    await flood(clients, topic, SECONDS, sent);
                    sent += 100_000;
                    const seconds = (performance.now() - t0) / 1000;
                    const after = await ask<{ written: number; evaluated: number; fired: number }>('stats');
                    const sum = sums.get(n) ?? { written: 0, evaluated: 0, fired: 0, seconds: 0 };
                    sum.written += after.written - before.written;
                    sum.evaluated += after.evaluated - before.evaluated;
                    sum.fired += after.fired - before.fired;
                    sum.seconds += seconds;
                    sums.set(n, sum);
                }
            }
            const rates = new Map<string, number>();
            for (const n of RULES) {
                const sum = sums.get(n)!;
                const rate = Math.round(sum.written / sum.seconds);
                rates.set(n, rate);
                figures.push({ name: `ingest.rules${n}`, value: rate, unit: 'msg/s' });
                figures.push({
                    name: `evaluations.rules${n}`,
                    value: Math.round(sum.evaluated / sum.seconds),
                    unit: '/s',
                });
                figures.push({ name: `firings.rules${n}`, value: sum.fired, unit: 'firings' });
            }
            // The engine alone, per message (no broker, no database): robust to the machine's other load.
            for (const n of RULES) {
                await ask(`rules ${n}`);
                const { usPerMessage } = await ask<{ usPerMessage: number }>('micro 50000');
                figures.push({ name: `engine.rules${n}`, value: Math.round(usPerMessage * 100) / 100, unit: 'µs/msg' });
            }
            const base = rates.get('0')!;
            for (const n of RULES.slice(1)) {
                figures.push({
                    name: `cost.rules${n}`,
                    value: Math.round(((base - rates.get(n)!) / base) * 1000) / 10,
                    unit: '% of ingest',
                });
            }
            for (const c of clients) c.end(true);
        } finally {
            child.kill('SIGKILL');
        }
        return figures;
    },
};

export default group;
