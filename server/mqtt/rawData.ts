import { protocolToRawData, rawDataToProtocol, transformPayload, type ScriptAccess } from '../scripts/calls';
import type { DeviceEntry } from './directory';
import type { Delivery } from './resend';
import type { UplinkState } from './uplinkStore';

/**
 * Devices of 透传/自定义 products (data type 1) and their product's published data-parsing script (数据解析), as
 * Alibaba defines them: the bytes of `thing/model/up_raw` become Alink JSON through rawDataToProtocol and are handled
 * exactly as the same post on its own topic (checked, stored, rules, subscriptions); the platform's reply becomes
 * bytes through protocolToRawData, published on `up_raw_reply`. The device's `down_raw_reply` is read through
 * rawDataToProtocol as the answer of a downlink call. A custom topic's bytes become JSON through transformPayload.
 * A message the script cannot convert (it throws, runs out of time or memory, answers the wrong shape) is kept raw in
 * the message log with the script's error, and the device gets no reply: nothing claims it was handled.
 */

/** Handles an Alink post as if it came on `topic`; undefined when no handler takes that topic. */
export type AlinkDispatch = (
    s: UplinkState,
    device: DeviceEntry,
    topic: string,
    payload: Buffer,
    delivery?: Delivery,
) => Promise<void> | undefined;

/** The Alink methods a device may post through up_raw: property, event, batch and history posts, tags. */
const UPLINK_METHOD =
    /^thing\.(event\.[A-Za-z_][A-Za-z0-9_]*\.post|event\.property\.(batch|history)\.post|deviceinfo\.(update|delete))$/;

/** The published script of the device's product, when it is a 透传/自定义 product that has one. */
async function scriptOf(scripts: ScriptAccess | undefined, device: DeviceEntry): Promise<string | undefined> {
    if (!scripts || !device.passthrough) return undefined;
    return scripts.published(device.productId);
}

/** The raw message as it came, with why it was not converted: its entry in the message log. */
export async function keepRaw(
    s: UplinkState,
    device: DeviceEntry,
    method: string,
    payload: Buffer,
    error: string | undefined,
    delivery?: Delivery,
): Promise<void> {
    await s.writer.write({
        deviceId: device.deviceId,
        productId: device.productId,
        ts: new Date(),
        method,
        identifier: null,
        data: { raw: payload.toString('base64'), ...(error ? { error } : {}) },
        delivery,
    });
}

/**
 * The uplink state whose replies go to the device as bytes on `up_raw_reply`, through protocolToRawData. A reply the
 * script cannot convert is not sent, and the server log says why.
 */
function rawReplies(s: UplinkState, scripts: ScriptAccess, source: string): UplinkState {
    const publish: UplinkState['publish'] = async (_topic, body, qos, device) => {
        const json = JSON.parse(body.toString()) as Record<string, unknown>;
        const bytes = await protocolToRawData(scripts.sandbox, source, json);
        if (!bytes.ok) {
            s.log(`数据解析：${device.productKey}/${device.deviceName} 的应答未能转换（${bytes.error}）`);
            return;
        }
        await s.publish(
            `/sys/${device.productKey}/${device.deviceName}/thing/model/up_raw_reply`,
            bytes.value,
            qos,
            device,
        );
    };
    return { ...s, publish };
}

/** `thing/model/up_raw`: converted and handled as the Alink post it is, or kept raw with the reason. */
export async function upRaw(
    s: UplinkState,
    dispatch: AlinkDispatch,
    device: DeviceEntry,
    payload: Buffer,
    delivery?: Delivery,
): Promise<void> {
    const method = 'thing.model.up_raw';
    const source = await scriptOf(s.scripts, device);
    if (!source) return keepRaw(s, device, method, payload, undefined, delivery);
    const converted = await rawDataToProtocol(s.scripts!.sandbox, source, payload);
    if (!converted.ok) return keepRaw(s, device, method, payload, converted.error, delivery);
    const alinkMethod = converted.value.method;
    if (typeof alinkMethod !== 'string' || !UPLINK_METHOD.test(alinkMethod)) {
        const why = `rawDataToProtocol 返回的 method ${JSON.stringify(alinkMethod ?? null)} 不是设备可上报的 Alink 方法`;
        return keepRaw(s, device, method, payload, why, delivery);
    }
    const topic = `/sys/${device.productKey}/${device.deviceName}/${alinkMethod.replace(/\./g, '/')}`;
    const json = Buffer.from(JSON.stringify(converted.value));
    const handled = dispatch(rawReplies(s, s.scripts!, source), device, topic, json, delivery);
    return handled ?? keepRaw(s, device, method, payload, `不支持的 Alink 方法 ${alinkMethod}`, delivery);
}

/**
 * `thing/model/down_raw_reply`: the device's answer to a downlink call, logged as that call's reply once converted
 * (the caller waiting for it converts it on its own: downlink.ts), or kept raw with the reason.
 */
export async function downRawReply(
    s: UplinkState,
    reply: (service: string, json: Buffer) => Promise<void>,
    device: DeviceEntry,
    payload: Buffer,
    delivery?: Delivery,
): Promise<void> {
    const method = 'thing.model.down_raw_reply';
    const source = await scriptOf(s.scripts, device);
    if (!source) return keepRaw(s, device, method, payload, undefined, delivery);
    const converted = await rawDataToProtocol(s.scripts!.sandbox, source, payload);
    if (!converted.ok) return keepRaw(s, device, method, payload, converted.error, delivery);
    const called = typeof converted.value.method === 'string' ? converted.value.method : 'thing.service.property.set';
    const service = called.startsWith('thing.service.') ? called.slice('thing.service.'.length) : 'property.set';
    return reply(service === 'property.set' ? 'property/set' : service, Buffer.from(JSON.stringify(converted.value)));
}

/**
 * A custom topic's message of a 透传/自定义 product through transformPayload: the JSON it gives, or undefined when the
 * product has no script or its script defines no transformPayload (the message is then logged as it came). A script
 * that fails leaves `{ error }`.
 */
export async function transformed(
    s: UplinkState,
    device: DeviceEntry,
    topic: string,
    payload: Buffer,
): Promise<{ json: Record<string, unknown> } | { error: string } | undefined> {
    const source = await scriptOf(s.scripts, device);
    if (!source) return undefined;
    const converted = await transformPayload(s.scripts!.sandbox, source, topic, payload);
    if (converted.ok) return { json: converted.value };
    return converted.error.includes('未定义 transformPayload') ? undefined : { error: converted.error };
}
