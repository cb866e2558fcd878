import os from 'node:os';
import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { openDatabase, type Db } from '../../server/db/client';
import { DAY_MS, ensureDayPartition, utcDay } from '../../server/db/partitions';
import type { BenchGroup, Figure } from './run';

/**
 * The message store (issue 28): device_messages partitioned by day (0026_partitions.sql) beside the unpartitioned
 * table it replaced (same columns, same indexes, same foreign key: `device_messages_flat` here), both filled in the
 * same run with the same rows: 30 days of property posts of STORE_BENCH_DEVICES devices (default 10,000), ending now.
 * STORE_BENCH_ROWS rows in all (default 50,000,000 on PostgreSQL, the fleet size: about 12 GB per table, so 25 GB of
 * disk while it runs; 2,000,000 on PGlite, in memory). DATABASE_URL: PostgreSQL (a schema
 * of its own, dropped at the end), else in-memory PGlite.
 *
 * Printed, partitioned beside unpartitioned: dropping the oldest day (DROP TABLE of its partition against the
 * retention's former DELETE loop, 5,000 rows a statement oldest first), a device's 24-hour and 30-day property history
 * p95 (page and count, as propertyHistory asks), a /log page p95 (a product's uplink of the last 7 days), persisted
 * ingest (the batch writer's multi-row INSERT of 1,000 rows, rows/s) and disk used.
 */
const DEVICES = Number(process.env.STORE_BENCH_DEVICES ?? 10_000);
const SAMPLES = Number(process.env.STORE_BENCH_SAMPLES ?? 40);
const INGEST_ROWS = Number(process.env.STORE_BENCH_INGEST ?? 100_000);
const POST = 'thing.event.property.post';

const p95 = (xs: number[]) => {
    const s = [...xs].sort((a, b) => a - b);
    return Math.round(s[Math.min(s.length - 1, Math.ceil(0.95 * s.length) - 1)] * 100) / 100;
};
type Rows<T> = { rows: T[] };
const rowsOf = async <T>(db: Db, q: ReturnType<typeof sql>) => ((await db.execute(q)) as unknown as Rows<T>).rows;

/** The secondary indexes of device_messages (0026), the same on both tables: built after the fill (see `fill`). */
const INDEXES = [
    ['device_ts', `(device_id, ts DESC NULLS FIRST, id DESC NULLS FIRST)`],
    ['ts', `(ts)`],
    ['device_method_ts', `(device_id, method, ts DESC, id DESC) WHERE method <> 'thing.event.property.post'`],
    ['device_other_ts', `(device_id, ts DESC, id DESC) WHERE method <> 'thing.event.property.post'`],
    [
        'product_up',
        `(product_id, ts DESC, id DESC) WHERE method <> 'device.status' AND (data->>'direction') IS DISTINCT FROM 'down'`,
    ],
    ['product_down', `(product_id, ts DESC, id DESC) WHERE (data->>'direction') = 'down'`],
    ['product_status', `(product_id, ts DESC, id DESC) WHERE method = 'device.status'`],
    ['device_down', `(device_id, ts DESC, id DESC) WHERE (data->>'direction') = 'down'`],
    ['product_message_id', `(product_id, (data->>'id')) WHERE (data->>'id') IS NOT NULL`],
] as const;

/** The table as it was before 0026: one heap, its primary key and foreign key (indexes come after the fill). */
async function createFlat(db: Db) {
    await db.execute(sql`CREATE TABLE device_messages_flat (
        id bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY, device_id bigint NOT NULL REFERENCES devices(id) ON DELETE CASCADE,
        ts timestamptz NOT NULL, method text NOT NULL, identifier text, data jsonb NOT NULL, product_id integer)`);
}

