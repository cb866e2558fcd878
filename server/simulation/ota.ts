import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { eq } from 'drizzle-orm';
import type { Db } from '../db/client';
import { otaModules } from '../db/schema';
import { otaTopics } from '../ota/protocol';
import { OTA_MODULE, OTA_VERSION } from '../../schemas/ota';

/**
 * OTA as a device written for Alibaba's protocol plays it (docs/ota.md), for the platform's own simulated devices.
 * On connecting a device subscribes to its upgrade and firmware/get_reply topics, informs the version of each module
 * it has (default 1.0.0) and asks for a pending task (firmware/get). On a push it downloads the signed URL over HTTP,
 * streamed through the hash (never the whole file in memory; a cut download resumes with a Range), reporting its
 * progress steps; it checks the size and the MD5 / SHA256 sign (a mismatch: step -3 with its desc), "flashes" for a
 * while, reports 100 and informs the target version. A device's versions are read from the platform's record of its
 * informs (table ota_modules) when it connects, so an upgraded simulated device keeps its version across a restart.
 */

export interface SimOtaOptions {
    /** A simulated device's download speed, bytes per second (0: as fast as the link goes). Default 2 MB/s. */
    bytesPerSecond: number;
    /** How long the simulated flash takes after the check, ms (reported as steps 85, 90, 95). Default 3 s. */
    flashMs: number;
}

export const SIM_OTA_DEFAULTS: SimOtaOptions = { bytesPerSecond: 2 * 1024 * 1024, flashMs: 3_000 };

/** The version a simulated device without a record starts from. */
export const SIM_FIRST_VERSION = '1.0.0';

/** Download steps run 1..DOWNLOAD_STEPS; the check and the flash take the rest up to 100. */
const DOWNLOAD_STEPS = 80;
/** Tries of one download (the later ones resume with a Range). */
const DOWNLOAD_TRIES = 3;

export interface SimOtaDevice {
    deviceId: number;
    productKey: string;
    deviceName: string;
    /** Module → version, once read (at the first connection). */
    versions?: Map<string, string>;
    /** Module → the version being installed now (a second push of it is ignored meanwhile). */
    installing?: Map<string, string>;
    /** The upgrades in flight (aborted when the device's simulation ends). */
    downloads?: Set<AbortController>;
}

interface UpgradeData {
    url: string;
    version: string;
    module: string;
    size: number;
    signMethod: 'MD5' | 'SHA256';
    sign: string;
    md5?: string;
}

