import type { Directory, DeviceEntry } from './directory';
import { parseSysTopic, propertyPostReplyTopic, propertyPostTopic } from './topics';
import { checkValue, propertyValues } from './thingValues';
import type { MessageWriter } from './writer';
import { PROPERTY_POST } from '../domain/telemetry';

/**
 * Uplink in Alibaba's Alink JSON: property posts and event posts are checked against the product's thing model,
 * written through the batch writer, and answered on `{topic}_reply` with code 200 or an error code and a message
 * naming what is wrong. Passthrough products' raw payloads and custom `user` topics are logged as they come.
 */

/** Alink reply codes: 200 success, 460 bad request parameters, 500 the platform failed. */
export const ALINK = { OK: 200, BAD_PARAMS: 460, FAILED: 500 } as const;

interface Deps {
    directory: Directory;
    writer: MessageWriter;
    /** Publishes to `device`'s topic as the platform. */
    publish: (topic: string, payload: string, qos: 0 | 1, device: DeviceEntry) => Promise<void>;
    log: (message: string) => void;
}

interface AlinkRequest {
    id?: unknown;
    version?: unknown;
    method?: unknown;
    params?: unknown;
}

/**
 * A message the platform accepted from a device after checking it against the thing model: what rules and
 * server-side subscriptions act on. `payload` is the device's bytes as they came.
 */
export interface AcceptedMessage {
    device: DeviceEntry;
    topic: string;
    kind: 'property' | 'event';
    /** The event's identifier (kind 'event'). */
    identifier?: string;
    /** Property values (kind 'property') or the event's output values (kind 'event'). */
    values: Record<string, unknown>;
    /** The device's time when sane, else the arrival time. */
    ts: Date;
    /** The Alink request id the device sent ('' when none). */
    requestId: string;
    payload: Buffer;
}

/** The rest of a property post's success reply, after its id (as JSON.stringify writes the whole body). */
const PROPERTY_POST_OK = `,"code":${ALINK.OK},"data":{},"message":"success","method":"${PROPERTY_POST}","version":"1.0"}`;

const EVENT_POST = /^thing\/event\/([A-Za-z_][A-Za-z0-9_]*)\/post$/;

function parseJson(payload: Buffer): AlinkRequest | undefined {
    try {
        const value = JSON.parse(payload.toString('utf8')) as unknown;
        return typeof value === 'object' && value !== null && !Array.isArray(value)
            ? (value as AlinkRequest)
            : undefined;
    } catch {
        return undefined;
    }
}

/** The `time` of the first value of a property post's params (`{ id: { value, time } }`), if any. */
function firstTime(params: Record<string, unknown>): unknown {
    for (const id in params) {
        const first = params[id];
        return typeof first === 'object' && first !== null ? (first as { time?: unknown }).time : undefined;
    }
    return undefined;
}

function isEmpty(o: object): boolean {
    for (const _ in o) return false;
    return true;
}

/** Alink's `time` (ms) when the device gives a sane one, else now. */
function timeOf(raw: unknown): Date {
    const n = typeof raw === 'number' ? raw : typeof raw === 'string' && /^\d+$/.test(raw) ? Number(raw) : NaN;
    const now = Date.now();
    return Number.isFinite(n) && n > 946_684_800_000 && n < now + 86_400_000 ? new Date(n) : new Date(now);
}

/**
 * A feature's own device topics (OTA: /ota/device/..., /sys/.../thing/ota/...): the handler answers a promise when the
 * topic is its own, undefined when not.
 */
export type TopicHandler = (device: DeviceEntry, topic: string, payload: Buffer) => Promise<void> | undefined;

