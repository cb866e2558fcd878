import { OTA_DEFAULT_MAX_MB } from '../../schemas/ota';

/** OTA settings (docs/ota.md, docs/configuration.md). */
export interface OtaConfig {
    /** Largest firmware file in bytes (OTA_MAX_MB, default 200). */
    maxBytes: number;
    /** How long a pushed download URL stays valid (OTA_URL_HOURS, default 24). */
    urlHours: number;
    /**
     * The origin devices download from (OTA_BASE_URL, e.g. http://iot.example.com:8080); unset: http://127.0.0.1:PORT,
     * right only for devices on the platform's own machine.
     */
    baseUrl: string | undefined;
}

function positive(raw: string | undefined, fallback: number, max: number, name: string): number {
    if (raw === undefined || raw.trim() === '') return fallback;
    const n = Number(raw);
    if (!Number.isFinite(n) || n <= 0 || n > max) {
        throw new Error(
            `${name} 必须是 0~${max} 之间的正数 / ${name} must be a positive number up to ${max} (got "${raw}")`,
        );
    }
    return n;
}

export function loadOtaConfig(env: NodeJS.ProcessEnv = process.env): OtaConfig {
    const baseUrl = env.OTA_BASE_URL?.trim().replace(/\/+$/, '');
    if (baseUrl && !/^https?:\/\/[^\s/]+$/.test(baseUrl)) {
        throw new Error(`OTA_BASE_URL 必须是 http(s)://主机[:端口] / OTA_BASE_URL is malformed (got "${baseUrl}")`);
    }
    return {
        maxBytes: Math.round(positive(env.OTA_MAX_MB, OTA_DEFAULT_MAX_MB, 10_240, 'OTA_MAX_MB') * 1024 * 1024),
        urlHours: positive(env.OTA_URL_HOURS, 24, 24 * 365, 'OTA_URL_HOURS'),
        baseUrl: baseUrl || undefined,
    };
}
