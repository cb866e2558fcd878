import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { sql } from 'drizzle-orm';
import { readMigrationFiles } from 'drizzle-orm/migrator';
import { PgDialect, type PgSession } from 'drizzle-orm/pg-core';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase, type DatabaseHandle } from '../../server/db/client';
import { MIGRATIONS_FOLDER, migrateDatabase } from '../../server/db/migrate';
import { legacyTables, moveLegacyRows } from '../../server/db/partitionMover';

// Migration 0026 renames the growing tables <table>_legacy and the mover moves their rows into the partitioned tables
// in batches. A move killed midway (kill -9 of the process running it) and started again loses and doubles nothing.
const databaseUrl = process.env.DATABASE_URL || undefined;
const pgSchema = `t_${randomBytes(6).toString('hex')}`;
const dir = databaseUrl ? undefined : mkdtempSync(path.join(os.tmpdir(), 'iot-partitions-'));
const DAY = 86_400_000;
const NOW = Date.now();
let handle: DatabaseHandle | undefined;

const open = (migrate = false) =>
    openDatabase(
        databaseUrl ? { databaseUrl, pgSchema, dropSchemaOnClose: false, migrate } : { pgliteDir: dir!, migrate },
    );

afterAll(async () => {
    if (databaseUrl) {
        const h = await openDatabase({ databaseUrl, pgSchema, dropSchemaOnClose: true, migrate: false });
        await h.close();
    } else rmSync(dir!, { recursive: true, force: true });
});

type Rows<T> = { rows: T[] };
const one = async <T>(h: DatabaseHandle, q: string) => ((await h.db.execute(sql.raw(q))) as unknown as Rows<T>).rows;

/** Every row's content, in a fingerprint per table (count and a hash over all columns in id / content order). */
async function fingerprint(h: DatabaseHandle, table: string, where = 'true') {
    const [r] = await one<{ n: number; h: string }>(
        h,
        // Each row as its columns of before the move: resend_key (0031) came after the legacy tables and stays NULL.
        `SELECT count(*)::int AS n, md5(coalesce(string_agg(r, '|' ORDER BY r), '')) AS h
         FROM (SELECT (to_jsonb(t) - 'resend_key')::text AS r FROM ${table} t WHERE ${where}) x`,
    );
    return r;
}

/** Runs the mover in a child process and kills it with SIGKILL after `batches` batches; resolves with its output. */
const mover = (batch: number, env: Record<string, string> = {}) =>
    spawn(process.execPath, ['--import', 'tsx', 'tests/server/partitionsMover.child.ts'], {
        env: { ...process.env, PG_SCHEMA: pgSchema, PGLITE_DIR: dir ?? '', MOVE_BATCH: String(batch), ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
    });

/** Runs the mover in a child process to its end; resolves with its output. */
function moverToEnd(batch: number, env: Record<string, string> = {}): Promise<string> {
    return new Promise((resolve, reject) => {
        const child = mover(batch, env);
        let out = '';
        let err = '';
        child.stdout.on('data', (b: Buffer) => (out += b.toString()));
        child.stderr.on('data', (b: Buffer) => (err += b.toString()));
        child.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`mover failed (${code}): ${err}`))));
    });
}

function killMidway(batches: number, batch: number): Promise<string> {
    return new Promise((resolve, reject) => {
        const child = mover(batch);
        let out = '';
        let err = '';
        child.stdout.on('data', (b: Buffer) => {
            out += b.toString();
            if (out.split('\n').filter((l) => l.startsWith('batch')).length >= batches) child.kill('SIGKILL');
        });
        child.stderr.on('data', (b: Buffer) => (err += b.toString()));
        child.on('exit', (code, signal) =>
            signal === 'SIGKILL'
                ? resolve(out)
                : reject(new Error(`mover ended (${code}) before the kill: ${out} ${err}`)),
        );
    });
}