export function createUplink({ directory, writer, publish }: Deps) {
    let listeners: Array<(device: DeviceEntry, topic: string, payload: Buffer) => void> = [];
    let topicHandlers: TopicHandler[] = [];
    let acceptedListeners: Array<(message: AcceptedMessage) => unknown> = [];
    const requestIdOf = (request: AlinkRequest) =>
        typeof request.id === 'string' || typeof request.id === 'number' ? String(request.id) : '';
    /** Tells the listeners; resolves once those that return a promise (the AMQP queue's insert) have settled. */
    function accepted(message: AcceptedMessage): Promise<unknown> | undefined {
        let waits: Array<Promise<unknown>> | undefined;
        for (const l of acceptedListeners) {
            try {
                const wait = l(message);
                if (wait instanceof Promise) (waits ??= []).push(wait.catch(() => undefined));
            } catch {
                // A listener's failure is its own; the device's message is stored and answered regardless.
            }
        }
        return waits && Promise.all(waits);
    }

    /** The Alink reply to `request` on `{topic}_reply`: `{ id, code, data: {}, message, method, version }`. */
    async function reply(
        device: DeviceEntry,
        topic: string,
        request: AlinkRequest | undefined,
        method: string,
        code: number,
        message: string,
    ) {
        const id = request ? requestIdOf(request) : '';
        const body =
            code === ALINK.OK && method === PROPERTY_POST
                ? `{"id":${JSON.stringify(id)}${PROPERTY_POST_OK}`
                : JSON.stringify({ id, code, data: {}, message, method, version: '1.0' });
        const replyTopic = topic === propertyPostTopic(device) ? propertyPostReplyTopic(device) : `${topic}_reply`;
        await publish(replyTopic, body, 0, device).catch(() => undefined);
    }

    async function propertyPost(
        device: DeviceEntry,
        topic: string,
        request: AlinkRequest | undefined,
        payload: Buffer,
    ) {
        const method = PROPERTY_POST;
        if (!request) return reply(device, topic, request, method, ALINK.BAD_PARAMS, '消息不是有效的 JSON 对象');
        const params = request.params;
        if (typeof params !== 'object' || params === null || Array.isArray(params))
            return reply(device, topic, request, method, ALINK.BAD_PARAMS, 'params 应为对象');
        const values = propertyValues(params as Record<string, unknown>);
        if (isEmpty(values)) return reply(device, topic, request, method, ALINK.BAD_PARAMS, '属性上报不能为空');
        const model = directory.loadedModel(device.productId) ?? (await directory.model(device.productId));
        for (const identifier in values) {
            const fn = model.properties.get(identifier);
            if (!fn)
                return reply(device, topic, request, method, ALINK.BAD_PARAMS, `属性 ${identifier} 未在物模型中定义`);
            const why = checkValue(fn.dataType, values[identifier]);
            if (why) return reply(device, topic, request, method, ALINK.BAD_PARAMS, `属性 ${identifier} ${why}`);
        }
        const ts = timeOf(firstTime(params as Record<string, unknown>));
        await writer.propertyPost(device.deviceId, ts, values, device.productId);
        // The reply (and the broker's PUBACK after it) waits for the subscriptions' queue insert too.
        if (acceptedListeners.length)
            await accepted({ device, topic, kind: 'property', values, ts, requestId: requestIdOf(request), payload });
        return reply(device, topic, request, method, ALINK.OK, 'success');
    }

    async function eventPost(
        device: DeviceEntry,
        topic: string,
        identifier: string,
        request: AlinkRequest | undefined,
        payload: Buffer,
    ) {
        const method = `thing.event.${identifier}.post`;
        if (!request) return reply(device, topic, request, method, ALINK.BAD_PARAMS, '消息不是有效的 JSON 对象');
        const params = (request.params ?? {}) as { value?: unknown; time?: unknown };
        if (typeof params !== 'object' || Array.isArray(params))
            return reply(device, topic, request, method, ALINK.BAD_PARAMS, 'params 应为对象');
        const model = await directory.model(device.productId);
        const fn = model.events.get(identifier);
        if (!fn) return reply(device, topic, request, method, ALINK.BAD_PARAMS, `事件 ${identifier} 未在物模型中定义`);
        const value = params.value ?? {};
        if (typeof value !== 'object' || value === null || Array.isArray(value))
            return reply(device, topic, request, method, ALINK.BAD_PARAMS, 'params.value 应为对象');
        const outputs = new Map(fn.outputData.map((p) => [p.identifier, p]));
        for (const [key, v] of Object.entries(value)) {
            const param = outputs.get(key);
            if (!param)
                return reply(device, topic, request, method, ALINK.BAD_PARAMS, `事件 ${identifier} 没有参数 ${key}`);
            const why = checkValue(param.dataType, v);
            if (why)
                return reply(
                    device,
                    topic,
                    request,
                    method,
                    ALINK.BAD_PARAMS,
                    `事件 ${identifier} 的参数 ${key} ${why}`,
                );
        }
        const ts = timeOf(params.time);
        await writer.write({
            deviceId: device.deviceId,
            productId: device.productId,
            ts,
            method,
            identifier,
            data: value,
        });
        accepted({
            device,
            topic,
            kind: 'event',
            identifier,
            values: value as Record<string, unknown>,
            ts,
            requestId: requestIdOf(request),
            payload,
        });
        return reply(device, topic, request, method, ALINK.OK, 'success');
    }

    return {
        /** Everything a device publishes, after its rights are checked. */
        async handle(device: DeviceEntry, topic: string, payload: Buffer): Promise<void> {
            for (const l of listeners) l(device, topic, payload);
            if (topic === propertyPostTopic(device)) return propertyPost(device, topic, parseJson(payload), payload);
            if (topicHandlers.length && (topic.startsWith('/ota/') || topic.includes('/thing/ota/'))) {
                for (const h of topicHandlers) {
                    const taken = h(device, topic, payload);
                    if (taken) return taken;
                }
            }
            const sys = parseSysTopic(topic);
            if (sys && sys.productKey === device.productKey && sys.deviceName === device.deviceName) {
                if (sys.rest === 'thing/event/property/post')
                    return propertyPost(device, topic, parseJson(payload), payload);
                const event = EVENT_POST.exec(sys.rest);
                if (event) return eventPost(device, topic, event[1], parseJson(payload), payload);
                if (sys.rest.startsWith('thing/service/') && sys.rest.endsWith('_reply')) {
                    // The device's answer to a downlink call: logged here (the caller, on whichever process, hears it
                    // through its own subscription).
                    const message = parseJson(payload);
                    const service = sys.rest.slice('thing/service/'.length, -'_reply'.length);
                    const method =
                        service === 'property/set'
                            ? 'thing.service.property.set_reply'
                            : `thing.service.${service}_reply`;
                    await writer.write({
                        deviceId: device.deviceId,
                        productId: device.productId,
                        ts: new Date(),
                        method,
                        identifier: service === 'property/set' ? null : service,
                        data: {
                            direction: 'up',
                            id: String(message?.id ?? ''),
                            ...(message ? { reply: message } : { raw: payload.toString('base64') }),
                        },
                    });
                    return;
                }
                if (sys.rest === 'thing/model/up_raw') {
                    await writer.write({
                        deviceId: device.deviceId,
                        productId: device.productId,
                        ts: new Date(),
                        method: 'thing.model.up_raw',
                        identifier: null,
                        data: { raw: payload.toString('base64') },
                    });
                    return;
                }
            }
            if (topic === `/ext/ntp/${device.productKey}/${device.deviceName}/request`) {
                const received = Date.now();
                const request = parseJson(payload) as { deviceSendTime?: unknown } | undefined;
                const body = {
                    deviceSendTime: String(request?.deviceSendTime ?? ''),
                    serverRecvTime: String(received),
                    serverSendTime: String(Date.now()),
                };
                await publish(
                    `/ext/ntp/${device.productKey}/${device.deviceName}/response`,
                    JSON.stringify(body),
                    0,
                    device,
                );
                return;
            }
            // Custom topics and anything else inside the device's own space: logged as it came.
            const text = payload.toString('utf8');
            const printable = !text.includes('\uFFFD') && !text.includes('\u0000');
            await writer.write({
                deviceId: device.deviceId,
                productId: device.productId,
                ts: new Date(),
                method: 'user.message',
                identifier: null,
                data: printable ? { topic, payload: text } : { topic, raw: payload.toString('base64') },
            });
        },
        /**
         * Every property or event post accepted and stored (after the write), for rules and subscriptions. A
         * listener must not throw or block: it runs on the message path. Returns the unsubscribe.
         */
        onAccepted(fn: (message: AcceptedMessage) => unknown): () => void {
            acceptedListeners.push(fn);
            return () => {
                acceptedListeners = acceptedListeners.filter((l) => l !== fn);
            };
        },
        /** Handles a feature's own topics before the default logging (OTA). Returns the unsubscribe. */
        addTopicHandler(fn: TopicHandler): () => void {
            topicHandlers.push(fn);
            return () => {
                topicHandlers = topicHandlers.filter((h) => h !== fn);
            };
        },
        /** Every accepted uplink, for live views (monitor, device log). Returns the unsubscribe. */
        listen(fn: (device: DeviceEntry, topic: string, payload: Buffer) => void): () => void {
            listeners.push(fn);
            return () => {
                listeners = listeners.filter((l) => l !== fn);
            };
        },
    };
}

export type Uplink = ReturnType<typeof createUplink>;
