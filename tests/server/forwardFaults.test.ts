import { createServer, type IncomingMessage } from 'node:http';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect as natsConnect } from '@nats-io/transport-node';
import amqp from 'amqplib';
import { Redis } from 'ioredis';
import mqtt from 'mqtt';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../../server/db/rows';
import { createTestServer, type TestServer } from '../../server/testing';
import {
    allArrived,
    checkArrivals,
    postRounds,
    randomName,
    sequenced,
    serviceReachable,
    startSequenceFlow,
    tcpProxy,
    type Arrival,
    type SequencedDevice,
} from './forwardSupport';
import { startBroker, until } from './mqttSupport';
import { lamp, ok, online, type Device } from './rulesSupport';
import { lampProduct } from './telemetrySupport';

/**
 * Data forwarding through a destination that goes away (issue 39): for each kind, the machine's system is reached
 * through a TCP proxy of the test's own; devices post QoS 1 through the platform's broker, the proxy is cut for a
 * couple of seconds while they keep posting, then restored. Every acknowledged post arrives at least once, in order
 * per device, and the duplicates (a batch whose acknowledgement the cut lost, sent again) stay within one batch.
 */

const BATCH = 10;
const HOST = '127.0.0.1';

/** What a test reads back from a destination, and how the flow reaches it (through the proxy's port). */
interface Sink {
    destination(port: number): { kind: string; config: Record<string, unknown> };
    /** What arrived, in the destination's order. */
    arrivals(): Promise<Arrival[]>;
    close(): Promise<void>;
}

interface Kind {
    name: string;
    /** The system's own port (the proxy's target). */
    port: number;
    available: boolean;
    open(): Promise<Sink>;
}

const rowArrival = (row: { dn: unknown; seq: unknown }): Arrival => ({ dn: String(row.dn), seq: Number(row.seq) });
const bodyArrival = (body: string): Arrival => rowArrival(JSON.parse(body).row);

async function postgresSink(): Promise<Sink> {
    const admin = new pg.Client({ connectionString: `postgres://postgres@${HOST}:5432/test` });
    await admin.connect();
    const table = randomName('fwdfault');
    await admin.query(`CREATE TABLE ${table} (n bigserial, dn text, seq int)`);
    return {
        destination: (port) => ({
            kind: 'postgres',
            config: { host: HOST, port, user: 'postgres', password: '', database: 'test', table },
        }),
        arrivals: async () => (await admin.query(`SELECT dn, seq FROM ${table} ORDER BY n`)).rows.map(rowArrival),
        close: async () => {
            await admin.query(`DROP TABLE IF EXISTS ${table}`);
            await admin.end();
        },
    };
}

async function mariadbSink(): Promise<Sink> {
    const admin = await mysql.createConnection({ host: HOST, port: 3306, user: 'root', database: 'test' });
    const table = randomName('fwdfault');
    await admin.query(`CREATE TABLE ${table} (n BIGINT AUTO_INCREMENT PRIMARY KEY, dn VARCHAR(64), seq INT)`);
    return {
        destination: (port) => ({
            kind: 'mysql',
            config: { host: HOST, port, user: 'root', password: '', database: 'test', table },
        }),
        arrivals: async () =>
            (await admin.query<mysql.RowDataPacket[]>(`SELECT dn, seq FROM ${table} ORDER BY n`))[0].map((r) =>
                rowArrival(r as { dn: string; seq: number }),
            ),
        close: async () => {
            await admin.query(`DROP TABLE IF EXISTS ${table}`);
            await admin.end();
        },
    };
}

