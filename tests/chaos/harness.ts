import { readFileSync, writeFileSync } from 'node:fs';
import mqtt, { type MqttClient } from 'mqtt';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import pg from 'pg';
import rhea, { type Connection, type EventContext } from 'rhea';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { amqpCredentials } from '../../server/amqp/signIn';
import { alibabaCredentials } from '../../server/mqtt/signIn';
import { until } from '../server/mqttSupport';
import { takeTurnOnRedis } from '../server/redisTurn';
import {
    createCluster,
    freePort,
    servicesAvailable,
    startHaproxy,
    type Haproxy,
    type ServerProcess,
} from '../server/spawnServer';
import { startProxy, type FaultProxy } from './proxy';

/**
 * One fault-injection scenario's platform: three server processes behind HAProxy (docs/deployment/haproxy.cfg), on a
 * PostgreSQL database and a Redis database of their own reached through FaultProxy links the test owns, DEVICES
 * devices posting QoS 1 through HAProxy every POST_MS (Alibaba sign-in, persistent sessions), an AMQP consumer of
 * their posts on the first process (reconnecting, as a consumer would), and a simulation of SIM_DEVICES devices run
 * by the third. A sampler watches every process's figures while the scenario runs; `verdict()` checks the issue's
 * invariants (docs/deployment.md "What the platform promises under faults").
 */

export const PG_URL = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
export const REDIS_URL = process.env.CHAOS_REDIS_URL || 'redis://127.0.0.1:6379/13';
export const NODE_TIMEOUT_S = 4;
export const DEVICES = 60;
export const POST_MS = 1_000;
const SIM_DEVICES = 2;
const METRICS_TOKEN = 'chaos-metrics-token';
/** A device message's key: (device index + 1) × KEY_SPAN + its sequence, sent as the payload id and as its time. */
const KEY_SPAN = 1_000_000;
const RSS_BOUND_MB = 100;

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface Figures {
    scenario: string;
    acknowledged: number;
    stored: number;
    /** Rows beyond the first of an acknowledged message (stored more than once). */
    duplicates: number;
    /** Acknowledged but not stored. */
    lost: number;
    delivered: number;
    undelivered: number;
    /** From the fault's end until every connected device is connected and ONLINE on a living member, ms. */
    recoverMs: number | null;
    /** Samples where the processes counted more connections than devices exist (a device on two processes). */
    doubleConnected: string[];
    /** Samples where a simulation ran on two processes at once. */
    simulationTwice: string[];
    /** RSS after recovery minus before the fault, MB, per process not restarted. */
    rssGrowthMb: number[];
    /** Messages sent that were never acknowledged. */
    unanswered: number;
    /** Processes that exited though the scenario did not stop them: how, and their last lines. */
    exited: string[];
}

interface Sample {
    at: number;
    connections: number;
    expected: number;
    simulations: Map<number, number>;
}

export class ChaosPlatform {
    readonly cluster;
    pgProxy!: FaultProxy;
    redisProxy!: FaultProxy;
    readonly nodes: ServerProcess[] = [];
    /** Processes stopped by SIGSTOP (not sampled: their figures cannot change while stopped). */
    readonly paused = new Set<number>();
    /** Processes restarted during the scenario (their memory has no baseline). */
    readonly restarted = new Set<number>();
    haproxy!: Haproxy;
    db!: pg.Client;
    productKey = '';
    deviceRows: Array<{ id: number; name: string; secret: string }> = [];
    readonly clients: MqttClient[] = [];
    /** Clients a scenario connects beside the DEVICES lamps (the flood's). */
    readonly extraClients: MqttClient[] = [];
    readonly acked = new Set<number>();
    /** Payload ids delivered to the AMQP consumer, and how many deliveries in all. */
    readonly received = new Set<number>();
    deliveries = 0;
    /** What the consumer's connection went through, with the time since the start: read when a delivery is missing. */
    readonly consumerEvents: string[] = [];
    lastDeliveryAt = 0;
    pending = 0;
    sent = 0;
    posting = true;
    simulationId = 0;
    readonly samples: Sample[] = [];
    private readonly ports = { http: [0, 0, 0], mqtt: [0, 0, 0] };
    private readonly timers: NodeJS.Timeout[] = [];
    private amqp: Connection | undefined;
    private sampling = false;
    private sampler: Promise<void> | undefined;
    private readonly t0 = Date.now() - 120_000;
    private readonly started = Date.now();
    private rssBefore: number[] = [];

