import { and, eq, gte, sql } from 'drizzle-orm';
import nodemailer from 'nodemailer';
import type { Db } from '../db/client';
import { notifications, notifyChannels } from '../db/schema';
import { fillTemplate, jsonInner } from './evaluate';

/**
 * Notifications: a webhook (plain JSON from a body template, or the DingTalk / WeCom robot text format) or an
 * e-mail over SMTP. Each notification is a row of `notifications` (the log query's 告警消息 tab) with every attempt;
 * a failed attempt is retried with back-off (backoffMs, then twice that, ...) up to `attempts` times.
 */

export interface WebhookConfig {
    url: string;
    bodyTemplate?: string;
}

export interface EmailConfig {
    host: string;
    port: number;
    secure?: boolean;
    user?: string;
    pass?: string;
    from: string;
    to: string;
}

export interface Channel {
    /** The 通知方式 row; null for an app alarm's own address (/applymanage). */
    id: number | null;
    name: string;
    type: 'webhook' | 'dingtalk' | 'wecom' | 'email';
    config: Record<string, unknown>;
}

export const NOTIFY_TYPE_NAMES: Record<Channel['type'], string> = {
    webhook: 'Webhook',
    dingtalk: '钉钉机器人',
    wecom: '企业微信机器人',
    email: '邮件',
};

export const DEFAULT_BODY_TEMPLATE =
    '{"rule":"${ruleName}","deviceName":"${deviceName}","productKey":"${productKey}","level":"${level}","content":"${content}","time":"${time}"}';

export interface NotifyOptions {
    /** Attempts in all (default 3). */
    attempts?: number;
    /** Wait before the second attempt; doubles each time (default 5,000 ms). */
    backoffMs?: number;
    /** Per attempt (default 10,000 ms). */
    timeoutMs?: number;
}

export interface NotifyRequest {
    channel: Channel;
    ruleId: number | null;
    alertId?: number;
    appName: string;
    messageType: string;
    productKey?: string;
    deviceName?: string;
    content: string;
    vars: Record<string, unknown>;
}

function recipientOf(channel: Channel): string {
    if (channel.type === 'email') return String(channel.config.to ?? '');
    try {
        const u = new URL(String(channel.config.url ?? ''));
        return `${u.protocol}//${u.host}${u.pathname}`;
    } catch {
        return String(channel.config.url ?? '');
    }
}

