import { randomBytes } from 'node:crypto';
import { eq, inArray } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../server/config';
import { openDatabase, type DatabaseHandle, type Db } from '../../server/db/client';
import { categories, devices, otaBatches, otaPackages, otaTasks, products } from '../../server/db/schema';
import { createAccessHub, type DeviceAccessBackend } from '../../server/mqtt/access';
import { createOtaService, type OtaFailure, type OtaService } from '../../server/ota/service';
import { seedDatabase } from '../../server/seed';
import { PG_URL, postgresReachable } from './spawnServer';

/**
 * OTA in a cluster, on PostgreSQL (row locks, READ COMMITTED): two OTA services over one database, as two processes
 * run them. A lock held by a third connection lets both reach their claim before either may take the rows, so the
 * interleaving is the worst one every run: a timeout seen by both fails each task once (one failure fan-out), and a
 * task cancelled after the scheduler chose it is not pushed. A batch's pushes are claimed under its push lock, so the
 * processes keep to its rate together. Required in CI (E2E_REQUIRED) and with DATABASE_URL.
 */
const REQUIRED = Boolean(process.env.E2E_REQUIRED || process.env.DATABASE_URL);
const available = await postgresReachable();
if (!available && REQUIRED) throw new Error(`PostgreSQL (${PG_URL}) is not reachable`);

const database = `ota_claims_${randomBytes(5).toString('hex')}`;
const urlOf = (name: string) => {
    const u = new URL(PG_URL);
    u.pathname = `/${name}`;
    return u.toString();
};

async function admin(query: string) {
    const client = new pg.Client({ connectionString: PG_URL });
    await client.connect();
    try {
        await client.query(query);
    } finally {
        await client.end();
    }
}

interface Process {
    handle: DatabaseHandle;
    ota: OtaService;
    failures: OtaFailure[];
    pushed: number[];
}

const config = { ...loadConfig({}), port: 0 };
const processes: Process[] = [];

/** One "process": its own pool and OTA service, a broker where every device is online and every publish lands. */
async function openProcess(): Promise<Process> {
    const handle = await openDatabase({ databaseUrl: urlOf(database) });
    const pushed: number[] = [];
    const backend = {
        isOnline: () => true,
        publishTo: (deviceId: number) => {
            pushed.push(deviceId);
            return Promise.resolve(true);
        },
        traffic: { subscribe: () => () => undefined },
    } as unknown as DeviceAccessBackend;
    const access = createAccessHub();
    access.attach(backend);
    const ota = createOtaService({ db: handle.db, access, config, tickMs: 3_600_000 });
    const failures: OtaFailure[] = [];
    ota.onFailed((f) => failures.push(f));
    const p = { handle, ota, failures, pushed };
    processes.push(p);
    return p;
}

let a: Process;
let b: Process;
let productId: number;
let versions = 0;

beforeAll(async () => {
    if (!available) return;
    await admin(`CREATE DATABASE ${database}`);
    a = await openProcess();
    b = await openProcess();
    await seedDatabase(a.handle.db, { demo: false });
    const [leaf] = await a.handle.db.select().from(categories).where(eq(categories.level, 3)).limit(1);
    [{ id: productId }] = await a.handle.db
        .insert(products)
        .values({
            productKey: 'OtaClaims001',
            productName: 'OTA 认领测试',
            nodeType: 0,
            categoryId: leaf.id,
            networkType: 5,
            dataType: 0,
        })
        .returning({ id: products.id });
}, 60_000);

