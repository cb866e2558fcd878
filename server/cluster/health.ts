import { timingSafeEqual } from 'node:crypto';
import { Hono } from 'hono';
import type { AppEnv } from '../deps';
import { processState } from './processState';

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
        const ready =
            (await processState()
                ?.ready()
                .catch(() => false)) ?? false;
        c.header('cache-control', 'no-store');
        return c.text(ready ? 'ready' : 'not ready', ready ? 200 : 503);
    });
    app.get('/metrics', async (c) => {
        const state = processState();
        const token = state?.metricsToken;
        if (!state || !token) return c.text('未启用指标：请设置 METRICS_TOKEN 后重启（见 docs/deployment.md）', 404);
        const given = /^Bearer\s+(.+)$/i.exec(c.req.header('authorization') ?? '')?.[1] ?? '';
        if (!sameToken(given, token)) {
            c.header('www-authenticate', 'Bearer');
            return c.text('需要 Authorization: Bearer <METRICS_TOKEN>', 401);
        }
        const { body, contentType } = await state.metrics();
        return c.body(body, 200, { 'content-type': contentType, 'cache-control': 'no-store' });
    });
    return app;
}
