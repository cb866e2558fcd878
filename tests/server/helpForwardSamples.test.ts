import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAdaptorServer } from '@hono/node-server';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect as natsConnect } from '@nats-io/transport-node';
import amqp from 'amqplib';
import { sql } from 'drizzle-orm';
import { Redis } from 'ioredis';
import mqtt from 'mqtt';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../../server/db/rows';
import { kafkaDestination } from '../../server/forward/destinations/kafka';
import { compileFlowSql } from '../../server/forward/sql';
import { createTestServer, TEST_ADMIN_PASSWORD, type TestServer } from '../../server/testing';
import { until } from './forwardSupport';
import { EXAMPLE, helpSamples, run, scratchDir, start, substitute, type Running, type Sample } from './helpSupport';
import { secretOf, startBroker, type Broker } from './mqttSupport';
import { demoDevice } from './telemetrySupport';

/**
 * The help page 数据流转 (docs/help/dataforwarding.md): its samples (```sh forward-test=name```) run as printed against
 * an in-process platform with the demo data and the real services of this machine (PostgreSQL 5432 db test, MariaDB
 * 3306 root, RabbitMQ guest/guest, Mosquitto 1883, NATS with JetStream 4222, Redis 6379), in the page's order: sign-in,
 * SQL debugging, then per destination the preparing sample, the destination and flow made through the API, a property
 * post of the demo lamp, and the reader's command that must show that post's row arrived. Only the platform's ports,
 * the admin password and the names change: `lamp_report` (table, queue, stream, topic prefix) takes a suffix of this
 * run, the MQTT bridge's other broker `broker.example.com` is the machine's Mosquitto, the webhook receiver binds
 * port 0. The Kafka sample is not run: no Kafka broker on these machines (its configuration is checked only).
 */

const PAGE = 'dataforwarding.md';
const NAME = `lamp_report_${randomBytes(4).toString('hex')}`;
const PASSWORD_EXAMPLE = 'admin的密码';
const PROJECT_EXAMPLE = 2;
/** Samples the test knows but does not run, and why. */
const NOT_RUN: Record<string, string> = { 'kafka-flow': '本机没有 Kafka broker：只检查它的目的地配置' };

/** The samples run above (NOT_RUN lists the rest). */
const CHECKED = [
    'signin',
    'debug',
    'pg-table',
    'pg-flow',
    'pg-see',
    'mysql-table',
    'mysql-flow',
    'mysql-see',
    'rabbit-queue',
    'rabbit-flow',
    'rabbit-see',
    'mqtt-flow',
    'mqtt-see',
    'nats-stream',
    'nats-flow',
    'nats-see',
    'redis-flow',
    'redis-see',
    'http-receiver',
    'http-flow',
    'republish-flow',
    'republish-see',
];

const pageSamples = helpSamples().filter((x) => x.file === PAGE);
const samples = pageSamples.filter((x) => x.kind === 'forward-test');

let s: TestServer;
let broker: Broker;
let http: Server;
let mqttPort: number;
let httpPort: number;
let scratch: ReturnType<typeof scratchDir>;
let n = 0;
const running: Running[] = [];

function sample(name: string): Sample {
    const found = samples.find((x) => x.name === name);
    if (!found) throw new Error(`${PAGE} 中没有样例 forward-test=${name}`);
    return found;
}

/** The sample as this run executes it: the platform's ports, the test admin's password, this run's names. */
function prepared(name: string, replace: Record<string, string> = {}): { sample: Sample; code: string } {
    const x = sample(name);
    let code = substitute(x.code, { httpPort, ...(name.startsWith('republish') ? { mqttPort } : {}) });
    const names = { lamp_report: NAME, [PASSWORD_EXAMPLE]: TEST_ADMIN_PASSWORD, 'broker.example.com': '127.0.0.1' };
    for (const [from, to] of Object.entries({ ...names, ...replace })) code = code.split(from).join(to);
    return { sample: x, code };
}

/** Runs the sample to its end; it must exit 0. */
async function runs(name: string, replace?: Record<string, string>, timeoutMs = 40_000): Promise<string> {
    const { sample: x, code } = prepared(name, replace);
    const ran = await run(x, code, scratch.dir, ++n, timeoutMs);
    expect(ran.code, `${x.file}:${x.line} 退出码非 0:\n${ran.output}`).toBe(0);
    return ran.output;
}

