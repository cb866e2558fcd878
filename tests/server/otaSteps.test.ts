import { eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/config';
import { openDatabase, type DatabaseHandle, type Db } from '../../server/db/client';
import { categories, devices, otaBatches, otaPackages, otaTasks, products } from '../../server/db/schema';
import { maintenanceSettled } from '../../server/db/partitions';
import { migratedTemplate } from '../../server/db/template';
import type { DeviceAccessBackend } from '../../server/mqtt/access';
import {
    claimBatchDone,
    claimFailure,
    claimProgress,
    claimPush,
    claimSuccess,
    claimTimeouts,
    claimWindowClosed,
    unclaimPush,
} from '../../server/ota/claims';
import { publishUpgrades } from '../../server/ota/device';
import { failLateTasks, failTask, onFailed } from '../../server/ota/failures';
import { packageById } from '../../server/ota/packages';
import { scheduleBatch } from '../../server/ota/scheduler';
import { createOtaState, type OtaFailure, type OtaState } from '../../server/ota/state';
import { downloadOrigin, upgradeData } from '../../server/ota/urls';
import { parseRange } from '../../server/routes/ota';
import { seedDatabase } from '../../server/seed';

/**
 * The OTA service's steps one by one on PGlite: each claim changes a row from its expected state once (a second
 * claim of the same row returns nothing), and the steps built on them (push, failure fan-out, the scheduler's turn
 * of one batch) act on what their claim returned only. tests/server/otaClaims.test.ts runs them concurrently on
 * PostgreSQL.
 */

let handle: DatabaseHandle;
let db: Db;
let productId: number;
let serial = 0;
const at = new Date('2026-03-01T08:00:00Z');

beforeAll(async () => {
    handle = await openDatabase({ loadDataDir: await migratedTemplate() });
    db = handle.db;
    await seedDatabase(db, { demo: false });
    const [leaf] = await db.select().from(categories).where(eq(categories.level, 3)).limit(1);
    [{ id: productId }] = await db
        .insert(products)
        .values({
            productKey: 'OtaSteps0001',
            productName: 'OTA 步骤测试',
            nodeType: 0,
            categoryId: leaf.id,
            networkType: 5,
            dataType: 0,
        })
        .returning({ id: products.id });
}, 60_000);
const states: OtaState[] = [];
afterAll(async () => {
    for (const s of states) await s.writer.drain();
    await maintenanceSettled(db);
    await handle?.close();
});

interface BatchOptions {
    n?: number;
    state?: string;
    retries?: number;
    attempts?: number;
    kind?: 'batch' | 'verify';
    endTime?: Date;
    pushedMinutesAgo?: number;
}

/** A running batch over `n` new devices, timeout 1 minute, their tasks in `state`. */
async function batchOf({
    n = 3,
    state = 'pending',
    retries = 0,
    attempts = state === 'pending' ? 0 : 1,
    kind = 'batch',
    endTime,
    pushedMinutesAgo = 10,
}: BatchOptions = {}) {
    const tag = `s${++serial}`;
    const made = await db
        .insert(devices)
        .values(
            Array.from({ length: n }, (_, i) => ({
                productId,
                deviceName: `${tag}_${i}`,
                username: `${tag}_${i}&OtaSteps0001`,
                clientId: `OtaSteps0001.${tag}_${i}`,
                secret: 's',
            })),
        )
        .returning({ id: devices.id });
    const [pkg] = await db
        .insert(otaPackages)
        .values({
            productId,
            name: `fw_${tag}`,
            version: `3.0.${serial}`,
            signMethod: 'SHA256',
            fileName: 'fw.bin',
            storedName: `fw_${tag}.bin`,
            size: 4,
            md5: 'a'.repeat(32),
            sha256: 'b'.repeat(64),
        })
        .returning();
    const [batch] = await db
        .insert(otaBatches)
        .values({ packageId: pkg.id, kind, scope: 'product', timeoutMinutes: 1, retries, endTime })
        .returning();
    const tasks = await db
        .insert(otaTasks)
        .values(
            made.map((d) => ({
                batchId: batch.id,
                deviceId: Number(d.id),
                state,
                attempts,
                step: state === 'upgrading' ? 40 : null,
                pushedAt: state === 'pending' ? null : new Date(at.getTime() - pushedMinutesAgo * 60_000),
            })),
        )
        .returning({ id: otaTasks.id, deviceId: otaTasks.deviceId });
    return { batch, pkg, tasks: tasks.map((t) => ({ id: Number(t.id), deviceId: Number(t.deviceId) })) };
}

const statesOf = async (ids: number[]) =>
    (
        await db.select({ state: otaTasks.state }).from(otaTasks).where(inArray(otaTasks.id, ids)).orderBy(otaTasks.id)
    ).map((r) => r.state);

/** An OTA state over the test database with a broker where `online` devices are reached. */
function stateWith(online: (deviceId: number) => boolean = () => true) {
    const published: Array<{ deviceId: number; topic: string; payload: string }> = [];
    const state: OtaState = createOtaState({
        db,
        config: { ...loadConfig({}), port: 8080 },
        now: () => at,
        logError: (m, e) => {
            throw new Error(`${m} ${String(e)}`);
        },
    });
    state.backend = {
        isOnline: online,
        publishTo: (deviceId: number, topic: string, payload: string) => {
            if (!online(deviceId)) return Promise.resolve(false);
            published.push({ deviceId, topic, payload });
            return Promise.resolve(true);
        },
    } as unknown as DeviceAccessBackend;
    states.push(state);
    const failures: OtaFailure[] = [];
    onFailed(state, (f) => failures.push(f));
    return { state, published, failures };
}

describe('claims: each row changes from its expected state once', () => {
    it('claimPush takes pending tasks of running batches once; unclaimPush gives back pushed ones', async () => {
        const { tasks } = await batchOf({ n: 3 });
        const ids = tasks.map((t) => t.id);
        await db.update(otaTasks).set({ state: 'cancelled' }).where(eq(otaTasks.id, ids[2]));
        const first = await claimPush(db, ids, at);
        expect(first.map((t) => t.id)).toEqual(ids.slice(0, 2));
        expect(await claimPush(db, ids, at)).toEqual([]);
        expect(await unclaimPush(db, [ids[0], ids[2]])).toEqual([ids[0]]);
        expect(await statesOf(ids)).toEqual(['pending', 'pushed', 'cancelled']);
        const [row] = await db.select().from(otaTasks).where(eq(otaTasks.id, ids[0]));
        expect(row.attempts).toBe(0);
    });

    it('claimPush leaves tasks of a batch that is no longer running', async () => {
        const { batch, tasks } = await batchOf({ n: 2 });
        await db.update(otaBatches).set({ status: 'cancelled' }).where(eq(otaBatches.id, batch.id));
        expect(
            await claimPush(
                db,
                tasks.map((t) => t.id),
                at,
            ),
        ).toEqual([]);
    });

    it('claimTimeouts returns each late task once: failed when retries are spent, else pending again', async () => {
        const spent = await batchOf({ n: 2, state: 'upgrading', retries: 0 });
        const retried = await batchOf({ n: 1, state: 'pushed', retries: 1 });
        const fresh = await batchOf({ n: 1, state: 'pushed', pushedMinutesAgo: 0 });
        const late = await claimTimeouts(db, at);
        const mine = late.filter((t) => [spent.batch.id, retried.batch.id, fresh.batch.id].includes(t.batchId));
        expect(mine.map((t) => [t.id, t.state, t.step])).toEqual([
            [spent.tasks[0].id, 'failed', 40],
            [spent.tasks[1].id, 'failed', 40],
            [retried.tasks[0].id, 'pending', null],
        ]);
        expect(mine[0]).toMatchObject({
            packageId: spent.pkg.id,
            packageName: spent.pkg.name,
            version: spent.pkg.version,
        });
        expect(await claimTimeouts(db, at)).toEqual([]);
        const [retry] = await db.select().from(otaTasks).where(eq(otaTasks.id, retried.tasks[0].id));
        expect(retry.reason).toBe('升级超时（将重试）');
        expect(await statesOf(fresh.tasks.map((t) => t.id))).toEqual(['pushed']);
    });

    it('claimFailure, claimSuccess and claimProgress act on pushed or upgrading tasks only, once', async () => {
        const { tasks } = await batchOf({ n: 3, state: 'pushed' });
        const [a, b, c] = tasks.map((t) => t.id);
        expect(await claimProgress(db, a, 30, at)).toBe(true);
        expect(await claimFailure(db, a, '固件签名不一致', at)).toMatchObject({ id: a, state: 'failed' });
        expect(await claimFailure(db, a, '固件签名不一致', at)).toBeUndefined();
        expect(await claimProgress(db, a, 50, at)).toBe(false);
        expect(await claimSuccess(db, b, at)).toBe(true);
        expect(await claimSuccess(db, b, at)).toBe(false);
        expect(await claimFailure(db, b, 'late', at)).toBeUndefined();
        await db.update(otaTasks).set({ state: 'cancelled' }).where(eq(otaTasks.id, c));
        expect(await claimSuccess(db, c, at)).toBe(false);
        expect(await statesOf([a, b, c])).toEqual(['failed', 'succeeded', 'cancelled']);
    });

    it('claimWindowClosed closes a running batch once and cancels its pending tasks', async () => {
        const { batch, tasks } = await batchOf({ n: 2 });
        expect(await claimWindowClosed(db, batch.id, at)).toBe(true);
        expect(await claimWindowClosed(db, batch.id, at)).toBe(false);
        expect(await statesOf(tasks.map((t) => t.id))).toEqual(['cancelled', 'cancelled']);
    });

    it('claimBatchDone waits for open tasks, then closes once; a verification reaching every device verifies', async () => {
        const { batch, pkg, tasks } = await batchOf({ n: 2, state: 'pushed', kind: 'verify' });
        expect(await claimBatchDone(db, batch)).toBe(false);
        for (const t of tasks) await claimSuccess(db, t.id, at);
        expect(await claimBatchDone(db, batch)).toBe(true);
        expect(await claimBatchDone(db, batch)).toBe(false);
        expect((await packageById(db, pkg.id)).verified).toBe(true);
    });
});

describe('steps over the claims', () => {
    it('publishes what was claimed: not a cancelled task; an offline device goes back to pending', async () => {
        const { pkg, tasks } = await batchOf({ n: 3 });
        const [up, offline, cancelled] = tasks;
        await db.update(otaTasks).set({ state: 'cancelled' }).where(eq(otaTasks.id, cancelled.id));
        const { state, published } = stateWith((d) => d !== offline.deviceId);
        const claimed = await claimPush(
            db,
            tasks.map((t) => t.id),
            at,
        );
        expect(await publishUpgrades(state, claimed, pkg)).toEqual([up.id]);
        expect(published.map((p) => p.deviceId)).toEqual([up.deviceId]);
        expect(published[0].topic).toBe(`/ota/device/upgrade/OtaSteps0001/${pkg.name.replace('fw_', '')}_0`);
        const body = JSON.parse(published[0].payload) as { data: { url: string; sign: string } };
        expect(body.data.url.startsWith('http://127.0.0.1:8080/api/ota/download?packageId=')).toBe(true);
        expect(body.data.sign).toBe('b'.repeat(64));
        expect(await statesOf(tasks.map((t) => t.id))).toEqual(['pushed', 'pending', 'cancelled']);
    });

    it('failTask and failLateTasks announce a failure once, a retry not at all', async () => {
        const { tasks } = await batchOf({ n: 2, state: 'upgrading' });
        const retried = await batchOf({ n: 1, state: 'pushed', retries: 2 });
        const { state, failures } = stateWith();
        await failTask(state, tasks[0].id, -3, '固件签名不一致');
        await failTask(state, tasks[0].id, -3, '固件签名不一致');
        expect(failures.map((f) => [f.taskId, f.step, f.reason])).toEqual([[tasks[0].id, -3, '固件签名不一致']]);
        await failLateTasks(state, at);
        await failLateTasks(state, at);
        const late = failures.slice(1).filter((f) => [tasks[1].id, retried.tasks[0].id].includes(f.taskId));
        expect(late.map((f) => [f.taskId, f.step, f.reason, f.productKey])).toEqual([
            [tasks[1].id, 40, '升级超时', 'OtaSteps0001'],
        ]);
    });

    it('scheduleBatch pushes within the rate and closes a static batch when nothing is open', async () => {
        const { batch, tasks } = await batchOf({ n: 3 });
        await db.update(otaBatches).set({ ratePerMinute: 2 }).where(eq(otaBatches.id, batch.id));
        const { state, published } = stateWith();
        const row = { ...batch, ratePerMinute: 2 };
        await scheduleBatch(state, row, at);
        expect(published).toHaveLength(2);
        await scheduleBatch(state, row, at);
        expect(published).toHaveLength(2);
        for (const t of tasks) await db.update(otaTasks).set({ state: 'succeeded' }).where(eq(otaTasks.id, t.id));
        await scheduleBatch(state, row, at);
        const [after] = await db.select().from(otaBatches).where(eq(otaBatches.id, batch.id));
        expect(after.status).toBe('done');
    });

    it('upgradeData signs a URL on OTA_BASE_URL when set', async () => {
        const { pkg } = await batchOf({ n: 1 });
        const { state } = stateWith();
        state.config = { ...state.config, ota: { ...state.config.ota, baseUrl: 'https://iot.example.com' } };
        expect(downloadOrigin(state.config)).toBe('https://iot.example.com');
        const data = await upgradeData(state, await packageById(db, pkg.id));
        expect(data.url).toMatch(
            /^https:\/\/iot\.example\.com\/api\/ota\/download\?packageId=\d+&expires=\d+&signature=/,
        );
        expect(
            await state.signer.check(
                String(pkg.id),
                new URL(data.url).searchParams.get('expires')!,
                new URL(data.url).searchParams.get('signature')!,
                at.getTime(),
            ),
        ).toBe('ok');
    });
});

describe('the download route', () => {
    it('parseRange reads one range within the file; a malformed or out-of-file one is unsatisfiable', () => {
        expect(parseRange(undefined, 100)).toBeUndefined();
        expect(parseRange('bytes=10-', 100)).toEqual({ start: 10, end: 99 });
        expect(parseRange('bytes=10-500', 100)).toEqual({ start: 10, end: 99 });
        expect(parseRange('bytes=-30', 100)).toEqual({ start: 70, end: 99 });
        expect(parseRange('bytes=100-', 100)).toBe('unsatisfiable');
        expect(parseRange('bytes=-', 100)).toBe('unsatisfiable');
        expect(parseRange('bytes=5-2', 100)).toBe('unsatisfiable');
        expect(parseRange('items=1-2', 100)).toBe('unsatisfiable');
    });
});