export default {
    name: 'store',
    async run(): Promise<Figure[]> {
        const databaseUrl = process.env.DATABASE_URL || undefined;
        const total = Number(process.env.STORE_BENCH_ROWS ?? (databaseUrl ? 50_000_000 : 2_000_000));
        const handle = await openDatabase(
            databaseUrl
                ? { databaseUrl, pgSchema: `bench_store_${randomBytes(4).toString('hex')}`, dropSchemaOnClose: true }
                : {},
        );
        const db = handle.db;
        const figures: Figure[] = [];
        const put = (name: string, value: number, unit: string) => {
            figures.push({ name, value: Math.round(value * 100) / 100, unit });
        };
        try {
            const now = Date.now();
            const first = now - 30 * DAY_MS;
            // Devices of one product (the foreign key), and the partitions of the 30 days (and the days ahead).
            await db.execute(sql`INSERT INTO categories (name, level) VALUES ('压测', 1)`);
            const [product] = await rowsOf<{ id: number }>(
                db,
                sql`INSERT INTO products (product_key, product_name, node_type, category_id, network_type, data_type)
                    SELECT 'BenchStore', '压测', 0, id, 5, 0 FROM categories LIMIT 1 RETURNING id`,
            );
            await db.execute(sql`INSERT INTO devices (product_id, device_name, status, enabled, secret, client_id, username)
                SELECT ${product.id}, 's' || g, 'OFFLINE', true, 's' || g, 'c' || g, 'u' || g FROM generate_series(1, ${DEVICES}) g`);
            const [{ lo }] = await rowsOf<{ lo: number }>(db, sql`SELECT min(id)::int AS lo FROM devices`);
            for (let t = first; t < now + 3 * DAY_MS; t += DAY_MS)
                await ensureDayPartition(db, 'device_messages', utcDay(t));
            await createFlat(db);

            // The partitioned table's secondary indexes go for the fill and come back after it, as the flat one's:
            // a bulk load builds its indexes once, sorted, instead of inserting 50 million entries one by one into
            // each (both tables alike; ingest below runs with every index in place).
            for (const [name] of INDEXES) await db.execute(sql.raw(`DROP INDEX device_messages_${name}_idx`));
            const buildIndexes = async (table: string) => {
                for (const [name, def] of INDEXES) {
                    await db.transaction(async (tx) => {
                        if (handle.kind === 'postgres')
                            await tx.execute(sql.raw(`SET LOCAL maintenance_work_mem = '512MB'`));
                        await tx.execute(sql.raw(`CREATE INDEX ${table}_${name}_idx ON ${table} ${def}`));
                    });
                }
            };

            // The same rows in both: device g % DEVICES, times spread evenly over the 30 days, 1 million a statement
            // (each its own transaction), then the indexes. Seconds for the rows and for the indexes are printed apart.
            const fill = async (table: string) => {
                let started = performance.now();
                const chunk = 1_000_000;
                for (let from = 0; from < total; from += chunk) {
                    await db.execute(
                        sql.raw(`INSERT INTO ${table} (device_id, product_id, ts, method, data)
                        SELECT ${lo} + g % ${DEVICES}, ${product.id},
                               to_timestamp(${first / 1000} + g * ${(30 * 86_400) / total}), '${POST}',
                               jsonb_build_object('Temperature', (g % 400) / 10.0, 'Humidity', g % 100)
                        FROM generate_series(${from}, ${Math.min(total, from + chunk) - 1}) g`),
                    );
                    if ((from / chunk) % 5 === 4)
                        console.log(
                            `  store: ${table} ${from + chunk} rows, ${Math.round((performance.now() - started) / 1000)} s`,
                        );
                }
                const rows = (performance.now() - started) / 1000;
                started = performance.now();
                await buildIndexes(table);
                const indexes = (performance.now() - started) / 1000;
                console.log(`  store: ${table} filled in ${Math.round(rows)} s, indexes in ${Math.round(indexes)} s`);
                return { rows, indexes };
            };
            console.log(`  store: ${total} rows, ${DEVICES} devices, 30 days (${handle.kind}); filling…`);
            const part = await fill('device_messages');
            const flat = await fill('device_messages_flat');
            put('fill.rows.partitioned', part.rows, 's');
            put('fill.indexes.partitioned', part.indexes, 's');
            put('fill.rows.unpartitioned', flat.rows, 's');
            put('fill.indexes.unpartitioned', flat.indexes, 's');
            await db.execute(sql`ANALYZE device_messages`);
            await db.execute(sql`ANALYZE device_messages_flat`);

            // A device's history (page of 20 and the count, as propertyHistory) and a /log page.
            const history = async (table: string, days: number) => {
                const times: number[] = [];
                for (let i = 0; i < SAMPLES; i++) {
                    const device = lo + Math.floor(Math.random() * DEVICES);
                    const start = new Date(now - days * DAY_MS).toISOString();
                    const end = new Date(now).toISOString();
                    const posts = `SELECT DISTINCT ON (m.ts) m.ts, m.data -> 'Temperature' AS value FROM ${table} m
                        WHERE m.device_id = ${device} AND m.method = '${POST}' AND m.ts >= '${start}' AND m.ts <= '${end}'
                          AND jsonb_exists(m.data, 'Temperature') ORDER BY m.ts DESC, m.id DESC`;
                    const t = performance.now();
                    await db.execute(sql.raw(`SELECT h.ts, h.value FROM (${posts}) h ORDER BY h.ts DESC LIMIT 20`));
                    await db.execute(sql.raw(`SELECT count(*) FROM (${posts}) h`));
                    times.push(performance.now() - t);
                }
                return p95(times);
            };
            const logPage = async (table: string) => {
                const times: number[] = [];
                for (let i = 0; i < SAMPLES; i++) {
                    const start = new Date(now - 7 * DAY_MS).toISOString();
                    const offset = Math.floor(Math.random() * 10) * 20;
                    const cond = `m.product_id = ${product.id} AND m.method <> 'device.status'
                        AND (m.data->>'direction') IS DISTINCT FROM 'down' AND m.ts >= '${start}'`;
                    const t = performance.now();
                    await db.execute(
                        sql.raw(`SELECT m.id, m.ts, m.method, m.data, d.device_name FROM (SELECT id, ts, method, data, device_id
                            FROM ${table} m WHERE ${cond} ORDER BY m.product_id, m.ts DESC, m.id DESC LIMIT 20 OFFSET ${offset}) m
                            JOIN devices d ON d.id = m.device_id ORDER BY m.ts DESC, m.id DESC`),
                    );
                    await db.execute(
                        sql.raw(`SELECT count(*) FROM (SELECT 1 FROM ${table} m WHERE ${cond} LIMIT 10000) s`),
                    );
                    times.push(performance.now() - t);
                }
                return p95(times);
            };
            for (const [name, table] of [
                ['partitioned', 'device_messages'],
                ['unpartitioned', 'device_messages_flat'],
            ]) {
                put(`history24h.p95.${name}`, await history(table, 1), 'ms');
                put(`history30d.p95.${name}`, await history(table, 30), 'ms');
                put(`logPage.p95.${name}`, await logPage(table), 'ms');
            }

            // Persisted ingest: the writer's statement shape (rows unnested from arrays), 1,000 rows a statement.
            const ingest = async (table: string) => {
                const started = performance.now();
                for (let done = 0; done < INGEST_ROWS; done += 1_000) {
                    const ids = Array.from({ length: 1_000 }, (_, i) => lo + ((done + i) % DEVICES));
                    const ts = Array.from({ length: 1_000 }, () => Date.now());
                    const data = JSON.stringify(ids.map((_, i) => ({ Temperature: i % 40, Humidity: i % 100 })));
                    await db.execute(
                        sql.raw(`INSERT INTO ${table} (device_id, ts, method, identifier, data, product_id)
                        SELECT x.d, to_timestamp(x.t / 1000.0::float8), '${POST}', NULL, x.x, ${product.id}
                        FROM ROWS FROM (unnest('{${ids.join(',')}}'::bigint[]), unnest('{${ts.join(',')}}'::bigint[]),
                            jsonb_array_elements('${data}'::jsonb)) AS x(d, t, x)`),
                    );
                }
                return INGEST_ROWS / ((performance.now() - started) / 1000);
            };
            // Alternated twice, so neither table always goes first on a busy machine.
            const ingested = { partitioned: 0, unpartitioned: 0 };
            for (let round = 0; round < 2; round++) {
                ingested.unpartitioned += (await ingest('device_messages_flat')) / 2;
                ingested.partitioned += (await ingest('device_messages')) / 2;
            }
            put('ingest.partitioned', ingested.partitioned, 'rows/s');
            put('ingest.unpartitioned', ingested.unpartitioned, 'rows/s');

            // Disk used (tables and indexes).
            const [size] = await rowsOf<{ part: number; flat: number }>(
                db,
                sql`SELECT (SELECT sum(pg_total_relation_size(relid)) FROM pg_partition_tree('device_messages'))::float8 AS part,
                           pg_total_relation_size('device_messages_flat')::float8 AS flat`,
            );
            put('disk.partitioned', size.part / 2 ** 20, 'MiB');
            put('disk.unpartitioned', size.flat / 2 ** 20, 'MiB');

            // Dropping the oldest day: one DROP TABLE against the former retention loop over the same rows.
            const day = utcDay(first);
            const dayEnd = new Date(Date.parse(`${day}T00:00:00Z`) + DAY_MS).toISOString();
            const [{ n }] = await rowsOf<{ n: number }>(
                db,
                sql.raw(`SELECT count(*)::int AS n FROM device_messages_flat WHERE ts < '${dayEnd}'`),
            );
            let t = performance.now();
            await db.execute(sql.raw(`DROP TABLE device_messages_p${day.replaceAll('-', '')}`));
            put('dropDay.partitioned', performance.now() - t, 'ms');
            t = performance.now();
            for (;;) {
                const [r] = await rowsOf<{ n: number }>(
                    db,
                    sql.raw(`WITH gone AS (DELETE FROM device_messages_flat WHERE id IN (
                        SELECT id FROM device_messages_flat WHERE ts < '${dayEnd}' ORDER BY ts LIMIT 5000) RETURNING 1)
                        SELECT count(*)::int AS n FROM gone`),
                );
                if (Number(r.n) < 5000) break;
            }
            put('dropDay.unpartitioned', performance.now() - t, 'ms');
            put('dropDay.rows', n, 'rows');
            put('rows', total, 'rows');
            put('loadAverage', os.loadavg()[0], '');
        } finally {
            await handle.close();
        }
        return figures;
    },
} satisfies BenchGroup;
