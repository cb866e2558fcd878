import { OTA_FAILED_STEPS, OTA_MODULE, OTA_VERSION } from '../../schemas/ota';

/**
 * Alibaba Cloud IoT's OTA messages (Alink): the topics, and what the platform reads of the device's JSON. Parsing is
 * lenient where Alibaba's devices differ (step as a string or a number, module absent) and strict where a wrong value
 * would corrupt state (versions and modules keep the package rule).
 */

export interface Owner {
    productKey: string;
    deviceName: string;
}

export const otaTopics = ({ productKey: pk, deviceName: dn }: Owner) => ({
    inform: `/ota/device/inform/${pk}/${dn}`,
    progress: `/ota/device/progress/${pk}/${dn}`,
    upgrade: `/ota/device/upgrade/${pk}/${dn}`,
    firmwareGet: `/sys/${pk}/${dn}/thing/ota/firmware/get`,
    firmwareGetReply: `/sys/${pk}/${dn}/thing/ota/firmware/get_reply`,
});

interface Request {
    id: string;
    params: Record<string, unknown>;
}

function request(payload: Buffer): Request | undefined {
    try {
        const value = JSON.parse(payload.toString('utf8')) as { id?: unknown; params?: unknown };
        if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
        const params = value.params;
        return {
            id: typeof value.id === 'string' || typeof value.id === 'number' ? String(value.id) : '',
            params:
                typeof params === 'object' && params !== null && !Array.isArray(params)
                    ? (params as Record<string, unknown>)
                    : {},
        };
    } catch {
        return undefined;
    }
}

const moduleOf = (params: Record<string, unknown>) => {
    const m = typeof params.module === 'string' && params.module.trim() ? params.module.trim() : 'default';
    return OTA_MODULE.test(m) ? m : undefined;
};

export type Inform = { id: string; version: string; module: string } | { error: string };

export function parseInform(payload: Buffer): Inform {
    const r = request(payload);
    if (!r) return { error: '消息不是有效的 JSON 对象' };
    const version = typeof r.params.version === 'string' ? r.params.version.trim() : '';
    if (!OTA_VERSION.test(version)) return { error: 'params.version 应为1~64位字母、数字、下划线、中划线或点号' };
    const module = moduleOf(r.params);
    if (!module) return { error: 'params.module 格式不正确' };
    return { id: r.id, version, module };
}

export type Progress = { id: string; step: number; desc: string; module: string } | { error: string };

export function parseProgress(payload: Buffer): Progress {
    const r = request(payload);
    if (!r) return { error: '消息不是有效的 JSON 对象' };
    const raw = r.params.step;
    const step = typeof raw === 'number' ? raw : typeof raw === 'string' && /^-?\d{1,3}$/.test(raw) ? Number(raw) : NaN;
    if (!Number.isInteger(step) || !((step >= 1 && step <= 100) || OTA_FAILED_STEPS[String(step)])) {
        return { error: 'params.step 应为 1~100 或 -1~-4' };
    }
    const module = moduleOf(r.params);
    if (!module) return { error: 'params.module 格式不正确' };
    const desc = typeof r.params.desc === 'string' ? r.params.desc.slice(0, 200) : '';
    return { id: r.id, step, desc, module };
}

export function parseFirmwareGet(payload: Buffer): { id: string; module: string | undefined } {
    const r = request(payload);
    return { id: r?.id ?? '', module: r ? moduleOf(r.params) : undefined };
}

/** The reason a failing step gives, with the device's own words after it. */
export const failureReason = (step: number, desc: string) =>
    `${OTA_FAILED_STEPS[String(step)] ?? '升级失败'}${desc ? `：${desc}` : ''}`;

export interface UpgradeData {
    size: number;
    version: string;
    url: string;
    signMethod: string;
    sign: string;
    md5?: string;
    module: string;
}

/** The push on /ota/device/upgrade as Alibaba sends it: code "1000", data, id, message. */
export function upgradeMessage(data: UpgradeData, id: number): string {
    return JSON.stringify({ code: '1000', data, id, message: 'success' });
}
