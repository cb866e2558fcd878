import type { Client, PublishPacket } from 'aedes';
import { nameOf, owners, type BrokerState } from './brokerState';
import type { DeviceEntry, Directory } from './directory';
import { deliveryOf, type Delivery } from './resend';
import { mayPublish, topicClasses, type TopicClass } from './topicCatalog';
import { ownerAllows, propertyPostTopic } from './topics';

/** aedes' authorizePublish callback: null lets the message through (and acknowledges it), an error closes the client. */
export type PublishDone = (err?: Error | null) => void;

/** What a device's publish goes through after its rights are checked. */
export interface PublishDeps {
    state: BrokerState;
    directory: Pick<Directory, 'model'>;
    /** Resolves once the message is stored (row and subscription copies), rejects when it is not. */
    uplink: { handle(device: DeviceEntry, topic: string, payload: Buffer, delivery?: Delivery): Promise<void> };
    gatewaySessions: {
        handles(gateway: DeviceEntry, topic: string): boolean;
        handle(client: Client, gateway: DeviceEntry, topic: string, payload: Buffer): Promise<void>;
    };
    traffic: { emit(kind: 'up', device: DeviceEntry, topic: string, payload: Buffer): void };
    log: (message: string) => void;
    /** A device's topic classes per thing-model object (a reloaded model is a new object). */
    classCache: WeakMap<object, Map<string, TopicClass[]>>;
    /** In a cluster: this member's lease ran out (server/cluster/lease.ts); it stores nothing more. */
    fenced?: () => boolean;
}

/** The error that closes a client whose QoS 1/2 message was not stored: no PUBACK, the device sends it again. */
export class NotStored extends Error {
    constructor(topic: string, cause: unknown) {
        super(`消息未能保存（${topic}）: ${String(cause)}`);
        this.name = 'NotStored';
    }
}

export const newClassCache = (): PublishDeps['classCache'] => new WeakMap();

/**
 * aedes' authorizePublish: the device (or a sub-device of its gateway session) must own the topic. A fenced member
 * stores nothing: a message read after its lease ran out (a process resumed after a pause reads its sockets before
 * its timers fence it) closes the connection unacknowledged, and the device sends it again to the member that took it.
 */
export function authorizePublish(deps: PublishDeps, client: Client | null, packet: PublishPacket, done: PublishDone) {
    if (!client) return done(null); // the platform's own messages (replies, downlink, wills)
    if (deps.fenced?.()) return done(new Error('本节点心跳已过期，不再接收消息'));
    const gateway = deps.state.devices.get(client);
    // The device itself first, without building the list of its sub-devices (the commonest case).
    const device =
        gateway &&
        (ownerAllows(packet.topic, gateway)
            ? gateway
            : owners(deps.state, client, gateway).find((o) => ownerAllows(packet.topic, o)));
    if (!gateway || !device) {
        deps.log(`MQTT 拒绝发布 ${packet.topic}（${gateway ? nameOf(gateway) : '未知客户端'}）`);
        return done(new Error('无权发布到该 Topic'));
    }
    // The property post (most messages) is always allowed: accepted without a promise in between.
    if (packet.topic === propertyPostTopic(device)) return accept(deps, client, gateway, device, packet, done);
    ackWhenStored(
        deps,
        packet,
        mayPublishOn(deps, device, packet.topic).then((allowed) =>
            allowed ? store(deps, client, gateway, device, packet) : Promise.reject(denied(deps, gateway, packet)),
        ),
        done,
    );
}

class Denied extends Error {}

function denied(deps: PublishDeps, gateway: DeviceEntry, packet: PublishPacket) {
    deps.log(`MQTT 拒绝发布 ${packet.topic}（${nameOf(gateway)}：不是可发布的 Topic）`);
    return new Denied('无权发布到该 Topic');
}

/** The topic catalog's 发布 topics of the device (the property post, the commonest, without a lookup). */
export async function mayPublishOn(deps: PublishDeps, device: DeviceEntry, topic: string): Promise<boolean> {
    if (topic === propertyPostTopic(device)) return true;
    const model = await deps.directory.model(device.productId);
    let byDevice = deps.classCache.get(model);
    if (!byDevice) deps.classCache.set(model, (byDevice = new Map()));
    const key = `${device.productKey}/${device.deviceName}/${device.nodeType}/${device.passthrough}`;
    let classes = byDevice.get(key);
    if (!classes) {
        classes = topicClasses(device, device.deviceName, [...model.events.keys()], [...model.services.keys()]);
        byDevice.set(key, classes);
    }
    return mayPublish(classes, topic);
}

/** An allowed message: stored (or handled as a gateway session request), then acknowledged. */
export function accept(
    deps: PublishDeps,
    client: Client,
    gateway: DeviceEntry,
    device: DeviceEntry,
    packet: PublishPacket,
    done: PublishDone,
) {
    ackWhenStored(deps, packet, store(deps, client, gateway, device, packet), done);
}

function store(deps: PublishDeps, client: Client, gateway: DeviceEntry, device: DeviceEntry, packet: PublishPacket) {
    const payload = packet.payload as Buffer;
    deps.traffic.emit('up', device, packet.topic, payload);
    if (device === gateway && deps.gatewaySessions.handles(gateway, packet.topic)) {
        return deps.gatewaySessions.handle(client, gateway, packet.topic, payload);
    }
    const signedIn = deps.state.signedInAt.get(client) ?? 0;
    const sent = deps.state.qos1Sent.get(client) ?? 0;
    if (packet.qos > 0) deps.state.qos1Sent.set(client, sent + 1);
    return deps.uplink.handle(device, packet.topic, payload, deliveryOf(packet, performance.now() - signedIn, sent));
}

/**
 * Store, then PUBACK: aedes writes the PUBACK (QoS 1) or PUBREC (QoS 2) only after `done(null)`. A message that was
 * not stored is not acknowledged: `done` gets an error, and aedes closes the connection without the PUBACK; the device
 * sends it again once reconnected. A QoS 0 message promised nothing: its failure is logged and the connection kept.
 */
export function ackWhenStored(deps: PublishDeps, packet: PublishPacket, stored: Promise<unknown>, done: PublishDone) {
    deps.state.inflight++;
    stored.then(
        () => {
            deps.state.inflight--;
            done(null);
        },
        (err: unknown) => {
            deps.state.inflight--;
            if (err instanceof Denied) return done(err);
            deps.log(`上行消息处理失败（${packet.topic}）: ${String(err)}`);
            done(packet.qos > 0 ? new NotStored(packet.topic, err) : null);
        },
    );
}
