import type { SimDevice, SimulatorState } from './state';
import { RRPC_REQUEST_TOPIC, SERVICE_TOPIC, sysTopic } from './state';
import { randomValue } from './values';

/**
 * What a simulated device sends: property and event posts, and the answers to the platform's property sets and
 * service calls (code 200, a set's values posted back as real devices do). Each message counts for the device and
 * for every simulation that holds it.
 */

/** Counts one message for the device and the simulations that hold it. */
export function countSent(state: SimulatorState, device: SimDevice): void {
    device.sent++;
    for (const owner of device.owners) {
        if (owner === 'manual') continue;
        const sim = state.running.get(owner);
        if (sim) sim.unflushed++;
    }
}

/** Publishes a JSON body on the device's connection; false when it is not connected. */
export function publish(
    state: SimulatorState,
    device: SimDevice,
    topic: string,
    body: Record<string, unknown>,
    qos: 0 | 1 = 1,
): boolean {
    const client = device.client;
    if (!client?.connected) return false;
    client.publish(topic, JSON.stringify(body), { qos }, (err) => {
        if (err && !state.closed) state.log(`模拟设备 ${device.deviceName} 发布失败: ${err.message}`);
    });
    countSent(state, device);
    return true;
}

export function postProperties(state: SimulatorState, device: SimDevice, values: Record<string, unknown>): boolean {
    if (!Object.keys(values).length) return false;
    return publish(state, device, sysTopic(device, 'thing/event/property/post'), {
        id: String(device.nextId++),
        version: '1.0',
        params: values,
        method: 'thing.event.property.post',
    });
}

export function postEvent(
    state: SimulatorState,
    device: SimDevice,
    identifier: string,
    value: Record<string, unknown>,
): boolean {
    return publish(state, device, sysTopic(device, `thing/event/${identifier}/post`), {
        id: String(device.nextId++),
        version: '1.0',
        params: { value, time: Date.now() },
        method: `thing.event.${identifier}.post`,
    });
}

/** The request's id and params, as lenient as devices are; undefined when it is not a JSON object. */
export function parseRequest(payload: Buffer): { id: string; params: Record<string, unknown> } | undefined {
    let request: { id?: unknown; params?: unknown };
    try {
        request = JSON.parse(payload.toString('utf8')) as typeof request;
    } catch {
        return undefined;
    }
    if (typeof request !== 'object' || request === null) return undefined;
    const id = typeof request.id === 'string' || typeof request.id === 'number' ? String(request.id) : '';
    const params =
        request.params && typeof request.params === 'object' && !Array.isArray(request.params)
            ? (request.params as Record<string, unknown>)
            : {};
    return { id, params };
}

/** A service's output values, random within the thing model's types ({} for a service the model lacks). */
async function serviceOutput(state: SimulatorState, device: SimDevice, identifier: string) {
    const data: Record<string, unknown> = {};
    const model = await state.directory.model(device.productId).catch(() => undefined);
    for (const p of model?.services.get(identifier)?.outputData ?? []) {
        const v = randomValue(p.dataType);
        if (v !== undefined) data[p.identifier] = v;
    }
    return data;
}

/**
 * A synchronous service called through RRPC (`rrpc/request/{messageId}`, the Alink call as the body): answered on
 * `rrpc/response/{messageId}` with code 200 and random outputs, at QoS 0 as Alibaba's devices answer RRPC.
 */
async function answerRrpc(state: SimulatorState, device: SimDevice, messageId: string, payload: Buffer) {
    const request = parseRequest(payload);
    if (!request) return;
    const method = (JSON.parse(payload.toString('utf8')) as { method?: unknown }).method;
    if (typeof method !== 'string' || !method.startsWith('thing.service.')) return;
    const identifier = method.slice('thing.service.'.length);
    const data = await serviceOutput(state, device, identifier);
    publish(
        state,
        device,
        sysTopic(device, `rrpc/response/${messageId}`),
        { id: request.id, code: 200, data, message: 'success', version: '1.0', method },
        0,
    );
}

/** A property set or service call from the platform: answered with code 200 (and the set values posted back). */
export async function answer(state: SimulatorState, device: SimDevice, topic: string, payload: Buffer): Promise<void> {
    const rrpc = sysTopic(device, RRPC_REQUEST_TOPIC);
    if (topic.startsWith(rrpc)) return answerRrpc(state, device, topic.slice(rrpc.length), payload);
    const prefix = sysTopic(device, SERVICE_TOPIC);
    if (!topic.startsWith(prefix) || topic.endsWith('_reply')) return;
    const identifier = topic.slice(prefix.length);
    const request = parseRequest(payload);
    if (!request) return;
    const isSet = identifier === 'property/set';
    const data = isSet ? {} : await serviceOutput(state, device, identifier);
    const method = isSet ? 'thing.service.property.set' : `thing.service.${identifier}`;
    publish(state, device, `${topic}_reply`, {
        id: request.id,
        code: 200,
        data,
        message: 'success',
        version: '1.0',
        method,
    });
    if (isSet) postProperties(state, device, request.params);
}
