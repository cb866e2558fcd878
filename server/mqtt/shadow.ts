import {
    NULL_VALUE,
    SHADOW_MAX_ATTRIBUTES,
    ShadowRefusal,
    shadowBody,
    type Shadow,
    type ShadowChange,
} from '../domain/shadow';
import type { DeviceEntry } from './deviceTypes';
import type { Delivery } from './resend';
import type { UplinkState } from './uplinkStore';

/**
 * Alibaba's device shadow over MQTT. The device publishes on `/shadow/update/{pk}/{dn}`:
 * `{"method":"update","state":{"reported":{…}},"version":N}` (or `"desired":"null"` once it has applied the desired
 * state), `{"method":"get"}`, `{"method":"delete","state":{"reported":{"k":"null"}|"null"},"version":N}`; the
 * platform answers on `/shadow/get/{pk}/{dn}` with `{"method":"reply","payload":{"status":"success"|"error",…},
 * "timestamp":T}`, error codes as Alibaba's (400 JSON, 401 method missing, 402 state missing, 403 version not a
 * number, 404 reported missing, 405 reported empty, 406 method invalid, 407 shadow empty, 408 more than 128
 * attributes, 409 version conflict, 500 server). The desired state the cloud sets reaches the device as
 * `{"method":"control",…}` on the same topic: at once when it is connected, else when it next subscribes.
 * A well-formed MQTT message is always answered, never refused by closing the connection.
 */

export const SHADOW_CODES = {
    JSON: 400,
    NO_METHOD: 401,
    NO_STATE: 402,
    VERSION_NOT_NUMBER: 403,
    NO_REPORTED: 404,
    REPORTED_EMPTY: 405,
    BAD_METHOD: 406,
    EMPTY: 407,
    TOO_MANY: 408,
    CONFLICT: 409,
    SERVER: 500,
} as const;

/** The device's two shadow topics. */
export const shadowUpdateTopic = (o: { productKey: string; deviceName: string }) =>
    `/shadow/update/${o.productKey}/${o.deviceName}`;
export const shadowGetTopic = (o: { productKey: string; deviceName: string }) =>
    `/shadow/get/${o.productKey}/${o.deviceName}`;

/** Where the uplink reads and changes shadows (server/domain/shadow.ts over the database). */
export interface ShadowStore {
    load(deviceId: number): Promise<Shadow | undefined>;
    change(deviceId: number, change: ShadowChange, version: number | undefined): Promise<Shadow>;
}

type Request = Record<string, unknown>;

class Refused extends Error {
    constructor(
        readonly code: number,
        message: string,
    ) {
        super(message);
    }
}

const now = () => Math.floor(Date.now() / 1000);
const isObject = (v: unknown): v is Request => typeof v === 'object' && v !== null && !Array.isArray(v);

export const successReply = (version: number) => ({
    method: 'reply',
    payload: { status: 'success', version },
    timestamp: now(),
});

export const errorReply = (code: number, message: string) => ({
    method: 'reply',
    payload: { status: 'error', content: { errorcode: String(code), errormessage: message } },
    timestamp: now(),
});

/** The get reply: the whole document, its version at the top as Alibaba puts it (and in the payload). */
export function getReply(doc: Shadow) {
    const body = shadowBody(doc);
    return {
        method: 'reply',
        payload: { status: 'success', state: body.state, metadata: body.metadata, version: body.version },
        version: body.version,
        timestamp: now(),
    };
}

/** The desired state pushed to the device (`control`): the whole document. */
export function controlMessage(doc: Shadow) {
    const body = shadowBody(doc);
    return {
        method: 'control',
        payload: { status: 'success', state: body.state, metadata: body.metadata },
        version: body.version,
        timestamp: now(),
    };
}

function parseRequest(payload: Buffer): Request {
    let value: unknown;
    try {
        value = JSON.parse(payload.toString('utf8'));
    } catch {
        throw new Refused(SHADOW_CODES.JSON, '不正确的 JSON 格式');
    }
    if (!isObject(value)) throw new Refused(SHADOW_CODES.JSON, '不正确的 JSON 格式：应为 JSON 对象');
    return value;
}

function versionOf(request: Request): number | undefined {
    const v = request.version;
    if (v === undefined) return undefined;
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < -1)
        throw new Refused(SHADOW_CODES.VERSION_NOT_NUMBER, 'version 不是有效的数字');
    return v;
}

function stateOf(request: Request): Request {
    if (!isObject(request.state)) throw new Refused(SHADOW_CODES.NO_STATE, '影子 JSON 缺少 state 字段');
    return request.state;
}

