import { and, desc, eq, inArray, sql } from 'drizzle-orm';
import { otaBatches, otaModules, otaPackages, otaTasks } from '../db/schema';
import type { DeviceEntry } from '../mqtt/directory';
import { inScopeSql, OPEN_STATES, sourcesOf } from './batches';
import { ACTIVE_STATES, claimProgress, claimPush, claimSuccess, unclaimPush } from './claims';
import { failTask } from './failures';
import type { OtaPackageRow } from './packages';
import {
    failureReason,
    otaTopics,
    parseFirmwareGet,
    parseInform,
    parseProgress,
    upgradeMessage,
    type UpgradeData,
} from './protocol';
import { logOta, ownerOf, type OtaState } from './state';
import { upgradeData } from './urls';

/**
 * The device's side of OTA on Alibaba's topics (docs/ota.md): the upgrade push down, and the inform, progress and
 * firmware/get the device sends up. Each changes a task through a claim (claims.ts) and writes its message log.
 */

export interface OpenTask {
    id: number;
    batchId: number;
    state: string;
    attempts: number;
    retries: number;
    pkg: OtaPackageRow;
}

/** The device's open task of a module (newest first), in a running batch. */
export async function openTask(
    state: OtaState,
    deviceId: number,
    module: string,
    states: readonly string[],
): Promise<OpenTask | undefined> {
    const [row] = await state.db
        .select({ task: otaTasks, batch: otaBatches, pkg: otaPackages })
        .from(otaTasks)
        .innerJoin(otaBatches, eq(otaBatches.id, otaTasks.batchId))
        .innerJoin(otaPackages, eq(otaPackages.id, otaBatches.packageId))
        .where(
            and(
                eq(otaTasks.deviceId, deviceId),
                inArray(otaTasks.state, [...states]),
                eq(otaBatches.status, 'running'),
                eq(otaPackages.module, module),
            ),
        )
        .orderBy(desc(otaTasks.id))
        .limit(1);
    if (!row) return undefined;
    return {
        id: Number(row.task.id),
        batchId: row.batch.id,
        state: row.task.state,
        attempts: row.task.attempts,
        retries: row.batch.retries,
        pkg: row.pkg,
    };
}

/** Publishes one push on the device's upgrade topic; false when the device was not reached. */
async function publishUpgrade(state: OtaState, deviceId: number, data: UpgradeData): Promise<boolean> {
    const owner = await ownerOf(state, deviceId);
    const id = Date.now();
    const payload = upgradeMessage(data, id);
    const topic = owner && otaTopics(owner).upgrade;
    const backend = state.backend;
    const sent = topic && backend ? await backend.publishTo(deviceId, topic, payload, 1).catch(() => false) : false;
    if (!sent) return false;
    logOta(state, deviceId, owner?.productId, 'ota.upgrade', data.module, {
        direction: 'down',
        topic,
        id: String(id),
        payload: JSON.parse(payload) as unknown,
    });
    return true;
}

/**
 * Publishes the upgrade to tasks this process claimed (pending → pushed first, so a fast device's progress finds
 * them); the tasks of devices not reached go back to pending. Answers the ids pushed.
 */
export async function publishUpgrades(
    state: OtaState,
    claimed: Array<{ id: number; deviceId: number }>,
    pkg: OtaPackageRow,
): Promise<number[]> {
    if (!claimed.length) return [];
    const data = await upgradeData(state, pkg);
    const sent = await Promise.all(claimed.map((t) => publishUpgrade(state, t.deviceId, data)));
    await unclaimPush(
        state.db,
        claimed.filter((_, i) => !sent[i]).map((t) => t.id),
    );
    return claimed.filter((_, i) => sent[i]).map((t) => t.id);
}

/** /ota/device/inform: the device's version of a module; the target version of its task completes the task. */
export async function inform(state: OtaState, device: DeviceEntry, topic: string, payload: Buffer): Promise<void> {
    const m = parseInform(payload);
    if ('error' in m) {
        logOta(state, device.deviceId, device.productId, 'ota.inform', '', {
            topic,
            error: m.error,
            raw: payload.toString(),
        });
        return;
    }
    const at = state.now();
    state.owners.set(device.deviceId, device);
    await state.db
        .insert(otaModules)
        .values({ deviceId: device.deviceId, module: m.module, version: m.version, updatedAt: at })
        .onConflictDoUpdate({
            target: [otaModules.deviceId, otaModules.module],
            set: { version: m.version, updatedAt: at },
        });
    logOta(state, device.deviceId, device.productId, 'ota.inform', m.module, {
        topic,
        id: m.id,
        version: m.version,
        module: m.module,
    });
    const task = await openTask(state, device.deviceId, m.module, ACTIVE_STATES);
    if (task && task.pkg.version === m.version) {
        if (await claimSuccess(state.db, task.id, at)) {
            logOta(state, device.deviceId, device.productId, 'ota.result', m.module, {
                taskId: task.id,
                state: 'succeeded',
                version: m.version,
            });
        }
        state.kick();
        return;
    }
    if (await joinDynamic(state, device, m.module, m.version)) state.kick();
}