    constructor(
        readonly name: string,
        private readonly extraEnv: Record<string, string> = {},
    ) {
        this.cluster = createCluster(`iot_chaos_${name}`);
    }

    env(i: number): Record<string, string> {
        return {
            DATABASE_URL: this.pgProxy.url(this.cluster.databaseUrl()),
            REDIS_URL: this.redisProxy.url(REDIS_URL),
            PORT: String(this.ports.http[i]),
            MQTT_PORT: String(this.ports.mqtt[i]),
            NODE_TIMEOUT: String(NODE_TIMEOUT_S),
            DRAIN_DELAY: '2500',
            METRICS_TOKEN,
            // The scenario's own devices and one simulation: the live demo's would blur the counts.
            DEMO_LIVE: '0',
            ...this.extraEnv,
        };
    }

    startNode(i: number): Promise<ServerProcess> {
        return this.cluster.start({ waitForSeed: i === 0, amqp: true, env: this.env(i) });
    }

    /** Proxies, three processes, HAProxy, the consumer, the devices and the simulation. */
    async start(): Promise<void> {
        const started = Date.now();
        this.pgProxy = await startProxy(PG_URL, 'postgres');
        this.redisProxy = await startProxy(REDIS_URL, 'redis');
        for (let i = 0; i < 3; i++) {
            this.ports.http[i] = await freePort();
            this.ports.mqtt[i] = await freePort();
        }
        const { Redis } = await import('ioredis');
        const redis = new Redis(REDIS_URL);
        await redis.flushdb();
        await redis.quit();
        this.nodes.push(await this.startNode(0));
        this.nodes.push(...(await Promise.all([this.startNode(1), this.startNode(2)])));
        this.haproxy = await startHaproxy(this.ports.http.map((http, i) => ({ http, mqtt: this.ports.mqtt[i] })));
        await until(() => this.haproxy.allUp(), 60_000).catch((err) => {
            throw new Error(`HAProxy did not see three ready processes: ${String(err)}\n${this.haproxy.log()}`);
        });
        const direct = new URL(PG_URL);
        direct.pathname = `/${this.cluster.database}`;
        this.db = new pg.Client({ connectionString: direct.toString() });
        await this.db.connect();
        await this.subscribe();
        await this.insertDevices();
        // Every process reads the new subscription (routes refresh every 3 s) before the first post.
        await sleep(4_000);
        await this.connectDevices();
        await this.startSimulation();
        this.startSampling();
        console.log(`chaos ${this.name}: platform up in ${Math.round((Date.now() - started) / 1000)} s`);
    }