/** Runs the reader's look at the destination until it shows `expected` (the forwarding is asynchronous). */
async function shows(name: string, expected: RegExp, timeoutMs = 30_000): Promise<string> {
    let last = '';
    try {
        return await until(async () => {
            last = await runs(name);
            expect(last).toMatch(expected);
            return last;
        }, timeoutMs);
    } catch (err) {
        throw new Error(`${name} 未显示 ${String(expected)}：\n${last}`, { cause: err });
    }
}

function starts(name: string, replace?: Record<string, string>): Running {
    const { sample: x, code } = prepared(name, replace);
    const r = start(x, code, scratch.dir, ++n);
    running.push(r);
    return r;
}

/** The demo lamp posts its brightness, as the user manual's mosquitto_pub sample does. */
async function lampPosts(brightness: number): Promise<void> {
    const client = await mqtt.connectAsync(`mqtt://127.0.0.1:${mqttPort}`, {
        clientId: `${EXAMPLE.productKey}.${EXAMPLE.deviceName}.poster`,
        username: `${EXAMPLE.deviceName}&${EXAMPLE.productKey}`,
        password: EXAMPLE.deviceSecret,
        reconnectPeriod: 0,
    });
    await client.publishAsync(
        `/sys/${EXAMPLE.productKey}/${EXAMPLE.deviceName}/thing/event/property/post`,
        JSON.stringify({
            id: '1',
            version: '1.0',
            params: { Brightness: brightness },
            method: 'thing.event.property.post',
        }),
        { qos: 1 },
    );
    await client.endAsync();
}

/** Posts every second until the listening sample's output shows `expected` (its subscription may come late). */
async function postsUntilHeard(listener: Running, brightness: number, expected: string, timeoutMs = 30_000) {
    const deadline = Date.now() + timeoutMs;
    while (!listener.output().includes(expected)) {
        if (Date.now() > deadline) throw new Error(`未收到“${expected}”:\n${listener.output()}`);
        await lampPosts(brightness);
        await listener.waitFor(expected, 1_000).catch(() => undefined);
    }
}

const flowStarted = (output: string, flow: string) =>
    expect(output).toMatch(new RegExp(`流转规则“${flow}”已启动，规则ID \\d+`));

beforeAll(async () => {
    s = await createTestServer({ forward: { route: { idleMs: 50 } } });
    broker = (await startBroker(s)).broker;
    mqttPort = await broker.listen(0, '127.0.0.1');
    http = createAdaptorServer({ fetch: s.app.fetch }) as Server;
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    httpPort = (http.address() as AddressInfo).port;
    // The page's example values are the fresh demo's: the lamp's keys, and its project's id.
    const lamp = await demoDevice(s, EXAMPLE.deviceName);
    expect(lamp.productKey).toBe(EXAMPLE.productKey);
    expect(await secretOf(s, lamp.deviceId)).toBe(EXAMPLE.deviceSecret);
    const [project] = rowsOf<{ id: number; name: string }>(
        await s.db.execute(
            sql`SELECT p.id, p.name FROM devices d JOIN projects p ON p.id = d.project_id WHERE d.id = ${lamp.deviceId}`,
        ),
    );
    expect(project).toEqual({ id: PROJECT_EXAMPLE, name: '城市照明改造项目' });
    scratch = scratchDir();
}, 120_000);

afterAll(async () => {
    for (const r of running) await r.stop();
    await s?.close();
    await new Promise((r) => http?.close(r));
    await broker?.close();
    scratch?.remove();
    await dropEverything();
}, 30_000);