/** Adds the device to running dynamic batches it now matches (scope, source version, not on the target). */
export async function joinDynamic(
    state: OtaState,
    device: DeviceEntry,
    module: string,
    version: string,
): Promise<boolean> {
    const rows = await state.db
        .select({ batch: otaBatches, pkg: otaPackages })
        .from(otaBatches)
        .innerJoin(otaPackages, eq(otaPackages.id, otaBatches.packageId))
        .where(
            and(
                eq(otaBatches.status, 'running'),
                eq(otaBatches.dynamic, true),
                eq(otaPackages.productId, device.productId),
                eq(otaPackages.module, module),
            ),
        );
    let joined = false;
    for (const { batch, pkg } of rows) {
        const sources = sourcesOf(batch, pkg);
        if (pkg.version === version || (sources.length && !sources.includes(version))) continue;
        if (await openTask(state, device.deviceId, module, OPEN_STATES)) continue;
        const result = (await state.db.execute(sql`
            INSERT INTO ota_tasks (batch_id, device_id, from_version)
            SELECT ${batch.id}, ${device.deviceId}, ${version} WHERE ${inScopeSql(batch, device.deviceId)}
            ON CONFLICT (batch_id, device_id) DO NOTHING RETURNING id`)) as unknown as { rows: unknown[] };
        if (result.rows.length) joined = true;
    }
    return joined;
}

/** /ota/device/progress: a step 1..100 moves the task on; a failing step (-1..-4) fails it. */
export async function progress(state: OtaState, device: DeviceEntry, topic: string, payload: Buffer): Promise<void> {
    const m = parseProgress(payload);
    if ('error' in m) {
        logOta(state, device.deviceId, device.productId, 'ota.progress', '', {
            topic,
            error: m.error,
            raw: payload.toString(),
        });
        return;
    }
    logOta(state, device.deviceId, device.productId, 'ota.progress', m.module, {
        topic,
        id: m.id,
        step: m.step,
        desc: m.desc,
        module: m.module,
    });
    const task = await openTask(state, device.deviceId, m.module, ACTIVE_STATES);
    if (!task) return;
    if (m.step > 0) await claimProgress(state.db, task.id, m.step, state.now());
    else await failTask(state, task.id, m.step, failureReason(m.step, m.desc));
}

/**
 * /thing/ota/firmware/get: the device's task again, on get_reply (data {} when it has none). A pending task is claimed
 * as pushed; when another process claimed it first it is answered as that process left it.
 */
export async function firmwareGet(state: OtaState, device: DeviceEntry, payload: Buffer): Promise<void> {
    const m = parseFirmwareGet(payload);
    const module = m.module ?? 'default';
    let task = await openTask(state, device.deviceId, module, OPEN_STATES);
    if (task?.state === 'pending' && !(await claimPush(state.db, [task.id], state.now())).length) {
        task = await openTask(state, device.deviceId, module, ACTIVE_STATES);
    }
    const topics = otaTopics(device);
    const body = JSON.stringify({
        id: m.id,
        code: 200,
        data: task ? await upgradeData(state, task.pkg) : {},
        message: 'success',
        method: 'thing.ota.firmware.get',
    });
    await state.backend?.publishTo(device.deviceId, topics.firmwareGetReply, body, 0).catch(() => false);
    if (task)
        logOta(state, device.deviceId, device.productId, 'ota.upgrade', task.pkg.module, {
            direction: 'down',
            topic: topics.firmwareGetReply,
            id: m.id,
            payload: JSON.parse(body) as unknown,
        });
}

/** The uplink's topic handler: an OTA topic of the device is taken here (a promise), any other left (undefined). */
export function handleDeviceMessage(
    state: OtaState,
    device: DeviceEntry,
    topic: string,
    payload: Buffer,
): Promise<void> | undefined {
    const topics = otaTopics(device);
    if (topic === topics.inform) return inform(state, device, topic, payload);
    if (topic === topics.progress) return progress(state, device, topic, payload);
    if (topic === topics.firmwareGet) return firmwareGet(state, device, payload);
    return undefined;
}
