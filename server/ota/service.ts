import { and, desc, eq, inArray, sql } from 'drizzle-orm';
import type { ServerConfig } from '../config';
import type { Db } from '../db/client';
import { otaBatches, otaModules, otaPackages, otaTasks } from '../db/schema';
import type { AccessHub, DeviceAccessBackend } from '../mqtt/access';
import type { DeviceEntry } from '../mqtt/directory';
import { createMessageWriter } from '../mqtt/writer';
import { inScopeSql, OPEN_STATES, sourcesOf } from './batches';
import { packageById, type OtaPackageRow } from './packages';
import {
    failureReason,
    otaTopics,
    parseFirmwareGet,
    parseInform,
    parseProgress,
    upgradeMessage,
    type Owner,
} from './protocol';
import { createSigner } from './signing';

/**
 * OTA on the devices' own topics (docs/ota.md). The scheduler pushes pending tasks of running batches to online
 * devices within each batch's window and rate, fails (or retries) tasks past their timeout and closes finished
 * batches; the protocol handlers take the devices' informs, progress reports and firmware requests. Each push,
 * report and result is written to the device's message log (ota.upgrade, ota.progress, ota.inform, ota.result).
 */

/** An upgrade that failed for good (its retries spent): what the rule engine's otaFailed trigger sees. */
export interface OtaFailure {
    deviceId: number;
    productKey: string;
    deviceName: string;
    taskId: number;
    batchId: number;
    packageId: number;
    packageName: string;
    module: string;
    /** The target version of the package. */
    version: string;
    /** The failing step the device reported (-1..-4), else its last progress (a timeout), else null. */
    step: number | null;
    reason: string;
}

export interface OtaServiceOptions {
    db: Db;
    access: AccessHub;
    config: Pick<ServerConfig, 'port' | 'ota'>;
    now?: () => Date;
    /** How often the scheduler runs while a broker is attached (default 1 s). */
    tickMs?: number;
    logError?: (message: string, err: unknown) => void;
}

/** Pushes per batch in one run at most (a batch without a rate limit still goes out in slices). */
const SLICE = 500;

interface OpenTask {
    id: number;
    batchId: number;
    state: string;
    attempts: number;
    retries: number;
    pkg: OtaPackageRow;
}