/** The task in an upgrade push (`data`) or a firmware/get_reply (`data`, `{}` when none). */
function upgradeData(payload: Buffer): UpgradeData | undefined {
    let body: { data?: Record<string, unknown> };
    try {
        body = JSON.parse(payload.toString('utf8')) as typeof body;
    } catch {
        return undefined;
    }
    const d = body?.data;
    if (!d || typeof d !== 'object') return undefined;
    const module = typeof d.module === 'string' && d.module ? d.module : 'default';
    const signMethod = String(d.signMethod ?? '').toUpperCase();
    if (typeof d.url !== 'string' || !/^https?:\/\//.test(d.url)) return undefined;
    if (typeof d.version !== 'string' || !OTA_VERSION.test(d.version) || !OTA_MODULE.test(module)) return undefined;
    if (signMethod !== 'MD5' && signMethod !== 'SHA256') return undefined;
    if (typeof d.sign !== 'string' || !d.sign) return undefined;
    const size = Number(d.size);
    return {
        url: d.url,
        version: d.version,
        module,
        size: Number.isFinite(size) && size >= 0 ? size : 0,
        signMethod,
        sign: d.sign.toLowerCase(),
        md5: typeof d.md5 === 'string' ? d.md5.toLowerCase() : undefined,
    };
}

type Publish = (device: SimOtaDevice, topic: string, body: Record<string, unknown>) => boolean;

export function createSimOta(
    db: Db,
    publish: Publish,
    log: (message: string) => void,
    options: Partial<SimOtaOptions> = {},
) {
    const { bytesPerSecond, flashMs } = { ...SIM_OTA_DEFAULTS, ...options };
    let nextId = 1;
    const id = () => String(nextId++);

    const inform = (device: SimOtaDevice, module: string, version: string) =>
        publish(device, otaTopics(device).inform, { id: id(), params: { version, module } });

    const progress = (device: SimOtaDevice, module: string, step: number, desc: string) =>
        publish(device, otaTopics(device).progress, { id: id(), params: { step: String(step), desc, module } });

    async function versionsOf(device: SimOtaDevice): Promise<Map<string, string>> {
        if (device.versions) return device.versions;
        const rows = await db
            .select({ module: otaModules.module, version: otaModules.version })
            .from(otaModules)
            .where(eq(otaModules.deviceId, device.deviceId));
        const versions = new Map(rows.map((r) => [r.module, r.version]));
        if (!versions.has('default')) versions.set('default', SIM_FIRST_VERSION);
        device.versions ??= versions;
        return device.versions;
    }

    /**
     * Downloads the URL through the hash, resuming a cut transfer with a Range; reports steps 1..80 as it goes.
     * Answers the hex digests and the byte count, or the reason it could not.
     */
    async function download(
        device: SimOtaDevice,
        task: UpgradeData,
        abort: AbortController,
    ): Promise<{ sign: string; received: number } | { error: string }> {
        let hash = createHash(task.signMethod === 'MD5' ? 'md5' : 'sha256');
        let received = 0;
        let reported = 1;
        let lastError = '';
        const started = Date.now();
        for (let attempt = 0; attempt < DOWNLOAD_TRIES; attempt++) {
            const headers: Record<string, string> = received ? { range: `bytes=${received}-` } : {};
            let res: Response;
            try {
                res = await fetch(task.url, { headers, signal: abort.signal });
            } catch (err) {
                if (abort.signal.aborted) return { error: '下载已中止' };
                lastError = (err as Error).message;
                continue;
            }
            if (received && res.status === 200) {
                // The server ignored the Range: start over.
                received = 0;
                reported = 1;
                hash = createHash(task.signMethod === 'MD5' ? 'md5' : 'sha256');
            } else if (!res.ok || !res.body) {
                await res.body?.cancel().catch(() => undefined);
                return { error: `HTTP ${res.status}` };
            }
            try {
                for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
                    hash.update(chunk);
                    received += chunk.length;
                    if (task.size > 0) {
                        const step = Math.max(
                            1,
                            Math.min(DOWNLOAD_STEPS, Math.floor((received / task.size) * DOWNLOAD_STEPS)),
                        );
                        if (step - reported >= 10) {
                            reported = step;
                            progress(device, task.module, step, '下载中');
                        }
                    }
                    // A device's link is slower than the loopback: keep to its speed.
                    if (bytesPerSecond > 0) {
                        const due = started + (received / bytesPerSecond) * 1000 - Date.now();
                        if (due > 0) await sleep(due, undefined, { signal: abort.signal });
                    }
                }
                return { sign: hash.digest('hex'), received };
            } catch (err) {
                if (abort.signal.aborted) return { error: '下载已中止' };
                lastError = (err as Error).message;
            }
        }
        return { error: lastError || '连接中断' };
    }

    async function install(device: SimOtaDevice, task: UpgradeData) {
        const installing = (device.installing ??= new Map());
        if (installing.get(task.module) === task.version) return;
        installing.set(task.module, task.version);
        const abort = new AbortController();
        (device.downloads ??= new Set()).add(abort);
        try {
            const versions = await versionsOf(device);
            if (versions.get(task.module) === task.version) {
                // Already on it: say so, which completes the task.
                inform(device, task.module, task.version);
                return;
            }
            progress(device, task.module, 1, '开始下载');
            const got = await download(device, task, abort);
            if ('error' in got) {
                if (got.error !== '下载已中止') progress(device, task.module, -2, `固件下载失败：${got.error}`);
                return;
            }
            const signOk = got.sign === task.sign && (task.signMethod !== 'MD5' || !task.md5 || task.md5 === got.sign);
            if (task.size && got.received !== task.size) {
                progress(device, task.module, -3, `固件大小不一致：应为 ${task.size} 字节，收到 ${got.received} 字节`);
                return;
            }
            if (!signOk) {
                progress(device, task.module, -3, `固件签名不一致（${task.signMethod}）`);
                return;
            }
            progress(device, task.module, 85, '校验通过，正在烧写');
            for (const step of [90, 95]) {
                await sleep(flashMs / 3, undefined, { signal: abort.signal });
                progress(device, task.module, step, '烧写中');
            }
            await sleep(flashMs / 3, undefined, { signal: abort.signal });
            progress(device, task.module, 100, '升级完成');
            versions.set(task.module, task.version);
            inform(device, task.module, task.version);
        } catch (err) {
            if (!abort.signal.aborted) throw err;
        } finally {
            installing.delete(task.module);
            device.downloads.delete(abort);
        }
    }

    return {
        /** The topics a device subscribes to on connecting. */
        topics: (device: SimOtaDevice) => [otaTopics(device).upgrade, otaTopics(device).firmwareGetReply],

        /** After connecting (and subscribing): informs its versions and asks for a pending task. */
        async connected(device: SimOtaDevice) {
            const versions = await versionsOf(device);
            const topics = otaTopics(device);
            for (const [module, version] of versions) {
                inform(device, module, version);
                publish(device, topics.firmwareGet, { id: id(), params: { module }, version: '1.0' });
            }
        },

        /** A message for the device: true when it was an OTA one (then taken care of here). */
        message(device: SimOtaDevice, topic: string, payload: Buffer): boolean {
            const topics = otaTopics(device);
            if (topic !== topics.upgrade && topic !== topics.firmwareGetReply) return false;
            const task = upgradeData(payload);
            if (task) {
                void install(device, task).catch((err: Error) =>
                    log(`模拟设备 ${device.deviceName} 固件升级失败: ${err.message}`),
                );
            }
            return true;
        },

        /** The device's simulation ends: its downloads stop. */
        stop(device: SimOtaDevice) {
            for (const abort of device.downloads ?? []) abort.abort();
        },
    };
}
