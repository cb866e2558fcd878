import type { NodeFigures } from '../cluster/figures';
import { clusterShares, memberRows, members, sumSeries } from '../cluster/figures';
import { eq, inArray } from 'drizzle-orm';
import { Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import { deviceCounts, products } from '../db/schema';
import type { AppEnv, Services } from '../deps';
import { ok } from '../http/envelope';
import { formatTime } from '../http/time';
import { badRequest } from '../http/errors';
import { positiveInt, readBody } from '../http/input';
import type { DeviceAccessBackend } from '../mqtt/access';
import { RRPC_TIMEOUT_MS } from '../mqtt/downlink';
import type { TrafficEvent } from '../mqtt/traffic';

/**
 * Device access from the console (docs/device-access.md): downlink property sets and service calls, RRPC, a message to any
 * of a device's topics (/ms3/publishMessage), the live traffic as server-sent events, and the live figures of
 * /monitor/real. Every answer says plainly when the broker is not running or the device is not connected.
 */

const NOT_RUNNING = '设备接入服务（MQTT）未运行，请检查服务器启动日志';

function jsonObject(raw: unknown, name: string): Record<string, unknown> {
    let value = raw;
    if (typeof raw === 'string') {
        if (!raw.trim()) throw badRequest(`请输入${name}`);
        try {
            value = JSON.parse(raw);
        } catch {
            throw badRequest(`${name}不是有效的 JSON`);
        }
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw badRequest(`${name}应为 JSON 对象`);
    return value as Record<string, unknown>;
}

function flag(raw: unknown): boolean | undefined {
    if (raw === undefined || raw === '') return undefined;
    if (raw === true || raw === 'true' || raw === '1' || raw === 1) return true;
    if (raw === false || raw === 'false' || raw === '0' || raw === 0) return false;
    throw badRequest('sync 只能是 true 或 false');
}

function timeoutOf(raw: unknown): number | undefined {
    if (raw === undefined || raw === '') return undefined;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < 100 || n > 60_000) throw badRequest('timeout 须为 100~60000 的整数（毫秒）');
    return n;
}

/** Alibaba's RRpc Timeout: 1000 to 8000 ms (default 8000). */
function rrpcTimeoutOf(raw: unknown): number | undefined {
    if (raw === undefined || raw === '') return undefined;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < 1000 || n > RRPC_TIMEOUT_MS)
        throw badRequest('timeout 须为 1000~8000 的整数（毫秒）');
    return n;
}

/** The largest RRPC request (MQTT_MAX_PACKET_BYTES' default: Alibaba's message limit). */
const RRPC_MAX_BYTES = 256 * 1024;

/** RequestBase64Byte: the request's bytes, base64. */
function requestBytes(raw: unknown): Buffer {
    const text = typeof raw === 'string' ? raw.trim() : '';
    if (!text) throw badRequest('请输入 requestBase64Byte（Base64 编码的请求内容）');
    if (text.length % 4 !== 0 || !/^[A-Za-z0-9+/]+={0,2}$/.test(text))
        throw badRequest('requestBase64Byte 不是有效的 Base64');
    const bytes = Buffer.from(text, 'base64');
    if (bytes.length > RRPC_MAX_BYTES) throw badRequest('请求内容不能超过 256KB');
    return bytes;
}

