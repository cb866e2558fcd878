import { randomInt } from 'node:crypto';
import { badRequest } from '../http/errors';
import { protocolToRawData, rawDataToProtocol, type ScriptAccess } from '../scripts/calls';
import type { Directory, DeviceEntry } from './directory';
import { checkValue } from './thingValues';
import type { MessageWrite, MessageWriter } from './writer';

/**
 * Downlink: set properties (`thing.service.property.set`) and invoke services (`thing.service.{identifier}`), with
 * parameters checked against the thing model, and Alibaba's RRPC. An asynchronous service (and a property set) goes
 * to `/sys/{pk}/{dn}/thing/service/...`; waited for, its `_reply` (or a timeout) is the answer. A synchronous service
 * (callType sync) goes through RRPC as on Alibaba: the call on `/sys/{pk}/{dn}/rrpc/request/{messageId}`, the device's
 * `/sys/{pk}/{dn}/rrpc/response/{messageId}` the answer, within 8 s. rrpc() is Alibaba's RRpc API: any bytes on the
 * system RRPC topics, or on a custom topic `/ext/rrpc/{messageId}{topic}` where the device answers on the same topic.
 * Answers are heard through the broker, so they reach the caller whichever process holds the device. Requests and
 * what became of them go to the message log.
 */

/** Alibaba's RrpcCode: the device answered, did not answer in time, or is not connected. */
export type RrpcCode = 'SUCCESS' | 'TIMEOUT' | 'OFFLINE';

export interface DownlinkResult {
    messageId: string;
    /** 'replied' (with the device's code and data), 'sent' (asynchronous), 'timeout', 'offline'. */
    state: 'replied' | 'sent' | 'timeout' | 'offline';
    code?: number;
    message?: string;
    data?: unknown;
    /** A call made through RRPC (a synchronous service): Alibaba's RrpcCode of it. */
    rrpcCode?: RrpcCode;
}

/** What Alibaba's RRpc API answers: the message id, the RrpcCode, and the device's answer (SUCCESS) in base64. */
export interface RrpcResult {
    messageId: string;
    rrpcCode: RrpcCode;
    payloadBase64Byte?: string;
}

interface Deps {
    directory: Directory;
    writer: MessageWriter;
    /** Publishes as the platform; `to`: the device the topic belongs to. */
    publish: (topic: string, payload: string | Buffer, qos?: 0 | 1, to?: DeviceEntry) => Promise<void>;
    isOnline: (deviceId: number) => boolean;
    /** Listens on a topic through the broker (replies come from whichever process holds the device); answers the unsubscribe. */
    listen: (topic: string, fn: (payload: Buffer) => void) => Promise<() => void>;
    /** 透传/自定义 products' scripts: their calls go as bytes on `thing/model/down_raw` (server/mqtt/rawData.ts). */
    scripts?: ScriptAccess;
}

export const DEFAULT_TIMEOUT_MS = 5_000;

/** Alibaba's limit for RRPC: a synchronous service waits 8 s at most, the RRpc API 1 to 8 s. */
export const RRPC_TIMEOUT_MS = 8_000;

/** What became of a call that waits: the device's answer, or no answer. */
type Outcome = { answer: Buffer } | { state: 'timeout' | 'offline' };

interface Waiter {
    deviceId: number;
    settle: (outcome: Outcome) => void;
}

interface Exchange {
    request: { topic: string; body: string | Buffer; qos: 0 | 1 };
    answerTopic: string;
    /** Whether a message on the answer topic is the answer. */
    accept: (payload: Buffer) => boolean;
    /** Makes the answer topic's bytes Alink JSON before `accept` (a 透传/自定义 product's down_raw_reply). */
    decode?: (payload: Buffer) => Promise<Buffer | undefined>;
    timeoutMs: number;
}

const newMessageId = () => String(randomInt(1, 2 ** 47));

/** A call to a 透传/自定义 device: Alibaba's template carries the id as a signed 32-bit integer, so it must fit one. */
const newRawMessageId = () => String(randomInt(1, 2 ** 31));

function jsonObject(payload: Buffer): Record<string, unknown> | undefined {
    try {
        const v = JSON.parse(payload.toString('utf8')) as unknown;
        return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
    } catch {
        return undefined;
    }
}