    /** A consumer group subscribed to the lamps' property posts, and a consumer of it on the first process. */
    private async subscribe(): Promise<void> {
        const first = this.nodes[0];
        const key = (await first.api('POST', '/api/accessKey/create')).data as {
            accessKey: string;
            accessSecret: string;
        };
        const products = (await first.api('GET', '/api/subscription/products')).data as unknown as Array<{
            productKey: string;
            productName: string;
            projectCode: string;
        }>;
        const lamp = products.find((p) => p.productName.startsWith('智能路灯'))!;
        this.productKey = lamp.productKey;
        const group = await first.api('POST', '/api/consumerGroup/save', {
            projectCode: lamp.projectCode,
            name: 'chaos',
        });
        const groupId = Number(group.data.id);
        const saved = await first.api('POST', '/api/subscription/save', {
            projectCode: lamp.projectCode,
            productKey: this.productKey,
            group: String(groupId),
            message: 'post',
        });
        expect(saved.code, saved.msg).toBe(200);
        const creds = amqpCredentials({ clientId: `chaos-${this.name}`, ...key, consumerGroupId: groupId });
        this.amqp = rhea.create_container().connect({
            host: '127.0.0.1',
            port: first.amqpPort,
            username: creds.username,
            password: creds.password,
            reconnect: true,
            initial_reconnect_delay: 200,
            max_reconnect_delay: 1_000,
        });
        this.amqp.on('message', (context) => {
            this.deliveries++;
            this.lastDeliveryAt = Date.now();
            const body = context.message?.body as { content?: Buffer } | Buffer | string;
            const text = Buffer.isBuffer(body)
                ? body.toString()
                : typeof body === 'string'
                  ? body
                  : String(body?.content);
            const id = Number((JSON.parse(text) as { id?: string }).id);
            if (id >= KEY_SPAN) this.received.add(id);
        });
        const note = (what: string) => this.consumerEvents.push(`${this.clock()} ${what}`);
        const why = (c: EventContext) => {
            const e = (c.error ?? c.connection.error) as { condition?: string; description?: string } | undefined;
            return e ? ` ${e.condition ?? ''} ${e.description ?? String(e)}` : '';
        };
        this.amqp.on('error', (c) => note(`error${why(c as EventContext)}`));
        this.amqp.on('connection_error', (c) => note(`connection_error${why(c)}`));
        this.amqp.on('disconnected', (c) => note(`disconnected${why(c)} reconnecting=${String(c.reconnecting)}`));
        this.amqp.on('connection_open', () => note('connection_open'));
        this.amqp.on('receiver_open', () => note('receiver_open'));
        this.amqp.on('receiver_close', (c) => note(`receiver_close${why(c)}`));
        const opened = new Promise<void>((resolve) => this.amqp!.once('receiver_open', () => resolve()));
        this.amqp.open_receiver({ source: { address: 'default' } });
        await opened;
    }

    /** DEVICES lamps, written as the device import would. */
    private async insertDevices(): Promise<void> {
        const tag = this.name.replace(/\W/g, '').slice(0, 6);
        const inserted = await this.db.query<{ id: string; device_name: string; secret: string }>(
            `INSERT INTO devices (product_id, device_name, username, client_id, secret)
             SELECT p.id, $3 || lpad(g::text, 4, '0'), $3 || lpad(g::text, 4, '0') || '&' || p.product_key,
                    p.product_key || '.' || $3 || lpad(g::text, 4, '0'), 'secret' || g
             FROM products p, generate_series(1, $2::int) g WHERE p.product_key = $1
             RETURNING id, device_name, secret`,
            [this.productKey, DEVICES, `ch${tag}`],
        );
        this.deviceRows = inserted.rows
            .map((r) => ({ id: Number(r.id), name: r.device_name, secret: r.secret }))
            .sort((a, b) => a.name.localeCompare(b.name));
    }

    private async connectDevices(): Promise<void> {
        for (let i = 0; i < DEVICES; i += 20) {
            await Promise.all(Array.from({ length: Math.min(20, DEVICES - i) }, (_, k) => this.device(i + k)));
        }
        await until(() => this.acked.size >= DEVICES, 60_000).catch(() => {
            throw new Error(`${this.acked.size} of ${DEVICES} first posts acknowledged in 60 s`);
        });
    }

    /** An MQTT client of the lamp `row` through HAProxy: persistent session, reconnecting every second. */
    connectThroughLb(row: { name: string; secret: string }): MqttClient {
        const creds = alibabaCredentials(
            { productKey: this.productKey, deviceName: row.name, secret: row.secret },
            { timestamp: null },
        );
        const client = mqtt.connect(`mqtt://127.0.0.1:${this.haproxy.mqtt}`, {
            ...creds,
            clean: false,
            reconnectPeriod: 1_000,
            connectTimeout: 10_000,
            keepalive: 5,
        });
        client.on('error', () => undefined);
        return client;
    }

