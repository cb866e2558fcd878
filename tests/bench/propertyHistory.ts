import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { eq, sql } from 'drizzle-orm';
import { createApp } from '../../server/app';
import { loadConfig } from '../../server/config';
import { openDatabase, type Db } from '../../server/db/client';
import { createMaintenance } from '../../server/db/maintenance';
import { categories, devices, products, thingFunctions, users } from '../../server/db/schema';
import { deviceCredentials, newDeviceSecret } from '../../server/domain/devices';
import { PROPERTY_POST } from '../../server/domain/telemetry';
import { seedDatabase } from '../../server/seed';
import { createSession } from '../../server/sso/sessions';
import { ensureAdmin } from '../../server/sso/users';
import type { BenchGroup, Figure } from './run';

/**
 * Property history of ONE device holding 1,000,000 property posts (the history is read from them): one identifier
 * (Temperature) reported every 30 s, so the records span about 347 days and end now; a 1-hour range holds 120 records, 24 hours 2,880, 31 days 89,280.
 * Each report is a device_messages row (1,000,000 thing.event.property.post messages), plus one alarm event every 6
 * hours, so run status and the event list are measured against the same volume. Each sample asks for a
 * different range, ending at a random point of the year, through the HTTP app (session, routing, envelope included).
 */
const RECORDS = 1_000_000;
const STEP_SECONDS = 30;
const EVENT_EVERY = 720; // reports: one alarm every 6 hours
const SAMPLES = 100;
const HOUR = 3600 * 1000;
const DAY = 24 * HOUR;

function percentile(sorted: number[], p: number): number {
    const i = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
    return Math.round(sorted[i] * 100) / 100;
}

async function createDevice(db: Db) {
    const [leaf] = await db.select().from(categories).where(eq(categories.level, 3)).limit(1);
    const [product] = await db
        .insert(products)
        .values({
            productKey: 'BenchHistory1',
            productName: '压测温度传感器',
            nodeType: 0,
            categoryId: leaf.id,
            networkType: 5,
            dataType: 0,
        })
        .returning({ id: products.id, productKey: products.productKey });
    const num = (min: number, max: number, unit: string) => ({ type: 'float', specs: { min, max, step: '0.1', unit } });
    await db.insert(thingFunctions).values([
        {
            productId: product.id,
            type: 'property',
            identifier: 'Temperature',
            name: '温度',
            accessMode: 'r',
            dataType: num(-40, 120, '°C'),
        },
        {
            productId: product.id,
            type: 'property',
            identifier: 'Humidity',
            name: '湿度',
            accessMode: 'r',
            dataType: num(0, 100, '%RH'),
        },
        {
            productId: product.id,
            type: 'property',
            identifier: 'BatteryLevel',
            name: '电池电量',
            accessMode: 'r',
            dataType: { type: 'int', specs: { min: 0, max: 100, unit: '%' } },
        },
        {
            productId: product.id,
            type: 'event',
            identifier: 'HighTemperature',
            name: '高温告警',
            eventType: 'alert',
            outputData: [],
        },
    ]);
    const deviceName = 'bench-th-0001';
    const [device] = await db
        .insert(devices)
        .values({
            productId: product.id,
            deviceName,
            status: 'ONLINE',
            enabled: true,
            ...deviceCredentials(product.productKey, deviceName),
            secret: newDeviceSecret(),
            lastTime: new Date(),
            statusTime: new Date(),
        })
        .returning({ id: devices.id });
    return { deviceId: Number(device.id), productKey: product.productKey, deviceName };
}

