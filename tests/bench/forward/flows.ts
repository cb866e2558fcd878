import path from 'node:path';
import type { Figure } from '../run';
import { AMQP_URL, benchName, PG_URL, type httpSide, type postgresSide, type rabbitSide } from './destinations';
import type { Devices, Platform } from './processes';

/**
 * What the forwarding bench's phases share: the processes and destinations of the run, and flows and destinations
 * made through the console's API (/api/forward/...), as an operator makes them.
 */

/**
 * The platform's store: PGlite (in its worker thread, as `npm start` runs it) or, with FORWARD_BENCH_STORE_URL, that
 * PostgreSQL (a database of the run's own, copied from the migrated template and dropped after). The figures' names say
 * which: `…Pglite` or `…Postgres`, and the CPU of the thread beside the main one, PGlite's worker or the busiest other.
 */
export const STORE = process.env.FORWARD_BENCH_STORE_URL ? 'Postgres' : 'Pglite';
export const OTHER_THREAD = STORE === 'Pglite' ? 'PgliteWorker' : 'OtherThread';

export interface Bench {
    platform: Platform;
    devices: Devices;
    pg: Awaited<ReturnType<typeof postgresSide>>;
    rabbit: Awaited<ReturnType<typeof rabbitSide>>;
    http: Awaited<ReturnType<typeof httpSide>>;
    /** A phase's length (FORWARD_BENCH_SECONDS). */
    seconds: number;
    /** The route's batch (the service's default): the anchors write batches of this size. */
    batch: number;
    /** FORWARD_PROFILE=DIR: CPU profiles of the platform's main thread over the phases that name one. */
    profileDir?: string;
}

/**
 * Every property post of every lamp, its device, power, seq (TotalEnergy) and time: one row per post. FROM in the
 * device topic's own form, /sys/...: Alibaba's form without /sys matches only since 47b6dfd (server/forward/sql/topic.ts).
 */
export const FLOW_SQL =
    'SELECT deviceName() AS dn, items.ActivePower.value AS power, items.TotalEnergy.value AS seq, timestamp() AS at ' +
    'FROM "/sys/+/+/thing/event/property/post"';

export function postgresConfig(table: string) {
    const url = new URL(PG_URL);
    return {
        host: url.hostname,
        port: Number(url.port || 5432),
        user: decodeURIComponent(url.username),
        password: decodeURIComponent(url.password),
        database: url.pathname.slice(1),
        table,
    };
}

export function rabbitmqConfig(queue: string, port?: number) {
    const url = new URL(AMQP_URL);
    return {
        host: url.hostname,
        port: port ?? Number(url.port || 5672),
        username: decodeURIComponent(url.username) || 'guest',
        password: decodeURIComponent(url.password) || 'guest',
        vhost: '/',
        exchange: '',
        routingKeyTemplate: queue,
        persistent: true,
    };
}

export const httpConfig = (url: string) => ({ url, method: 'POST', batch: true });

export async function destination(b: Bench, kind: string, config: Record<string, unknown>): Promise<number> {
    const saved = await b.platform.api<{ id: number }>('POST', '/api/forward/destination/save', {
        projectId: b.platform.projectId,
        name: benchName(kind),
        kind,
        config,
    });
    return saved.id;
}

/** A flow of FLOW_SQL to these destinations, enabled unless told not. */
export async function flow(b: Bench, destinationIds: number[], enabled = true): Promise<number> {
    const { id } = await b.platform.api<{ id: number }>('POST', '/api/forward/flow/save', {
        projectId: b.platform.projectId,
        name: benchName('flow'),
        sql: FLOW_SQL,
        destinationIds,
    });
    if (enabled) await enable(b, id, true);
    return id;
}

export const enable = (b: Bench, id: number, enabled: boolean) =>
    b.platform.api('POST', '/api/forward/flow/enable', { id, enabled });

export const removeFlow = (b: Bench, id: number) => b.platform.api('POST', '/api/forward/flow/delete', { id });

/** Polls until the check holds (true) or the time is up (false). */
export async function waitUntil(check: () => boolean | Promise<boolean>, timeoutMs: number, stepMs = 50) {
    const deadline = performance.now() + timeoutMs;
    while (performance.now() < deadline) {
        if (await check()) return true;
        await new Promise((r) => setTimeout(r, stepMs));
    }
    return check();
}

/** The p-th percentile of sorted values, to 0.1. */
export const pct = (sorted: number[], p: number) =>
    sorted.length
        ? Math.round(sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] * 10) / 10
        : NaN;

export const perSecond = (count: number, ms: number) => Math.round(count / (ms / 1000));

export const ratio = (name: string, part: number, whole: number): Figure => ({
    name,
    value: Math.round((part / Math.max(1, whole)) * 1000) / 10,
    unit: '%',
});

/** Runs the phase; with FORWARD_PROFILE, under a CPU profile of the platform written to DIR/name.cpuprofile. */
export async function profiled<T>(b: Bench, name: string, phase: () => Promise<T>): Promise<T> {
    if (!b.profileDir) return phase();
    await b.platform.profileStart();
    try {
        return await phase();
    } finally {
        await b.platform.profileStop(path.resolve(b.profileDir, `${name}.cpuprofile`));
    }
}