export function deviceAccessRoutes({ db, access, config }: Services) {
    const app = new Hono<AppEnv>();
    const backend = (): DeviceAccessBackend => {
        const b = access?.backend;
        if (!b) throw badRequest(NOT_RUNNING);
        return b;
    };

    app.post('/api/device/propertyTestSet', async (c) => {
        const body = await readBody(c);
        const deviceId = positiveInt(body.deviceId, '缺少设备ID');
        const params = jsonObject(body.params, '属性值');
        const options = { sync: flag(body.sync) ?? true, timeoutMs: timeoutOf(body.timeout) };
        return ok(c, await backend().downlink.setProperties(deviceId, params, options));
    });

    app.post('/api/device/serviceTestSet', async (c) => {
        const body = await readBody(c);
        const deviceId = positiveInt(body.deviceId, '缺少设备ID');
        const identifier = typeof body.identifier === 'string' ? body.identifier.trim() : '';
        if (!identifier) throw badRequest('请选择服务');
        const params = body.params === undefined || body.params === '' ? {} : jsonObject(body.params, '输入参数');
        const options = { sync: flag(body.sync), timeoutMs: timeoutOf(body.timeout) };
        return ok(c, await backend().downlink.invokeService(deviceId, identifier, params, options));
    });

    // Alibaba's RRpc: bytes to the device, its answer within the timeout (docs/device-access.md "RRPC").
    app.post('/api/device/rrpc', async (c) => {
        const body = await readBody(c);
        const deviceId = positiveInt(body.deviceId, '缺少设备ID');
        const request = requestBytes(body.requestBase64Byte);
        const timeoutMs = rrpcTimeoutOf(body.timeout);
        const topic = typeof body.topic === 'string' && body.topic.trim() ? body.topic.trim() : undefined;
        return ok(c, await backend().downlink.rrpc(deviceId, request, { topic, timeoutMs }));
    });

    app.post('/ms3/publishMessage', async (c) => {
        const body = await readBody(c);
        const deviceId = positiveInt(body.deviceId, '缺少设备ID');
        const topic = typeof body.topic === 'string' ? body.topic.trim() : '';
        if (!topic) throw badRequest('请输入 Topic');
        if (/[#+]/.test(topic)) throw badRequest('Topic 不能包含通配符 # 或 +');
        const payload = typeof body.payload === 'string' ? body.payload : '';
        if (payload.length > 256 * 1024) throw badRequest('消息内容不能超过 256KB');
        const qos = body.qos === undefined || body.qos === '' ? 0 : Number(body.qos);
        if (qos !== 0 && qos !== 1) throw badRequest('QoS 只能是 0 或 1');
        const b = backend();
        if (!b.isOnline(deviceId)) throw badRequest('设备不在线，无法发布消息');
        if (!(await b.publishTo(deviceId, topic, payload, qos))) throw badRequest('只能发布到该设备自己的 Topic');
        return ok(c, { topic, qos, bytes: Buffer.byteLength(payload) });
    });

    // Server-sent events: `traffic` events of one device (deviceId) or one product (productKey), or all.
    app.get('/api/monitor/stream', (c) => {
        const deviceRaw = c.req.query('deviceId');
        const deviceId = deviceRaw ? positiveInt(deviceRaw, 'deviceId 须为正整数') : undefined;
        const productKey = c.req.query('productKey')?.trim() || undefined;
        const b = backend();
        const filter = (e: TrafficEvent) =>
            (deviceId === undefined || e.deviceId === deviceId) &&
            (productKey === undefined || e.productKey === productKey);
        return streamSSE(c, async (stream) => {
            const queue: TrafficEvent[] = [];
            let wake: (() => void) | undefined;
            const off = b.traffic.subscribe(filter, (e) => {
                if (queue.length < 1000) queue.push(e);
                wake?.();
            });
            stream.onAbort(() => {
                off();
                wake?.();
            });
            await stream.writeSSE({ event: 'ready', data: JSON.stringify({ connected: b.connected }) });
            while (!stream.aborted) {
                while (queue.length) {
                    await stream.writeSSE({ event: 'traffic', data: JSON.stringify(queue.shift()) });
                }
                await new Promise<void>((resolve) => {
                    wake = resolve;
                    setTimeout(resolve, 15_000); // a comment line keeps proxies from closing an idle stream
                });
                wake = undefined;
                if (!queue.length && !stream.aborted) await stream.write(': keep-alive\n\n');
            }
            off();
        });
    });

    app.get('/api/monitor/real', async (c) => {
        const b = access?.backend;
        const rates = b?.traffic.rates() ?? {
            upPerSecond: 0,
            downPerSecond: 0,
            byProduct: [],
            series: [],
            totals: { up: 0, down: 0 },
        };
        // In a cluster: every living member's share, summed (server/cluster/figures.ts); `nodes` lists the shares.
        const shares = await clusterShares();
        let connected = b?.connected ?? 0;
        let series: Array<{ up: number; down: number; at?: number }> = rates.series;
        if (shares) {
            const byProduct = new Map<string, number>();
            for (const { figures: f } of shares) {
                for (const p of f.byProduct ?? [])
                    byProduct.set(p.productKey, (byProduct.get(p.productKey) ?? 0) + p.upPerSecond);
            }
            const sum = (pick: (f: Partial<NodeFigures>) => number | undefined) =>
                Math.round(shares.reduce((s, x) => s + (pick(x.figures) ?? 0), 0) * 10) / 10;
            connected = sum((f) => f.connected);
            rates.upPerSecond = sum((f) => f.upPerSecond);
            rates.downPerSecond = sum((f) => f.downPerSecond);
            rates.totals = { up: sum((f) => f.totals?.up), down: sum((f) => f.totals?.down) };
            rates.byProduct = [...byProduct].map(([productKey, upPerSecond]) => ({
                productKey,
                upPerSecond: Math.round(upPerSecond * 10) / 10,
            }));
            series = sumSeries(shares);
        }
        const keys = rates.byProduct.map((p) => p.productKey);
        const named = keys.length
            ? await db
                  .select({ id: products.id, productKey: products.productKey, productName: products.productName })
                  .from(products)
                  .where(inArray(products.productKey, keys))
            : [];
        const online = named.length
            ? await db
                  .select({ productId: deviceCounts.productId, total: deviceCounts.total })
                  .from(deviceCounts)
                  .where(eq(deviceCounts.status, 'ONLINE'))
            : [];
        const onlineOf = new Map(online.map((r) => [r.productId, Number(r.total)]));
        const byKey = new Map(named.map((p) => [p.productKey, p]));
        return ok(c, {
            running: Boolean(b),
            connected,
            upPerSecond: rates.upPerSecond,
            downPerSecond: rates.downPerSecond,
            totals: rates.totals,
            series: series.map((s, i) => ({ second: i - series.length + 1, up: s.up, down: s.down })),
            products: rates.byProduct
                .map((p) => ({
                    productKey: p.productKey,
                    productName: byKey.get(p.productKey)?.productName ?? p.productKey,
                    online: onlineOf.get(byKey.get(p.productKey)?.id ?? -1) ?? 0,
                    upPerSecond: p.upPerSecond,
                }))
                .sort((a, b2) => b2.upPerSecond - a.upPerSecond),
            // Each member's share (this process alone without REDIS_URL).
            nodes: memberRows(shares ?? (await members(() => ({ connected, ...rates }))), (t) =>
                formatTime(t, config.timeZone),
            ),
        });
    });

    return app;
}
