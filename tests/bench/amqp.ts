import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import mqtt, { type MqttClient } from 'mqtt';
import rhea, { type Connection } from 'rhea';
import { amqpCredentials } from '../../server/amqp/signIn';
import { alibabaCredentials } from '../../server/mqtt/signIn';
import { compiled } from './compiled';
import type { BenchGroup, Figure } from './run';

/**
 * `npm run bench -- amqp`: server-side subscription on the platform in its own process (in-memory PGlite, the broker
 * and the AMQP endpoint, a consumer group subscribed to the demo lamps):
 * - latency at 1,000 msg/s from DEVICES simulated MQTT lamps (QoS 1 property posts, spread over the devices) for
 *   10 s: publish → AMQP receive by one rhea consumer of the group (the subscription path: validation, write, queue
 *   insert, claim, send), beside the same messages' publish → MQTT subscriber on the platform's own broker (each
 *   lamp subscribed to its own post topic), p50 and p99.
 * - the highest sustained delivery rate to one group with 2 consumers: BACKLOG messages put in the group's queue,
 *   then drained by two rhea consumers (credit window 500, accepting each): messages accepted per second.
 */

const ROOT = path.resolve(import.meta.dirname, '../..');
const DEVICES = 200;
const RATE = 1000;
const SECONDS = 10;
const BACKLOG = 100_000;

type Dev = [string, string, string];

function lineReader(child: ChildProcess) {
    const queue: string[] = [];
    const waiters: Array<(l: string) => void> = [];
    createInterface({ input: child.stdout! }).on('line', (l) => {
        const w = waiters.shift();
        if (w) w(l);
        else queue.push(l);
    });
    return () =>
        new Promise<string>((resolve, reject) => {
            const l = queue.shift();
            if (l !== undefined) return resolve(l);
            waiters.push(resolve);
            child.once('exit', (code) => reject(new Error(`process exited (${code})`)));
        });
}

interface Ready {
    mqttPort: number;
    amqpPort: number;
    groupId: number;
    accessKey: string;
    accessSecret: string;
    devices: Dev[];
}

async function startPlatform() {
    const { DATABASE_URL: _db, ...env } = process.env;
    const child = spawn(process.execPath, [await compiled('tests/bench/amqp/platformProcess.ts')], {
        cwd: ROOT,
        env: { ...env, DEVICES: String(DEVICES) },
        stdio: ['pipe', 'pipe', 'inherit'],
    });
    const next = lineReader(child);
    const ready = JSON.parse(await next()) as Ready;
    return {
        ready,
        async ask<T>(command: string): Promise<T> {
            child.stdin!.write(`${command}\n`);
            return JSON.parse(await next()) as T;
        },
        stop: () => child.kill('SIGKILL'),
    };
}

function consumer(ready: Ready, clientId: string, onBody: (body: Buffer) => void, creditWindow = 500) {
    const creds = amqpCredentials({ clientId, consumerGroupId: ready.groupId, ...ready });
    const container = rhea.create_container();
    return new Promise<Connection>((resolve, reject) => {
        const connection = container.connect({
            host: '127.0.0.1',
            port: ready.amqpPort,
            username: creds.username,
            password: creds.password,
            reconnect: false,
        });
        connection.on('connection_error', (c) => reject(c.error));
        const receiver = connection.open_receiver({ source: { address: 'default' }, credit_window: creditWindow });
        receiver.on('message', (c) => {
            const body = c.message?.body as { content?: Buffer } | Buffer;
            onBody(Buffer.isBuffer(body) ? body : (body.content ?? Buffer.alloc(0)));
        });
        receiver.on('receiver_open', () => resolve(connection));
    });
}

const pct = (sorted: number[], p: number) =>
    sorted.length
        ? Math.round(sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] * 10) / 10
        : NaN;

async function connectDevices(port: number, devices: Dev[]): Promise<MqttClient[]> {
    const clients: MqttClient[] = [];
    for (let i = 0; i < devices.length; i += 50) {
        const batch = devices.slice(i, i + 50).map(([productKey, deviceName, secret]) =>
            mqtt.connectAsync(`mqtt://127.0.0.1:${port}`, {
                ...alibabaCredentials({ productKey, deviceName, secret }),
                reconnectPeriod: 0,
                keepalive: 60,
            }),
        );
        clients.push(...(await Promise.all(batch)));
    }
    return clients;
}

