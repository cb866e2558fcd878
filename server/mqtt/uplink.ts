import type { DeviceEntry } from './directory';
import { batchPost, historyPost } from './alinkBatch';
import { eventPost, parseJson, propertyPost } from './alinkPosts';
import { deviceInfo } from './alinkTags';
import { downRawReply, transformed, upRaw } from './rawData';
import type { Delivery } from './resend';
import { shadowUpdate, shadowUpdateTopic } from './shadow';
import { parseExtRrpc, parseSysTopic, propertyPostTopic } from './topics';
import {
    uplinkState,
    type AcceptedMessage,
    type Copier,
    type TopicHandler,
    type UplinkDeps,
    type UplinkState,
} from './uplinkStore';

export { ALINK, type AcceptedMessage, type TopicHandler } from './uplinkStore';

/**
 * Uplink in Alibaba's Alink JSON: property and event posts (alinkPosts.ts), batch and history posts (alinkBatch.ts),
 * device tags (alinkTags.ts), replies to downlink calls and RRPC, raw and custom-topic messages logged as they come,
 * NTP, device shadow (shadow.ts), and the topics of features that handle their own (OTA, remote configuration). Every path that stores something settles its promise
 * with the store: resolved once stored, rejected when not.
 */

const EVENT_POST = /^thing\/event\/([A-Za-z_][A-Za-z0-9_]*)\/post$/;

/** A device's answer to a downlink call: logged (the caller, on whichever process, hears it through its own subscription). */
export async function serviceReply(
    s: UplinkState,
    device: DeviceEntry,
    service: string,
    payload: Buffer,
    delivery?: Delivery,
): Promise<void> {
    const message = parseJson(payload);
    await s.writer.write({
        deviceId: device.deviceId,
        productId: device.productId,
        ts: new Date(),
        method: service === 'property/set' ? 'thing.service.property.set_reply' : `thing.service.${service}_reply`,
        identifier: service === 'property/set' ? null : service,
        data: {
            direction: 'up',
            id: String(message?.id ?? ''),
            ...(message ? { reply: message } : { raw: payload.toString('base64') }),
        },
        delivery,
    });
}

/**
 * A device's answer to an RRPC call (`/sys/{pk}/{dn}/rrpc/response/{messageId}`, or the custom topic
 * `/ext/rrpc/{messageId}{topic}`): logged with the call's message id (the caller, on whichever process, hears the
 * answer itself through its own subscription).
 */
export async function rrpcResponse(
    s: UplinkState,
    device: DeviceEntry,
    messageId: string,
    topic: string | undefined,
    payload: Buffer,
    delivery?: Delivery,
): Promise<void> {
    const message = parseJson(payload);
    const text = payload.toString('utf8');
    const printable = !text.includes('\uFFFD') && !text.includes('\u0000');
    const body = message ? { reply: message } : printable ? { payload: text } : { raw: payload.toString('base64') };
    await s.writer.write({
        deviceId: device.deviceId,
        productId: device.productId,
        ts: new Date(),
        method: 'rrpc.response',
        identifier: null,
        data: { direction: 'up', id: messageId, ...(topic ? { topic } : {}), ...body },
        delivery,
    });
}

/** Alink's NTP: the device's send time answered with the server's receive and send times. */
export async function ntp(s: UplinkState, device: DeviceEntry, payload: Buffer): Promise<void> {
    const received = Date.now();
    const request = parseJson(payload) as { deviceSendTime?: unknown } | undefined;
    const body = {
        deviceSendTime: String(request?.deviceSendTime ?? ''),
        serverRecvTime: String(received),
        serverSendTime: String(Date.now()),
    };
    await s.publish(`/ext/ntp/${device.productKey}/${device.deviceName}/response`, JSON.stringify(body), 0, device);
}

/**
 * Custom topics and anything else inside the device's own space: logged as it came, or, for a 透传/自定义 product whose
 * script defines transformPayload, as the JSON it gives (the bytes kept beside the script's error when it fails).
 */
export async function userMessage(
    s: UplinkState,
    device: DeviceEntry,
    topic: string,
    payload: Buffer,
    delivery?: Delivery,
): Promise<void> {
    const parsed = topic.startsWith(`/${device.productKey}/${device.deviceName}/user/`)
        ? await transformed(s, device, topic, payload)
        : undefined;
    await s.writer.write({
        deviceId: device.deviceId,
        productId: device.productId,
        ts: new Date(),
        method: 'user.message',
        identifier: null,
        data: parsed ? { topic, ...parsedData(parsed, payload) } : { topic, ...asLogged(payload) },
        delivery,
    });
}

/** Topics a feature of its own may take (OTA, remote configuration): the others skip the handlers. */
const featureTopicOf = (topic: string) =>
    topic.startsWith('/ota/') || topic.includes('/thing/ota/') || topic.includes('/thing/config/');

/** Bytes as the message log keeps them: text when printable, else base64. */
function asLogged(payload: Buffer): { payload: string } | { raw: string } {
    const text = payload.toString('utf8');
    const printable = !text.includes('\uFFFD') && !text.includes('\u0000');
    return printable ? { payload: text } : { raw: payload.toString('base64') };
}

/** A custom topic's message through transformPayload: its JSON, or its bytes and the script's error. */
function parsedData(parsed: { json: Record<string, unknown> } | { error: string }, payload: Buffer) {
    if ('json' in parsed) return { payload: JSON.stringify(parsed.json), parsed: true };
    return { raw: payload.toString('base64'), error: parsed.error };
}

