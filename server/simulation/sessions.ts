import { eq, inArray } from 'drizzle-orm';
import { MqttClient } from 'mqtt';
import { devices, products } from '../db/schema';
import { badRequest } from '../http/errors';
import { alibabaCredentials } from '../mqtt/signIn';
import { answer } from './messages';
import {
    RRPC_REQUEST_TOPIC,
    SERVICE_TOPIC,
    sysTopic,
    type Owner,
    type SimDevice,
    type SimDeviceInfo,
    type SimulatorState,
} from './state';

/**
 * Simulated devices' sessions: real MQTT clients (mqtt.js) signing in through the platform's own broker with their
 * own DeviceSecret (Alibaba's scheme) over an in-process stream (AccessHub.connectStream). A device's connection is
 * shared by its owners (the simulations running it, onLine) and ends when the last one lets it go.
 */

/** The devices' names, products and secrets as the table says now (missing ids left out). */
export async function loadDevices(state: SimulatorState, ids: number[]): Promise<SimDeviceInfo[]> {
    if (!ids.length) return [];
    const rows = await state.db
        .select({
            deviceId: devices.id,
            productId: devices.productId,
            productKey: products.productKey,
            deviceName: devices.deviceName,
            secret: devices.secret,
        })
        .from(devices)
        .innerJoin(products, eq(products.id, devices.productId))
        .where(inArray(devices.id, ids));
    return rows.map((r) => ({ ...r, deviceId: Number(r.deviceId) }));
}

/** An MQTT client over an in-process stream to the broker, signing in as the device. */
function newClient(state: SimulatorState, device: SimDevice): MqttClient {
    const creds = alibabaCredentials(device, { id: `${device.productKey}.${device.deviceName}` });
    return new MqttClient(
        () => {
            const stream = state.access.connectStream();
            if (!stream) throw new Error('设备接入服务未运行');
            return stream;
        },
        { ...creds, protocolVersion: 4, keepalive: 60, clean: true, reconnectPeriod: 3_000, connectTimeout: 10_000 },
    );
}

/**
 * On each (re)connection: subscribe to the platform's calls (services, and RRPC for synchronous services) and OTA
 * topics, then play OTA and the first report.
 */
function onConnected(state: SimulatorState, device: SimDevice, client: MqttClient): void {
    client
        .subscribeAsync(
            [
                sysTopic(device, `${SERVICE_TOPIC}#`),
                sysTopic(device, `${RRPC_REQUEST_TOPIC}+`),
                ...state.ota.topics(device),
            ],
            { qos: 1 },
        )
        // Subscribed first, so the answer to its firmware/get (and a push) reaches it.
        .then(() => state.ota.connected(device))
        .catch((err: Error) => {
            if (!state.closed) state.log(`模拟设备 ${device.deviceName} 订阅失败: ${err.message}`);
        });
    state.onConnect(device);
}

/** Opens the device's connection (or wakes one that dropped); false when no broker runs. */
export function connect(state: SimulatorState, device: SimDevice): boolean {
    if (device.client && !device.client.disconnecting) {
        if (!device.client.connected && !device.client.reconnecting) device.client.reconnect();
        return true;
    }
    if (!state.access.running) return false;
    const client = newClient(state, device);
    device.client = client;
    client.on('connect', () => onConnected(state, device, client));
    client.on('message', (topic, payload) => {
        if (state.ota.message(device, topic, payload)) return;
        void answer(state, device, topic, payload).catch((err: Error) =>
            state.log(`模拟设备 ${device.deviceName} 应答失败: ${err.message}`),
        );
    });
    client.on('error', (err) => {
        if (!state.closed) state.log(`模拟设备 ${device.deviceName} 连接失败: ${err.message}`);
    });
    return true;
}

/** The device's simulated connection, opened for this owner (or shared with the owners it has). */
export function acquire(state: SimulatorState, info: SimDeviceInfo, owner: Owner): SimDevice {
    let device = state.live.get(info.deviceId);
    if (!device) {
        device = { ...info, owners: new Set(), sent: 0, nextId: 1 };
        state.live.set(info.deviceId, device);
    } else {
        // A renamed device or a new secret since: sign in with what the table says now.
        Object.assign(device, info);
    }
    device.owners.add(owner);
    connect(state, device);
    return device;
}

/** Ends the device's session whoever holds it: its OTA stops and its client closes (`force`: without waiting). */
export async function endSession(state: SimulatorState, device: SimDevice, force = false): Promise<void> {
    device.owners.clear();
    state.live.delete(device.deviceId);
    state.ota.stop(device);
    await device.client?.endAsync(force).catch(() => undefined);
}

/** The owner lets the device go; its connection ends when no owner is left. */
export async function release(state: SimulatorState, deviceId: number, owner: Owner): Promise<void> {
    const device = state.live.get(deviceId);
    if (!device) return;
    device.owners.delete(owner);
    if (!device.owners.size) await endSession(state, device);
}

/** Waits briefly for the broker's answer to a new connection, so a refusal (a disabled device) is learnt. */
export function waitConnected(client: MqttClient, timeoutMs = 5_000): Promise<void> {
    if (client.connected) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => done(new Error('连接超时')), timeoutMs);
        const onConnect = () => done();
        const onError = (err: Error) => done(err);
        const done = (err?: Error) => {
            clearTimeout(timer);
            client.off('connect', onConnect);
            client.off('error', onError);
            if (err) reject(err);
            else resolve();
        };
        client.once('connect', onConnect);
        client.once('error', onError);
    });
}

/** A device onLine connected: the one sendProperty and sendEvent post for. */
export function manualDevice(state: SimulatorState, deviceId: number): SimDevice {
    const device = state.live.get(deviceId);
    if (!device?.client?.connected) throw badRequest('设备未通过模拟上线，请先调用 onLine');
    return device;
}