    /** Device i connects and posts every POST_MS; each acknowledged (PUBACK'd) key is kept. */
    private device(i: number): Promise<MqttClient> {
        const row = this.deviceRows[i];
        const client = this.connectThroughLb(row);
        this.clients[i] = client;
        let seq = 0;
        const topic = `/sys/${this.productKey}/${row.name}/thing/event/property/post`;
        const post = () => {
            if (!this.posting) return;
            seq++;
            const key = (i + 1) * KEY_SPAN + seq;
            const payload = JSON.stringify({
                id: String(key),
                params: { Brightness: { value: seq % 100, time: this.t0 + seq } },
            });
            this.publish(client, topic, payload, key);
        };
        return new Promise((resolve, reject) => {
            const timer = setTimeout(() => reject(new Error(`device ${row.name} did not connect`)), 60_000);
            client.once('connect', () => {
                clearTimeout(timer);
                setTimeout(() => {
                    post();
                    this.timers.push(setInterval(post, POST_MS));
                }, Math.random() * POST_MS);
                resolve(client);
            });
        });
    }

    /** A QoS 1 publish counted as sent, and as acknowledged (key, when given) when its PUBACK comes. */
    publish(client: MqttClient, topic: string, payload: string, key?: number): Promise<boolean> {
        this.sent++;
        this.pending++;
        return client.publishAsync(topic, payload, { qos: 1 }).then(
            () => {
                if (key !== undefined) this.acked.add(key);
                this.pending--;
                return true;
            },
            () => {
                this.pending--;
                return false;
            },
        );
    }

    /** A simulation of SIM_DEVICES lamps, started on the third process (it runs it). */
    private async startSimulation(): Promise<void> {
        const saved = await this.nodes[2].api('POST', '/api/simulation/save', {
            productKey: this.productKey,
            amount: SIM_DEVICES,
            intervalSeconds: 1,
            mode: 'random',
            start: 'true',
        });
        expect(saved.code, saved.msg).toBe(200);
        this.simulationId = Number(saved.data.id);
        await until(async () => (await this.simulationsActive(this.nodes[2])).includes(this.simulationId), 30_000);
    }

    async simulationsActive(node: ServerProcess): Promise<number[]> {
        const list = await node.api('GET', '/api/simulation/list?pageNumber=1&pageSize=50');
        const records = list.data.records as Array<{ id: number; active: boolean }>;
        return records.filter((r) => r.active).map((r) => Number(r.id));
    }

    async connectionsOf(node: ServerProcess): Promise<number> {
        const res = await fetch(`${node.url}/metrics`, {
            headers: { authorization: `Bearer ${METRICS_TOKEN}` },
            signal: AbortSignal.timeout(1_500),
        });
        const families = parsePrometheusTextFormat(await res.text());
        return Number(families.find((f) => f.name === 'iot_mqtt_connections')!.metrics[0].value);
    }

    /**
     * Every 500 ms, each running process's connection count and the simulations it runs. A process that does not
     * answer within 1.5 s (stopped, stalled, restarting) is left out of that sample.
     */
    private startSampling(): void {
        this.sampling = true;
        const round = async () => {
            const live = this.nodes.filter((n, i) => !this.paused.has(i) && n.child.exitCode === null);
            const answers = await Promise.all(
                live.map(async (n) => {
                    try {
                        const [connections, active] = await Promise.all([
                            this.connectionsOf(n),
                            this.simulationsActive(n),
                        ]);
                        return { connections, active };
                    } catch {
                        return undefined;
                    }
                }),
            );
            const simulations = new Map<number, number>();
            let connections = 0;
            for (const a of answers) {
                if (!a) continue;
                connections += a.connections;
                for (const id of a.active) simulations.set(id, (simulations.get(id) ?? 0) + 1);
            }
            this.samples.push({
                at: Date.now(),
                connections,
                expected: this.devicesAlive() + SIM_DEVICES,
                simulations,
            });
        };
        this.sampler = (async () => {
            while (this.sampling) {
                await round();
                await sleep(500);
            }
        })();
    }