export function createOtaService({
    db,
    access,
    config,
    now = () => new Date(),
    tickMs = 1000,
    logError = (m, e) => console.error(m, e),
}: OtaServiceOptions) {
    const writer = createMessageWriter(db);
    const signer = createSigner(db);
    let backend: DeviceAccessBackend | undefined;
    let timer: NodeJS.Timeout | undefined;
    let running: Promise<void> | undefined;
    let again = false;
    const unsubscribe: Array<() => void> = [];
    /** Listeners of final failures (the rule engine's otaFailed trigger). */
    let failedListeners: Array<(failure: OtaFailure) => void> = [];
    const owners = new Map<number, Owner & { productId: number }>();

    const log = (deviceId: number, productId: number | undefined, method: string, module: string, data: unknown) =>
        writer
            .write({ deviceId, productId, ts: now(), method, identifier: module, data })
            .catch((err: unknown) => logError('OTA 消息日志写入失败 / OTA log write failed:', err));

    const baseUrl = () => config.ota.baseUrl ?? `http://127.0.0.1:${config.port}`;

    async function upgradeData(pkg: OtaPackageRow) {
        const expires = now().getTime() + config.ota.urlHours * 3_600_000;
        const md5 = pkg.signMethod === 'MD5';
        return {
            size: Number(pkg.size),
            version: pkg.version,
            url: `${baseUrl()}${await signer.sign(pkg.id, expires)}`,
            signMethod: pkg.signMethod,
            sign: md5 ? pkg.md5 : pkg.sha256,
            ...(md5 ? { md5: pkg.md5 } : {}),
            module: pkg.module,
        };
    }

    /** Names of devices the scheduler pushes to: from the connection that brought them (informs), else the table. */
    async function ownerOf(deviceId: number) {
        const known = owners.get(deviceId);
        if (known) return known;
        const rows = (await db.execute(sql`
            SELECT d.device_name, p.product_key, d.product_id FROM devices d JOIN products p ON p.id = d.product_id
            WHERE d.id = ${deviceId}`)) as unknown as {
            rows: Array<{ device_name: string; product_key: string; product_id: number }>;
        };
        const r = rows.rows[0];
        if (!r) return undefined;
        const owner = { productKey: r.product_key, deviceName: r.device_name, productId: Number(r.product_id) };
        owners.set(deviceId, owner);
        return owner;
    }

    /** Pushes the tasks (marked pushed first, so a fast device's progress finds them); back to pending if offline. */
    async function push(tasks: Array<{ id: number; deviceId: number }>, pkg: OtaPackageRow) {
        if (!tasks.length || !backend) return;
        const at = now();
        await db
            .update(otaTasks)
            .set({
                state: 'pushed',
                pushedAt: at,
                updatedAt: at,
                step: null,
                attempts: sql`${otaTasks.attempts} + 1`,
            })
            .where(
                and(
                    inArray(
                        otaTasks.id,
                        tasks.map((t) => t.id),
                    ),
                    eq(otaTasks.state, 'pending'),
                ),
            );
        const data = await upgradeData(pkg);
        const missed: number[] = [];
        await Promise.all(
            tasks.map(async (t) => {
                const owner = await ownerOf(t.deviceId);
                const id = Date.now();
                const payload = upgradeMessage(data, id);
                const topic = owner && otaTopics(owner).upgrade;
                const sent = topic ? await backend!.publishTo(t.deviceId, topic, payload, 1).catch(() => false) : false;
                if (!sent) return missed.push(t.id);
                void log(t.deviceId, owner?.productId, 'ota.upgrade', pkg.module, {
                    direction: 'down',
                    topic,
                    id: String(id),
                    payload: JSON.parse(payload) as unknown,
                });
            }),
        );
        if (missed.length) {
            await db
                .update(otaTasks)
                .set({ state: 'pending', attempts: sql`${otaTasks.attempts} - 1` })
                .where(and(inArray(otaTasks.id, missed), eq(otaTasks.state, 'pushed')));
        }
    }

    /** A task leaves the open states: failed for good, or pending again while retries remain. */
    async function fail(
        task: { id: number; batchId: number; deviceId: number; attempts: number; retries: number },
        pkg: Pick<OtaPackageRow, 'id' | 'name' | 'module' | 'version'>,
        step: number | null,
        reason: string,
    ) {
        const retry = task.attempts <= task.retries;
        await db
            .update(otaTasks)
            .set({
                state: retry ? 'pending' : 'failed',
                reason: retry ? `${reason}（将重试）` : reason,
                updatedAt: now(),
            })
            .where(and(eq(otaTasks.id, task.id), inArray(otaTasks.state, [...OPEN_STATES])));
        if (retry) return;
        const owner = await ownerOf(task.deviceId);
        void log(task.deviceId, owner?.productId, 'ota.result', '', { taskId: task.id, state: 'failed', reason });
        if (!owner) return;
        const failure: OtaFailure = {
            deviceId: task.deviceId,
            productKey: owner.productKey,
            deviceName: owner.deviceName,
            taskId: task.id,
            batchId: task.batchId,
            packageId: pkg.id,
            packageName: pkg.name,
            module: pkg.module,
            version: pkg.version,
            step,
            reason,
        };
        for (const l of failedListeners) {
            try {
                l(failure);
            } catch (err) {
                logError('OTA 失败通知出错 / OTA failure listener failed:', err);
            }
        }
    }

    async function run() {
        if (!backend) return;
        const at = now();
        // Past their timeout: failed, or pending again for a retry.
        const late = (await db.execute(sql`
            SELECT t.id, t.batch_id, t.device_id, t.attempts, t.step, b.retries, p.id AS package_id, p.name, p.module,
                   p.version
            FROM ota_tasks t JOIN ota_batches b ON b.id = t.batch_id JOIN ota_packages p ON p.id = b.package_id
            WHERE b.status = 'running' AND t.state IN ('pushed', 'upgrading')
              AND t.pushed_at < ${at.toISOString()}::timestamptz - b.timeout_minutes * interval '1 minute'`)) as unknown as {
            rows: Array<{
                id: number;
                batch_id: number;
                device_id: number;
                attempts: number;
                step: number | null;
                retries: number;
                package_id: number;
                name: string;
                module: string;
                version: string;
            }>;
        };
        for (const r of late.rows) {
            await fail(
                {
                    id: Number(r.id),
                    batchId: Number(r.batch_id),
                    deviceId: Number(r.device_id),
                    attempts: r.attempts,
                    retries: r.retries,
                },
                { id: Number(r.package_id), name: r.name, module: r.module, version: r.version },
                r.step === null ? null : Number(r.step),
                '升级超时',
            );
        }
        const batches = await db.select().from(otaBatches).where(eq(otaBatches.status, 'running'));
        for (const b of batches) {
            if (b.endTime && b.endTime <= at) {
                await db.update(otaBatches).set({ status: 'done' }).where(eq(otaBatches.id, b.id));
                await db
                    .update(otaTasks)
                    .set({ state: 'cancelled', reason: '超出升级时间窗口', updatedAt: at })
                    .where(and(eq(otaTasks.batchId, b.id), eq(otaTasks.state, 'pending')));
                continue;
            }
            if (b.startTime && b.startTime > at) continue;
            let budget = SLICE;
            if (b.ratePerMinute) {
                const [recent] = await db
                    .select({ n: sql<number>`count(*)::int` })
                    .from(otaTasks)
                    .where(
                        and(
                            eq(otaTasks.batchId, b.id),
                            sql`${otaTasks.pushedAt} > ${new Date(at.getTime() - 60_000).toISOString()}::timestamptz`,
                        ),
                    );
                budget = Math.min(SLICE, b.ratePerMinute - Number(recent.n));
            }
            if (budget > 0) {
                const pending = await db
                    .select({ id: otaTasks.id, deviceId: otaTasks.deviceId })
                    .from(otaTasks)
                    .where(and(eq(otaTasks.batchId, b.id), eq(otaTasks.state, 'pending')))
                    .orderBy(otaTasks.id)
                    .limit(SLICE * 10);
                const online = pending
                    .map((t) => ({ id: Number(t.id), deviceId: Number(t.deviceId) }))
                    .filter((t) => backend!.isOnline(t.deviceId))
                    .slice(0, budget);
                if (online.length) await push(online, await packageById(db, b.packageId));
            }
            if (!b.dynamic) await finishIfDone(b);
        }
    }

    /** A static batch with no open task is done; a verification that reached every device marks its package verified. */
    async function finishIfDone(b: typeof otaBatches.$inferSelect) {
        const [open] = await db
            .select({ n: sql<number>`count(*)::int` })
            .from(otaTasks)
            .where(and(eq(otaTasks.batchId, b.id), inArray(otaTasks.state, [...OPEN_STATES])));
        if (Number(open.n) > 0) return;
        await db
            .update(otaBatches)
            .set({ status: 'done' })
            .where(and(eq(otaBatches.id, b.id), eq(otaBatches.status, 'running')));
        if (b.kind !== 'verify') return;
        const [bad] = await db
            .select({ n: sql<number>`count(*)::int` })
            .from(otaTasks)
            .where(and(eq(otaTasks.batchId, b.id), sql`${otaTasks.state} <> 'succeeded'`));
        if (Number(bad.n) === 0)
            await db.update(otaPackages).set({ verified: true }).where(eq(otaPackages.id, b.packageId));
    }

    /** One scheduler run; a call during a run makes one more run after it (so a test's tick sees its own changes). */
    function tick(): Promise<void> {
        if (running) {
            again = true;
            return running;
        }
        running = run()
            .catch((err: unknown) => logError('OTA 调度失败 / OTA scheduler failed:', err))
            .finally(() => {
                running = undefined;
                if (again) {
                    again = false;
                    void tick();
                }
            });
        return running;
    }

    /** The device's open task of a module (newest first), in a running batch. */
    async function openTask(
        deviceId: number,
        module: string,
        states: readonly string[],
    ): Promise<OpenTask | undefined> {
        const [row] = await db
            .select({ task: otaTasks, batch: otaBatches, pkg: otaPackages })
            .from(otaTasks)
            .innerJoin(otaBatches, eq(otaBatches.id, otaTasks.batchId))
            .innerJoin(otaPackages, eq(otaPackages.id, otaBatches.packageId))
            .where(
                and(
                    eq(otaTasks.deviceId, deviceId),
                    inArray(otaTasks.state, [...states]),
                    eq(otaBatches.status, 'running'),
                    eq(otaPackages.module, module),
                ),
            )
            .orderBy(desc(otaTasks.id))
            .limit(1);
        if (!row) return undefined;
        return {
            id: Number(row.task.id),
            batchId: row.batch.id,
            state: row.task.state,
            attempts: row.task.attempts,
            retries: row.batch.retries,
            pkg: row.pkg,
        };
    }

    async function inform(device: DeviceEntry, topic: string, payload: Buffer) {
        const m = parseInform(payload);
        if ('error' in m) {
            void log(device.deviceId, device.productId, 'ota.inform', '', {
                topic,
                error: m.error,
                raw: payload.toString(),
            });
            return;
        }
        const at = now();
        owners.set(device.deviceId, device);
        await db
            .insert(otaModules)
            .values({ deviceId: device.deviceId, module: m.module, version: m.version, updatedAt: at })
            .onConflictDoUpdate({
                target: [otaModules.deviceId, otaModules.module],
                set: { version: m.version, updatedAt: at },
            });
        void log(device.deviceId, device.productId, 'ota.inform', m.module, {
            topic,
            id: m.id,
            version: m.version,
            module: m.module,
        });
        const task = await openTask(device.deviceId, m.module, ['pushed', 'upgrading']);
        if (task && task.pkg.version === m.version) {
            await db
                .update(otaTasks)
                .set({ state: 'succeeded', step: 100, reason: null, updatedAt: at })
                .where(and(eq(otaTasks.id, task.id), inArray(otaTasks.state, [...OPEN_STATES])));
            void log(device.deviceId, device.productId, 'ota.result', m.module, {
                taskId: task.id,
                state: 'succeeded',
                version: m.version,
            });
            void tick();
            return;
        }
        if (await joinDynamic(device, m.module, m.version)) void tick();
    }

    /** Adds the device to running dynamic batches it now matches (scope, source version, not on the target). */
    async function joinDynamic(device: DeviceEntry, module: string, version: string): Promise<boolean> {
        const rows = await db
            .select({ batch: otaBatches, pkg: otaPackages })
            .from(otaBatches)
            .innerJoin(otaPackages, eq(otaPackages.id, otaBatches.packageId))
            .where(
                and(
                    eq(otaBatches.status, 'running'),
                    eq(otaBatches.dynamic, true),
                    eq(otaPackages.productId, device.productId),
                    eq(otaPackages.module, module),
                ),
            );
        let joined = false;
        for (const { batch, pkg } of rows) {
            const sources = sourcesOf(batch, pkg);
            if (pkg.version === version || (sources.length && !sources.includes(version))) continue;
            if (await openTask(device.deviceId, module, OPEN_STATES)) continue;
            const result = (await db.execute(sql`
                INSERT INTO ota_tasks (batch_id, device_id, from_version)
                SELECT ${batch.id}, ${device.deviceId}, ${version} WHERE ${inScopeSql(batch, device.deviceId)}
                ON CONFLICT (batch_id, device_id) DO NOTHING RETURNING id`)) as unknown as { rows: unknown[] };
            if (result.rows.length) joined = true;
        }
        return joined;
    }

    async function progress(device: DeviceEntry, topic: string, payload: Buffer) {
        const m = parseProgress(payload);
        if ('error' in m) {
            void log(device.deviceId, device.productId, 'ota.progress', '', {
                topic,
                error: m.error,
                raw: payload.toString(),
            });
            return;
        }
        void log(device.deviceId, device.productId, 'ota.progress', m.module, {
            topic,
            id: m.id,
            step: m.step,
            desc: m.desc,
            module: m.module,
        });
        const task = await openTask(device.deviceId, m.module, ['pushed', 'upgrading']);
        if (!task) return;
        if (m.step > 0) {
            await db
                .update(otaTasks)
                .set({ state: 'upgrading', step: m.step, updatedAt: now() })
                .where(and(eq(otaTasks.id, task.id), inArray(otaTasks.state, ['pushed', 'upgrading'])));
            return;
        }
        await fail({ ...task, deviceId: device.deviceId }, task.pkg, m.step, failureReason(m.step, m.desc));
    }

    /** /thing/ota/firmware/get: the device's task again, on get_reply (data {} when it has none). */
    async function firmwareGet(device: DeviceEntry, payload: Buffer) {
        const m = parseFirmwareGet(payload);
        const task = await openTask(device.deviceId, m.module ?? 'default', OPEN_STATES);
        const topics = otaTopics(device);
        const data = task ? await upgradeData(task.pkg) : {};
        if (task?.state === 'pending') {
            const at = now();
            await db
                .update(otaTasks)
                .set({ state: 'pushed', pushedAt: at, updatedAt: at, attempts: sql`${otaTasks.attempts} + 1` })
                .where(and(eq(otaTasks.id, task.id), eq(otaTasks.state, 'pending')));
        }
        const body = JSON.stringify({
            id: m.id,
            code: 200,
            data,
            message: 'success',
            method: 'thing.ota.firmware.get',
        });
        await backend?.publishTo(device.deviceId, topics.firmwareGetReply, body, 0).catch(() => false);
        if (task)
            void log(device.deviceId, device.productId, 'ota.upgrade', task.pkg.module, {
                direction: 'down',
                topic: topics.firmwareGetReply,
                id: m.id,
                payload: JSON.parse(body) as unknown,
            });
    }

    function handle(device: DeviceEntry, topic: string, payload: Buffer): Promise<void> | undefined {
        const topics = otaTopics(device);
        if (topic === topics.inform) return inform(device, topic, payload);
        if (topic === topics.progress) return progress(device, topic, payload);
        if (topic === topics.firmwareGet) return firmwareGet(device, payload);
        return undefined;
    }

    access.onAttach((b) => {
        backend = b;
        const off = b.uplink?.addTopicHandler?.(handle);
        if (off) unsubscribe.push(off);
        // A device coming online gets its pending task at once, not at the next run.
        unsubscribe.push(
            b.traffic.subscribe(
                (e) => e.payload === 'online',
                () => void tick(),
                ['status'],
            ),
        );
        if (!timer) {
            timer = setInterval(() => void tick(), tickMs);
            timer.unref();
        }
    });

    return {
        tick,
        signer,
        /** A task failed for good (after its retries): the rule engine's hook. Returns the unsubscribe. */
        onFailed(fn: (failure: OtaFailure) => void) {
            failedListeners.push(fn);
            return () => {
                failedListeners = failedListeners.filter((l) => l !== fn);
            };
        },
        async close() {
            if (timer) clearInterval(timer);
            timer = undefined;
            for (const off of unsubscribe.splice(0)) off();
            await running;
            await writer.drain();
        },
    };
}

export type OtaService = ReturnType<typeof createOtaService>;
