import { Hono } from 'hono';

/**
 * The live demo's notification channel (server/seed/live.ts) is an ordinary webhook 通知方式 whose address is this
 * platform itself, so the demo alert's notifications are really sent and answered without any network: the receiver
 * takes the POST, reads and drops its body (nothing is kept or shown; the notification record with its attempts is
 * the 告警消息 tab's), and answers 200 as a webhook endpoint would. No session: a notifier signs in nowhere.
 * A user points the channel (规则引擎 → 告警规则 → 通知方式) at a real address to receive them elsewhere.
 */
export const DEMO_WEBHOOK_PATH = '/demo/webhook';

/** The address the seed writes: the platform's own HTTP port on this machine, as OTA's download URL (docs/ota.md). */
export const demoWebhookUrl = (port: number) => `http://127.0.0.1:${port}${DEMO_WEBHOOK_PATH}`;

export function demoWebhookRoute() {
    const app = new Hono();
    app.post('/', async (c) => {
        // Read to the end so the connection is reused; the general body limit (10 MB) applies.
        await c.req.arrayBuffer().catch(() => undefined);
        return c.json({ code: 200, msg: '演示 Webhook 已收到通知' });
    });
    return app;
}