    /** Test devices not deliberately stopped (a scenario may stop some). */
    devicesAlive(): number {
        return [...this.clients, ...this.extraClients].filter((c) => c && !c.disconnecting && !c.disconnected).length;
    }

    /** Seconds since the platform's start, for the consumer's events. */
    clock(): string {
        return `${((Date.now() - this.started) / 1000).toFixed(1)} s`;
    }

    /** Why messages were not delivered: the consumer's events and the first process's lines about AMQP. */
    deliveryReport(): string {
        const amqpLines = (this.nodes[0]?.output() ?? '')
            .split('\n')
            .filter((l) => /AMQP|amqp|消费者|节点|fence|隔离/.test(l))
            .slice(-30);
        return [
            `last delivery ${this.lastDeliveryAt ? `${((this.lastDeliveryAt - this.started) / 1000).toFixed(1)} s` : 'never'}, ${this.deliveries} deliveries, now ${this.clock()}`,
            'consumer events:',
            ...this.consumerEvents.slice(-30).map((e) => `  ${e}`),
            'the first process on AMQP:',
            ...amqpLines.map((l) => `  ${l}`),
        ].join('\n');
    }

    /** The processes not stopped by the scenario (`restarted`) that are no longer running, with their last lines. */
    unexpectedExits(): string[] {
        return this.nodes.flatMap((n, i) => {
            if (this.restarted.has(i) || (n.child.exitCode === null && n.child.signalCode === null)) return [];
            const last = n.output().trimEnd().split('\n').slice(-15).join('\n    ');
            return [`process ${i} exited (code ${n.child.exitCode}, signal ${n.child.signalCode}):\n    ${last}`];
        });
    }