async function sendOnce(channel: Channel, content: string, vars: Record<string, unknown>, timeoutMs: number) {
    if (channel.type === 'email') {
        const c = channel.config as unknown as EmailConfig;
        const transport = nodemailer.createTransport({
            host: c.host,
            port: Number(c.port),
            secure: Boolean(c.secure),
            ...(c.user ? { auth: { user: c.user, pass: c.pass ?? '' } } : {}),
            connectionTimeout: timeoutMs,
            greetingTimeout: timeoutMs,
            socketTimeout: timeoutMs,
            tls: { rejectUnauthorized: false },
        });
        try {
            await transport.sendMail({
                from: c.from,
                to: c.to,
                subject: `【${vars.ruleName ?? '告警'}】${vars.deviceName ?? ''}`.trim(),
                text: content,
            });
        } finally {
            transport.close();
        }
        return { status: 250 };
    }
    const c = channel.config as unknown as WebhookConfig;
    const body =
        channel.type === 'webhook'
            ? fillTemplate(c.bodyTemplate || DEFAULT_BODY_TEMPLATE, { ...vars, content }, jsonInner)
            : JSON.stringify({ msgtype: 'text', text: { content } });
    const res = await fetch(c.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
        signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await res.text().catch(() => '');
    if (!res.ok) throw Object.assign(new Error(`HTTP ${res.status}`), { status: res.status });
    // DingTalk and WeCom answer 200 with errcode when they refuse (bad token, keyword missing).
    if (channel.type !== 'webhook') {
        try {
            const j = JSON.parse(text) as { errcode?: number; errmsg?: string };
            if (j.errcode !== undefined && j.errcode !== 0)
                throw Object.assign(new Error(`errcode ${j.errcode}: ${j.errmsg ?? ''}`), { status: res.status });
        } catch (err) {
            if (!(err instanceof SyntaxError)) throw err;
        }
    }
    return { status: res.status };
}

export function createNotifier(db: Db, options: NotifyOptions = {}) {
    const maxAttempts = options.attempts ?? 3;
    const backoff = options.backoffMs ?? 5_000;
    const timeoutMs = options.timeoutMs ?? 10_000;
    const pending = new Set<Promise<void>>();
    let closed = false;

    /** A notification's key (id, ts): its status updates name its day, so they touch its partition only. */
    async function deliver(id: number, ts: Date, req: NotifyRequest) {
        for (let attempt = 1; attempt <= maxAttempts && !closed; attempt++) {
            const time = new Date().toISOString();
            let entry: Record<string, unknown>;
            let done = false;
            try {
                const r = await sendOnce(req.channel, req.content, req.vars, timeoutMs);
                entry = { attempt, time, ok: true, status: r.status };
                done = true;
            } catch (err) {
                const e = err as Error & { status?: number };
                entry = { attempt, time, ok: false, ...(e.status ? { status: e.status } : {}), error: e.message };
            }
            const status = done ? 'sent' : attempt === maxAttempts ? 'failed' : 'pending';
            await db
                .update(notifications)
                .set({ status, attempts: sql`${notifications.attempts} || ${JSON.stringify([entry])}::jsonb` })
                .where(and(eq(notifications.id, id), eq(notifications.ts, ts)))
                .catch(() => undefined);
            if (done) return;
            if (attempt < maxAttempts) await new Promise((r) => setTimeout(r, backoff * 2 ** (attempt - 1)).unref?.());
        }
    }

    return {
        /** Records the notification and sends it in the background; answers the record's id. */
        async send(req: NotifyRequest): Promise<number> {
            const [row] = await db
                .insert(notifications)
                .values({
                    channelId: req.channel.id,
                    ruleId: req.ruleId,
                    alertId: req.alertId ?? null,
                    productKey: req.productKey ?? null,
                    deviceName: req.deviceName ?? null,
                    appName: req.appName,
                    notifyType: NOTIFY_TYPE_NAMES[req.channel.type],
                    messageType: req.messageType,
                    recipient: recipientOf(req.channel),
                    content: req.content,
                    // Its time in milliseconds (now() keeps microseconds a Date loses): the key its updates name.
                    ts: new Date(),
                })
                .returning({ id: notifications.id, ts: notifications.ts });
            const id = Number(row.id);
            const p = deliver(id, row.ts, req).finally(() => pending.delete(p));
            pending.add(p);
            return id;
        },
        async channel(id: number): Promise<Channel | undefined> {
            const [c] = await db.select().from(notifyChannels).where(eq(notifyChannels.id, id));
            return c
                ? {
                      id: c.id,
                      name: c.name,
                      type: c.type as Channel['type'],
                      config: c.config as Record<string, unknown>,
                  }
                : undefined;
        },
        /** Deliveries still under way (tests wait for them). */
        async drain() {
            await Promise.all([...pending]);
        },
        close() {
            closed = true;
        },
    };
}

export type Notifier = ReturnType<typeof createNotifier>;

/**
 * The log query's 告警消息 tab: notifications newest first (optionally of one product), since `since` (the route
 * passes the retention: it prunes the day partitions of older notifications, which the sweep drops).
 */
export async function listNotifications(
    db: Db,
    filter: { productKey?: string; since?: Date },
    limit: number,
    offset: number,
    format: (d: Date) => string | null,
) {
    const where = and(
        filter.productKey ? eq(notifications.productKey, filter.productKey) : undefined,
        filter.since ? gte(notifications.ts, filter.since) : undefined,
    );
    const [rows, [{ n }]] = await Promise.all([
        db
            .select()
            .from(notifications)
            .where(where)
            .orderBy(sql`${notifications.ts} DESC, ${notifications.id} DESC`)
            .limit(limit)
            .offset(offset),
        db
            .select({ n: sql<number>`count(*)::int` })
            .from(notifications)
            .where(where),
    ]);
    return {
        records: rows.map((r) => ({
            id: String(r.id),
            appName: r.appName,
            noticeType: r.notifyType,
            messageType: r.messageType,
            recipient: r.recipient,
            content: r.content,
            status: r.status,
            attempts: r.attempts,
            deviceName: r.deviceName,
            productKey: r.productKey,
            time: format(r.ts),
        })),
        total: Number(n),
    };
}