describe('migration 0026 (partitioned tables) and the legacy mover', () => {
    it('moves a populated table killed midway and resumed without losing or doubling a row', async () => {
        if (dir) {
            // An empty data directory would start from the migrated template: initialise it bare instead.
            const bare = new PGlite(dir);
            await bare.waitReady;
            await bare.close();
        }
        handle = await open();
        const before26 = readMigrationFiles({ migrationsFolder: MIGRATIONS_FOLDER }).filter(
            (m) => m.folderMillis < 1795619972572,
        );
        await new PgDialect().migrate(
            before26.map((m) => ({ ...m, sql: m.sql.map((stmt) => stmt.replaceAll('"public".', '')) })),
            handle.db._.session as unknown as PgSession,
            { migrationsFolder: MIGRATIONS_FOLDER, migrationsSchema: databaseUrl ? pgSchema : 'drizzle' },
        );
        // 6,000 messages of 3 devices over 40 days (the 30-day retention leaves out the oldest; none within minutes of
        // the cutoff, which moves on while the test runs), rule journal rows,
        // notifications and presence changes, as an older release wrote them.
        for (const statement of `
            INSERT INTO categories (name, level) VALUES ('传感器', 1);
            INSERT INTO products (product_key, product_name, node_type, category_id, network_type, data_type)
                SELECT 'Mig26', '迁移', 0, id, 5, 0 FROM categories LIMIT 1;
            INSERT INTO devices (product_id, device_name, status, enabled, secret, client_id, username)
                SELECT p.id, 'd' || g, 'OFFLINE', true, 's' || g, 'c' || g, 'u' || g FROM products p, generate_series(1, 3) g;
            INSERT INTO device_messages (device_id, product_id, ts, method, identifier, data)
                SELECT d.id, d.product_id, to_timestamp(${NOW / 1000} - ((g - 0.5) * 40 * 86400.0 / 6000)),
                       'thing.event.property.post', NULL, jsonb_build_object('t', g)
                FROM generate_series(1, 6000) g JOIN devices d ON d.device_name = 'd' || (1 + g % 3);
            INSERT INTO rule_logs (rule_name, trigger_type, results, success, ts)
                SELECT 'r' || g, 'property', '[]', g % 2 = 0, to_timestamp(${NOW / 1000} - g * 3600) FROM generate_series(1, 300) g;
            INSERT INTO notifications (app_name, notify_type, message_type, recipient, content, ts)
                SELECT 'a', 'webhook', '告警通知', 'x', 'c' || g, to_timestamp(${NOW / 1000} - g * 3600) FROM generate_series(1, 200) g;
            INSERT INTO device_presence (device_id, ts, online)
                SELECT d.id, to_timestamp(${NOW / 1000} - g * 7200), g % 2 = 0 FROM devices d, generate_series(1, 50) g;`.split(
            ';',
        ))
            if (statement.trim()) await handle.db.execute(sql.raw(statement));
        const cutoff = `ts >= to_timestamp(${(NOW - 30 * DAY) / 1000})`;
        const want = {
            device_messages: await fingerprint(handle, 'device_messages', cutoff),
            rule_logs: await fingerprint(handle, 'rule_logs', cutoff),
            notifications: await fingerprint(handle, 'notifications', cutoff),
            device_presence: await fingerprint(handle, 'device_presence'),
        };
        expect(want.device_messages.n).toBeGreaterThan(4000);
        const maxId = Number((await one<{ m: number }>(handle, 'SELECT max(id) AS m FROM device_messages'))[0].m);

        await migrateDatabase(handle.db, databaseUrl ? pgSchema : undefined);
        expect(await legacyTables(handle.db)).toEqual([
            'device_messages',
            'device_presence',
            'rule_logs',
            'notifications',
        ]);
        await handle.close();

        // kill -9 the process running the mover after a few batches of 500.
        const out = await killMidway(3, 500);
        expect(out).not.toContain('done');

        handle = await open();
        const legacyLeft = Number(
            (await one<{ n: number }>(handle, 'SELECT count(*)::int AS n FROM device_messages_legacy'))[0].n,
        );
        // Some batches committed, most rows still waiting: the kill came midway.
        expect(legacyLeft).toBeGreaterThan(0);
        expect(legacyLeft).toBeLessThan(6000);
        // Resumed (here, in this process) until done; then the legacy tables are gone.
        const r = await moveLegacyRows(handle.db, { batch: 700, retentionDays: 30 });
        expect(r.dropped).toEqual([
            'device_messages_legacy',
            'device_presence_legacy',
            'rule_logs_legacy',
            'notifications_legacy',
        ]);
        expect(await legacyTables(handle.db)).toEqual([]);
        expect(await fingerprint(handle, 'device_messages')).toEqual(want.device_messages);
        expect(await fingerprint(handle, 'rule_logs')).toEqual(want.rule_logs);
        expect(await fingerprint(handle, 'notifications')).toEqual(want.notifications);
        expect(await fingerprint(handle, 'device_presence')).toEqual(want.device_presence);
        // Moved rows went into their day partitions, not the default one; new ids follow the old.
        expect((await one<{ n: number }>(handle, 'SELECT count(*)::int AS n FROM device_messages_default'))[0].n).toBe(
            0,
        );
        const [fresh] = await one<{ id: number }>(
            handle,
            `INSERT INTO device_messages (device_id, ts, method, data) SELECT id, now(), 'x', '{}' FROM devices LIMIT 1 RETURNING id`,
        );
        expect(Number(fresh.id)).toBeGreaterThan(maxId);
        await handle.close();
    }, 180_000);

    // Several processes each start a mover (DATABASE_URL: every process of a cluster): only one moves at a time.
    it.skipIf(!databaseUrl)(
        'moves with one mover at a time when several processes start one',
        async () => {
            handle = await open();
            // A legacy rule journal of 3,000 rows, as migration 0026 leaves it.
            await handle.db.execute(sql.raw(`CREATE TABLE rule_logs_legacy AS SELECT * FROM rule_logs WITH NO DATA`));
            await handle.db.execute(sql.raw(`ALTER TABLE rule_logs_legacy ADD PRIMARY KEY (id)`));
            await handle.db.execute(
                sql.raw(`INSERT INTO rule_logs_legacy (id, rule_name, trigger_type, results, success, ts)
                SELECT 1000000 + g, 'lock' || g, 'property', '[]', true, to_timestamp(${NOW / 1000} - g * 60)
                FROM generate_series(1, 3000) g`),
            );
            const want = await fingerprint(handle, 'rule_logs_legacy');
            expect(want.n).toBe(3000);

            // Another process holding the mover's lock (inside a batch): this mover moves nothing and says so.
            const other = new pg.Client({ connectionString: databaseUrl, options: `-c search_path="${pgSchema}"` });
            await other.connect();
            try {
                await other.query('BEGIN');
                await other.query(`SELECT pg_advisory_xact_lock(hashtext('iot_partition_mover:' || current_schema()))`);
                const r = await moveLegacyRows(handle.db, { batch: 500, retentionDays: 30 });
                expect(r).toEqual({ moved: 0, kept: 0, dropped: [], busy: true });
                expect(await fingerprint(handle, 'rule_logs_legacy')).toEqual(want);
                await other.query('COMMIT');
            } finally {
                await other.end();
            }

            // Three processes start their movers at once, each retrying while another holds the lock: every row moved
            // once (the batches of all three add up to the table), none lost or doubled, the legacy table gone.
            const outs = await Promise.all([1, 2, 3].map(() => moverToEnd(100, { RETRY_BUSY: '1' })));
            const movedBy = outs.map((o) =>
                o
                    .split('\n')
                    .filter((l) => l.startsWith('batch rule_logs '))
                    .reduce((n, l) => n + Number(l.split(' ')[2]), 0),
            );
            expect(movedBy.reduce((a, b) => a + b, 0)).toBe(3000);
            expect(await legacyTables(handle.db)).toEqual([]);
            const moved = await fingerprint(handle, 'rule_logs', `rule_name LIKE 'lock%'`);
            expect(moved.n).toBe(3000);
            expect(
                (
                    await one<{ n: number }>(
                        handle,
                        `SELECT count(DISTINCT id)::int AS n FROM rule_logs WHERE id > 1000000`,
                    )
                )[0].n,
            ).toBe(3000);
            await handle.close();
        },
        120_000,
    );
});
