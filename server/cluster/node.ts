import type { Server } from 'node:http';
import os from 'node:os';
import { sql } from 'drizzle-orm';
import type pg from 'pg';
import client from 'prom-client';
import type { AmqpService } from '../amqp/service';
import type { ServerConfig } from '../config';
import type { DatabaseHandle } from '../db/client';
import { rowsOf } from '../db/rows';
import type { Broker } from '../mqtt/broker';
import { FIGURES_KEY, FIGURES_TTL_MS, type MemberState, type Published } from './figures';
import { setProcessState } from './health';
import type { Simulator } from '../simulation/simulator';
import { createMembership, type Membership } from './membership';
import { createSimulationTakeover, type SimulationTakeover } from './simulations';

/**
 * One server process as an operated node (docs/deployment.md): readiness and metrics for /health/ready and /metrics,
 * cluster membership with REDIS_URL (server/cluster/membership.ts), the once-per-cluster jobs, and the SIGTERM drain.
 */

export interface NodeOptions {
    handle: DatabaseHandle;
    config: ServerConfig;
    http: Server;
    broker: Broker;
    amqp: AmqpService;
    /** The device simulator: in a cluster its running simulations are taken over from members that die. */
    simulator?: Simulator;
    log?: (message: string) => void;
}

/** This member's share of the live figures (published to Redis each second; /monitor/real, consumer groups). */
export function localFigures(broker: Broker, amqp: AmqpService) {
    const rates = broker.traffic.rates();
    return {
        connected: broker.connected,
        upPerSecond: rates.upPerSecond,
        downPerSecond: rates.downPerSecond,
        totals: rates.totals,
        byProduct: rates.byProduct,
        /** The last minute, per second, each named by its epoch second (the cluster adds them up by name). */
        series: rates.series,
        consumers: amqp.consumerFigures(),
    };
}

export type NodeFigures = ReturnType<typeof localFigures>;

async function connectRedis(url: string) {
    const { Redis } = await import('ioredis');
    // One connection for the readiness check; it reconnects by itself and fails a PING at once while down.
    const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1, enableOfflineQueue: false });
    redis.on('error', () => undefined);
    await redis.connect().catch(() => undefined);
    return {
        ping: () =>
            Promise.race([
                redis.ping().then((r) => r === 'PONG'),
                new Promise<boolean>((r) => setTimeout(() => r(false), 1000).unref()),
            ]).catch(() => false),
        redis,
        close: () => redis.quit().catch(() => undefined),
    };
}

