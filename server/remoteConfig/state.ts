import type { ServerConfig } from '../config';
import type { Db } from '../db/client';
import { createLinkSigner, linkKey, type LinkSigner } from '../http/signedLinks';
import type { DeviceAccessBackend } from '../mqtt/access';
import { createMessageWriter, type MessageWriter } from '../mqtt/writer';
import { downloadOrigin } from '../ota/urls';
import type { VersionRow } from './versions';

/**
 * What one process's remote configuration service holds: the database, the broker once it attaches, the message log's
 * writer and the signer of download links. The other modules are functions over this object.
 */

export const CONFIG_DOWNLOAD_PATH = '/api/config/download';

export interface ConfigState {
    db: Db;
    config: Pick<ServerConfig, 'port' | 'ota' | 'timeZone'>;
    now: () => Date;
    logError: (message: string, err: unknown) => void;
    writer: MessageWriter;
    signer: LinkSigner;
    backend: DeviceAccessBackend | undefined;
}

export function createConfigState(opts: Pick<ConfigState, 'db' | 'config' | 'now' | 'logError'>): ConfigState {
    return {
        ...opts,
        writer: createMessageWriter(opts.db),
        signer: createLinkSigner(linkKey(opts.db), {
            path: CONFIG_DOWNLOAD_PATH,
            idParam: 'configId',
            idPattern: /^[0-9a-f]{32}$/,
            scope: 'config:',
        }),
        backend: undefined,
    };
}

/** What thing/config/get_reply and thing/config/push carry (Alibaba's fields, in its order). */
export interface ConfigData {
    configId: string;
    configSize: number;
    sign: string;
    signMethod: 'Sha256';
    url: string;
    getType: 'file';
}

/** The version's data with a download URL valid for OTA_URL_HOURS, from the origin devices download from (OTA_BASE_URL). */
export async function configData(state: ConfigState, row: VersionRow): Promise<ConfigData> {
    const expires = state.now().getTime() + state.config.ota.urlHours * 3_600_000;
    return {
        configId: row.configId,
        configSize: row.size,
        sign: row.sha256,
        signMethod: 'Sha256',
        url: `${downloadOrigin(state.config)}${await state.signer.sign(row.configId, expires)}`,
        getType: 'file',
    };
}

/** One line in the device's message log; a failed write is reported, not thrown (the protocol goes on). */
export function logConfig(state: ConfigState, deviceId: number, productId: number, method: string, data: unknown) {
    state.writer
        .write({ deviceId, productId, ts: state.now(), method, identifier: null, data })
        .catch((err: unknown) => state.logError('远程配置消息日志写入失败 / config log write failed:', err));
}
