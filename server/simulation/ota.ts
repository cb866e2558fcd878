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

export interface UpgradeData {
    url: string;
    version: string;
    module: string;
    size: number;
    signMethod: 'MD5' | 'SHA256';
    sign: string;
    md5?: string;
}

/** The task in an upgrade push (`data`) or a firmware/get_reply (`data`, `{}` when none). */
export function upgradeData(payload: Buffer): UpgradeData | undefined {
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

/** The simulated devices' OTA, shared by every device of one simulator. */
export interface SimOtaState extends SimOtaOptions {
    db: Db;
    publish: Publish;
    log: (message: string) => void;
    nextId: number;
}

const ABORTED = '下载已中止';

const newHash = (task: UpgradeData) => createHash(task.signMethod === 'MD5' ? 'md5' : 'sha256');

export const informVersion = (ota: SimOtaState, device: SimOtaDevice, module: string, version: string) =>
    ota.publish(device, otaTopics(device).inform, { id: String(ota.nextId++), params: { version, module } });

export const reportProgress = (ota: SimOtaState, device: SimOtaDevice, module: string, step: number, desc: string) =>
    ota.publish(device, otaTopics(device).progress, {
        id: String(ota.nextId++),
        params: { step: String(step), desc, module },
    });

/** The device's module versions: the platform's record of its informs, read once (default 1.0.0 when none). */
export async function versionsOf(ota: SimOtaState, device: SimOtaDevice): Promise<Map<string, string>> {
    if (device.versions) return device.versions;
    const rows = await ota.db
        .select({ module: otaModules.module, version: otaModules.version })
        .from(otaModules)
        .where(eq(otaModules.deviceId, device.deviceId));
    const versions = new Map(rows.map((r) => [r.module, r.version]));
    if (!versions.has('default')) versions.set('default', SIM_FIRST_VERSION);
    device.versions ??= versions;
    return device.versions;
}

/** A download in progress: the hash of the bytes so far, their count, the last step reported. */
interface Transfer {
    hash: ReturnType<typeof createHash>;
    received: number;
    reported: number;
    started: number;
}

/** Reads one response's body into the transfer at the device's speed, reporting every 10 steps of 1..80. */
async function readBody(
    ota: SimOtaState,
    device: SimOtaDevice,
    task: UpgradeData,
    body: AsyncIterable<Uint8Array>,
    t: Transfer,
    signal: AbortSignal,
): Promise<void> {
    for await (const chunk of body) {
        t.hash.update(chunk);
        t.received += chunk.length;
        if (task.size > 0) {
            const step = Math.max(1, Math.min(DOWNLOAD_STEPS, Math.floor((t.received / task.size) * DOWNLOAD_STEPS)));
            if (step - t.reported >= 10) {
                t.reported = step;
                reportProgress(ota, device, task.module, step, '下载中');
            }
        }
        // A device's link is slower than the loopback: keep to its speed.
        if (ota.bytesPerSecond > 0) {
            const due = t.started + (t.received / ota.bytesPerSecond) * 1000 - Date.now();
            if (due > 0) await sleep(due, undefined, { signal });
        }
    }
}

/**
 * Downloads the URL through the hash, resuming a cut transfer with a Range; reports steps 1..80 as it goes.
 * Answers the hex digest and the byte count, or the reason it could not.
 */
export async function download(
    ota: SimOtaState,
    device: SimOtaDevice,
    task: UpgradeData,
    abort: AbortController,
): Promise<{ sign: string; received: number } | { error: string }> {
    const t: Transfer = { hash: newHash(task), received: 0, reported: 1, started: Date.now() };
    let lastError = '';
    for (let attempt = 0; attempt < DOWNLOAD_TRIES; attempt++) {
        const headers: Record<string, string> = t.received ? { range: `bytes=${t.received}-` } : {};
        let res: Response;
        try {
            res = await fetch(task.url, { headers, signal: abort.signal });
        } catch (err) {
            if (abort.signal.aborted) return { error: ABORTED };
            lastError = (err as Error).message;
            continue;
        }
        if (t.received && res.status === 200) {
            // The server ignored the Range: start over.
            Object.assign(t, { hash: newHash(task), received: 0, reported: 1 });
        } else if (!res.ok || !res.body) {
            await res.body?.cancel().catch(() => undefined);
            return { error: `HTTP ${res.status}` };
        }
        try {
            await readBody(ota, device, task, res.body as unknown as AsyncIterable<Uint8Array>, t, abort.signal);
            return { sign: t.hash.digest('hex'), received: t.received };
        } catch (err) {
            if (abort.signal.aborted) return { error: ABORTED };
            lastError = (err as Error).message;
        }
    }
    return { error: lastError || '连接中断' };
}

/** Why the downloaded file is not the pushed one (size, then sign), or undefined when it is. */
export function checkDownload(task: UpgradeData, got: { sign: string; received: number }): string | undefined {
    if (task.size && got.received !== task.size) {
        return `固件大小不一致：应为 ${task.size} 字节，收到 ${got.received} 字节`;
    }
    const signOk = got.sign === task.sign && (task.signMethod !== 'MD5' || !task.md5 || task.md5 === got.sign);
    return signOk ? undefined : `固件签名不一致（${task.signMethod}）`;
}

/** Downloads, checks, "flashes" (steps 85, 90, 95 over flashMs), reports 100 and informs the new version. */
async function upgrade(ota: SimOtaState, device: SimOtaDevice, task: UpgradeData, abort: AbortController) {
    const versions = await versionsOf(ota, device);
    if (versions.get(task.module) === task.version) {
        // Already on it: say so, which completes the task.
        informVersion(ota, device, task.module, task.version);
        return;
    }
    reportProgress(ota, device, task.module, 1, '开始下载');
    const got = await download(ota, device, task, abort);
    if ('error' in got) {
        if (got.error !== ABORTED) reportProgress(ota, device, task.module, -2, `固件下载失败：${got.error}`);
        return;
    }
    const wrong = checkDownload(task, got);
    if (wrong) {
        reportProgress(ota, device, task.module, -3, wrong);
        return;
    }
    reportProgress(ota, device, task.module, 85, '校验通过，正在烧写');
    for (const step of [90, 95]) {
        await sleep(ota.flashMs / 3, undefined, { signal: abort.signal });
        reportProgress(ota, device, task.module, step, '烧写中');
    }
    await sleep(ota.flashMs / 3, undefined, { signal: abort.signal });
    reportProgress(ota, device, task.module, 100, '升级完成');
    versions.set(task.module, task.version);
    informVersion(ota, device, task.module, task.version);
}

/** Installs a pushed task once at a time per module (a second push of the same version meanwhile is ignored). */
export async function install(ota: SimOtaState, device: SimOtaDevice, task: UpgradeData): Promise<void> {
    const installing = (device.installing ??= new Map());
    if (installing.get(task.module) === task.version) return;
    installing.set(task.module, task.version);
    const abort = new AbortController();
    const downloads = (device.downloads ??= new Set());
    downloads.add(abort);
    try {
        await upgrade(ota, device, task, abort);
    } catch (err) {
        if (!abort.signal.aborted) throw err;
    } finally {
        installing.delete(task.module);
        downloads.delete(abort);
    }
}

/** After connecting (and subscribing): informs its versions and asks for a pending task of each module. */
export async function otaConnected(ota: SimOtaState, device: SimOtaDevice): Promise<void> {
    const versions = await versionsOf(ota, device);
    const topics = otaTopics(device);
    for (const [module, version] of versions) {
        informVersion(ota, device, module, version);
        ota.publish(device, topics.firmwareGet, { id: String(ota.nextId++), params: { module }, version: '1.0' });
    }
}

/** A message for the device: true when it was an OTA one (then taken care of here). */
export function otaMessage(ota: SimOtaState, device: SimOtaDevice, topic: string, payload: Buffer): boolean {
    const topics = otaTopics(device);
    if (topic !== topics.upgrade && topic !== topics.firmwareGetReply) return false;
    const task = upgradeData(payload);
    if (task) {
        void install(ota, device, task).catch((err: Error) =>
            ota.log(`模拟设备 ${device.deviceName} 固件升级失败: ${err.message}`),
        );
    }
    return true;
}

export function createSimOta(
    db: Db,
    publish: Publish,
    log: (message: string) => void,
    options: Partial<SimOtaOptions> = {},
) {
    const ota: SimOtaState = { ...SIM_OTA_DEFAULTS, ...options, db, publish, log, nextId: 1 };
    return {
        /** The topics a device subscribes to on connecting. */
        topics: (device: SimOtaDevice) => [otaTopics(device).upgrade, otaTopics(device).firmwareGetReply],
        connected: (device: SimOtaDevice) => otaConnected(ota, device),
        message: (device: SimOtaDevice, topic: string, payload: Buffer) => otaMessage(ota, device, topic, payload),
        /** The device's simulation ends: its downloads stop. */
        stop(device: SimOtaDevice) {
            for (const abort of device.downloads ?? []) abort.abort();
        },
    };
}

export type SimOta = ReturnType<typeof createSimOta>;