/** This run's table, queue, stream and keys, from each service (what a sample could not make is skipped). */
async function dropEverything() {
    const quietly = (work: () => Promise<unknown>) => work().catch(() => undefined);
    await quietly(async () => {
        const client = new pg.Client({ connectionString: 'postgres://postgres@127.0.0.1:5432/test' });
        await client.connect();
        await client.query(`DROP TABLE IF EXISTS ${NAME}`).finally(() => client.end());
    });
    await quietly(async () => {
        const db = await mysql.createConnection({ host: '127.0.0.1', port: 3306, user: 'root', database: 'test' });
        await db.query(`DROP TABLE IF EXISTS ${NAME}`).finally(() => db.end());
    });
    await quietly(async () => {
        const connection = await amqp.connect('amqp://guest:guest@127.0.0.1:5672');
        const channel = await connection.createChannel();
        await channel.deleteQueue(NAME).finally(() => connection.close());
    });
    await quietly(async () => {
        const nc = await natsConnect({ servers: 'nats://127.0.0.1:4222' });
        await (await jetstreamManager(nc)).streams.delete(NAME).finally(() => nc.close());
    });
    await quietly(async () => {
        const redis = new Redis({ host: '127.0.0.1', port: 6379, lazyConnect: true });
        await redis.connect();
        await redis.del(`${NAME}:${EXAMPLE.deviceName}`).finally(() => redis.disconnect());
    });
}

