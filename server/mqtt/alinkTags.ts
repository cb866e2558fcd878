import { ApiError } from '../http/errors';
import { isRecord, reply, type AlinkRequest } from './alinkPosts';
import type { DeviceEntry } from './directory';
import type { Delivery } from './resend';
import { ALINK, type UplinkState } from './uplinkStore';

/**
 * Alink device tags: `thing/deviceinfo/update` (params `[{ attrKey, attrValue }]`) sets the device's tags (the ones
 * its detail page shows under 标签, server/domain/tags.ts) and `thing/deviceinfo/delete` (params `[{ attrKey }]`)
 * deletes them. Each is answered on `_reply`: 200 once stored, 460 with the reason (the console's tag rules) and
 * nothing changed, 6100 for a device that no longer exists. The request is kept in the message log.
 */

export const TAGS_UPDATE = 'thing.deviceinfo.update';
export const TAGS_DELETE = 'thing.deviceinfo.delete';

/** Alibaba's "device not found". */
const DEVICE_NOT_FOUND = 6100;

const text = (v: unknown) => (typeof v === 'string' ? v : typeof v === 'number' && Number.isFinite(v) ? String(v) : '');

/** The request's `[{ attrKey, attrValue? }]`, or why it is malformed. */
function pairsOf(request: AlinkRequest, withValue: boolean): Array<{ key: string; value: string }> | string {
    const params = request.params;
    if (!Array.isArray(params) || !params.length) return 'params 应为非空数组';
    const pairs: Array<{ key: string; value: string }> = [];
    for (const [i, p] of params.entries()) {
        if (!isRecord(p)) return `params[${i}] 应为 { attrKey${withValue ? ', attrValue' : ''} }`;
        const key = text(p.attrKey);
        if (!key) return `params[${i}] 缺少 attrKey`;
        const value = text(p.attrValue);
        if (withValue && p.attrValue === undefined) return `params[${i}] 缺少 attrValue`;
        pairs.push({ key, value });
    }
    return pairs;
}

export async function deviceInfo(
    s: UplinkState,
    device: DeviceEntry,
    topic: string,
    action: 'update' | 'delete',
    request: AlinkRequest | undefined,
    delivery?: Delivery,
): Promise<void> {
    const method = action === 'update' ? TAGS_UPDATE : TAGS_DELETE;
    const answer = (code: number, why: string) => reply(s, device, topic, request, method, code, why);
    if (!request) return answer(ALINK.BAD_PARAMS, '消息不是有效的 JSON 对象');
    const pairs = pairsOf(request, action === 'update');
    if (typeof pairs === 'string') return answer(ALINK.BAD_PARAMS, pairs);
    if (!s.tags) return answer(ALINK.FAILED, '设备标签服务未运行');
    try {
        if (action === 'update') await s.tags.update(device.deviceId, pairs);
        else await s.tags.remove(device.deviceId, [...new Set(pairs.map((p) => p.key))]);
    } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        return answer(err.status === 404 ? DEVICE_NOT_FOUND : ALINK.BAD_PARAMS, err.message);
    }
    await s.writer.write({
        deviceId: device.deviceId,
        productId: device.productId,
        ts: new Date(),
        method,
        identifier: null,
        data: { params: request.params },
        delivery,
    });
    return answer(ALINK.OK, 'success');
}
