import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { Redis } from 'ioredis';
import pg from 'pg';
import { openDatabase, pgliteDirOf, type DatabaseHandle } from '../../../server/db/client';
import { rowsOf } from '../../../server/db/rows';
import { accessKeys, consumerGroups, rules, subscriptionGroups, subscriptions, users } from '../../../server/db/schema';
import { spawnPlatform, type ServerProcess } from '../../server/serverProcess';
import { compiled } from '../compiled';
import { seedBenchLamps, type BenchDevice } from '../harness';
import { METRICS_TOKEN } from './platformFigures';

/**
 * The platform the soak runs against, its data written before the processes start: the demo seed, the fleet's lamps
 * (bench000000…, the device import's path), GROUPS consumer groups subscribed to the lamp product, an AccessKey, and
 * RULES rules on the lamp product of which FIRING fire when a post carries ActivePower over 199 (schedule.ts
 * `isHigh`), the rest never holding (a second condition on a property never posted), as the rules bench writes them.
 *
 * - `cluster`: two processes on a PostgreSQL database made for the run and a Redis database (SOAK_REDIS_URL).
 * - `pglite`: one process on its embedded database in a data directory.
 */

export const GROUPS = 5;
const RULES = 100;
export const FIRING = 10;
export const PG_URL = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
export const REDIS_URL = process.env.SOAK_REDIS_URL || 'redis://127.0.0.1:6379/12';
const ACCESS = { accessKey: 'LTAIsoak', accessSecret: 'soak-secret-0123456789abcdefghij' };

export interface SoakData {
    productKey: string;
    productId: number;
    /** The fleet in index order (bench000000 is device 0). */
    devices: BenchDevice[];
    groups: number[];
    accessKey: string;
    accessSecret: string;
}

export interface SoakPlatform {
    row: 'cluster' | 'pglite';
    processes: ServerProcess[];
    data: SoakData;
    /** Runs a statement on the platform's database (PGlite's: once the process has stopped). */
    query<T>(text: ReturnType<typeof sql>): Promise<T[]>;
    /** Stops the processes, keeping the database for `query`. */
    stop(): Promise<void>;
    /** Removes the database and data directories. */
    remove(): Promise<void>;
}

async function seedSoak(handle: DatabaseHandle, count: number): Promise<SoakData> {
    const { db } = handle;
    const { lamp, devices } = await seedBenchLamps(db, count);
    devices.sort((a, b) => a[1].localeCompare(b[1]));
    const groups = await db
        .insert(consumerGroups)
        .values(Array.from({ length: GROUPS }, (_, i) => ({ projectCode: lamp.projectCode!, name: `soak${i}` })))
        .returning({ id: consumerGroups.id });
    const [sub] = await db
        .insert(subscriptions)
        .values({ productId: lamp.id, projectCode: lamp.projectCode! })
        .returning({ id: subscriptions.id });
    await db.insert(subscriptionGroups).values(groups.map((g) => ({ subscriptionId: sub.id, groupId: g.id })));
    const [admin] = await db.select().from(users).limit(1);
    await db.insert(accessKeys).values({ userId: admin.id, ...ACCESS });
    await db.insert(rules).values(Array.from({ length: RULES }, (_, i) => soakRule(lamp.id, i)));
    return {
        productKey: lamp.productKey,
        productId: lamp.id,
        devices,
        groups: groups.map((g) => g.id),
        ...ACCESS,
    };
}

function soakRule(productId: number, i: number) {
    const firing = i < FIRING;
    return {
        name: firing ? `soak fire ${i}` : `soak rule ${i}`,
        type: 1,
        productId,
        enabled: true,
        triggers: [{ id: 't', type: 'property', identifier: 'ActivePower' }],
        match: 'all',
        conditions: firing
            ? [{ id: 'a', source: 'property', identifier: 'ActivePower', operator: '>', value: 199 }]
            : [
                  { id: 'a', source: 'property', identifier: 'ActivePower', operator: '>', value: (2 * i) % 2000 },
                  { id: 'b', source: 'property', identifier: 'FirmwareVersion', operator: '==', value: 'v0' },
              ],
        actions: [{ id: 'x', type: 'alert', level: 3, content: '${deviceName} 功率 ${value}' }],
    };
}

