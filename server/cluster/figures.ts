import os from 'node:os';
import type { AmqpService } from '../amqp/service';
import type { Broker } from '../mqtt/broker';
import { processState, type MemberState, type NodeFigures, type Published } from './processState';

export type { MemberState, NodeFigures, Published };

/**
 * The cluster's live figures as the routes answer them (/monitor/real, consumer groups, /platform, /vaServices).
 *
 * How they travel: each member writes its share to Redis every second (`SET iot:cluster:figures:<node> … PX 5000`,
 * server/cluster/publish.ts), and whoever answers reads the living members' keys with one MGET. Who is living comes
 * from PostgreSQL (cluster_nodes, server/cluster/membership.ts), what each is doing from Redis. Why Redis for the
 * figures: they change every second and are worthless seconds later; a per-second UPDATE per process on the shared
 * database would add dead rows and WAL to the store the fleet's ingest needs, and the heartbeat (every NODE_TIMEOUT / 6,
 * up to 5 s) is too slow for a per-second series. Redis is already every cluster's dependency (REDIS_URL is what
 * makes a cluster), and a key with an expiry vanishes by itself when its member dies. A member whose key is missing
 * (just started, or Redis lost it) is still listed (its heartbeat says it lives), with no figures and state `unknown`.
 * This process's own share is read live. One process (no REDIS_URL): itself, read live, and nothing is written.
 */

export const FIGURES_KEY = (nodeId: string) => `iot:cluster:figures:${nodeId}`;
/** A member's published figures expire after this long without a new publication. */
export const FIGURES_TTL_MS = 5_000;

/** This member's share of the live figures, read now. */
export function localFigures(broker: Broker, amqp: AmqpService): NodeFigures {
    const rates = broker.traffic.rates();
    return {
        connected: broker.connected,
        upPerSecond: rates.upPerSecond,
        downPerSecond: rates.downPerSecond,
        totals: rates.totals,
        byProduct: rates.byProduct,
        series: rates.series,
        consumers: amqp.consumerFigures(),
    };
}

export interface Member {
    nodeId: string;
    host: string;
    pid: number;
    self: boolean;
    startedAt: string;
    /** Its last heartbeat (cluster only; one process has none). */
    heartbeatAt: string | null;
    state: MemberState;
    figures: Partial<NodeFigures>;
}

/** The process's own identity when it runs alone (or before startNode ran: in-process tests). */
const ALONE = {
    nodeId: `${os.hostname()}-${process.pid}`,
    startedAt: new Date(Date.now() - process.uptime() * 1000).toISOString(),
};

/**
 * The members of the cluster, oldest first, each with its share (or this process alone when not in a cluster).
 * `fallback` gives this process's figures when no server state is set (in-process tests).
 */
export async function members(fallback?: () => Partial<NodeFigures>): Promise<Member[]> {
    const state = processState();
    const cluster = state?.cluster;
    if (!cluster) {
        await state?.ready().catch(() => false); // its readiness now (the state below reads the answer)
        return [
            {
                nodeId: state?.self?.nodeId ?? ALONE.nodeId,
                host: os.hostname(),
                pid: process.pid,
                self: true,
                startedAt: state?.self?.startedAt ?? ALONE.startedAt,
                heartbeatAt: null,
                state: state?.self?.state() ?? 'ready',
                figures: state?.self?.figures() ?? fallback?.() ?? {},
            },
        ];
    }
    const rows = await cluster.nodes();
    const published = await cluster.published(rows.map((r) => r.nodeId)).catch(() => new Map<string, Published>());
    return rows.map((r) => {
        const self = r.nodeId === cluster.nodeId;
        const p = published.get(r.nodeId);
        const identity = r.figures as { host?: string; pid?: number };
        return {
            nodeId: r.nodeId,
            host: p?.host ?? identity.host ?? '',
            pid: p?.pid ?? identity.pid ?? 0,
            self,
            startedAt: r.startedAt,
            heartbeatAt: r.heartbeatAt,
            state: self && state.self ? state.self.state() : (p?.state ?? 'unknown'),
            figures: self && state.self ? state.self.figures() : (p ?? {}),
        };
    });
}

/**
 * The living members' shares in a cluster, undefined in one process (the routes then answer with their own figures
 * as before).
 */
export async function clusterShares(): Promise<Member[] | undefined> {
    if (!processState()?.cluster) return undefined;
    return members();
}

const round1 = (n: number) => Math.round(n * 10) / 10;

/** Percent of the total (one decimal), 0 when the total is 0. */
export const shareOf = (part: number, total: number) => (total > 0 ? round1((part / total) * 100) : 0);

/** Each member as the screens list it: identity, state, its figures and its share of the cluster's. */
export function memberRows(list: Member[], format: (iso: string | null) => string | null) {
    const connected = list.reduce((s, m) => s + (m.figures.connected ?? 0), 0);
    const up = list.reduce((s, m) => s + (m.figures.upPerSecond ?? 0), 0);
    return list.map((m) => ({
        nodeId: m.nodeId,
        address: `${m.host}:${m.pid}`,
        host: m.host,
        pid: m.pid,
        self: m.self,
        startedAt: format(m.startedAt),
        heartbeatAt: format(m.heartbeatAt),
        state: m.state,
        connected: m.figures.connected ?? 0,
        upPerSecond: m.figures.upPerSecond ?? 0,
        downPerSecond: m.figures.downPerSecond ?? 0,
        consumers: (m.figures.consumers ?? []).reduce((n, g) => n + g.clients.length, 0),
        connectedShare: shareOf(m.figures.connected ?? 0, connected),
        upShare: shareOf(m.figures.upPerSecond ?? 0, up),
    }));
}

/**
 * The cluster's per-second series of the last minute: each second (by its epoch second) summed over the members,
 * up to the newest second every member has published (a member's last second is at most a second old), so the
 * newest point is never a partial sum.
 */
export function sumSeries(list: Member[]): Array<{ at: number; up: number; down: number }> {
    const withSeries = list.map((m) => m.figures.series ?? []).filter((s) => s.length);
    if (!withSeries.length) return [];
    const newest = Math.min(...withSeries.map((s) => s[s.length - 1].at));
    const sums = new Map<number, { up: number; down: number }>();
    for (const s of withSeries) {
        for (const p of s) {
            if (p.at > newest || p.at <= newest - 60) continue;
            const cur = sums.get(p.at) ?? { up: 0, down: 0 };
            cur.up += p.up;
            cur.down += p.down;
            sums.set(p.at, cur);
        }
    }
    const out: Array<{ at: number; up: number; down: number }> = [];
    for (let at = newest - 59; at <= newest; at++) {
        const v = sums.get(at);
        if (v || out.length) out.push({ at, up: v?.up ?? 0, down: v?.down ?? 0 });
    }
    return out;
}
