import { claimFailure, claimTimeouts, type FailedTask } from './claims';
import { logOta, ownerOf, type OtaFailure, type OtaState } from './state';

/**
 * A failure's fan-out: the task's result in the device's message log and the otaFailed listeners (the rule engine's
 * trigger and its notifications). It follows a claim (claims.ts), so each failure is announced by one process, once.
 */

/** Adds a listener of final failures; answers its removal. */
export function onFailed(state: OtaState, fn: (failure: OtaFailure) => void): () => void {
    state.failedListeners.push(fn);
    return () => {
        state.failedListeners = state.failedListeners.filter((l) => l !== fn);
    };
}

/** The fan-out of one claimed failure; a task sent back to pending for a retry has none. */
export async function announceFailure(state: OtaState, task: FailedTask, reason: string): Promise<void> {
    if (task.state !== 'failed') return;
    const owner = await ownerOf(state, task.deviceId);
    logOta(state, task.deviceId, owner?.productId, 'ota.result', '', { taskId: task.id, state: 'failed', reason });
    if (!owner) return;
    const failure: OtaFailure = {
        deviceId: task.deviceId,
        productKey: owner.productKey,
        deviceName: owner.deviceName,
        taskId: task.id,
        batchId: task.batchId,
        packageId: task.packageId,
        packageName: task.packageName,
        module: task.module,
        version: task.version,
        step: task.step,
        reason,
    };
    for (const l of state.failedListeners) {
        try {
            l(failure);
        } catch (err) {
            state.logError('OTA 失败通知出错 / OTA failure listener failed:', err);
        }
    }
}

/** The device reported a failing step: claimed here, announced when this call's claim matched. */
export async function failTask(state: OtaState, taskId: number, step: number, reason: string): Promise<void> {
    const task = await claimFailure(state.db, taskId, reason, state.now());
    if (task) await announceFailure(state, { ...task, step }, reason);
}

/** Tasks past their timeout: failed (or pending for a retry); the ones this process claimed are announced. */
export async function failLateTasks(state: OtaState, at: Date): Promise<number> {
    const late = await claimTimeouts(state.db, at);
    for (const task of late) await announceFailure(state, task, '升级超时');
    return late.length;
}