    rss(): number[] {
        return this.nodes.map((n) => {
            try {
                const status = readFileSync(`/proc/${n.child.pid}/status`, 'utf8');
                return Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024);
            } catch {
                return 0;
            }
        });
    }

    /** The memory baseline, taken before the fault. */
    markBefore(): void {
        this.rssBefore = this.rss();
    }

    /**
     * Waits until every device client is connected and its device ONLINE on a living member (heartbeat within
     * NODE_TIMEOUT), for at most NODE_TIMEOUT + 10 s: the time from `since` (the fault's end), or null.
     */
    async recovered(since: number): Promise<number | null> {
        const deadline = since + NODE_TIMEOUT_S * 1000 + 10_000;
        const ids = this.deviceRows.map((d) => d.id);
        while (Date.now() < deadline) {
            if (this.clients.every((c) => c.connected)) {
                // A member's id carries its process id (host-pid-random): ONLINE on a process that runs now.
                const running = this.nodes.filter((n) => n.child.exitCode === null && n.child.signalCode === null);
                const rows = await this.db.query<{ n: number }>(
                    `SELECT count(*)::int AS n FROM devices d
                     WHERE d.id = ANY($1::bigint[]) AND d.status = 'ONLINE' AND EXISTS (
                         SELECT 1 FROM cluster_nodes n WHERE n.node_id = d.node_id
                             AND n.heartbeat_at >= now() - make_interval(secs => $2)
                             AND n.node_id LIKE ANY($3::text[]))`,
                    [ids, NODE_TIMEOUT_S, running.map((n) => `%-${n.child.pid}-%`)],
                );
                if (rows.rows[0].n === ids.length) return Date.now() - since;
            }
            await sleep(200);
        }
        return null;
    }

    /** Which devices are not connected or not ONLINE now (for the report when recovery did not come). */
    async notRecovered(): Promise<string> {
        const disconnected = this.clients.filter((c) => !c.connected).length;
        const rows = await this.db.query<{ status: string; n: number }>(
            `SELECT d.status || CASE WHEN d.status <> 'ONLINE' THEN ''
                        WHEN n.node_id IS NULL THEN ' on a member that is gone'
                        WHEN n.heartbeat_at < now() - make_interval(secs => $2) THEN ' on a silent member'
                        ELSE '' END AS status, count(*)::int AS n
             FROM devices d LEFT JOIN cluster_nodes n ON n.node_id = d.node_id
             WHERE d.id = ANY($1::bigint[]) GROUP BY 1`,
            [this.deviceRows.map((d) => d.id), NODE_TIMEOUT_S],
        );
        return `${disconnected} clients disconnected; devices by status: ${rows.rows.map((r) => `${r.status} ${r.n}`).join(', ')}`;
    }

    /** Stops posting, waits for every sent message's answer and the consumer, and measures the invariants. */
    async verdict(recoverMs: number | null): Promise<Figures> {
        // Memory once the platform is back, before the final drain.
        await sleep(2_000);
        const rssAfter = this.rss();
        this.posting = false;
        for (const t of this.timers) clearInterval(t);
        await until(() => this.pending === 0, 30_000).catch(() => undefined);
        this.sampling = false;
        await this.sampler;
        const stored = await this.storedKeys();
        const lost = [...this.acked].filter((k) => !stored.has(k));
        const duplicates = [...this.acked].reduce((n, k) => n + Math.max(0, (stored.get(k) ?? 0) - 1), 0);
        const storedAcked = [...this.acked].filter((k) => stored.has(k));
        await until(() => storedAcked.every((k) => this.received.has(k)), 30_000).catch(() => undefined);
        const undelivered = storedAcked.filter((k) => !this.received.has(k)).length;
        const at = (s: Sample) => new Date(s.at).toISOString().slice(11, 23);
        return {
            scenario: this.name,
            acknowledged: this.acked.size,
            stored: [...stored.values()].reduce((a, b) => a + b, 0),
            duplicates,
            lost: lost.length,
            delivered: storedAcked.length - undelivered,
            undelivered,
            recoverMs,
            doubleConnected: this.samples
                .filter((s) => s.connections > s.expected)
                .map((s) => `${at(s)} ${s.connections} connections for ${s.expected} devices`),
            simulationTwice: this.samples
                .filter((s) => [...s.simulations.values()].some((n) => n > 1))
                .map((s) => `${at(s)} ${[...s.simulations].map(([id, n]) => `simulation ${id} on ${n}`).join(', ')}`),
            exited: this.unexpectedExits(),
            rssGrowthMb: rssAfter
                .map((mb, i) => (this.restarted.has(i) ? NaN : mb - this.rssBefore[i]))
                .filter((d) => !Number.isNaN(d)),
            unanswered: this.pending,
        };
    }

    /** Rows stored per key of the DEVICES lamps' posts (the key is in the message's time). */
    async storedKeys(): Promise<Map<number, number>> {
        const byId = new Map(this.deviceRows.map((d, i) => [d.id, i]));
        const rows = await this.db.query<{ device_id: string; ms: string }>(
            `SELECT device_id, (extract(epoch FROM ts) * 1000)::bigint AS ms FROM device_messages
             WHERE method = 'thing.event.property.post' AND device_id = ANY($1::bigint[])`,
            [this.deviceRows.map((d) => d.id)],
        );
        const out = new Map<number, number>();
        for (const r of rows.rows) {
            const key = (byId.get(Number(r.device_id))! + 1) * KEY_SPAN + (Number(r.ms) - this.t0);
            out.set(key, (out.get(key) ?? 0) + 1);
        }
        return out;
    }

    async close(): Promise<void> {
        this.posting = false;
        this.sampling = false;
        for (const t of this.timers) clearInterval(t);
        for (const i of this.paused) this.nodes[i]?.child.kill('SIGCONT');
        for (const c of [...this.clients, ...this.extraClients]) c?.end(true);
        this.amqp?.close();
        await this.db?.end().catch(() => undefined);
        this.haproxy?.stop();
        await this.cluster.close();
        await this.pgProxy?.close();
        await this.redisProxy?.close();
    }
}