async function rabbitmqSink(): Promise<Sink> {
    const connection = await amqp.connect(`amqp://guest:guest@${HOST}:5672`);
    const channel = await connection.createChannel();
    const exchange = randomName('fwdfault_ex');
    const queue = randomName('fwdfault_q');
    await channel.assertExchange(exchange, 'topic', { durable: false });
    await channel.assertQueue(queue, { durable: false });
    await channel.bindQueue(queue, exchange, '#');
    const got: Arrival[] = [];
    await channel.consume(queue, (m) => m && got.push(bodyArrival(m.content.toString())), { noAck: true });
    return {
        destination: (port) => ({
            kind: 'rabbitmq',
            config: { host: HOST, port, password: 'guest', exchange, routingKeyTemplate: 'iot.${deviceName}' },
        }),
        arrivals: async () => got,
        close: async () => {
            await channel.deleteQueue(queue);
            await channel.deleteExchange(exchange);
            await connection.close();
        },
    };
}

async function mosquittoSink(): Promise<Sink> {
    const prefix = randomName('fwdfault');
    const subscriber = await mqtt.connectAsync(`mqtt://${HOST}:1883`, { clientId: randomName('fwdfault-sub') });
    const got: Arrival[] = [];
    subscriber.on('message', (_topic, payload) => got.push(bodyArrival(payload.toString())));
    await subscriber.subscribeAsync(`${prefix}/#`, { qos: 1 });
    return {
        destination: (port) => ({
            kind: 'mqtt',
            config: { url: `mqtt://${HOST}:${port}`, topicTemplate: `${prefix}/\${deviceName}`, qos: 1 },
        }),
        arrivals: async () => got,
        close: () => subscriber.endAsync(),
    };
}

async function natsSink(): Promise<Sink> {
    const nc = await natsConnect({ servers: `${HOST}:4222` });
    const jsm = await jetstreamManager(nc);
    const prefix = randomName('fwdfault');
    const stream = randomName('FWDFAULT');
    await jsm.streams.add({ name: stream, subjects: [`${prefix}.>`] });
    return {
        destination: (port) => ({
            kind: 'nats',
            config: { servers: `nats://${HOST}:${port}`, subjectTemplate: `${prefix}.\${deviceName}`, jetstream: true },
        }),
        async arrivals() {
            const last = (await jsm.streams.info(stream)).state.last_seq;
            const got: Arrival[] = [];
            for (let seq = 1; seq <= last; seq++)
                got.push(bodyArrival((await jsm.streams.getMessage(stream, { seq }))!.string()));
            return got;
        },
        close: async () => {
            await jsm.streams.delete(stream);
            await nc.close();
        },
    };
}

async function redisSink(): Promise<Sink> {
    const admin = new Redis({ host: HOST, port: 6379 });
    const key = randomName('fwdfault');
    return {
        destination: (port) => ({ kind: 'redisStream', config: { host: HOST, port, streamTemplate: key } }),
        arrivals: async () =>
            (await admin.xrange(key, '-', '+')).map(([, fields]) => {
                const at = (name: string) => fields[fields.indexOf(name) + 1];
                return rowArrival({ dn: at('dn'), seq: at('seq') });
            }),
        close: async () => {
            await admin.del(key);
            admin.disconnect();
        },
    };
}

/** An HTTP server of the test's own on a free port: what it was posted, in arrival order. */
async function httpSink(): Promise<Sink & { port: number }> {
    const got: Arrival[] = [];
    const server = createServer((req, res) => void text(req).then((b) => (got.push(bodyArrival(b)), res.end('ok'))));
    await new Promise<void>((resolve) => server.listen(0, HOST, resolve));
    return {
        port: (server.address() as { port: number }).port,
        destination: (port) => ({ kind: 'http', config: { url: `http://${HOST}:${port}/hook`, method: 'POST' } }),
        arrivals: async () => got,
        close: () => new Promise<void>((resolve) => server.close(() => resolve())),
    };
}

function text(req: IncomingMessage): Promise<string> {
    return new Promise((resolve) => {
        let body = '';
        req.on('data', (d) => (body += d));
        req.on('end', () => resolve(body));
    });
}