/** The property posts (the history), the events and the latest value, each in one INSERT ... SELECT; `end` is the newest. */
async function fill(db: Db, deviceId: number, end: Date) {
    const value = sql.raw(
        `round((22 + 6 * sin(g * 2 * pi() / 2880) + 3 * sin(g * 2 * pi() / 1051200) + random())::numeric, 1)`,
    );
    const ts = sql`${end.toISOString()}::timestamptz - make_interval(secs => (${RECORDS} - g) * ${STEP_SECONDS})`;
    await db.execute(sql`
        INSERT INTO device_messages (device_id, ts, method, identifier, data)
        SELECT ${deviceId}, ${ts}, ${PROPERTY_POST}, NULL, jsonb_build_object('Temperature', ${value})
        FROM generate_series(1, ${RECORDS}::int) AS g`);
    await db.execute(sql`
        INSERT INTO device_messages (device_id, ts, method, identifier, data)
        SELECT ${deviceId}, ${ts} + interval '1 second', 'thing.event.HighTemperature.post', 'HighTemperature',
               jsonb_build_object('Temperature', 45)
        FROM generate_series(${EVENT_EVERY}::int, ${RECORDS}::int, ${EVENT_EVERY}::int) AS g`);
    await db.execute(sql`
        INSERT INTO device_latest (device_id, props, ts)
        SELECT device_id, jsonb_build_object('Temperature',
                   jsonb_build_object('v', data -> 'Temperature', 't', floor(extract(epoch FROM ts) * 1000)::bigint)), ts
        FROM device_messages WHERE device_id = ${deviceId} AND method = ${PROPERTY_POST} ORDER BY ts DESC LIMIT 1`);
}

