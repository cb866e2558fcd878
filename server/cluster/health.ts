import { timingSafeEqual } from 'node:crypto';
import { Hono } from 'hono';
import type { AppEnv } from '../deps';
import type { MemberState, Published } from './figures';
import type { NodeRow } from './membership';
import type { NodeFigures } from './node';

/**
 * What the process-wide endpoints ask of the running server (server/cluster/node.ts sets it once the listeners are
 * made; one server per process). Absent (in-process tests, or while starting): not ready, no metrics, no cluster.
 */
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
     * server/cluster/figures.ts).
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

function sameToken(given: string, expected: string): boolean {
    const a = Buffer.from(given);
    const b = Buffer.from(expected);
    return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * GET /health/live, /health/ready and /metrics, outside the console's sign-in: the load balancer (HAProxy's health
 * checks) and Prometheus call them without a console session. The two health answers say up or down and nothing
 * else (no versions, no names, no reasons: those go to the server's log), so they reveal nothing an open port would
 * not. /metrics carries operational figures (traffic, backlogs, pool use), so it asks for METRICS_TOKEN as a bearer
 * token (Prometheus' `authorization` setting) and is off (404) when none is set.
 */
export function healthRoutes() {
    const app = new Hono<AppEnv>();
    // Liveness: the event loop answers. A process that cannot answer this should be restarted.
    app.get('/health/live', (c) => c.text('ok'));
    // Readiness: send traffic here (HAProxy's `http-check` on the HTTP and MQTT backends).
    app.get('/health/ready', async (c) => {
        const ready = (await current?.ready().catch(() => false)) ?? false;
        c.header('cache-control', 'no-store');
        return c.text(ready ? 'ready' : 'not ready', ready ? 200 : 503);
    });
    app.get('/metrics', async (c) => {
        const token = current?.metricsToken;
        if (!current || !token) return c.text('未启用指标：请设置 METRICS_TOKEN 后重启（见 docs/deployment.md）', 404);
        const given = /^Bearer\s+(.+)$/i.exec(c.req.header('authorization') ?? '')?.[1] ?? '';
        if (!sameToken(given, token)) {
            c.header('www-authenticate', 'Bearer');
            return c.text('需要 Authorization: Bearer <METRICS_TOKEN>', 401);
        }
        const { body, contentType } = await current.metrics();
        return c.body(body, 200, { 'content-type': contentType, 'cache-control': 'no-store' });
    });
    return app;
}
