import { and, eq } from 'drizzle-orm';
import { remoteConfigPushDevices } from '../db/schema';
import type { DeviceEntry } from '../mqtt/directory';
import { configData, logConfig, type ConfigState } from './state';
import { currentVersion } from './versions';

/**
 * The device's side of remote configuration on Alibaba's topics (docs/device-access.md "远程配置"):
 * `thing/config/get` answered on `get_reply` with the product's current file (configId, configSize, sign, a signed
 * URL), or 6710 when it has none; `thing/config/push_reply` recorded as the device's state in that push.
 */

export const CONFIG_GET = 'thing.config.get';
export const CONFIG_PUSH = 'thing.config.push';

/** Alibaba's codes: 6710 no data (the product has no configuration), 460 a malformed request. */
export const CONFIG_CODES = { OK: 200, BAD_PARAMS: 460, NO_DATA: 6710 } as const;

const configTopic = (d: DeviceEntry, rest: string) => `/sys/${d.productKey}/${d.deviceName}/thing/config/${rest}`;

function jsonObject(payload: Buffer): Record<string, unknown> | undefined {
    try {
        const v = JSON.parse(payload.toString('utf8')) as unknown;
        return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
    } catch {
        return undefined;
    }
}

const idOf = (m: Record<string, unknown> | undefined) =>
    typeof m?.id === 'string' || typeof m?.id === 'number' ? String(m.id) : '';

/** Why a config/get request is malformed (Alibaba supports configScope product and getType file only), or undefined. */
function getProblem(m: Record<string, unknown> | undefined): string | undefined {
    if (!m) return '消息不是有效的 JSON 对象';
    const params = m.params;
    if (params === undefined) return undefined;
    if (typeof params !== 'object' || params === null || Array.isArray(params)) return 'params 应为对象';
    const { configScope, getType } = params as Record<string, unknown>;
    if (configScope !== undefined && configScope !== 'product') return 'configScope 只支持 product';
    if (getType !== undefined && getType !== 'file') return 'getType 只支持 file';
    return undefined;
}

/** thing/config/get: the current file's data on get_reply, 6710 when the product has none, 460 when malformed. */
export async function configGet(state: ConfigState, device: DeviceEntry, payload: Buffer): Promise<void> {
    const m = jsonObject(payload);
    const problem = getProblem(m);
    const row = problem ? undefined : await currentVersion(state.db, device.productId);
    const base = { id: idOf(m), version: '1.0', method: CONFIG_GET };
    const body = problem
        ? { ...base, code: CONFIG_CODES.BAD_PARAMS, data: {}, message: problem }
        : row
          ? { ...base, code: CONFIG_CODES.OK, data: await configData(state, row) }
          : { ...base, code: CONFIG_CODES.NO_DATA, data: {}, message: '该产品没有远程配置文件（no data）' };
    const text = JSON.stringify(body);
    await state.backend?.publishTo(device.deviceId, configTopic(device, 'get_reply'), text, 0).catch(() => false);
    logConfig(state, device.deviceId, device.productId, CONFIG_GET, {
        direction: 'up',
        id: base.id,
        code: body.code,
        ...(row ? { configId: row.configId, version: row.version } : {}),
    });
}

/** thing/config/push_reply: the device's answer to the push of that id, its state in the push (成功 or 失败 with its code). */
export async function pushReply(state: ConfigState, device: DeviceEntry, payload: Buffer): Promise<void> {
    const m = jsonObject(payload);
    const id = idOf(m);
    if (!m || !id) {
        logConfig(state, device.deviceId, device.productId, `${CONFIG_PUSH}_reply`, {
            direction: 'up',
            error: '应答不是含 id 的 JSON 对象',
            raw: payload.toString('utf8').slice(0, 1024),
        });
        return;
    }
    const code = typeof m.code === 'number' ? m.code : Number(m.code);
    const ok = code === CONFIG_CODES.OK;
    const message = typeof m.message === 'string' ? m.message.slice(0, 500) : null;
    await state.db
        .update(remoteConfigPushDevices)
        .set({
            state: ok ? 'succeeded' : 'failed',
            code: Number.isInteger(code) && Math.abs(code) <= 2_147_483_647 ? code : null,
            message: ok ? null : (message ?? (Number.isFinite(code) ? null : '设备应答缺少 code')),
            repliedAt: state.now(),
        })
        .where(
            and(
                eq(remoteConfigPushDevices.deviceId, device.deviceId),
                eq(remoteConfigPushDevices.messageId, id),
                eq(remoteConfigPushDevices.state, 'pushing'),
            ),
        );
    logConfig(state, device.deviceId, device.productId, `${CONFIG_PUSH}_reply`, { direction: 'up', id, code, message });
}

/** The uplink's topic handler: a config topic of the device is taken here (a promise), any other left (undefined). */
export function handleConfigMessage(
    state: ConfigState,
    device: DeviceEntry,
    topic: string,
    payload: Buffer,
): Promise<void> | undefined {
    if (topic === configTopic(device, 'get')) return configGet(state, device, payload);
    if (topic === configTopic(device, 'push_reply')) return pushReply(state, device, payload);
    return undefined;
}
