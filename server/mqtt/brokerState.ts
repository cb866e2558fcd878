import type { Client } from 'aedes';
import type { DeviceEntry } from './deviceTypes';
import { parseExtRrpc } from './topics';

/** What the broker knows of its connections: who signed in on each, which one is each device's live one. */
export interface BrokerState {
    /** The device signed in on each connection. */
    devices: WeakMap<Client, DeviceEntry>;
    /** When each connection signed in (performance.now()): its first messages may be resends (resend.ts). */
    signedInAt: WeakMap<Client, number>;
    /** How many QoS 1 messages each connection has sent: its first ones may be resends too (resend.ts). */
    qos1Sent: WeakMap<Client, number>;
    /** The live connection of each device: a newer one takes over. */
    live: Map<number, Client>;
    /** Sub-devices signed in through a gateway's connection (combine login). */
    sessions: WeakMap<Client, Map<number, DeviceEntry>>;
    /** The gateway connection of each sub-device online through one. */
    subLive: Map<number, Client>;
    /** Connected devices by `{productKey}/{deviceName}`, to name the device a platform publish goes to. */
    liveByName: Map<string, DeviceEntry>;
    /** Connections closed because the device connected again (here or on another process): not an OFFLINE. */
    takenOver: WeakSet<Client>;
    /**
     * Connections whose own close message (closeMessage.ts) has come back through the processes' shared channel: a
     * close message read after that was sent after it, by a newer connection.
     */
    announced: WeakSet<Client>;
    /** Uplink messages being handled (their PUBACK waits for the store): a drain waits for them. */
    inflight: number;
}

export function createBrokerState(): BrokerState {
    return {
        devices: new WeakMap(),
        signedInAt: new WeakMap(),
        qos1Sent: new WeakMap(),
        live: new Map(),
        sessions: new WeakMap(),
        subLive: new Map(),
        liveByName: new Map(),
        takenOver: new WeakSet(),
        announced: new WeakSet(),
        inflight: 0,
    };
}

export const nameOf = (device: { productKey: string; deviceName: string }) =>
    `${device.productKey}/${device.deviceName}`;

/** The device itself, and for a gateway the sub-devices signed in through this connection. */
export function owners(state: BrokerState, client: Client, device: DeviceEntry): DeviceEntry[] {
    const subs = state.sessions.get(client);
    return subs?.size ? [device, ...subs.values()] : [device];
}

export function isOnline(state: BrokerState, deviceId: number): boolean {
    return state.live.has(deviceId) || state.subLive.has(deviceId);
}

/**
 * The connected device (or sub-device) a platform topic `/{sys/}{productKey}/{deviceName}/...` belongs to (inside
 * `/ext/rrpc/{messageId}` for a custom RRPC).
 */
export function ownerOf(state: BrokerState, topic: string): DeviceEntry | undefined {
    const m = /^\/(?:sys\/)?([^/]+)\/([^/]+)\//.exec(parseExtRrpc(topic)?.topic ?? topic);
    return m ? state.liveByName.get(`${m[1]}/${m[2]}`) : undefined;
}