/** A feature's own topic (OTA, remote configuration): the promise of the handler that takes it, or undefined. */
function featureTopic(s: UplinkState, device: DeviceEntry, topic: string, payload: Buffer) {
    if (!s.topicHandlers.length || !featureTopicOf(topic)) return undefined;
    for (const h of s.topicHandlers) {
        const taken = h(device, topic, payload);
        if (taken) return taken;
    }
    return undefined;
}

/** A /sys/{productKey}/{deviceName}/thing/... topic of the device's own: its handler's promise, or undefined. */
function sysTopic(s: UplinkState, device: DeviceEntry, topic: string, payload: Buffer, delivery?: Delivery) {
    const sys = parseSysTopic(topic);
    if (!sys || sys.productKey !== device.productKey || sys.deviceName !== device.deviceName) return undefined;
    if (sys.rest === 'thing/event/property/post')
        return propertyPost(s, device, topic, parseJson(payload), payload, delivery);
    const event = EVENT_POST.exec(sys.rest);
    if (event) return eventPost(s, device, topic, event[1], parseJson(payload), payload, delivery);
    if (sys.rest.startsWith('thing/service/') && sys.rest.endsWith('_reply'))
        return serviceReply(s, device, sys.rest.slice('thing/service/'.length, -'_reply'.length), payload, delivery);
    if (sys.rest === 'thing/model/up_raw') return upRaw(s, sysTopic, device, payload, delivery);
    return sysTopicMore(s, device, topic, sys.rest, payload, delivery);
}

const RRPC_RESPONSE = /^rrpc\/response\/([^/]+)$/;

/** The rest of the /sys topics: batch and history posts, tags, RRPC answers. */
function sysTopicMore(
    s: UplinkState,
    device: DeviceEntry,
    topic: string,
    rest: string,
    payload: Buffer,
    delivery?: Delivery,
) {
    switch (rest) {
        case 'thing/event/property/batch/post':
            return batchPost(s, device, topic, parseJson(payload), payload, delivery);
        case 'thing/event/property/history/post':
            return historyPost(s, device, topic, parseJson(payload), delivery);
        case 'thing/deviceinfo/update':
            return deviceInfo(s, device, topic, 'update', parseJson(payload), delivery);
        case 'thing/deviceinfo/delete':
            return deviceInfo(s, device, topic, 'delete', parseJson(payload), delivery);
        case 'thing/model/down_raw_reply':
            return downRawReply(
                s,
                (service, json) => serviceReply(s, device, service, json, delivery),
                device,
                payload,
                delivery,
            );
    }
    const rrpc = RRPC_RESPONSE.exec(rest);
    if (rrpc) return rrpcResponse(s, device, rrpc[1], undefined, payload, delivery);
    return undefined;
}

/**
 * Everything a device publishes, after its rights are checked; `delivery` for a QoS 1 message (its resend key, so a
 * resend is stored once).
 */
export async function handle(
    s: UplinkState,
    device: DeviceEntry,
    topic: string,
    payload: Buffer,
    delivery?: Delivery,
): Promise<void> {
    for (const l of s.listeners) l(device, topic, payload);
    if (topic === propertyPostTopic(device))
        return propertyPost(s, device, topic, parseJson(payload), payload, delivery);
    const handled = featureTopic(s, device, topic, payload) ?? sysTopic(s, device, topic, payload, delivery);
    if (handled) return handled;
    if (topic === `/ext/ntp/${device.productKey}/${device.deviceName}/request`) return ntp(s, device, payload);
    if (topic === shadowUpdateTopic(device)) return shadowUpdate(s, device, payload, delivery);
    const rrpc = parseExtRrpc(topic);
    if (rrpc) return rrpcResponse(s, device, rrpc.messageId, rrpc.topic, payload, delivery);
    return userMessage(s, device, topic, payload, delivery);
}

type Lists = Pick<UplinkState, 'listeners' | 'topicHandlers' | 'acceptedListeners' | 'copiers'>;

/** Adds `fn` to one of the state's lists; returns its removal (a new list each time: a walk in progress goes on). */
function addTo<K extends keyof Lists>(s: UplinkState, key: K, fn: Lists[K][number]): () => void {
    (s[key] as unknown[]) = [...s[key], fn];
    return () => {
        (s[key] as unknown[]) = (s[key] as unknown[]).filter((x) => x !== fn);
    };
}

export function createUplink(deps: UplinkDeps) {
    const s = uplinkState(deps);
    return {
        /**
         * Everything a device publishes, after its rights are checked. Resolves once what the message stores (its
         * row and subscription copies) is committed; rejects when it could not be stored.
         */
        handle: (device: DeviceEntry, topic: string, payload: Buffer, delivery?: Delivery) =>
            handle(s, device, topic, payload, delivery),
        /**
         * Every property or event post accepted and stored (after the write), for rules. A listener must not throw
         * or block: it runs on the message path. Returns the unsubscribe.
         */
        onAccepted: (fn: (message: AcceptedMessage) => unknown) => addTo(s, 'acceptedListeners', fn),
        /** Makes accepted messages' subscription copies, stored with them (the AMQP queue). Returns the removal. */
        addCopier: (fn: Copier) => addTo(s, 'copiers', fn),
        /** Handles a feature's own topics before the default logging (OTA). Returns the unsubscribe. */
        addTopicHandler: (fn: TopicHandler) => addTo(s, 'topicHandlers', fn),
        /** Every accepted uplink, for live views (monitor, device log). Returns the unsubscribe. */
        listen: (fn: (device: DeviceEntry, topic: string, payload: Buffer) => void) => addTo(s, 'listeners', fn),
    };
}

export type Uplink = ReturnType<typeof createUplink>;
