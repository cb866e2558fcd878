import { sql } from 'drizzle-orm';
import { createApp } from '../../server/app';
import { loadConfig } from '../../server/config';
import { openDatabase, type Db } from '../../server/db/client';
import { createMaintenance } from '../../server/db/maintenance';
import { users } from '../../server/db/schema';
import { seedDatabase } from '../../server/seed';
import { createSession } from '../../server/sso/sessions';
import { ensureAdmin } from '../../server/sso/users';
import type { BenchGroup, Figure } from './run';

const DEVICES = 1_000_000;
/** One device in LOCATED_EVERY has a location: 100,000. */
const LOCATED_EVERY = 10;
const PRODUCTS = 500;
const PROJECTS = 20;
const ALERTS = 100_000;
const SAMPLES = 100;
const MAP_SAMPLES = 20;

function percentile(sorted: number[], p: number): number {
    const i = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
    return Math.round(sorted[i] * 100) / 100;
}

const rows = <T>(result: unknown) => (result as { rows: T[] }).rows;

/**
 * 500 products over every category below the roots, 1,000,000 devices (statuses 40/30/25/5 %, one in 100 bound to
 * one of 20 projects), 100,000 of them located across China (longitude 75–134, latitude 20–50), 100,000 alert events
 * over the last 30 days, a few apps. Bulk INSERT ... SELECT: the counter triggers run once per statement.
 */
async function fill(db: Db) {
    await db.execute(sql`
        INSERT INTO projects (code, name, class_id)
        SELECT 'PB' || lpad(g::text, 3, '0'), '压测项目_' || g, (SELECT min(id) FROM scenes) + g % 4
        FROM generate_series(1, ${PROJECTS}) AS g`);
    await db.execute(sql`
        INSERT INTO products (product_key, product_name, node_type, gateway_type, category_id, network_type, data_type)
        SELECT 'DashKey' || lpad(g::text, 5, '0'), '看板压测产品_' || g, 0, 0,
               (SELECT id FROM categories WHERE level > 1 ORDER BY id OFFSET g % (SELECT count(*) FROM categories WHERE level > 1) LIMIT 1),
               5, 0
        FROM generate_series(1, ${PRODUCTS}) AS g`);
    const [first] = rows<{ id: number }>(await db.execute(sql`SELECT min(id) AS id FROM products`));
    const [firstProject] = rows<{ id: number }>(await db.execute(sql`SELECT min(id) AS id FROM projects`));
    await db.execute(sql`
        INSERT INTO devices (product_id, device_name, status, enabled, project_id, username, client_id, secret,
                             longitude, latitude, create_time)
        SELECT ${first.id} + g % ${PRODUCTS}, name, st, st <> 'DISABLE',
               CASE WHEN g % 100 = 0 THEN ${firstProject.id} + (g / 100) % ${PROJECTS} END,
               name || '&DashKey', 'DashKey.' || name, md5(g::text),
               CASE WHEN g % ${LOCATED_EVERY} = 0 THEN 75 + ((g::bigint * 7919) % 59000) / 1000.0 END,
               CASE WHEN g % ${LOCATED_EVERY} = 0 THEN 20 + ((g::bigint * 104729) % 30000) / 1000.0 END,
               now() - make_interval(secs => ${DEVICES} - g)
        FROM (SELECT g, 'dash' || lpad(g::text, 8, '0') AS name,
                     CASE WHEN g % 20 < 8 THEN 'ONLINE' WHEN g % 20 < 14 THEN 'OFFLINE'
                          WHEN g % 20 < 19 THEN 'INACTIVE' ELSE 'DISABLE' END AS st
              FROM generate_series(1, ${DEVICES}) AS g) s`);
    await db.execute(sql`
        INSERT INTO alert_events (type, status, project_id, device_id, device_name, product_key, params, ts)
        SELECT 1 + g % 3, CASE WHEN g % 3 = 0 THEN 1 ELSE 0 END,
               CASE WHEN g % 4 <> 0 THEN ${firstProject.id} + g % ${PROJECTS} END,
               g * 7 % ${DEVICES} + 1, 'dash' || lpad((g * 7 % ${DEVICES} + 1)::text, 8, '0'), 'DashKey00001',
               '压测告警 ' || g, now() - make_interval(secs => (g::bigint * 25) % (30 * 86400))
        FROM generate_series(1, ${ALERTS}) AS g`);
    await db.execute(sql`
        INSERT INTO apps (name, active_status, use_status)
        SELECT '应用_' || g, CASE WHEN g % 3 = 0 THEN 0 ELSE 1 END, CASE WHEN g % 2 = 0 THEN 1 ELSE 0 END
        FROM generate_series(1, 12) AS g`);
}

/** Heap fetches of the map query's index-only scan (0 means the table was never read). */
async function mapPlan(db: Db): Promise<{ indexOnly: boolean; heapFetches: number }> {
    const plan = rows<{ 'QUERY PLAN': string }>(
        await db.execute(sql`
            EXPLAIN (ANALYZE, COSTS OFF)
            SELECT string_agg(id || ',' || product_id || device_name || longitude || latitude || status, ',')
            FROM devices WHERE longitude IS NOT NULL AND latitude IS NOT NULL`),
    )
        .map((r) => r['QUERY PLAN'])
        .join('\n');
    const fetches = /Heap Fetches: (\d+)/.exec(plan);
    return {
        indexOnly: /Index Only Scan using devices_located_idx/.test(plan),
        heapFetches: fetches ? Number(fetches[1]) : -1,
    };
}