function metricsOf({ handle, broker, amqp }: NodeOptions, nodeId: string, membership: Membership | undefined) {
    const register = new client.Registry();
    register.setDefaultLabels({ node: nodeId });
    // Event-loop lag (nodejs_eventloop_lag_*), heap, GC, handles: prom-client's defaults.
    client.collectDefaultMetrics({ register });
    const { db } = handle;
    new client.Gauge({
        name: 'iot_mqtt_connections',
        help: 'Devices connected to this process',
        registers: [register],
        collect() {
            this.set(broker.connected);
        },
    });
    let seen = { up: 0, down: 0 };
    const counted = () => {
        const t = broker.traffic.rates().totals;
        const delta = { up: t.up - seen.up, down: t.down - seen.down };
        seen = t;
        return delta;
    };
    const received = new client.Counter({
        name: 'iot_mqtt_messages_received_total',
        help: 'Device messages received (uplink)',
        registers: [register],
    });
    new client.Counter({
        name: 'iot_mqtt_messages_sent_total',
        help: 'Messages sent to devices (downlink)',
        registers: [register],
        collect() {
            const d = counted();
            received.inc(d.up);
            this.inc(d.down);
        },
    });
    new client.Gauge({
        name: 'iot_mqtt_messages_per_second',
        help: 'Messages per second over the last 5 s, by direction (in: from devices, out: to devices)',
        labelNames: ['direction'],
        registers: [register],
        collect() {
            const r = broker.traffic.rates();
            this.set({ direction: 'in' }, r.upPerSecond);
            this.set({ direction: 'out' }, r.downPerSecond);
        },
    });
    new client.Gauge({
        name: 'iot_ingest_queue_depth',
        help: 'Device messages waiting for their batch write',
        registers: [register],
        collect() {
            this.set(broker.writer.pending);
        },
    });
    const batch = new client.Histogram({
        name: 'iot_ingest_batch_seconds',
        help: 'Time to commit one batch of device messages',
        buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
        registers: [register],
    });
    broker.writer.onBatch((ms) => batch.observe(ms / 1000));
    new client.Gauge({
        name: 'iot_amqp_backlog',
        help: 'Messages queued per consumer group (shared by the cluster: every process reports the same figure)',
        labelNames: ['group'],
        registers: [register],
        async collect() {
            this.reset();
            const rows = rowsOf<{ group_id: number; n: number }>(
                await db.execute(sql`SELECT group_id, count(*)::int AS n FROM amqp_queue GROUP BY group_id`),
            );
            for (const r of rows) this.set({ group: String(r.group_id) }, Number(r.n));
        },
    });
    new client.Gauge({
        name: 'iot_amqp_consumers',
        help: 'AMQP consumers connected to this process, per consumer group',
        labelNames: ['group'],
        registers: [register],
        collect() {
            this.reset();
            for (const g of amqp.consumerFigures()) this.set({ group: String(g.groupId) }, g.clients.length);
        },
    });
    if (membership) {
        new client.Gauge({
            name: 'iot_cluster_members',
            help: 'Living members of the cluster (heartbeat within NODE_TIMEOUT)',
            registers: [register],
            async collect() {
                this.set((await membership.nodes()).length);
            },
        });
    }
    // PostgreSQL: the pool's connections and each query's time (PGlite is one in-process connection: neither).
    const pool = handle.kind === 'postgres' ? (db as unknown as { $client: pg.Pool }).$client : undefined;
    if (pool) {
        new client.Gauge({
            name: 'iot_db_pool_connections',
            help: 'PostgreSQL pool connections by state (total, idle, waiting: callers waiting for one)',
            labelNames: ['state'],
            registers: [register],
            collect() {
                this.set({ state: 'total' }, pool.totalCount);
                this.set({ state: 'idle' }, pool.idleCount);
                this.set({ state: 'waiting' }, pool.waitingCount);
            },
        });
        const queryTime = new client.Histogram({
            name: 'iot_db_query_seconds',
            help: 'PostgreSQL query time outside transactions (pool.query)',
            buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 5],
            registers: [register],
        });
        const query = pool.query.bind(pool) as (...args: unknown[]) => unknown;
        (pool as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
            const end = queryTime.startTimer();
            const result = query(...args);
            if (result instanceof Promise)
                result.then(
                    () => end(),
                    () => end(),
                );
            return result;
        };
    }
    return register;
}