const group: BenchGroup = {
    name: 'propertyHistory',
    async run() {
        const dir = mkdtempSync(path.join(os.tmpdir(), 'iot-bench-history-'));
        const handle = await openDatabase({ pgliteDir: path.join(dir, 'pgdata') });
        const figures: Figure[] = [];
        const add = (name: string, value: number, unit: string) => figures.push({ name, value, unit });
        try {
            await ensureAdmin(handle.db, 'bench_password');
            await seedDatabase(handle.db, { demo: false });
            const device = await createDevice(handle.db);
            const end = new Date();
            let t = performance.now();
            await fill(handle.db, device.deviceId, end);
            add('insert_1m_records_and_messages', Math.round(performance.now() - t), 'ms');
            // PGlite runs no autovacuum: without this pass there are no statistics and no visibility map.
            t = performance.now();
            await handle.db.execute(sql`VACUUM (ANALYZE) device_messages`);
            await handle.db.execute(sql`VACUUM (ANALYZE) device_latest`);
            add('vacuum_analyze', Math.round(performance.now() - t), 'ms');
            // The property history is the device's property posts in the message log (0018_property_rows.sql).
            const size = await handle.db.execute(sql`SELECT pg_total_relation_size('device_messages') AS bytes`);
            const bytes = Number((size as unknown as { rows: Array<{ bytes: string }> }).rows[0].bytes);
            add('device_messages_table_size', Math.round((bytes / 1024 / 1024) * 10) / 10, 'MB');

            const maintenance = createMaintenance(handle.db, { threshold: Number.MAX_SAFE_INTEGER });
            const app = createApp({ db: handle.db, config: loadConfig({}), maintenance });
            const [admin] = await handle.db.select().from(users).limit(1);
            const token = await createSession(handle.db, admin.id, new Date());
            const request = (target: string, init: RequestInit = {}) =>
                Promise.resolve(app.request(target, { ...init, headers: { ...init.headers, authorization: token } }));

            /**
             * p50 / p95 over SAMPLES calls; `target(i)` varies the request per sample; `check` sees each answer. Besides
             * wall time, the CPU time this process spent on the call (PGlite runs in-process, so that is the query work
             * too): on a machine shared with other jobs wall time mostly measures waiting for a core, CPU time does not.
             */
            async function latency(
                name: string,
                target: (i: number) => string | [string, RequestInit],
                check: (data: Record<string, unknown>) => boolean,
                samples = SAMPLES,
            ) {
                const once = async (i: number) => {
                    const spec = target(i);
                    const [url, init] = typeof spec === 'string' ? [spec, {}] : spec;
                    const cpu = process.cpuUsage();
                    const started = performance.now();
                    const res = await request(url, init);
                    const body = (await res.json()) as { code: number; msg: string; data: Record<string, unknown> };
                    const elapsed = performance.now() - started;
                    const used = process.cpuUsage(cpu);
                    if (body.code !== 0 || !check(body.data))
                        throw new Error(`${name} ${url}: ${JSON.stringify(body).slice(0, 300)}`);
                    return { wall: elapsed, cpu: (used.user + used.system) / 1000 };
                };
                for (let i = 0; i < 5; i++) await once(i);
                const wall: number[] = [];
                const cpu: number[] = [];
                for (let i = 0; i < samples; i++) {
                    const sample = await once(i);
                    wall.push(sample.wall);
                    cpu.push(sample.cpu);
                }
                wall.sort((a, b) => a - b);
                cpu.sort((a, b) => a - b);
                add(`${name}_p50`, percentile(wall, 50), 'ms');
                add(`${name}_p95`, percentile(wall, 95), 'ms');
                add(`${name}_cpu_p50`, percentile(cpu, 50), 'ms');
                add(`${name}_cpu_p95`, percentile(cpu, 95), 'ms');
            }

            // Range ends spread over the stored year (deterministic), never past the data's first 31 days.
            const span = RECORDS * STEP_SECONDS * 1000 - 32 * DAY;
            const endOf = (i: number) => end.getTime() - Math.floor((((i * 7919) % 1000) / 1000) * span);
            const history = (range: number, page: number, pageSize: number, asc: boolean) => (i: number) =>
                `/api/device/propertyHistory?deviceId=${device.deviceId}&identifier=Temperature&pageNumber=${page}` +
                `&pageSize=${pageSize}&asc=${asc}&startTime=${endOf(i) - range}&endTime=${endOf(i)}`;
            const rows = (expected: number, totalAtLeast: number) => (data: Record<string, unknown>) =>
                (data.list as unknown[]).length === expected && (data.total as number) >= totalAtLeast;

            await latency('history_1h_page1_size10_desc', history(HOUR, 1, 10, false), rows(10, 119));
            await latency('history_1h_page1_size50_asc', history(HOUR, 1, 50, true), rows(50, 119));
            await latency(
                'history_1h_page3_size50_desc',
                history(HOUR, 3, 50, false),
                (d) => (d.list as unknown[]).length >= 19,
            );
            await latency('history_24h_page1_size10_desc', history(DAY, 1, 10, false), rows(10, 2879));
            await latency('history_24h_page1_size50_asc', history(DAY, 1, 50, true), rows(50, 2879));
            await latency('history_24h_page30_size50_desc', history(DAY, 30, 50, false), rows(50, 2879));
            await latency('history_24h_page288_size10_asc', history(DAY, 288, 10, true), rows(10, 2879));
            await latency('history_31d_page1_size50_desc', history(31 * DAY, 1, 50, false), rows(50, 89_279), 20);

            const properties = `/api/device/properties?deviceId=${device.deviceId}`;
            await latency(
                'properties',
                () => properties,
                (d) => (d.properties as unknown[]).length === 3,
            );
            const listProperty = (method: string) => (): [string, RequestInit] => [
                '/api/function/ListProperty',
                {
                    method: 'POST',
                    body: new URLSearchParams({
                        productKey: device.productKey,
                        deviceName: device.deviceName,
                        size: '10',
                        method,
                    }),
                },
            ];
            const ten = (d: Record<string, unknown>) => (d.list as unknown[]).length === 10;
            await latency('listProperty_run_status', listProperty(PROPERTY_POST), ten);
            await latency('listProperty_events_prefix', listProperty('thing.event.*'), ten);
            const events =
                (timeType: string, method = '') =>
                () =>
                    `/api/device/events?deviceId=${device.deviceId}&timeType=${timeType}&nextPage=1&pageSize=50&method=${method}`;
            await latency('events_day', events('day'), (d) => (d.totalCount as number) >= 3);
            await latency('events_month', events('month'), (d) => (d.totalCount as number) >= 100);
            await latency(
                'events_hour_property_reports',
                events('hour', PROPERTY_POST),
                (d) => (d.totalCount as number) >= 1,
            );
            return figures;
        } finally {
            await handle.close();
            rmSync(dir, { recursive: true, force: true });
        }
    },
};

export default group;