const group: BenchGroup = {
    name: 'dashboard',
    async run() {
        const handle = await openDatabase();
        const figures: Figure[] = [];
        const add = (name: string, value: number, unit: string) => figures.push({ name, value, unit });
        try {
            await ensureAdmin(handle.db, 'bench_password');
            await seedDatabase(handle.db, { demo: false });
            let t = performance.now();
            await fill(handle.db);
            add('fill_1m_devices_100k_alerts', Math.round(performance.now() - t), 'ms');
            // What server/db/maintenance.ts does after bulk writes (PGlite runs no autovacuum).
            t = performance.now();
            await handle.db.execute(sql`VACUUM (ANALYZE) devices`);
            await handle.db.execute(sql`VACUUM (ANALYZE) alert_events`);
            await handle.db.execute(sql`ANALYZE`);
            add('vacuum_analyze', Math.round(performance.now() - t), 'ms');

            const maintenance = createMaintenance(handle.db, { threshold: Number.MAX_SAFE_INTEGER });
            const app = createApp({ db: handle.db, config: loadConfig({}), maintenance });
            const [admin] = await handle.db.select().from(users).limit(1);
            const token = await createSession(handle.db, admin.id, new Date());

            async function latency(name: string, target: string, samples = SAMPLES, before?: () => Promise<unknown>) {
                const once = async () => {
                    const res = await app.request(target, { headers: { authorization: token } });
                    const text = await res.text();
                    // The envelope starts the body: checking its code does not parse an 11 MB map answer (that is
                    // the client's cost, not the server's).
                    if (!/^\{"code":(0|200),/.test(text)) throw new Error(`${target}: ${text.slice(0, 200)}`);
                    return Buffer.byteLength(text);
                };
                for (let i = 0; i < 3; i++) await once();
                const times: number[] = [];
                let size = 0;
                for (let i = 0; i < samples; i++) {
                    await before?.();
                    const started = performance.now();
                    size = await once();
                    times.push(performance.now() - started);
                }
                times.sort((a, b) => a - b);
                add(`${name}_p50`, percentile(times, 50), 'ms');
                add(`${name}_p95`, percentile(times, 95), 'ms');
                return size;
            }

            await latency('count', '/api/dashboard/count');
            await latency('device_total', '/api/device/total');
            await latency('devices_by_category', '/api/device/getCntGroupByCate');
            await latency('alerts_by_type', '/api/event/countByType');
            await latency('alert_list_page1', '/api/event/list?pageNumber=1&pageSize=10');
            await latency('alert_list_pending_page1', '/api/event/list?pageNumber=1&pageSize=10&status=0');
            await latency('project_list_page1', '/api/project/list?page=1&size=10');
            await latency('overview_device_type', `/api/overview/deviceType?projectId=1`);
            // Unchanged devices: the answer comes from the server's map cache (server/domain/deviceMapCache.ts).
            const bytes = await latency('map_100k', '/api/device/queryLonLatList', MAP_SAMPLES);
            // A device changed status before each call (outside the timing): every call rebuilds the answer.
            await latency('map_100k_after_change', '/api/device/queryLonLatList', MAP_SAMPLES, () =>
                handle.db.execute(sql`UPDATE devices SET status = status WHERE id = (SELECT max(id) FROM devices)`),
            );
            add('map_100k_answer_size', Math.round((bytes / 1024 / 1024) * 100) / 100, 'MB');
            await latency('map_bbox_beijing', '/api/device/queryLonLatList?bbox=115,39,118,41', MAP_SAMPLES);

            const plan = await mapPlan(handle.db);
            add('map_index_only_scan', plan.indexOnly ? 1 : 0, 'bool');
            add('map_heap_fetches', plan.heapFetches, 'rows');
            // The database's part of the map answer alone (no HTTP, no envelope).
            const times: number[] = [];
            for (let i = 0; i < MAP_SAMPLES; i++) {
                const started = performance.now();
                await handle.db.execute(sql`
                    SELECT string_agg('{"deviceId":' || id || ',"productId":' || product_id || ',"deviceName":'
                        || to_json(device_name)::text || ',"longitude":' || longitude || ',"latitude":' || latitude
                        || ',"status":"' || status || '"}', ',') FROM devices
                    WHERE longitude IS NOT NULL AND latitude IS NOT NULL`);
                times.push(performance.now() - started);
            }
            times.sort((a, b) => a - b);
            add('map_100k_query_only_p50', percentile(times, 50), 'ms');
            // The index-only scan alone, every entry read and summed, nothing built or moved.
            const scan: number[] = [];
            for (let i = 0; i < MAP_SAMPLES; i++) {
                const started = performance.now();
                await handle.db.execute(sql`
                    SELECT count(*), sum(longitude + latitude + id + product_id + length(device_name) + length(status))
                    FROM devices WHERE longitude IS NOT NULL AND latitude IS NOT NULL`);
                scan.push(performance.now() - started);
            }
            scan.sort((a, b) => a - b);
            add('map_100k_scan_only_p50', percentile(scan, 50), 'ms');
            return figures;
        } finally {
            await handle.close();
        }
    },
};

export default group;
