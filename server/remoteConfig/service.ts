import type { ServerConfig } from '../config';
import type { Db } from '../db/client';
import type { AccessHub } from '../mqtt/access';
import { handleConfigMessage } from './device';
import { startPush } from './push';
import { createConfigState } from './state';

/**
 * Remote configuration (远程配置) on the devices' own topics: one process's service, wired to the broker once it
 * attaches. versions.ts keeps the files, push.ts the pushes, device.ts the Alink topics, state.ts the signed URLs.
 */

export interface RemoteConfigOptions {
    db: Db;
    access: AccessHub;
    config: Pick<ServerConfig, 'port' | 'ota' | 'timeZone'>;
    now?: () => Date;
    logError?: (message: string, err: unknown) => void;
}

export function createRemoteConfigService({
    db,
    access,
    config,
    now = () => new Date(),
    logError = (m, e) => console.error(m, e),
}: RemoteConfigOptions) {
    const state = createConfigState({ db, config, now, logError });
    const unsubscribe: Array<() => void> = [];
    access.onAttach((b) => {
        state.backend = b;
        const off = b.uplink?.addTopicHandler?.((device, topic, payload) =>
            handleConfigMessage(state, device, topic, payload),
        );
        if (off) unsubscribe.push(off);
    });
    return {
        signer: state.signer,
        /** 批量推送 of the product's current file (body: scope all | group, groupId). */
        push: (productId: number, body: Record<string, unknown>) => startPush(state, productId, body),
        async close() {
            for (const off of unsubscribe.splice(0)) off();
            await state.writer.drain();
        },
    };
}

export type RemoteConfigService = ReturnType<typeof createRemoteConfigService>;