/** The figures, printed on one line, then each invariant checked (softly: every broken one is reported). */
export function checkInvariants(f: Figures): void {
    console.log(
        `chaos ${f.scenario}: acknowledged ${f.acknowledged}, stored ${f.stored} (lost ${f.lost}, duplicates ` +
            `${f.duplicates}), delivered ${f.delivered} (undelivered ${f.undelivered}), time to recover ` +
            `${f.recoverMs === null ? `over ${NODE_TIMEOUT_S + 10} s` : `${f.recoverMs} ms`}, RSS growth ` +
            `${f.rssGrowthMb.join('/')} MB, unanswered ${f.unanswered}, double-connected samples ` +
            `${f.doubleConnected.length}, simulation-twice samples ${f.simulationTwice.length}`,
    );
    for (const line of [...f.doubleConnected, ...f.simulationTwice].slice(0, 10))
        console.log(`chaos ${f.scenario}: ${line}`);
    for (const exit of f.exited) console.log(`chaos ${f.scenario}: ${exit}`);
    expect.soft(f.exited.length, 'processes that exited without being stopped (they crashed)').toBe(0);
    expect.soft(f.lost, 'acknowledged but not stored').toBe(0);
    expect.soft(f.duplicates, 'acknowledged messages stored more than once').toBe(0);
    expect.soft(f.undelivered, 'stored but never delivered to the AMQP consumer').toBe(0);
    expect.soft(f.recoverMs, `every device connected and ONLINE within NODE_TIMEOUT + 10 s`).not.toBeNull();
    expect.soft(f.doubleConnected.slice(0, 5), 'more connections than devices (a device on two processes)').toEqual([]);
    expect.soft(f.simulationTwice.slice(0, 5), 'a simulation running on two processes').toEqual([]);
    for (const mb of f.rssGrowthMb) expect.soft(mb, `RSS back within ${RSS_BOUND_MB} MB`).toBeLessThan(RSS_BOUND_MB);
}

/**
 * A scenario file's one test: the platform started, SETTLE_MS of steady posting, the memory baseline, then `fault`
 * (which answers when the fault ended), the recovery timed from there, and the invariants checked. Skipped without
 * PostgreSQL, Redis or haproxy, except under REQUIRE_SERVICES (CI), where their absence fails the file.
 */
export async function scenario(
    name: string,
    title: string,
    fault: (p: ChaosPlatform) => Promise<number>,
    options: { env?: Record<string, string>; extra?: (p: ChaosPlatform, f: Figures) => Promise<void> } = {},
): Promise<void> {
    const enabled = await servicesAvailable(`chaos/${name}`, { postgres: true, redisUrl: REDIS_URL, haproxy: true });
    describe.skipIf(!enabled)(`chaos: ${title}`, () => {
        const p = new ChaosPlatform(name, options.env);
        takeTurnOnRedis();
        beforeAll(() => p.start(), 240_000);
        afterAll(() => p.close(), 180_000);
        it('keeps every invariant: acknowledged = stored once, delivered, one owner, recovered, memory bounded', async () => {
            const started = Date.now();
            await sleep(SETTLE_MS);
            p.markBefore();
            const faultEnd = await fault(p);
            const recoverMs = await p.recovered(faultEnd);
            if (recoverMs === null) {
                console.log(`chaos ${name}: not recovered: ${await p.notRecovered()}`);
                // CHAOS_LOGS=DIR: each process's output to DIR/{scenario}-{i}.log, to read why.
                const dir = process.env.CHAOS_LOGS;
                if (dir) p.nodes.forEach((n, i) => writeFileSync(`${dir}/${name}-${i}.log`, n.output()));
            }
            const figures = await p.verdict(recoverMs);
            if (figures.undelivered) console.log(`chaos ${name}: undelivered, why:\n${p.deliveryReport()}`);
            checkInvariants(figures);
            await options.extra?.(p, figures);
            console.log(`chaos ${name}: ${Math.round((Date.now() - started) / 1000)} s from the first post`);
        }, 240_000);
    });
}

const SETTLE_MS = 3_000;
