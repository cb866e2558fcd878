import { eq } from 'drizzle-orm';
import type { Db } from '../db/client';
import { simulations } from '../db/schema';
import { badRequest } from '../http/errors';
import type { AccessHub } from '../mqtt/access';
import type { ThingFunction } from '../mqtt/directory';
import { postEvent, postProperties, publish } from './messages';
import { createSimOta, type SimOtaOptions } from './ota';
import { firstReport, flush, haltSimulation, resumeSimulations, runSimulation } from './schedule';
import { acquire, endSession, loadDevices, manualDevice, release, waitConnected } from './sessions';
import { createSimulatorState, type SimDevice, type SimulatorState } from './state';
import { eventValues, propertyPost } from './values';

/**
 * The device simulator: simulated devices are real MQTT clients that sign in through the platform's own broker
 * (sessions.ts) and are seen like any device: ONLINE while connected, their posts checked against the thing model
 * and stored; each answers property sets and service calls with code 200 (messages.ts). A simulation posts every
 * interval (schedule.ts); it runs in the server, so it keeps running when the browser closes, and the running ones
 * resume when the server starts (`resume`). They play OTA as an Alibaba-SDK device does (ota.ts).
 */

export interface SimulatorOptions {
    db: Db;
    access: AccessHub;
    log?: (message: string) => void;
    /** The simulated devices' download speed and flash time (tests make them quick). */
    ota?: Partial<SimOtaOptions>;
}

/** SPEC onLine: the device signs in as a simulated device (kept until offLine); a refusal is answered. */
export async function onLine(state: SimulatorState, deviceId: number) {
    if (!state.access.running) throw badRequest('设备接入服务未运行，无法上线');
    const [info] = await loadDevices(state, [deviceId]);
    if (!info) throw badRequest('设备不存在');
    const device = acquire(state, info, 'manual');
    await waitConnected(device.client!).catch(async (err: Error) => {
        await release(state, deviceId, 'manual');
        throw badRequest(`设备上线失败：${err.message}`);
    });
    return { deviceId, deviceName: info.deviceName, online: true };
}

/** SPEC offLine: the device's simulated connection closes (OFFLINE), whoever opened it. */
export async function offLine(state: SimulatorState, deviceId: number) {
    const device = state.live.get(deviceId);
    if (!device) return { deviceId, online: false };
    for (const sim of state.running.values()) sim.deviceIds = sim.deviceIds.filter((d) => d !== deviceId);
    await endSession(state, device);
    return { deviceId, online: false };
}

/** SPEC sendProperty: one property post now (the given values, else random ones from the thing model). */
export async function sendProperty(
    state: SimulatorState,
    deviceId: number,
    values: Record<string, unknown> | undefined,
) {
    const device = manualDevice(state, deviceId);
    const model = await state.directory.model(device.productId);
    const params = values ?? propertyPost(model.properties.values(), 'random', {});
    if (!Object.keys(params).length) throw badRequest('该产品的物模型没有可上报的属性');
    postProperties(state, device, params);
    return { deviceId, params };
}

/** SPEC sendEvent: one event post now (the given output values, else random ones). */
export async function sendEvent(
    state: SimulatorState,
    deviceId: number,
    identifier: string,
    value: Record<string, unknown> | undefined,
) {
    const device = manualDevice(state, deviceId);
    const model = await state.directory.model(device.productId);
    const fn: ThingFunction | undefined = model.events.get(identifier);
    if (!fn) throw badRequest(`事件 ${identifier} 未在物模型中定义`);
    const params = value ?? eventValues(fn);
    postEvent(state, device, identifier, params);
    return { deviceId, identifier, value: params };
}

/** Ends every simulated connection (the rows keep `running`, so they resume at the next start). */
export async function closeSimulator(state: SimulatorState): Promise<void> {
    state.closed = true;
    clearInterval(state.flushTimer);
    for (const sim of state.running.values()) clearInterval(sim.timer);
    await flush(state);
    state.running.clear();
    // Forced: at a stop the broker has already paused its connections (the drain), so a post in flight would never
    // get its PUBACK and a polite end would wait for it forever.
    await Promise.all([...state.live.values()].map((d) => endSession(state, d, true)));
}

export function createSimulator({ db, access, log = (m) => console.warn(m), ota: otaOptions }: SimulatorOptions) {
    const state = createSimulatorState(db, access, log, (s) =>
        createSimOta(db, (d, topic, body) => publish(s, d as SimDevice, topic, body), log, otaOptions),
    );
    state.onConnect = (device) => firstReport(state, device);

    return {
        /** Whether a broker runs to connect to. */
        get available() {
            return access.running;
        },

        /** Starts a stored simulation and marks it running (it then resumes after a restart). */
        async start(id: number) {
            if (!access.running) throw badRequest('设备接入服务未运行，无法启动模拟');
            if (state.running.has(id)) return;
            await runSimulation(state, id);
            await db
                .update(simulations)
                .set({ running: true, startTime: new Date(), stopTime: null })
                .where(eq(simulations.id, id));
        },

        /** Stops it: its devices disconnect (OFFLINE) unless another running simulation or onLine holds them. */
        async stop(id: number) {
            await haltSimulation(state, id);
            await db.update(simulations).set({ running: false, stopTime: new Date() }).where(eq(simulations.id, id));
        },

        /** Stops it in this process only (before the row is deleted). */
        halt: (id: number) => haltSimulation(state, id),

        /** Starts every simulation marked running (at server start). Answers how many. */
        resume: async (): Promise<number> => (access.running ? resumeSimulations(state) : 0),

        /** Live figures of a simulation: running here, its devices connected now, messages not yet in its row. */
        status(id: number) {
            const sim = state.running.get(id);
            if (!sim) return { active: false, connected: 0, unflushed: 0 };
            const connected = sim.deviceIds.filter((d) => state.live.get(d)?.client?.connected).length;
            return { active: true, connected, unflushed: sim.unflushed };
        },

        onLine: (deviceId: number) => onLine(state, deviceId),
        offLine: (deviceId: number) => offLine(state, deviceId),
        sendProperty: (deviceId: number, values: Record<string, unknown> | undefined) =>
            sendProperty(state, deviceId, values),
        sendEvent: (deviceId: number, identifier: string, value: Record<string, unknown> | undefined) =>
            sendEvent(state, deviceId, identifier, value),

        /** Whether a device has a simulated connection now. */
        isSimulated: (deviceId: number) => !!state.live.get(deviceId)?.client?.connected,

        close: () => closeSimulator(state),

        /**
         * Runs here a simulation marked running that another process of the cluster ran (it died or left): its row
         * keeps its start time and count (server/cluster/simulations.ts). False when it cannot run here.
         */
        async adopt(id: number): Promise<boolean> {
            if (state.closed || !access.running) return false;
            if (!state.running.has(id)) await runSimulation(state, id);
            return true;
        },
    };
}

export type Simulator = ReturnType<typeof createSimulator>;
