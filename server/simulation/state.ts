import type { MqttClient } from 'mqtt';
import type { Db } from '../db/client';
import type { AccessHub } from '../mqtt/access';
import { createDirectory, type Directory } from '../mqtt/directory';
import type { SimOta, SimOtaDevice } from './ota';

/**
 * What one process's simulator holds: the devices connected now (each shared by the simulations and onLine calls
 * that want it), the simulations running here and their message counts not yet written. The other simulation
 * modules are functions over this object: sessions.ts (connections), messages.ts (what a device sends and answers),
 * schedule.ts (the simulations' ticks and counts).
 */

/** Owner of a simulated device's connection: a simulation's id, or 'manual' (onLine). */
export type Owner = number | 'manual';

export interface SimDeviceInfo {
    deviceId: number;
    productId: number;
    productKey: string;
    deviceName: string;
    secret: string;
}

export interface SimDevice extends SimDeviceInfo, SimOtaDevice {
    client?: MqttClient;
    owners: Set<Owner>;
    /** Messages this device published (property posts, events, replies). */
    sent: number;
    nextId: number;
}

/** A simulation running in this process. */
export interface Running {
    id: number;
    deviceIds: number[];
    intervalMs: number;
    mode: 'random' | 'fixed';
    fixed: Record<string, unknown>;
    events: boolean;
    timer?: NodeJS.Timeout;
    /** Messages sent since the last flush to the table. */
    unflushed: number;
    /** When it started in this process: the demo curves' excursions are timed from it. */
    startedAt: number;
}

export interface SimulatorState {
    db: Db;
    access: AccessHub;
    log: (message: string) => void;
    directory: Directory;
    /** Connected (or connecting) simulated devices by id. */
    live: Map<number, SimDevice>;
    /** Simulations running here by id. */
    running: Map<number, Running>;
    flushTimer: NodeJS.Timeout | undefined;
    closed: boolean;
    /** The devices' OTA behaviour (ota.ts), made over this state (it publishes through it). */
    ota: SimOta;
    /** After a device connects (and subscribes): its first report for each simulation that holds it. */
    onConnect: (device: SimDevice) => void;
}

export function createSimulatorState(
    db: Db,
    access: AccessHub,
    log: (message: string) => void,
    makeOta: (state: SimulatorState) => SimOta,
): SimulatorState {
    const state: Omit<SimulatorState, 'ota'> & { ota?: SimOta } = {
        db,
        access,
        log,
        directory: createDirectory(db),
        live: new Map(),
        running: new Map(),
        flushTimer: undefined,
        closed: false,
        onConnect: () => undefined,
    };
    state.ota = makeOta(state as SimulatorState);
    return state as SimulatorState;
}

export const SERVICE_TOPIC = 'thing/service/';
/** Synchronous services come through RRPC: `rrpc/request/{messageId}`, answered on `rrpc/response/{messageId}`. */
export const RRPC_REQUEST_TOPIC = 'rrpc/request/';

export const sysTopic = (d: Pick<SimDeviceInfo, 'productKey' | 'deviceName'>, rest: string) =>
    `/sys/${d.productKey}/${d.deviceName}/${rest}`;