/** An Alink answer `{ id, code, message, data }` as the call's result. */
function replied(messageId: string, payload: Buffer): DownlinkResult {
    const m = jsonObject(payload);
    if (!m) return { messageId, state: 'replied', message: '设备的应答不是 JSON 对象', data: payload.toString('utf8') };
    return {
        messageId,
        state: 'replied',
        code: typeof m.code === 'number' ? m.code : Number(m.code),
        message: typeof m.message === 'string' ? m.message : undefined,
        data: m.data,
    };
}

const NO_ANSWER = { timeout: '设备未在规定时间内应答', offline: '设备已离线' } as const;

/** Bytes as the message log keeps them: text when printable, else base64. */
function logged(payload: Buffer): Record<string, string> {
    const text = payload.toString('utf8');
    return !text.includes('\uFFFD') && !text.includes('\u0000')
        ? { payload: text }
        : { raw: payload.toString('base64') };
}

/** The custom RRPC topic a caller may name: one of the device's own `/{pk}/{dn}/user/...`, without wildcards. */
function customTopic(device: DeviceEntry, topic: string): string {
    const own = `/${device.productKey}/${device.deviceName}/user/`;
    if (!topic.startsWith(own) || topic.length === own.length || /[#+]/.test(topic) || topic.includes('\u0000'))
        throw badRequest(`Topic 须为该设备的自定义 Topic（${own}...），不能包含通配符`);
    return topic;
}

/** A call to a 透传/自定义 device: its bytes on down_raw, its answer decoded from down_raw_reply. */
interface RawCall {
    topic: string;
    body: Buffer;
    answerTopic: string;
    decode: (payload: Buffer) => Promise<Buffer | undefined>;
}

/**
 * The call as the device of a 透传/自定义 product with a published script takes it: the Alink JSON through
 * protocolToRawData on `thing/model/down_raw`, the answer through rawDataToProtocol from `down_raw_reply`. Undefined
 * for other products; 400 with the script's error when it cannot convert the call.
 */
async function rawCall(
    scripts: ScriptAccess | undefined,
    device: DeviceEntry,
    body: string,
): Promise<RawCall | undefined> {
    const source = scripts && device.passthrough ? await scripts.published(device.productId) : undefined;
    if (!source) return undefined;
    const bytes = await protocolToRawData(scripts!.sandbox, source, JSON.parse(body) as Record<string, unknown>);
    if (!bytes.ok) throw badRequest(`数据解析脚本未能转换下发数据：${bytes.error}`);
    const base = `/sys/${device.productKey}/${device.deviceName}/thing/model/`;
    return {
        topic: `${base}down_raw`,
        body: bytes.value,
        answerTopic: `${base}down_raw_reply`,
        decode: async (payload) => {
            const json = await rawDataToProtocol(scripts!.sandbox, source, payload);
            return json.ok ? Buffer.from(JSON.stringify(json.value)) : undefined;
        },
    };
}

export function createDownlink({ directory, writer, publish, isOnline, listen, scripts }: Deps) {
    const waiting = new Map<string, Waiter>();
    const offline = (device: DeviceEntry) => !isOnline(device.deviceId) && device.status !== 'ONLINE';
    const log = (device: DeviceEntry, write: Omit<MessageWrite, 'deviceId' | 'productId' | 'ts'>) =>
        writer.write({ deviceId: device.deviceId, productId: device.productId, ts: new Date(), ...write });

    /** Publishes the request and waits (listening first) for the answer, the timeout, or the device leaving. */
    async function exchange(device: DeviceEntry, messageId: string, x: Exchange): Promise<Outcome> {
        let settle!: (o: Outcome) => void;
        const outcome = new Promise<Outcome>((resolve) => {
            const timer = setTimeout(() => settle({ state: 'timeout' }), x.timeoutMs);
            settle = (o) => {
                if (waiting.get(messageId)?.settle !== settle) return;
                waiting.delete(messageId);
                clearTimeout(timer);
                resolve(o);
            };
            waiting.set(messageId, { deviceId: device.deviceId, settle });
        });
        const stop = await listen(x.answerTopic, (payload) => {
            if (!x.decode) return void (x.accept(payload) && settle({ answer: payload }));
            void x.decode(payload).then((json) => json && x.accept(json) && settle({ answer: json }));
        });
        try {
            await publish(x.request.topic, x.request.body, x.request.qos, device);
            return await outcome;
        } finally {
            settle({ state: 'timeout' });
            stop();
        }
    }

    /** Logs a call that got no answer, as `{method}` with its state. */
    const logUnanswered = (device: DeviceEntry, method: string, identifier: string | null, r: DownlinkResult) =>
        log(device, {
            method,
            identifier,
            data: { direction: 'up', id: r.messageId, state: r.state, code: r.code, data: r.data },
        }).catch(() => undefined);

    async function send(
        device: DeviceEntry,
        method: string,
        identifier: string | null,
        topicRest: string,
        params: Record<string, unknown>,
        options: { sync?: boolean; timeoutMs?: number },
    ): Promise<DownlinkResult> {
        const messageId = device.passthrough ? newRawMessageId() : newMessageId();
        // Connected here, or to another process of the platform (its status says ONLINE).
        if (offline(device)) return { messageId, state: 'offline', message: '设备不在线' };
        const alinkTopic = `/sys/${device.productKey}/${device.deviceName}/${topicRest}`;
        const alinkBody = JSON.stringify({ id: messageId, version: '1.0', params, method });
        const raw = await rawCall(scripts, device, alinkBody);
        const topic = raw?.topic ?? alinkTopic;
        const body = raw?.body ?? alinkBody;
        const rawLog = raw ? { raw: raw.body.toString('base64') } : {};
        await log(device, { method, identifier, data: { direction: 'down', id: messageId, params, ...rawLog } });
        if (!options.sync) {
            await publish(topic, body, 1, device);
            return { messageId, state: 'sent' };
        }
        const outcome = await exchange(device, messageId, {
            request: { topic, body, qos: 1 },
            answerTopic: raw?.answerTopic ?? `${topic}_reply`,
            accept: (payload) => String(jsonObject(payload)?.id ?? '') === messageId,
            decode: raw?.decode,
            timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
        });
        if ('answer' in outcome) return replied(messageId, outcome.answer);
        const result: DownlinkResult = { messageId, state: outcome.state, message: NO_ANSWER[outcome.state] };
        await logUnanswered(device, `${method}_reply`, identifier, result);
        return result;
    }

    /** A synchronous service through RRPC: the Alink call on rrpc/request, the device's rrpc/response its answer. */
    async function rrpcService(
        device: DeviceEntry,
        identifier: string,
        params: Record<string, unknown>,
        timeoutMs: number,
    ): Promise<DownlinkResult> {
        const messageId = newMessageId();
        if (offline(device)) return { messageId, state: 'offline', message: '设备不在线', rrpcCode: 'OFFLINE' };
        const method = `thing.service.${identifier}`;
        const rrpc = `/sys/${device.productKey}/${device.deviceName}/rrpc/`;
        const body = JSON.stringify({ id: messageId, version: '1.0', params, method });
        await log(device, { method, identifier, data: { direction: 'down', id: messageId, params, rrpc: true } });
        const outcome = await exchange(device, messageId, {
            request: { topic: `${rrpc}request/${messageId}`, body, qos: 0 },
            answerTopic: `${rrpc}response/${messageId}`,
            accept: () => true,
            timeoutMs,
        });
        if ('answer' in outcome) return { ...replied(messageId, outcome.answer), rrpcCode: 'SUCCESS' };
        const result: DownlinkResult = {
            messageId,
            state: outcome.state,
            message: NO_ANSWER[outcome.state],
            rrpcCode: outcome.state === 'timeout' ? 'TIMEOUT' : 'OFFLINE',
        };
        await logUnanswered(device, `${method}_reply`, identifier, result);
        return result;
    }

    return {
        /** Sets writable properties; every identifier and value must fit the thing model. */
        async setProperties(
            deviceId: number,
            values: Record<string, unknown>,
            options: { sync?: boolean; timeoutMs?: number } = {},
        ) {
            const device = await directory.byId(deviceId);
            if (!device) throw badRequest('设备不存在');
            if (!Object.keys(values).length) throw badRequest('请至少设置一个属性');
            const model = await directory.model(device.productId);
            for (const [identifier, value] of Object.entries(values)) {
                const fn = model.properties.get(identifier);
                if (!fn) throw badRequest(`属性 ${identifier} 未在物模型中定义`);
                if (fn.accessMode === 'r') throw badRequest(`属性 ${identifier} 是只读的`);
                const why = checkValue(fn.dataType, value);
                if (why) throw badRequest(`属性 ${identifier} ${why}`);
            }
            return send(device, 'thing.service.property.set', null, 'thing/service/property/set', values, options);
        },
        /**
         * Invokes a service with its input parameters. A synchronous service (callType sync) goes through RRPC and
         * waits at most 8 s (a shorter timeoutMs is kept); an asynchronous one waits for its `_reply` when `sync`.
         */
        async invokeService(
            deviceId: number,
            identifier: string,
            input: Record<string, unknown>,
            options: { sync?: boolean; timeoutMs?: number } = {},
        ) {
            const device = await directory.byId(deviceId);
            if (!device) throw badRequest('设备不存在');
            const model = await directory.model(device.productId);
            const fn = model.services.get(identifier);
            if (!fn) throw badRequest(`服务 ${identifier} 未在物模型中定义`);
            const inputs = new Map(fn.inputData.map((p) => [p.identifier, p]));
            for (const [key, value] of Object.entries(input)) {
                const param = inputs.get(key);
                if (!param) throw badRequest(`服务 ${identifier} 没有参数 ${key}`);
                const why = checkValue(param.dataType, value);
                if (why) throw badRequest(`服务 ${identifier} 的参数 ${key} ${why}`);
            }
            if (fn.callType === 'sync') {
                const timeoutMs = Math.min(options.timeoutMs ?? RRPC_TIMEOUT_MS, RRPC_TIMEOUT_MS);
                return rrpcService(device, identifier, input, timeoutMs);
            }
            const sync = options.sync ?? fn.callType !== 'async';
            return send(device, `thing.service.${identifier}`, identifier, `thing/service/${identifier}`, input, {
                ...options,
                sync,
            });
        },
        /**
         * Alibaba's RRpc API: `request` (the bytes as they are) on `/sys/{pk}/{dn}/rrpc/request/{messageId}`, answered on
         * `.../rrpc/response/{messageId}`; with `topic` (one of the device's `/{pk}/{dn}/user/...`) on
         * `/ext/rrpc/{messageId}{topic}`, answered on the same topic. Waits `timeoutMs` (default 8 s).
         */
        async rrpc(
            deviceId: number,
            request: Buffer,
            options: { topic?: string; timeoutMs?: number } = {},
        ): Promise<RrpcResult> {
            const device = await directory.byId(deviceId);
            if (!device) throw badRequest('设备不存在');
            const topic = options.topic === undefined ? undefined : customTopic(device, options.topic);
            const messageId = newMessageId();
            if (offline(device)) return { messageId, rrpcCode: 'OFFLINE' };
            const system = `/sys/${device.productKey}/${device.deviceName}/rrpc/`;
            const requestTopic = topic ? `/ext/rrpc/${messageId}${topic}` : `${system}request/${messageId}`;
            await log(device, {
                method: 'rrpc.request',
                identifier: null,
                data: { direction: 'down', id: messageId, ...(topic ? { topic } : {}), ...logged(request) },
            });
            // A custom topic carries the request and the answer: the platform's own request comes back first.
            let echo = topic !== undefined;
            const outcome = await exchange(device, messageId, {
                request: { topic: requestTopic, body: request, qos: 0 },
                answerTopic: topic ? requestTopic : `${system}response/${messageId}`,
                accept: (payload) => {
                    if (echo && payload.equals(request)) return (echo = false);
                    return true;
                },
                timeoutMs: options.timeoutMs ?? RRPC_TIMEOUT_MS,
            });
            if ('answer' in outcome)
                return { messageId, rrpcCode: 'SUCCESS', payloadBase64Byte: outcome.answer.toString('base64') };
            const rrpcCode = outcome.state === 'timeout' ? 'TIMEOUT' : 'OFFLINE';
            await log(device, {
                method: 'rrpc.response',
                identifier: null,
                data: { direction: 'up', id: messageId, state: outcome.state },
            }).catch(() => undefined);
            return { messageId, rrpcCode };
        },
        /** A device that left answers nothing more: its waiting calls end as offline at once. */
        deviceLeft(deviceId: number) {
            for (const entry of [...waiting.values()]) {
                if (entry.deviceId === deviceId) entry.settle({ state: 'offline' });
            }
        },
    };
}

export type Downlink = ReturnType<typeof createDownlink>;
