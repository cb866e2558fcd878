import type { Server } from 'node:http';
import os from 'node:os';
import type { Registry } from 'prom-client';
import type { AmqpService } from '../amqp/service';
import type { ServerConfig } from '../config';
import type { DatabaseHandle } from '../db/client';
import type { Broker } from '../mqtt/broker';
import type { Simulator } from '../simulation/simulator';
import { localFigures } from './figures';
import { createMembership, newNodeId, renewalTimeoutMs, type Membership } from './membership';
import { createMetrics } from './metrics';
import { setProcessState, type ProcessState, type Published } from './processState';
import { connectRedis, readPublished, startPublishing, type Publisher, type RedisLink } from './publish';
import { checkReady, createReadiness, drain, stateOf, type Readiness } from './readiness';
import { createSimulationTakeover, type SimulationTakeover } from './simulations';

/**
 * One server process as an operated node (docs/deployment.md): readiness and metrics for /health/ready and /metrics,
 * cluster membership and self-fencing with REDIS_URL (membership.ts, lease.ts), the live figures through Redis
 * (publish.ts), the once-per-cluster jobs, and the SIGTERM drain (readiness.ts).
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

interface NodeState {
    options: NodeOptions;
    log: (message: string) => void;
    nodeId: string;
    startedAt: string;
    identity: { host: string; pid: number };
    membership?: Membership;
    takeover?: SimulationTakeover;
    /** Until the server has started (takeSimulations), the heartbeat takes no simulation. */
    taking: boolean;
    /** One process runs every job itself; a cluster member once it is the oldest. */
    leading: boolean;
    waitingForLeader: Array<() => void>;
    redis?: RedisLink;
    publisher?: Publisher;
    readiness: Readiness;
    metrics?: Registry;
}

export async function startNode(options: NodeOptions) {
    const { config, handle, http, broker, amqp } = options;
    const log = options.log ?? ((m) => console.log(m));
    const state: NodeState = {
        options,
        log,
        nodeId: config.redisUrl ? newNodeId() : `${os.hostname()}-${process.pid}`,
        startedAt: new Date().toISOString(),
        identity: { host: os.hostname(), pid: process.pid },
        taking: false,
        leading: !config.redisUrl,
        waitingForLeader: [],
        readiness: createReadiness({ db: handle.db, http, broker, amqp, log }),
    };
    if (config.redisUrl) {
        await joinCluster(state);
        state.redis = await connectRedis(config.redisUrl);
        state.readiness.sources.ping = state.redis.ping;
        state.readiness.sources.fenced = () => state.membership?.fenced ?? false;
        state.publisher = startPublishing(state.redis, state.nodeId, () => publication(state));
    }
    // Without METRICS_TOKEN /metrics is off: no registry, no event-loop monitor, no timing of each query.
    if (config.metricsToken) state.metrics = createMetrics(metricSources(state), state.nodeId);
    setProcessState(processStateOf(state));
    return nodeHandle(state);
}

/** Joins the cluster: membership with its heartbeat connection, the devices' marker, the simulations' takeover. */
async function joinCluster(state: NodeState): Promise<void> {
    const { handle, config, broker, simulator } = state.options;
    const { nodeId, log } = state;
    state.membership = await createMembership({
        db: handle.db,
        heartbeat: handle.dedicated?.(renewalTimeoutMs(config.nodeTimeoutMs)),
        nodeId,
        timeoutMs: config.nodeTimeoutMs,
        amqpOwner: state.options.amqp.queue.owner,
        // The heartbeat carries who the member is; its figures go to Redis each second (server/cluster/publish.ts).
        figures: () => state.identity,
        onRevived: () => broker.joinCluster(nodeId),
        onFenced: () => fence(state),
        onUnfenced: () => log(`集群: 本节点 ${nodeId} 已恢复心跳，重新接入设备`),
        onBeat: async () => {
            if (state.taking) await state.takeover?.reconcile();
        },
        onLeader: () => lead(state),
        log,
    });
    broker.joinCluster(nodeId);
    if (simulator) {
        state.takeover = createSimulationTakeover({
            db: handle.db,
            simulator,
            nodeId,
            timeoutMs: config.nodeTimeoutMs,
            log,
        });
    }
    log(`集群: 节点 ${nodeId} 已加入（NODE_TIMEOUT ${config.nodeTimeoutMs / 1000} 秒）`);
}

