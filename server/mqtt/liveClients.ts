import type { Client } from 'aedes';
import { nameOf, type BrokerState } from './brokerState';
import type { DeviceEntry } from './deviceTypes';

/** Where a device's coming and going is told: its status rows, the monitor, pending downlink calls, other processes. */
export interface LiveDeps {
    state: BrokerState;
    presence: { online(deviceId: number, address?: string): void; offline(deviceId: number): void };
    traffic: { emit(kind: 'status', device: DeviceEntry, topic: string, text: string): void };
    downlink: { deviceLeft(deviceId: number): void };
    /** Closes the device's other connections wherever they are (closeMessage.ts). */
    closeEverywhere(deviceId: number, keep: string | null): void;
    /** The connection's name across processes, `${aedes.id}/${client.id}`. */
    keyOf(client: Client): string;
}

const addressOf = (client: Client) => (client.conn as { remoteAddress?: string }).remoteAddress;

/** aedes' 'client' event: the device is online on this connection, and an older connection of it is taken over. */
export function clientConnected(deps: LiveDeps, client: Client) {
    const { state } = deps;
    const device = state.devices.get(client);
    if (!device) return;
    const older = state.live.get(device.deviceId);
    state.live.set(device.deviceId, client);
    state.liveByName.set(nameOf(device), device);
    if (older && older !== client) {
        state.takenOver.add(older);
        older.close();
    }
    deps.closeEverywhere(device.deviceId, deps.keyOf(client));
    deps.traffic.emit('status', device, '', 'online');
    deps.presence.online(device.deviceId, addressOf(client));
}

/** aedes' 'clientDisconnect' event: the device goes offline unless a newer connection took over (here or elsewhere). */
export function clientDisconnected(deps: LiveDeps, client: Client) {
    const { state } = deps;
    const device = state.devices.get(client);
    if (!device || state.live.get(device.deviceId) !== client) return; // taken over here: the newer one is online
    state.live.delete(device.deviceId);
    state.liveByName.delete(nameOf(device));
    if (state.takenOver.has(client)) return; // taken over by another process: the device is online there
    for (const subId of [...(state.sessions.get(client)?.keys() ?? [])]) subOffline(deps, client, subId);
    deps.presence.offline(device.deviceId);
    deps.traffic.emit('status', device, '', 'offline');
    deps.downlink.deviceLeft(device.deviceId);
}

/** A sub-device signed in through a gateway's connection (combine login); it leaves an older gateway's session. */
export function subOnline(deps: LiveDeps, gateway: Client, sub: DeviceEntry) {
    const { state } = deps;
    let map = state.sessions.get(gateway);
    if (!map) state.sessions.set(gateway, (map = new Map()));
    const older = state.subLive.get(sub.deviceId);
    if (older && older !== gateway) state.sessions.get(older)?.delete(sub.deviceId);
    map.set(sub.deviceId, sub);
    state.subLive.set(sub.deviceId, gateway);
    state.liveByName.set(nameOf(sub), sub);
    deps.presence.online(sub.deviceId);
    deps.traffic.emit('status', sub, '', 'online');
}

/** A sub-device leaves its gateway's session (logout, the gateway's disconnect, disabled); offline unless it moved. */
export function subOffline(deps: LiveDeps, gateway: Client, subId: number) {
    const { state } = deps;
    const sub = state.sessions.get(gateway)?.get(subId);
    if (!sub) return;
    state.sessions.get(gateway)!.delete(subId);
    if (state.subLive.get(subId) !== gateway) return;
    state.subLive.delete(subId);
    state.liveByName.delete(nameOf(sub));
    deps.presence.offline(subId);
    deps.traffic.emit('status', sub, '', 'offline');
    deps.downlink.deviceLeft(subId);
}

/** In a cluster: the devices connected here are noted online again (with this member's id, the caller's part). */
export function noteAllOnline(deps: LiveDeps) {
    for (const [deviceId, client] of deps.state.live) deps.presence.online(deviceId, addressOf(client));
}

/** Closes these devices' connections here (disabled, deleted, renamed), and everywhere else. */
export function disconnectDevices(deps: LiveDeps, deviceIds: number[]) {
    for (const id of deviceIds) {
        deps.state.live.get(id)?.close();
        const gateway = deps.state.subLive.get(id);
        if (gateway) subOffline(deps, gateway, id);
        deps.closeEverywhere(id, null);
    }
}