afterAll(async () => {
    for (const p of processes) {
        await p.ota.close();
        await p.handle.close();
    }
    if (available) await admin(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
});

/** A running batch of `n` new devices, their tasks in `state` (pushed ones 10 minutes ago, timeout 1 minute). */
async function batchOf(db: Db, n: number, state: 'pending' | 'pushed', tag: string, ratePerMinute?: number) {
    const made = await db
        .insert(devices)
        .values(
            Array.from({ length: n }, (_, i) => ({
                productId,
                deviceName: `${tag}_${i}`,
                username: `${tag}_${i}&OtaClaims001`,
                clientId: `OtaClaims001.${tag}_${i}`,
                secret: 's',
            })),
        )
        .returning({ id: devices.id });
    const [pkg] = await db
        .insert(otaPackages)
        .values({
            productId,
            name: `fw_${tag}`,
            version: `2.0.${++versions}`,
            signMethod: 'SHA256',
            fileName: 'fw.bin',
            storedName: `fw_${tag}.bin`,
            size: 4,
            md5: '0'.repeat(32),
            sha256: '0'.repeat(64),
        })
        .returning();
    const [batch] = await db
        .insert(otaBatches)
        .values({ packageId: pkg.id, kind: 'batch', scope: 'product', timeoutMinutes: 1, retries: 0, ratePerMinute })
        .returning();
    const tasks = await db
        .insert(otaTasks)
        .values(
            made.map((d) => ({
                batchId: batch.id,
                deviceId: Number(d.id),
                state,
                attempts: state === 'pushed' ? 1 : 0,
                pushedAt: state === 'pushed' ? new Date(Date.now() - 10 * 60_000) : null,
            })),
        )
        .returning({ id: otaTasks.id, deviceId: otaTasks.deviceId });
    return { batchId: batch.id, tasks: tasks.map((t) => ({ id: Number(t.id), deviceId: Number(t.deviceId) })) };
}

/** Holds row locks on `ids` in a transaction until `release()`: statements that write those rows wait behind it. */
async function holdRows(lockSql: string, ids: number[]) {
    const client = new pg.Client({ connectionString: urlOf(database) });
    await client.connect();
    await client.query('BEGIN');
    await client.query(lockSql, [ids]);
    return {
        /** Resolves once `n` other statements wait for a lock in this database. */
        async waiters(n: number) {
            const deadline = Date.now() + 20_000;
            for (;;) {
                const { rows } = await client.query<{ n: number }>(
                    `SELECT count(*)::int AS n FROM pg_stat_activity
                     WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()`,
                );
                if (rows[0].n >= n) return;
                if (Date.now() > deadline) throw new Error(`${rows[0].n} of ${n} statements waiting`);
                await new Promise((r) => setTimeout(r, 20));
            }
        },
        async release() {
            await client.query('COMMIT');
            await client.end();
        },
    };
}

describe.skipIf(!available)('OTA claims on PostgreSQL, two processes over one database', () => {
    it('a timeout seen by two processes fails each task once: one failure fan-out per task', async () => {
        const { batchId, tasks } = await batchOf(a.handle.db, 8, 'pushed', 'late');
        const lock = await holdRows('SELECT id FROM ota_tasks WHERE id = ANY($1) FOR UPDATE', [tasks[0].id]);
        const before = a.failures.length + b.failures.length;
        const runs = Promise.all([a.ota.tick(), b.ota.tick()]);
        // Both processes have chosen the late tasks and wait to write the first of them.
        await lock.waiters(2);
        await lock.release();
        await runs;
        const failures = [...a.failures, ...b.failures].slice(before).filter((f) => f.batchId === batchId);
        expect(failures.map((f) => f.taskId).sort((x, y) => x - y)).toEqual(tasks.map((t) => t.id));
        expect(failures.every((f) => f.reason === '升级超时')).toBe(true);
        const states = await a.handle.db
            .select({ state: otaTasks.state })
            .from(otaTasks)
            .where(eq(otaTasks.batchId, batchId));
        expect(states.map((s) => s.state)).toEqual(tasks.map(() => 'failed'));
    }, 60_000);

    it('a task cancelled after the scheduler chose it is not pushed; the others are', async () => {
        const { tasks } = await batchOf(a.handle.db, 4, 'pending', 'cancelled');
        const [gone, ...rest] = tasks;
        // The cancel (the console's 取消, server/ota/batches.ts cancelTask) is written but not yet committed: the
        // scheduler's selection still reads the task pending, its push waits for the row, then finds it cancelled.
        const lock = await holdRows(
            `UPDATE ota_tasks SET state = 'cancelled', reason = '已手动取消' WHERE id = ANY($1) AND state = 'pending'`,
            [gone.id],
        );
        const run = a.ota.tick();
        await lock.waiters(1);
        await lock.release();
        await run;
        expect(a.pushed).not.toContain(gone.deviceId);
        expect(a.pushed.filter((d) => rest.some((t) => t.deviceId === d)).sort((x, y) => x - y)).toEqual(
            rest.map((t) => t.deviceId),
        );
        const rows = await a.handle.db
            .select({ id: otaTasks.id, state: otaTasks.state, attempts: otaTasks.attempts })
            .from(otaTasks)
            .where(
                inArray(
                    otaTasks.id,
                    tasks.map((t) => t.id),
                ),
            )
            .orderBy(otaTasks.id);
        expect(rows.map((r) => [r.state, r.attempts])).toEqual([
            ['cancelled', 0],
            ['pushed', 1],
            ['pushed', 1],
            ['pushed', 1],
        ]);
    }, 60_000);

    it('two processes pushing one batch at once keep to its rate per minute together', async () => {
        const { tasks } = await batchOf(a.handle.db, 10, 'pending', 'rate', 4);
        const before = a.pushed.length + b.pushed.length;
        await Promise.all([a.ota.tick(), b.ota.tick(), a.ota.tick(), b.ota.tick()]);
        const pushed = [...a.pushed, ...b.pushed].slice(before).filter((d) => tasks.some((t) => t.deviceId === d));
        expect(pushed.sort((x, y) => x - y)).toEqual(tasks.slice(0, 4).map((t) => t.deviceId));
    }, 60_000);

    it('a batch whose pushes another process is claiming (its push lock held) is left to that process', async () => {
        const { batchId, tasks } = await batchOf(a.handle.db, 3, 'pending', 'locked', 2);
        // The other process, between its count of the last minute's pushes and its claim.
        const other = new pg.Client({ connectionString: urlOf(database) });
        await other.connect();
        await other.query('BEGIN');
        await other.query(`SELECT pg_advisory_xact_lock(hashtext('iot_ota_push:' || current_schema()), $1)`, [batchId]);
        const before = a.pushed.length;
        await a.ota.tick();
        expect(a.pushed.slice(before).filter((d) => tasks.some((t) => t.deviceId === d))).toEqual([]);
        await other.query('COMMIT');
        await other.end();
        await a.ota.tick();
        expect(a.pushed.slice(before).sort((x, y) => x - y)).toEqual(tasks.slice(0, 2).map((t) => t.deviceId));
    }, 60_000);

    it('a process stopping runs no scheduler after its OTA service closed (its pool ends next)', async () => {
        const handle = await openDatabase({ databaseUrl: urlOf(database) });
        const access = createAccessHub();
        access.attach({ isOnline: () => true, traffic: { subscribe: () => () => undefined } } as never);
        const errors: string[] = [];
        const ota = createOtaService({
            db: handle.db,
            access,
            config,
            tickMs: 3_600_000,
            logError: (m, e) => errors.push(`${m} ${String(e)}`),
        });
        const calls = ['select', 'execute', 'transaction'].map((m) => vi.spyOn(handle.db, m as 'select'));
        const count = () => calls.reduce((n, c) => n + c.mock.calls.length, 0);
        // A run in progress and one more asked for during it, as a device's inform or a timer would.
        void ota.tick();
        void ota.tick();
        await ota.close();
        const atClose = count();
        await new Promise((r) => setTimeout(r, 300));
        // Nothing asked of the database once close() answered: the pool may end now.
        expect(count()).toBe(atClose);
        await handle.close();
        await new Promise((r) => setTimeout(r, 100));
        expect(errors).toEqual([]);
    });
});