describe('help page 数据流转: every sample runs against the platform and the real services', () => {
    it('knows every sample of the page, and the page has no other command or program', () => {
        const known = [...CHECKED, ...Object.keys(NOT_RUN)];
        expect(samples.map((x) => x.name).sort()).toEqual([...known].sort());
        const unmarked = pageSamples.filter(
            (x) => ['sh', 'js', 'python'].includes(x.lang) && x.kind !== 'forward-test',
        );
        expect(unmarked.map((x) => `${x.file}:${x.line}`)).toEqual([]);
        for (const x of pageSamples.filter((y) => y.lang === 'json')) expect(() => JSON.parse(x.code)).not.toThrow();
    });

    it('signin: signs in as admin and lists the destination kinds', async () => {
        const output = await runs('signin');
        for (const label of ['PostgreSQL 数据表', 'MySQL / MariaDB 数据表', 'Redis Stream', 'NATS / JetStream'])
            expect(output).toContain(label);
    });

    it('the SQL examples compile and select a message of the kind they name', () => {
        const statements = pageSamples.filter((x) => x.lang === 'sql');
        expect(statements.length).toBeGreaterThanOrEqual(3);
        for (const x of statements) {
            const flow = compileFlowSql(x.code, { timeZone: s.config.timeZone });
            const topic = /FROM\s+"([^"]+)"/.exec(x.code)![1].replace('+', EXAMPLE.deviceName);
            const row = flow.run({
                topic,
                productKey: EXAMPLE.productKey,
                deviceName: EXAMPLE.deviceName,
                messageId: '1',
                timestamp: Date.now(),
                payload: {
                    params: { Brightness: 70, ActivePower: 1500 },
                    items: { Brightness: { value: 70, time: 1 }, ActivePower: { value: 1500, time: 1 } },
                    value: { FaultCode: 1 },
                },
            });
            expect(row, `${x.file}:${x.line}`).toBeTruthy();
        }
    });

    it('debug: the answer is the one the page shows, and a dim lamp is not selected', async () => {
        const answer = JSON.parse(await runs('debug')) as { code: number; data: { selected: boolean; row: unknown } };
        const shown = pageSamples.find((x) => x.lang === 'json' && x.line > sample('debug').line)!;
        expect(answer.code).toBe(200);
        expect({ selected: answer.data.selected, row: answer.data.row }).toEqual(JSON.parse(shown.code));
        const dim = JSON.parse(await runs('debug', { ': 70': ': 20' })) as typeof answer;
        expect(dim.data).toMatchObject({ selected: false, row: null });
    });

    it("PostgreSQL: the table gets the lamp's row with its time and record id", async () => {
        await runs('pg-table');
        flowStarted(await runs('pg-flow'), '路灯亮度入库');
        await lampPosts(11);
        await shows('pg-see', /SL-BJ-0001 \|\s+11 \| \d{4}-\d\d-\d\d [\d:.]+[+-]\d\d \| \d+-\d+/);
    }, 120_000);

    it("MySQL / MariaDB: the table gets the lamp's row with its time and record id", async () => {
        await runs('mysql-table');
        flowStarted(await runs('mysql-flow'), '路灯亮度入 MariaDB');
        await lampPosts(12);
        await shows('mysql-see', /SL-BJ-0001\t12\t\d{4}-\d\d-\d\d [\d:.]+\t\d+-\d+/);
    }, 120_000);

    it('RabbitMQ: the bound queue gets the record, routed by product and device', async () => {
        expect(await runs('rabbit-queue')).toContain(`队列 ${NAME} 已绑定到 amq.topic`);
        flowStarted(await runs('rabbit-flow'), '路灯亮度到 RabbitMQ');
        await lampPosts(13);
        const output = await shows('rabbit-see', /"brightness":13/);
        expect(output).toMatch(
            new RegExp(
                `^${NAME}\\.a1LampDemo7\\.SL-BJ-0001 (\\d+-\\d+) \\{"id":"\\1",.*"row":\\{"device":"SL-BJ-0001","brightness":13\\}\\}$`,
                'm',
            ),
        );
    }, 120_000);

    it('MQTT bridge: a subscriber on the other broker (Mosquitto) gets the record', async () => {
        flowStarted(await runs('mqtt-flow'), '路灯亮度桥接');
        const listener = starts('mqtt-see');
        await postsUntilHeard(listener, 14, '"brightness":14');
        const ran = await listener.done;
        expect(ran.code, ran.output).toBe(0);
        expect(ran.output).toMatch(new RegExp(`^${NAME}/a1LampDemo7/SL-BJ-0001 \\{"id":`, 'm'));
    }, 120_000);

    it('NATS JetStream: the stream holds the record, its Nats-Msg-Id the record id', async () => {
        expect(await runs('nats-stream')).toContain(`JetStream 流 ${NAME} 已创建`);
        flowStarted(await runs('nats-flow'), '路灯亮度到 JetStream');
        await lampPosts(16);
        const output = await shows('nats-see', /"brightness":16/);
        expect(output).toMatch(new RegExp(`^${NAME}\\.a1LampDemo7\\.SL-BJ-0001 (\\d+-\\d+) \\{"id":"\\1",`, 'm'));
    }, 120_000);

    it("Redis Stream: the device's stream holds the selected fields and the record's own", async () => {
        flowStarted(await runs('redis-flow'), '路灯亮度到 Redis');
        await lampPosts(17);
        const output = await shows('redis-see', /^brightness\n17\n/m);
        expect(output).toMatch(
            /^device\nSL-BJ-0001\nbrightness\n17\n_id\n\d+-\d+\n_device\na1LampDemo7\/SL-BJ-0001\n_ts\n\d{13}$/m,
        );
    }, 120_000);

    it('HTTP: the receiver checks the signature, prints the record, and refuses a forged one', async () => {
        const receiver = starts('http-receiver', { "('127.0.0.1', 9000)": "('127.0.0.1', 0)" });
        await receiver.waitFor('接收端已启动', 20_000);
        const port = /接收端已启动：http:\/\/127\.0\.0\.1:(\d+)\/hook/.exec(receiver.output())![1];
        flowStarted(await runs('http-flow', { '127.0.0.1:9000': `127.0.0.1:${port}` }), '路灯亮度推送');
        await lampPosts(18);
        await receiver.waitFor('{"device": "SL-BJ-0001", "brightness": 18}', 30_000);
        expect(receiver.output()).toMatch(/^签名正确 \d+-\d+ \{"device": "SL-BJ-0001", "brightness": 18\}$/m);
        const forged = await fetch(`http://127.0.0.1:${port}/hook`, {
            method: 'POST',
            headers: { 'x-signature': `sha256=${'0'.repeat(64)}` },
            body: '{"row":{}}',
        });
        expect(forged.status).toBe(401);
        await receiver.waitFor('签名不符，已拒绝');
    }, 120_000);

    it('republish: the device gets its reminder on its user/get topic', async () => {
        flowStarted(await runs('republish-flow'), '亮度过高提醒');
        const output = await runs('republish-see');
        expect(output).toContain(
            '收到平台转发: /a1LampDemo7/SL-BJ-0001/user/get {"device":"SL-BJ-0001","brightness":95,"notice":"亮度过高"}',
        );
    }, 120_000);

    it('Kafka (not run, no broker here): the configuration the sample saves is one the platform accepts', async () => {
        const config = /kafka '(\{[\s\S]*?\})'\)/.exec(sample('kafka-flow').code)![1];
        await expect(kafkaDestination.schema.validate(JSON.parse(config))).resolves.toMatchObject({ acks: -1 });
    });
});