export async function startNode(options: NodeOptions) {
    const { handle, config, http, broker, amqp, simulator, log = (m) => console.log(m) } = options;
    let draining = false;
    const startedAt = new Date().toISOString();
    const identity = { host: os.hostname(), pid: process.pid };
    let membership: Membership | undefined;
    const onLeader: Array<() => void> = [];
    let leading = !config.redisUrl; // one process runs every job itself
    let takeover: SimulationTakeover | undefined;
    // Until the server has started (`takeSimulations`), the heartbeat takes no simulation.
    let taking = false;
    if (config.redisUrl) {
        membership = await createMembership({
            db: handle.db,
            timeoutMs: config.nodeTimeoutMs,
            amqpOwner: amqp.queue.owner,
            // The heartbeat carries who the member is; its figures go to Redis each second (server/cluster/figures.ts).
            figures: () => identity,
            onRevived: () => broker.joinCluster(membership!.nodeId),
            onBeat: async () => {
                if (taking) await takeover?.reconcile();
            },
            onLeader: () => {
                leading = true;
                log(`集群: 本节点负责全集群的定时任务（保留期清理）`);
                for (const start of onLeader.splice(0)) start();
            },
            log,
        });
        broker.joinCluster(membership.nodeId);
        if (simulator) {
            takeover = createSimulationTakeover({
                db: handle.db,
                simulator,
                nodeId: membership.nodeId,
                timeoutMs: config.nodeTimeoutMs,
                log,
            });
        }
        log(`集群: 节点 ${membership.nodeId} 已加入（NODE_TIMEOUT ${config.nodeTimeoutMs / 1000} 秒）`);
    }
    const nodeId = membership?.nodeId ?? `${identity.host}-${identity.pid}`;
    const redis = config.redisUrl ? await connectRedis(config.redisUrl) : undefined;
    // Without METRICS_TOKEN /metrics is off: no registry, no event-loop monitor, no timing of each query.
    const register = config.metricsToken ? metricsOf(options, nodeId, membership) : undefined;
    let lastReady: boolean | undefined;
    const state = (): MemberState => (draining ? 'draining' : lastReady === false ? 'notReady' : 'ready');

    const ready = async () => {
        if (draining) return false;
        // The console, MQTT and AMQP listeners (a port taken by another program leaves one down: not ready).
        const listeners = http.listening && broker.listening && amqp.listening;
        const [database, cache] = await Promise.all([
            Promise.race([
                handle.db.execute(sql`SELECT 1`).then(() => true),
                new Promise<boolean>((r) => setTimeout(() => r(false), 2000).unref()),
            ]).catch(() => false),
            redis ? redis.ping() : true,
        ]);
        const ready = listeners && database && cache;
        // The answer is up or down; the reason goes to the log, once per change.
        if (ready !== lastReady) {
            lastReady = ready;
            if (!ready) log(`就绪检查未通过: 监听 ${listeners}，数据库 ${database}，Redis ${cache}`);
        }
        return ready;
    };

    // Each second, in a cluster: this member's readiness and figures to Redis (expiring, so a dead member's vanish).
    let publishing: Promise<unknown> | undefined;
    const publisher =
        membership && redis
            ? setInterval(() => {
                  if (publishing) return;
                  const id = membership!.nodeId;
                  publishing = (draining ? Promise.resolve(false) : ready())
                      .then(() => {
                          const figures: Published = {
                              ...localFigures(broker, amqp),
                              ...identity,
                              state: state(),
                              at: Date.now(),
                          };
                          return redis.redis.set(FIGURES_KEY(id), JSON.stringify(figures), 'PX', FIGURES_TTL_MS);
                      })
                      .catch(() => undefined)
                      .finally(() => (publishing = undefined));
              }, 1000)
            : undefined;
    publisher?.unref();

    setProcessState({
        ready,
        async metrics() {
            if (!register) return { body: '', contentType: 'text/plain' };
            return { body: await register.metrics(), contentType: register.contentType };
        },
        metricsToken: config.metricsToken,
        self: { nodeId, startedAt, state, figures: () => localFigures(broker, amqp) },
        cluster: membership &&
            redis && {
                nodeId: membership.nodeId,
                nodes: () => membership!.nodes(),
                async published(ids: string[]) {
                    const out = new Map<string, Published>();
                    if (!ids.length) return out;
                    const values = await redis.redis.mget(...ids.map(FIGURES_KEY));
                    ids.forEach((id, i) => {
                        const v = values[i];
                        if (v) out.set(id, JSON.parse(v) as Published);
                    });
                    return out;
                },
            },
    });

    return {
        nodeId,
        /**
         * The running simulations start: in one process all of them (the simulator's resume); in a cluster those no
         * living member runs, and from then on with each heartbeat those whose member died or left. How many.
         */
        async takeSimulations(): Promise<number> {
            if (!simulator) return 0;
            if (!takeover) return simulator.resume();
            taking = true;
            return (await takeover.reconcile()).length;
        },
        /**
         * Starts a job that must run on one process of the cluster (retention sweeps): now when alone or the oldest
         * member, else when this process becomes the oldest (the older ones died or left).
         */
        oncePerCluster(start: () => unknown) {
            if (leading) start();
            else onLeader.push(() => void start());
        },
        /**
         * SIGTERM, first step: readiness answers 503 so the load balancer takes this process out, then (after
         * DRAIN_DELAY, in a cluster) the listeners stop and the devices are closed once what they sent is stored and acknowledged.
         */
        async drain() {
            draining = true;
            // One process has no load balancer to tell: Ctrl+C stops at once.
            if (config.redisUrl) {
                log(`正在排空: 就绪检查已返回 503，${config.drainDelayMs} ms 后停止接入并断开设备`);
                await new Promise((r) => setTimeout(r, config.drainDelayMs));
            }
            await broker.drain();
        },
        /** Last step: the member leaves the cluster (no survivor waits out NODE_TIMEOUT for it). */
        async leave() {
            clearInterval(publisher);
            await publishing;
            if (membership) await redis?.redis.del(FIGURES_KEY(membership.nodeId)).catch(() => undefined);
            await membership?.leave().catch((err) => log(`退出集群失败: ${String(err)}`));
            await redis?.close();
        },
    };
}

export type NodeHandle = Awaited<ReturnType<typeof startNode>>;