/**
 * The lease ran out (server/cluster/lease.ts): before any survivor may take over, the devices, AMQP consumers and
 * simulations here stop, and new ones are refused until a renewal succeeds (broker and AMQP read `fenced`).
 */
function fence(state: NodeState): void {
    const { broker, amqp, config } = state.options;
    state.log(
        `集群: 本节点 ${state.nodeId} 已 ${config.nodeTimeoutMs / 2000} 秒未能续约心跳，停止接入并断开设备、AMQP 消费者与模拟（防止与接管节点同时服务）`,
    );
    broker.closeAll();
    amqp.closeAll();
    if (state.takeover) state.takeover.haltAll();
}

function lead(state: NodeState): void {
    state.leading = true;
    state.log(`集群: 本节点负责全集群的定时任务（保留期清理）`);
    for (const start of state.waitingForLeader.splice(0)) start();
}

/** This member's publication: who, whether it takes traffic, its share of the figures. */
async function publication(state: NodeState): Promise<Published> {
    const { broker, amqp } = state.options;
    if (!state.readiness.draining) await checkReady(state.readiness);
    return {
        ...localFigures(broker, amqp),
        ...state.identity,
        state: stateOf(state.readiness),
        at: Date.now(),
    };
}

function metricSources(state: NodeState) {
    const { handle, broker, amqp } = state.options;
    const membership = state.membership;
    return { handle, broker, amqp, members: membership && (async () => (await membership.nodes()).length) };
}

function processStateOf(state: NodeState): ProcessState {
    const { config, broker, amqp } = state.options;
    const { membership, redis, metrics } = state;
    return {
        ready: () => checkReady(state.readiness),
        async metrics() {
            if (!metrics) return { body: '', contentType: 'text/plain' };
            return { body: await metrics.metrics(), contentType: metrics.contentType };
        },
        metricsToken: config.metricsToken,
        self: {
            nodeId: state.nodeId,
            startedAt: state.startedAt,
            state: () => stateOf(state.readiness),
            figures: () => localFigures(broker, amqp),
        },
        cluster: membership &&
            redis && {
                nodeId: membership.nodeId,
                nodes: () => membership.nodes(),
                published: (ids: string[]) => readPublished(redis, ids),
            },
    };
}

/** What the server's start and stop (server/index.ts) do with the node. */
function nodeHandle(state: NodeState) {
    const { config, simulator } = state.options;
    return {
        nodeId: state.nodeId,
        /** Fenced now (cluster only): the broker and the AMQP service take no new connection. */
        get fenced(): boolean {
            return state.membership?.fenced ?? false;
        },
        /** The fencing token message batches name (cluster only; server/cluster/fence.ts). */
        get fenceToken() {
            return state.membership?.fenceToken;
        },
        /**
         * The running simulations start: in one process all of them (the simulator's resume); in a cluster those no
         * living member runs, and from then on with each heartbeat those whose member died or left. How many.
         */
        async takeSimulations(): Promise<number> {
            if (!simulator) return 0;
            if (!state.takeover) return simulator.resume();
            state.taking = true;
            return (await state.takeover.reconcile()).length;
        },
        /**
         * Starts a job that must run on one process of the cluster (retention sweeps): now when alone or the oldest
         * member, else when this process becomes the oldest (the older ones died or left).
         */
        oncePerCluster(start: () => unknown) {
            if (state.leading) start();
            else state.waitingForLeader.push(() => void start());
        },
        /** SIGTERM, first step (server/cluster/readiness.ts): DRAIN_DELAY in a cluster, then the devices close. */
        drain: () => drain(state.readiness, config.redisUrl ? config.drainDelayMs : undefined),
        /** Last step: the member leaves the cluster (no survivor waits out NODE_TIMEOUT for it). */
        async leave() {
            await state.publisher?.stop();
            await state.membership?.leave().catch((err) => state.log(`退出集群失败: ${String(err)}`));
            await state.redis?.close();
        },
    };
}

export type NodeHandle = ReturnType<typeof nodeHandle>;
