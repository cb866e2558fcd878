import type { ServerConfig } from '../config';
import type { Db } from '../db/client';
import type { AccessHub } from '../mqtt/access';
import { handleDeviceMessage } from './device';
import { onFailed } from './failures';
import { tick } from './scheduler';
import { createOtaState, type OtaFailure } from './state';

/**
 * OTA on the devices' own topics (docs/ota.md): one process's service, wired to the broker once it attaches. The
 * jobs live beside it: scheduler.ts (timeouts, windows, pushes), device.ts (the Alink topics), urls.ts (signed
 * download URLs), failures.ts (the otaFailed fan-out), claims.ts (every state change, claimed by one process).
 */

export type { OtaFailure };

export interface OtaServiceOptions {
    db: Db;
    access: AccessHub;
    config: Pick<ServerConfig, 'port' | 'ota'>;
    now?: () => Date;
    /** How often the scheduler runs while a broker is attached (default 1 s). */
    tickMs?: number;
    logError?: (message: string, err: unknown) => void;
}

export function createOtaService({
    db,
    access,
    config,
    now = () => new Date(),
    tickMs = 1000,
    logError = (m, e) => console.error(m, e),
}: OtaServiceOptions) {
    const state = createOtaState({ db, config, now, logError });
    state.kick = () => void tick(state);
    let timer: NodeJS.Timeout | undefined;
    const unsubscribe: Array<() => void> = [];

    access.onAttach((b) => {
        state.backend = b;
        const off = b.uplink?.addTopicHandler?.((device, topic, payload) =>
            handleDeviceMessage(state, device, topic, payload),
        );
        if (off) unsubscribe.push(off);
        // A device coming online gets its pending task at once, not at the next run.
        unsubscribe.push(b.traffic.subscribe((e) => e.payload === 'online', state.kick, ['status']));
        if (!timer) {
            timer = setInterval(state.kick, tickMs);
            timer.unref();
        }
    });

    return {
        tick: () => tick(state),
        signer: state.signer,
        /** A task failed for good (after its retries): the rule engine's hook. Returns the unsubscribe. */
        onFailed: (fn: (failure: OtaFailure) => void) => onFailed(state, fn),
        async close() {
            state.stopped = true;
            if (timer) clearInterval(timer);
            timer = undefined;
            for (const off of unsubscribe.splice(0)) off();
            await state.queued;
            await state.running;
            await state.writer.drain();
        },
    };
}

export type OtaService = ReturnType<typeof createOtaService>;
