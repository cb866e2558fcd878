import { sql } from 'drizzle-orm';
import type { ServerConfig } from '../config';
import type { Db } from '../db/client';
import type { DeviceAccessBackend } from '../mqtt/access';
import { createMessageWriter, type MessageWriter } from '../mqtt/writer';
import type { Owner } from './protocol';
import { createSigner, type Signer } from './signing';

/**
 * What one process's OTA service holds: the database, the broker once it attaches, the devices' names, the failure
 * listeners and the scheduler's run in progress. Every other OTA module is functions over this object.
 */

/** An upgrade that failed for good (its retries spent): what the rule engine's otaFailed trigger sees. */
export interface OtaFailure {
    deviceId: number;
    productKey: string;
    deviceName: string;
    taskId: number;
    batchId: number;
    packageId: number;
    packageName: string;
    module: string;
    /** The target version of the package. */
    version: string;
    /** The failing step the device reported (-1..-4), else its last progress (a timeout), else null. */
    step: number | null;
    reason: string;
}

export type DeviceOwner = Owner & { productId: number };

export interface OtaState {
    db: Db;
    config: Pick<ServerConfig, 'port' | 'ota'>;
    now: () => Date;
    logError: (message: string, err: unknown) => void;
    writer: MessageWriter;
    signer: Signer;
    /** The broker, once attached; the scheduler and the handlers do nothing before. */
    backend: DeviceAccessBackend | undefined;
    /** Devices' names by id: from the connection that brought them (informs), else the table. */
    owners: Map<number, DeviceOwner>;
    /** Listeners of final failures (the rule engine's otaFailed trigger). */
    failedListeners: Array<(failure: OtaFailure) => void>;
    /** The scheduler's run in progress, and the one asked for during it, to start after it (scheduler.ts). */
    running: Promise<void> | undefined;
    queued: Promise<void> | undefined;
    /** The service is closing: no run starts any more (a run asked for meanwhile would find the pool ended). */
    stopped: boolean;
    /** Runs the scheduler soon (a device informed a version, came online): scheduler.ts's tick over this state. */
    kick: () => void;
}

export function createOtaState(opts: Pick<OtaState, 'db' | 'config' | 'now' | 'logError'>): OtaState {
    return {
        ...opts,
        writer: createMessageWriter(opts.db),
        signer: createSigner(opts.db),
        backend: undefined,
        owners: new Map(),
        failedListeners: [],
        running: undefined,
        queued: undefined,
        stopped: false,
        kick: () => undefined,
    };
}

/** One line in the device's message log (ota.upgrade, ota.progress, ota.inform, ota.result); a failed write is logged. */
export function logOta(
    state: OtaState,
    deviceId: number,
    productId: number | undefined,
    method: string,
    module: string,
    data: unknown,
): void {
    state.writer
        .write({ deviceId, productId, ts: state.now(), method, identifier: module, data })
        .catch((err: unknown) => state.logError('OTA 消息日志写入失败 / OTA log write failed:', err));
}

export async function ownerOf(state: OtaState, deviceId: number): Promise<DeviceOwner | undefined> {
    const known = state.owners.get(deviceId);
    if (known) return known;
    const rows = (await state.db.execute(sql`
        SELECT d.device_name, p.product_key, d.product_id FROM devices d JOIN products p ON p.id = d.product_id
        WHERE d.id = ${deviceId}`)) as unknown as {
        rows: Array<{ device_name: string; product_key: string; product_id: number }>;
    };
    const r = rows.rows[0];
    if (!r) return undefined;
    const owner = { productKey: r.product_key, deviceName: r.device_name, productId: Number(r.product_id) };
    state.owners.set(deviceId, owner);
    return owner;
}
