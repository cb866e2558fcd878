import { sql } from 'drizzle-orm';
import client from 'prom-client';
import type { AmqpService } from '../amqp/service';
import type { DatabaseHandle } from '../db/client';
import { rowsOf } from '../db/rows';
import type { Broker } from '../mqtt/broker';

/**
 * /metrics (Prometheus, prom-client): event-loop lag, heap and GC (prom-client's defaults), the devices and traffic of
 * this process, the ingest queue and batch times, the AMQP backlog and consumers, the cluster's members, and on
 * PostgreSQL the pool's connections and each statement's time. Made only with METRICS_TOKEN.
 */

export interface MetricsSources {
    handle: DatabaseHandle;
    broker: Broker;
    amqp: AmqpService;
    /** In a cluster: how many members live now. */
    members?: () => Promise<number>;
}

export function createMetrics(sources: MetricsSources, nodeId: string): client.Registry {
    const register = new client.Registry();
    register.setDefaultLabels({ node: nodeId });
    client.collectDefaultMetrics({ register });
    deviceMetrics(register, sources.broker);
    ingestMetrics(register, sources.broker);
    amqpMetrics(register, sources);
    if (sources.members) clusterMetrics(register, sources.members);
    if (sources.handle.pool) poolMetrics(register, sources.handle.pool);
    return register;
}

function deviceMetrics(register: client.Registry, broker: Broker): void {
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
}

function ingestMetrics(register: client.Registry, broker: Broker): void {
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
}

function amqpMetrics(register: client.Registry, { handle, amqp }: MetricsSources): void {
    new client.Gauge({
        name: 'iot_amqp_backlog',
        help: 'Messages queued per consumer group (shared by the cluster: every process reports the same figure)',
        labelNames: ['group'],
        registers: [register],
        async collect() {
            this.reset();
            const rows = rowsOf<{ group_id: number; n: number }>(
                await handle.db.execute(sql`SELECT group_id, count(*)::int AS n FROM amqp_queue GROUP BY group_id`),
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
}

function clusterMetrics(register: client.Registry, members: () => Promise<number>): void {
    new client.Gauge({
        name: 'iot_cluster_members',
        help: 'Living members of the cluster (heartbeat within NODE_TIMEOUT)',
        registers: [register],
        async collect() {
            this.set(await members());
        },
    });
}

/** PostgreSQL: the pool's connections and each statement's time (PGlite is one in-process connection: neither). */
function poolMetrics(register: client.Registry, pool: NonNullable<DatabaseHandle['pool']>): void {
    new client.Gauge({
        name: 'iot_db_pool_connections',
        help: 'PostgreSQL pool connections by state (total, idle, waiting: callers waiting for one)',
        labelNames: ['state'],
        registers: [register],
        collect() {
            const { total, idle, waiting } = pool.stats();
            this.set({ state: 'total' }, total);
            this.set({ state: 'idle' }, idle);
            this.set({ state: 'waiting' }, waiting);
        },
    });
    const queryTime = new client.Histogram({
        name: 'iot_db_query_seconds',
        help: 'PostgreSQL statement time on the shared pool (inside transactions too)',
        buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 5],
        registers: [register],
    });
    pool.onQuery((ms) => queryTime.observe(ms / 1000));
}