function reportedObject(state: Request): Request {
    const reported = state.reported;
    if (!isObject(reported)) throw new Refused(SHADOW_CODES.NO_REPORTED, '影子 JSON 缺少 reported 字段');
    const keys = Object.keys(reported);
    if (!keys.length) throw new Refused(SHADOW_CODES.REPORTED_EMPTY, '影子 JSON reported 属性字段为空');
    if (keys.length > SHADOW_MAX_ATTRIBUTES)
        throw new Refused(SHADOW_CODES.TOO_MANY, `影子 reported 属性个数超过 ${SHADOW_MAX_ATTRIBUTES} 个`);
    return reported;
}

/**
 * `update`: reported values set (a null value deletes its key), the desired state cleared (`"desired":"null"`), or
 * both in one request.
 */
function updateChange(state: Request): ShadowChange {
    const clearDesired = state.desired === NULL_VALUE;
    if (clearDesired && state.reported === undefined) return { kind: 'clearDesired' };
    return { kind: 'reported', set: reportedObject(state), clearDesired };
}

/** `delete`: the named reported keys (each "null"), or every reported value (`"reported":"null"`). */
function deleteChange(state: Request): ShadowChange {
    if (state.reported === NULL_VALUE) return { kind: 'deleteReported', keys: 'all' };
    return { kind: 'deleteReported', keys: Object.keys(reportedObject(state)) };
}

/** The reply to one device request (refusals included); only a failure of the store itself rejects. */
export async function answerShadow(store: ShadowStore, device: DeviceEntry, payload: Buffer): Promise<object> {
    try {
        const request = parseRequest(payload);
        if (typeof request.method !== 'string' || !request.method)
            throw new Refused(SHADOW_CODES.NO_METHOD, '影子 JSON 缺少 method 信息');
        if (request.method === 'get') {
            const doc = await store.load(device.deviceId);
            if (!doc) throw new Refused(SHADOW_CODES.EMPTY, '影子内容为空：该设备还没有设备影子');
            return getReply(doc);
        }
        if (request.method !== 'update' && request.method !== 'delete')
            throw new Refused(SHADOW_CODES.BAD_METHOD, `影子 JSON method 是无效的方法：${request.method}`);
        const version = versionOf(request);
        const state = stateOf(request);
        const change = request.method === 'update' ? updateChange(state) : deleteChange(state);
        const doc = await store.change(device.deviceId, change, version);
        return successReply(doc.version);
    } catch (err) {
        if (err instanceof Refused || err instanceof ShadowRefusal) return errorReply(err.code, err.message);
        throw err;
    }
}

/** A device's message on its `/shadow/update` topic: answered on `/shadow/get`, kept in the device's message log. */
export async function shadowUpdate(
    s: UplinkState,
    device: DeviceEntry,
    payload: Buffer,
    delivery?: Delivery,
): Promise<void> {
    let reply: object;
    if (!s.shadow) reply = errorReply(SHADOW_CODES.SERVER, '设备影子服务未运行');
    else {
        try {
            reply = await answerShadow(s.shadow, device, payload);
        } catch (err) {
            s.log(`设备影子处理失败（${device.productKey}/${device.deviceName}）: ${String(err)}`);
            reply = errorReply(SHADOW_CODES.SERVER, '服务端处理异常');
        }
    }
    const text = payload.toString('utf8');
    await s.writer.write({
        deviceId: device.deviceId,
        productId: device.productId,
        ts: new Date(),
        method: 'shadow.update',
        identifier: null,
        data: { direction: 'up', payload: text.length > 4096 ? `${text.slice(0, 4096)}…` : text, reply },
        delivery,
    });
    await s.publish(shadowGetTopic(device), JSON.stringify(reply), 0, device);
}

/** What pushes the desired state to a device that subscribes to its `/shadow/get` topic. */
export interface DesiredPushDeps {
    load(deviceId: number): Promise<Shadow | undefined>;
    publish(topic: string, payload: string, qos: 0 | 1, device: DeviceEntry): Promise<void>;
    log(message: string): void;
}

/**
 * A device (or a gateway's sub-device) subscribed to `/shadow/get/{pk}/{dn}`: the desired state the cloud set while it
 * was away reaches it now as `control`, and again at each new subscription until the device clears it
 * (`"desired":"null"`). Runs in the process holding the connection (aedes' subscribe event).
 */
export async function pushDesiredOnSubscribe(deps: DesiredPushDeps, owners: DeviceEntry[], topics: string[]) {
    for (const owner of owners) {
        const topic = shadowGetTopic(owner);
        if (!topics.includes(topic)) continue;
        try {
            const doc = await deps.load(owner.deviceId);
            if (doc && Object.keys(doc.desired).length)
                await deps.publish(topic, JSON.stringify(controlMessage(doc)), 1, owner);
        } catch (err) {
            deps.log(`设备影子期望值下发失败（${owner.productKey}/${owner.deviceName}）: ${String(err)}`);
        }
    }
}