const KINDS: Kind[] = [
    { name: 'PostgreSQL', port: 5432, available: await serviceReachable('PostgreSQL', 5432), open: postgresSink },
    { name: 'MariaDB', port: 3306, available: await serviceReachable('MariaDB', 3306), open: mariadbSink },
    { name: 'RabbitMQ', port: 5672, available: await serviceReachable('RabbitMQ', 5672), open: rabbitmqSink },
    { name: 'Mosquitto', port: 1883, available: await serviceReachable('Mosquitto', 1883), open: mosquittoSink },
    { name: 'NATS JetStream', port: 4222, available: await serviceReachable('NATS', 4222), open: natsSink },
    { name: 'Redis stream', port: 6379, available: await serviceReachable('Redis', 6379), open: redisSink },
    // The HTTP server is the test's own: its port is known once it listens (open() answers it).
    { name: 'HTTP', port: 0, available: true, open: httpSink },
];

describe('forwarding through a destination whose link is cut and restored', () => {
    let s: TestServer;
    let url: string;
    let projectId: number;
    let productKey: string;
    const cleanups: Array<() => Promise<unknown>> = [];

    beforeAll(async () => {
        s = await createTestServer({ forward: { route: { idleMs: 50, batch: BATCH, backoffMs: () => 200 } } });
        const started = await startBroker(s);
        url = started.url;
        cleanups.push(() => started.broker.close());
        projectId = Number(rowsOf<{ id: number }>(await s.db.execute(sql`SELECT min(id) AS id FROM projects`))[0].id);
        productKey = (await lampProduct(s)).productKey;
    }, 120_000);

    afterAll(async () => {
        for (const f of cleanups.reverse()) await f().catch(() => undefined);
        await s?.close();
    });

    /** Three fresh lamps of the flow's project, signed in to the platform's broker. */
    async function lamps(): Promise<SequencedDevice[]> {
        const out: SequencedDevice[] = [];
        for (let i = 0; i < 3; i++) {
            const l = await lamp(s);
            await s.db.execute(sql`UPDATE devices SET project_id = ${projectId} WHERE id = ${l.deviceId}`);
            const device: Device = await online(url, l);
            cleanups.push(async () => device.client.end(true));
            out.push(sequenced(device));
        }
        return out;
    }

    /** A flow selecting each post's device and sequence number, sent to the destination; answers its id. */
    async function flowTo(name: string, destination: { kind: string; config: Record<string, unknown> }) {
        const from = `/sys/${productKey}/+/thing/event/property/post`;
        return startSequenceFlow(s, { projectId, name, from, destination }, cleanups);
    }

    const failures = async (flowId: number) =>
        (await ok<{ figures: { failed: number } }>(s, 'GET', `/api/forward/flow/detail?id=${flowId}`)).figures.failed;

    for (const kind of KINDS)
        it.skipIf(!kind.available)(
            `${kind.name}: every acknowledged post arrives, in order per device, duplicates within one batch`,
            async () => {
                const sink = await kind.open();
                cleanups.push(() => sink.close());
                const proxy = await tcpProxy(kind.port || (sink as Sink & { port: number }).port);
                cleanups.push(() => proxy.close());
                const devices = await lamps();
                const flowId = await flowTo(randomName('断线'), sink.destination(proxy.port));
                const arrived = async () => allArrived(await sink.arrivals(), devices);

                await postRounds(devices, 1, 3);
                await until(arrived, 15_000);
                proxy.cut();
                // The devices keep posting for about two seconds while the destination is out of reach.
                await postRounds(devices, 4, 15, 150);
                await until(async () => (await failures(flowId)) > 0, 10_000);
                expect(await arrived()).toBe(false);
                proxy.restore();
                await postRounds(devices, 16, 20);
                await until(arrived, 30_000);

                const { duplicates, copies } = checkArrivals(await sink.arrivals(), devices);
                for (const d of devices) expect(d.acked).toHaveLength(20);
                // One cut: the batch it interrupted is sent again once, so no post arrives more than twice.
                expect(duplicates).toBeLessThanOrEqual(BATCH);
                expect(copies).toBeLessThanOrEqual(2);
            },
            60_000,
        );
});