async function latency(ready: Ready): Promise<Figure[]> {
    const sentAt = new Map<string, number>();
    const amqpTimes: number[] = [];
    const mqttTimes: number[] = [];
    const idOf = (buf: Buffer) => /"id":"(\d+)"/.exec(buf.toString('utf8'))?.[1] ?? '';
    const connection = await consumer(ready, 'bench-latency', (body) => {
        const t = sentAt.get(idOf(body));
        if (t !== undefined) amqpTimes.push(performance.now() - t);
    });
    const clients = await connectDevices(ready.mqttPort, ready.devices);
    const topics = ready.devices.map(([pk, dn]) => `/sys/${pk}/${dn}/thing/event/property/post`);
    let subscribed = 0;
    await Promise.all(
        clients.map(async (c, i) => {
            // Its own post topic only: the bench process is also every device and the consumer, so it reads no more
            // than it must (the replies are not listened to).
            const granted = await c.subscribeAsync(topics[i], { qos: 0 });
            if (granted[0]?.qos !== 128) subscribed++;
            c.on('message', (_topic, payload) => {
                const t = sentAt.get(idOf(payload));
                if (t === undefined) return;
                mqttTimes.push(performance.now() - t);
            });
        }),
    );
    if (subscribed < clients.length)
        console.log(`amqp: ${clients.length - subscribed} lamps may not subscribe to their own post topic`);

    const total = RATE * SECONDS;
    const start = performance.now();
    const pending: Array<Promise<unknown>> = [];
    for (let n = 0; n < total; n++) {
        const due = start + (n * 1000) / RATE;
        const wait = due - performance.now();
        if (wait > 1) await new Promise((r) => setTimeout(r, wait));
        const i = n % clients.length;
        const id = String(n + 1);
        const payload = JSON.stringify({
            id,
            version: '1.0',
            params: { Brightness: n % 101, LightSwitch: n % 2 },
            method: 'thing.event.property.post',
        });
        sentAt.set(id, performance.now());
        pending.push(clients[i].publishAsync(topics[i], payload, { qos: 1 }));
    }
    await Promise.all(pending);
    const achieved = total / ((performance.now() - start) / 1000);
    const deadline = performance.now() + 30_000;
    while (amqpTimes.length < total && performance.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    for (const c of clients) c.end(true);
    connection.close();
    amqpTimes.sort((a, b) => a - b);
    mqttTimes.sort((a, b) => a - b);
    return [
        { name: 'publishRate', value: Math.round(achieved), unit: 'msg/s' },
        { name: 'amqpReceived', value: amqpTimes.length, unit: `of ${total}` },
        { name: 'amqpLatencyP50', value: pct(amqpTimes, 50), unit: 'ms' },
        { name: 'amqpLatencyP99', value: pct(amqpTimes, 99), unit: 'ms' },
        { name: 'mqttSubscriberLatencyP50', value: pct(mqttTimes, 50), unit: 'ms' },
        { name: 'mqttSubscriberLatencyP99', value: pct(mqttTimes, 99), unit: 'ms' },
        { name: 'mqttReceived', value: mqttTimes.length, unit: `of ${total}` },
    ];
}

async function drain(platform: Awaited<ReturnType<typeof startPlatform>>): Promise<Figure[]> {
    const { backlog } = await platform.ask<{ backlog: number }>(`fill ${BACKLOG}`);
    let received = 0;
    const counts = [0, 0];
    const t0 = performance.now();
    const connections = await Promise.all(
        [0, 1].map((k) =>
            consumer(platform.ready, `bench-drain-${k}`, () => {
                received++;
                counts[k]++;
            }),
        ),
    );
    const deadline = performance.now() + 300_000;
    while (received < backlog && performance.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    const seconds = (performance.now() - t0) / 1000;
    await new Promise((r) => setTimeout(r, 500));
    const stats = await platform.ask<{ backlog: number; rss: number }>('stats');
    for (const c of connections) c.close();
    return [
        { name: 'twoClientDeliveryRate', value: Math.round(received / seconds), unit: 'msg/s' },
        {
            name: 'twoClientShare',
            value: Math.round((Math.min(...counts) / Math.max(1, received)) * 100),
            unit: '% to the lesser',
        },
        { name: 'backlogAfterDrain', value: stats.backlog, unit: 'messages' },
        { name: 'rssAfterDrain', value: Math.round(stats.rss / 1048576), unit: 'MB' },
    ];
}

const group: BenchGroup = {
    name: 'amqp',
    async run() {
        const platform = await startPlatform();
        try {
            return [...(await latency(platform.ready)), ...(await drain(platform))];
        } finally {
            platform.stop();
        }
    },
};

export default group;
