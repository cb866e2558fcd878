import { PROPERTY_POST } from '../domain/telemetry';
import type { DeviceEntry } from './directory';
import { messageTime, withDeviceTime } from './messageTime';
import type { Delivery } from './resend';
import { checkValue, propertyValues } from './thingValues';
import { propertyPostReplyTopic, propertyPostTopic } from './topics';
import { ALINK, storeAccepted, type UplinkState } from './uplinkStore';

/**
 * Alink JSON property and event posts: checked against the product's thing model, stored (uplinkStore.ts) and
 * answered on `{topic}_reply` with code 200, or with an error code and a message naming what is wrong.
 */

export interface AlinkRequest {
    id?: unknown;
    version?: unknown;
    method?: unknown;
    params?: unknown;
}

/** The rest of a property post's success reply, after its id (as JSON.stringify writes the whole body). */
const PROPERTY_POST_OK = `,"code":${ALINK.OK},"data":{},"message":"success","method":"${PROPERTY_POST}","version":"1.0"}`;

export function parseJson(payload: Buffer): AlinkRequest | undefined {
    try {
        const value = JSON.parse(payload.toString('utf8')) as unknown;
        return typeof value === 'object' && value !== null && !Array.isArray(value)
            ? (value as AlinkRequest)
            : undefined;
    } catch {
        return undefined;
    }
}

export const requestIdOf = (request: AlinkRequest) =>
    typeof request.id === 'string' || typeof request.id === 'number' ? String(request.id) : '';

export const isRecord = (v: unknown): v is Record<string, unknown> =>
    typeof v === 'object' && v !== null && !Array.isArray(v);

/** The `time` of the first value of a property post's params (`{ id: { value, time } }`), if any. */
function firstTime(params: Record<string, unknown>): unknown {
    for (const id in params) {
        const first = params[id];
        return isRecord(first) ? first.time : undefined;
    }
    return undefined;
}

/** The Alink reply to `request` on `{topic}_reply`: `{ id, code, data: {}, message, method, version }`. */
export async function reply(
    s: UplinkState,
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
    await s.publish(replyTopic, body, 0, device).catch(() => undefined);
}

/** Why a property post's values do not fit the thing model, or undefined when they do. */
export async function propertyProblem(
    s: UplinkState,
    device: DeviceEntry,
    values: Record<string, unknown>,
): Promise<string | undefined> {
    const model = s.directory.loadedModel(device.productId) ?? (await s.directory.model(device.productId));
    for (const identifier in values) {
        const fn = model.properties.get(identifier);
        if (!fn) return `属性 ${identifier} 未在物模型中定义`;
        const why = checkValue(fn.dataType, values[identifier]);
        if (why) return `属性 ${identifier} ${why}`;
    }
    return undefined;
}

export async function propertyPost(
    s: UplinkState,
    device: DeviceEntry,
    topic: string,
    request: AlinkRequest | undefined,
    payload: Buffer,
    delivery?: Delivery,
) {
    const method = PROPERTY_POST;
    const refuse = (why: string) => reply(s, device, topic, request, method, ALINK.BAD_PARAMS, why);
    if (!request) return refuse('消息不是有效的 JSON 对象');
    if (!isRecord(request.params)) return refuse('params 应为对象');
    const values = propertyValues(request.params);
    if (!Object.keys(values).length) return refuse('属性上报不能为空');
    const problem = await propertyProblem(s, device, values);
    if (problem) return refuse(problem);
    const time = messageTime(firstTime(request.params), s.retentionDays);
    const accepted = { device, topic, kind: 'property' as const, values, ts: time.ts, payload };
    await storeAccepted(
        s,
        { ...accepted, requestId: requestIdOf(request) },
        {
            deviceId: device.deviceId,
            productId: device.productId,
            ts: time.ts,
            method,
            identifier: null,
            data: withDeviceTime(values, time),
            values,
            delivery,
        },
    );
    return reply(s, device, topic, request, method, ALINK.OK, 'success');
}

/** Why an event post's output values do not fit the event, or undefined when they do. */
export async function eventProblem(
    s: UplinkState,
    device: DeviceEntry,
    identifier: string,
    value: unknown,
): Promise<string | undefined> {
    const model = await s.directory.model(device.productId);
    const fn = model.events.get(identifier);
    if (!fn) return `事件 ${identifier} 未在物模型中定义`;
    if (!isRecord(value)) return 'params.value 应为对象';
    const outputs = new Map(fn.outputData.map((p) => [p.identifier, p]));
    for (const [key, v] of Object.entries(value)) {
        const param = outputs.get(key);
        if (!param) return `事件 ${identifier} 没有参数 ${key}`;
        const why = checkValue(param.dataType, v);
        if (why) return `事件 ${identifier} 的参数 ${key} ${why}`;
    }
    return undefined;
}

/**
 * The readings of an event post's params, in the order they are tried: Alibaba's documented `{ value: {outputs},
 * time }`, and the output values themselves, which alibabacloud-iot-device-sdk's postEvent and Alibaba's current Link
 * SDKs send. Params of the first shape are read the first way unless only the second fits the event.
 */
export function eventReadings(params: Record<string, unknown>): Array<{ values: unknown; time: unknown }> {
    const plain = { values: params, time: undefined };
    const wrapped = 'value' in params && Object.keys(params).every((k) => k === 'value' || k === 'time');
    return wrapped ? [{ values: params.value, time: params.time }, plain] : [plain];
}

/** The first reading of `params` that fits the event, or the first reading's problem. */
async function readEvent(
    s: UplinkState,
    device: DeviceEntry,
    identifier: string,
    params: Record<string, unknown>,
): Promise<{ values: Record<string, unknown>; time: unknown } | { problem: string }> {
    const readings = eventReadings(params);
    let first: string | undefined;
    for (const reading of readings) {
        const problem = await eventProblem(s, device, identifier, reading.values);
        if (!problem) return { values: reading.values as Record<string, unknown>, time: reading.time };
        first ??= problem;
    }
    return { problem: first! };
}

export async function eventPost(
    s: UplinkState,
    device: DeviceEntry,
    topic: string,
    identifier: string,
    request: AlinkRequest | undefined,
    payload: Buffer,
    delivery?: Delivery,
) {
    const method = `thing.event.${identifier}.post`;
    const refuse = (why: string) => reply(s, device, topic, request, method, ALINK.BAD_PARAMS, why);
    if (!request) return refuse('消息不是有效的 JSON 对象');
    const params = request.params ?? {};
    if (!isRecord(params)) return refuse('params 应为对象');
    const read = await readEvent(s, device, identifier, params);
    if ('problem' in read) return refuse(read.problem);
    const { values } = read;
    const time = messageTime(read.time, s.retentionDays);
    await storeAccepted(
        s,
        { device, topic, kind: 'event', identifier, values, ts: time.ts, requestId: requestIdOf(request), payload },
        {
            deviceId: device.deviceId,
            productId: device.productId,
            ts: time.ts,
            method,
            identifier,
            data: withDeviceTime(values, time),
            delivery,
        },
    );
    return reply(s, device, topic, request, method, ALINK.OK, 'success');
}