const serverEnv = (dataDir: string) => ({ DATA_DIR: dataDir, SEED_DEMO: '1', METRICS_TOKEN });

/**
 * `node`'s arguments for a platform process. SOAK_PROFILE=DIR: each writes a CPU profile (.cpuprofile, for Chrome
 * DevTools; its worker threads one each) into DIR when it stops: where the busiest process's time went.
 */
async function serverCommand(): Promise<string[]> {
    const profile = process.env.SOAK_PROFILE;
    const server = await compiled('server/index.ts');
    return profile ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(profile)}`, server] : [server];
}

async function adminQuery(text: string) {
    const client = new pg.Client({ connectionString: PG_URL });
    await client.connect();
    try {
        await client.query(text);
    } finally {
        await client.end();
    }
}

/** Two processes on a PostgreSQL database of the run's own and Redis. */
export async function clusterPlatform(count: number): Promise<SoakPlatform> {
    const database = `iot_soak_${Math.random().toString(36).slice(2, 10)}`;
    await adminQuery(`CREATE DATABASE ${database}`);
    // A database of the soak's own in Redis: what an earlier run left (sessions, members) would be this one's.
    const redis = new Redis(REDIS_URL);
    await redis.flushdb();
    redis.disconnect();
    const url = new URL(PG_URL);
    url.pathname = `/${database}`;
    const handle = await openDatabase({ databaseUrl: url.toString() });
    const data = await seedSoak(handle, count);
    const command = await serverCommand();
    const dirs = [0, 1].map(() => mkdtempSync(path.join(os.tmpdir(), 'iot-soak-')));
    const processes: ServerProcess[] = [];
    for (const dir of dirs) {
        const env = { ...serverEnv(dir), DATABASE_URL: url.toString(), REDIS_URL };
        processes.push(await spawnPlatform(command, env, { amqp: true }));
    }
    return {
        row: 'cluster',
        processes,
        data,
        query: async <T>(text: ReturnType<typeof sql>) => rowsOf<T>(await handle.db.execute(text)),
        stop: async () => void (await Promise.all(processes.map((p) => p.stop()))),
        async remove() {
            await handle.close();
            for (const d of dirs) rmSync(d, { recursive: true, force: true });
            await adminQuery(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
        },
    };
}

/** One process on PGlite in a data directory, seeded before it starts. */
export async function pglitePlatform(count: number): Promise<SoakPlatform> {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'iot-soak-pglite-'));
    const pgliteDir = pgliteDirOf(dir);
    let handle = await openDatabase({ pgliteDir });
    const data = await seedSoak(handle, count);
    await handle.close();
    const profile = process.env.SOAK_PROFILE;
    // With SOAK_PROFILE, the embedded database's time per statement too (tests/bench/statements.ts reads it).
    const stats: Record<string, string> = profile ? { PGLITE_STATS: path.resolve(profile, 'statements.json') } : {};
    const env = { ...serverEnv(dir), DATABASE_URL: '', ...stats };
    const processes = [await spawnPlatform(await serverCommand(), env, { amqp: true })];
    let stopped = false;
    return {
        row: 'pglite',
        processes,
        data,
        async query<T>(text: ReturnType<typeof sql>) {
            if (!stopped) throw new Error('PGlite is read once its process has stopped');
            return rowsOf<T>(await handle.db.execute(text));
        },
        async stop() {
            await processes[0].stop();
            stopped = true;
            handle = await openDatabase({ pgliteDir });
        },
        async remove() {
            await handle.close();
            rmSync(dir, { recursive: true, force: true });
        },
    };
}
