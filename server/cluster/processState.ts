import type { AmqpService } from '../amqp/service';
import type { Traffic } from '../mqtt/traffic';
import type { NodeRow } from './membership';

/**
 * What the process-wide endpoints and the cluster's figures ask of the running server (server/cluster/node.ts sets it
 * once the listeners are made; one server per process). Absent (in-process tests, or while starting): not ready, no
 * metrics, no cluster.
 */

type Rates = ReturnType<Traffic['rates']>;

/** This member's share of the live figures (published to Redis each second; /monitor/real, consumer groups). */
export interface NodeFigures {
    connected: number;
    upPerSecond: number;
    downPerSecond: number;
    totals: Rates['totals'];
    byProduct: Rates['byProduct'];
    /** The last minute, per second, each named by its epoch second (the cluster adds them up by name). */
    series: Rates['series'];
    consumers: ReturnType<AmqpService['consumerFigures']>;
}

export type MemberState = 'ready' | 'draining' | 'notReady' | 'unknown';

/** What a member publishes each second: who it is, whether it takes traffic, and its share of the figures. */
export interface Published extends NodeFigures {
    host: string;
    pid: number;
    state: MemberState;
    /** When published (ms). */
    at: number;
}

export interface ProcessState {
    /** Every dependency answers and every listener listens, and the process is not draining. */
    ready(): Promise<boolean>;
    /** Prometheus text format (prom-client). */
    metrics(): Promise<{ body: string; contentType: string }>;
    metricsToken: string | undefined;
    /** This process: its id, since when, whether it takes traffic, its share of the figures (read live). */
    self?: { nodeId: string; startedAt: string; state(): MemberState; figures(): NodeFigures };
    /**
     * In a cluster: the living members (PostgreSQL, with their heartbeat) and what each published last (Redis,
     * server/cluster/publish.ts).
     */
    cluster?: {
        nodeId: string;
        nodes(): Promise<NodeRow[]>;
        published(ids: string[]): Promise<Map<string, Published>>;
    };
}

let current: ProcessState | undefined;

export function setProcessState(state: ProcessState | undefined): void {
    current = state;
}

export function processState(): ProcessState | undefined {
    return current;
}
