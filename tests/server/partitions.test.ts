import { sql, type SQL } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../server/db/client';
import { tableVersionsOf } from '../../server/db/dataVersion';
import {
    DAY_MS,
    PARTITIONED_TABLES,
    dayPartitions,
    ensureDayPartition,
    maintainPartitions,
    maintenanceSettled,
    utcDay,
} from '../../server/db/partitions';
import { queryMessageLog } from '../../server/domain/messageLog';
import { productDays } from '../../server/domain/report';
import { sweepOldMessages } from '../../server/domain/retention';
import { propertyHistory } from '../../server/domain/telemetry';
import { createMessageWriter } from '../../server/mqtt/writer';
import { createNotifier } from '../../server/rules/notify';
import { createTestServer, type TestServer } from '../../server/testing';
import { call, form } from './support';

// device_messages, device_presence, rule_logs and notifications are partitioned by UTC day (0026_partitions.sql,
// server/db/partitions.ts): partitions are made ahead and for a back-dated message, retention drops a day whole, and
// a read bounded in time plans only its days.
let s: TestServer;
let device: { id: number; productId: number };
const onPostgres = !!process.env.DATABASE_URL;

type Row = Record<string, unknown>;
const rows = async (q: string | SQL) =>
    ((await s.db.execute(typeof q === 'string' ? sql.raw(q) : q)) as unknown as { rows: Row[] }).rows;
const partitionOf = (day: string, table = 'device_messages') => `${table}_p${day.replaceAll('-', '')}`;

/** The database, with every statement its execute() runs recorded (what a reader or the sweep sends). */
function recording(db: Db): { db: Db; statements: SQL[] } {
    const statements: SQL[] = [];
    const spy = new Proxy(db, {
        get(target, prop, receiver) {
            if (prop === 'execute')
                return (q: SQL) => {
                    statements.push(q);
                    return target.execute(q);
                };
            return Reflect.get(target, prop, receiver) as unknown;
        },
    });
    return { db: spy, statements };
}

const textOf = (q: SQL) =>
    (s.db as unknown as { dialect: { sqlToQuery(q: SQL): { sql: string } } }).dialect.sqlToQuery(q).sql;

/** The partitions of device_messages (or another partitioned table) a statement's plan visits. */
async function planned(q: SQL, table = 'device_messages'): Promise<string[]> {
    const plan = (await rows(sql`EXPLAIN ${q}`)).map((r) => String(r['QUERY PLAN'])).join('\n');
    return [...new Set(plan.match(new RegExp(`\\b${table}_(?:p\\d{8}|default)\\b`, 'g')) ?? [])].sort();
}

/**
 * Every statement the database's session prepares meanwhile (query builders and execute() alike: the readers behind
 * the routes), as SQL with its parameters bound again, for EXPLAIN.
 */
async function sessionStatements(run: () => Promise<unknown>): Promise<SQL[]> {
    type Query = { sql: string; params: unknown[] };
    const session = (s.db as unknown as { _: { session: { prepareQuery: (q: Query, ...rest: unknown[]) => unknown } } })
        ._.session;
    const prepare = session.prepareQuery;
    const seen: Query[] = [];
    session.prepareQuery = function (this: unknown, q: Query, ...rest: unknown[]) {
        seen.push(q);
        return prepare.call(this, q, ...rest);
    };
    try {
        await run();
    } finally {
        session.prepareQuery = prepare;
    }
    return seen.map((q) =>
        sql.join(
            q.sql.split(/\$(\d+)/).map((part, i) => (i % 2 ? sql`${q.params[Number(part) - 1]}` : sql.raw(part))),
            sql.raw(''),
        ),
    );
}

beforeAll(async () => {
    s = await createTestServer();
    const [d] = await rows(`SELECT id, product_id FROM devices ORDER BY id LIMIT 1`);
    device = { id: Number(d.id), productId: Number(d.product_id) };
});

afterAll(async () => {
    await s?.close();
});

describe('partitions made ahead and on demand', () => {
    it('keeps today and the next two days (UTC) made ahead for every partitioned table', async () => {
        const later = Date.now() + 10 * DAY_MS;
        for (const table of PARTITIONED_TABLES) {
            const days = (await dayPartitions(s.db, table)).map((p) => p.day);
            expect(days).not.toContain(utcDay(later));
        }
        // The maintenance tick of a clock ten days on.
        await maintainPartitions(s.db, new Date(later));
        for (const table of PARTITIONED_TABLES) {
            const days = (await dayPartitions(s.db, table)).map((p) => p.day);
            for (let d = 0; d <= 2; d++) expect(days).toContain(utcDay(later + d * DAY_MS));
        }
    });

    it('stores a back-dated message at once and gives its day a partition right after its batch', async () => {
        // A day with no partition yet (the seed's history has some days back).
        const made = new Set((await dayPartitions(s.db, 'device_messages')).map((p) => p.day));
        let back = 20;
        while (made.has(utcDay(Date.now() - back * DAY_MS))) back++;
        const ts = new Date(Date.now() - back * DAY_MS);
        const day = utcDay(ts.getTime());
        const writer = createMessageWriter(s.db);
        await writer.propertyPost(device.id, ts, { Backdated: 1 }, device.productId);
        // Never lost, readable at once: stored in the default partition while its day had none.
        const where = `device_id = ${device.id} AND ts = '${ts.toISOString()}'`;
        expect(await rows(`SELECT data FROM device_messages WHERE ${where}`)).toEqual([{ data: { Backdated: 1 } }]);
        await maintenanceSettled(s.db);
        expect(await rows(`SELECT tableoid::regclass::text AS p, data FROM device_messages WHERE ${where}`)).toEqual([
            { p: partitionOf(day), data: { Backdated: 1 } },
        ]);
        expect(await rows(`SELECT count(*)::int AS n FROM device_messages_default`)).toEqual([{ n: 0 }]);
    });
});

describe('retention', () => {
    it('drops a day of messages in one statement', async () => {
        const ts = Date.now() - 40 * DAY_MS;
        const day = utcDay(ts);
        await ensureDayPartition(s.db, 'device_messages', day);
        await rows(`INSERT INTO device_messages (device_id, product_id, ts, method, data)
            SELECT ${device.id}, ${device.productId}, '${new Date(ts).toISOString()}'::timestamptz + make_interval(secs => g % 60),
                   'thing.event.property.post', '{"v":1}' FROM generate_series(1, 5000) g`);
        expect(await rows(`SELECT count(*)::int AS n FROM ${partitionOf(day)}`)).toEqual([{ n: 5000 }]);
        const { db, statements } = recording(s.db);
        const swept = await sweepOldMessages(db, 30);
        expect(swept.partitions).toContain(partitionOf(day));
        expect(swept.messages).toBe(0);
        // The one statement naming that day's partition: its DROP TABLE (no row by row DELETE anywhere).
        const naming = statements.map(textOf).filter((q) => q.includes(partitionOf(day)));
        expect(naming).toEqual([`DROP TABLE IF EXISTS "${partitionOf(day)}"`]);
        expect(await rows(`SELECT to_regclass('${partitionOf(day)}') IS NULL AS gone`)).toEqual([{ gone: true }]);
        expect(
            await rows(`SELECT count(*)::int AS n FROM device_messages WHERE ts < now() - interval '31 days'`),
        ).toEqual([{ n: 0 }]);
    });
});

describe('partition pruning', () => {
    it('plans the readers bounded in time on their days only', async () => {
        const now = Date.now();
        // Eight days of partitions, each with a message of the device.
        for (let d = 0; d < 8; d++) {
            const day = utcDay(now - d * DAY_MS);
            await ensureDayPartition(s.db, 'device_messages', day);
            await rows(`INSERT INTO device_messages (device_id, product_id, ts, method, data)
                VALUES (${device.id}, ${device.productId}, '${new Date(now - d * DAY_MS).toISOString()}',
                        'thing.event.property.post', '{"Pruned":${d}}')`);
        }
        const start = new Date(now - 24 * 3600_000);
        const end = new Date(now);
        const inWindow = [utcDay(start.getTime()), utcDay(now)].map((d) => partitionOf(d));
        const { db, statements } = recording(s.db);
        const history = await propertyHistory(
            db,
            { deviceId: device.id, identifier: 'Pruned', start, end, ascending: false, limit: 10, offset: 0 },
            'Asia/Shanghai',
        );
        expect(history.total).toBeGreaterThanOrEqual(1);
        await queryMessageLog(
            db as never,
            {
                productId: device.productId,
                productKey: 'x',
                direction: 'up',
                start,
                end,
                limit: 20,
                offset: 0,
            },
            'Asia/Shanghai',
        );
        await productDays(db as never, { start, end, timeZone: 'Asia/Shanghai' });
        expect(statements.length).toBeGreaterThanOrEqual(5);
        for (const q of statements) {
            const visited = await planned(q);
            // Only the days of the range (one or two UTC days), never the older ones nor the default partition.
            expect(visited.length, textOf(q)).toBeGreaterThan(0);
            for (const p of visited) expect(inWindow, textOf(q)).toContain(p);
        }
        // A device's events in a window (built with the query builder): the same predicates.
        expect(
            await planned(sql`SELECT id FROM device_messages WHERE device_id = ${device.id}
                AND ts >= ${start.toISOString()}::timestamptz AND ts <= ${end.toISOString()}::timestamptz
                ORDER BY ts DESC, id DESC LIMIT 10`),
        ).toEqual([...new Set(inWindow)].sort());
        // Without a time bound every day is visited: the readers above keep theirs.
        expect(
            (await planned(sql`SELECT id FROM device_messages WHERE device_id = ${device.id}`)).length,
        ).toBeGreaterThan(8);
    });

    it('prunes a prepared statement at run time (generic plan)', async () => {
        const day = utcDay(Date.now());
        await rows(`PREPARE store_pruned(timestamptz, timestamptz) AS
            SELECT count(*) FROM device_messages WHERE device_id = ${device.id} AND ts >= $1 AND ts < $2`);
        try {
            await rows(`SET plan_cache_mode = force_generic_plan`);
            const plan = (
                await rows(`EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
                    EXECUTE store_pruned('${day}T00:00:00Z', '${day}T23:59:59Z')`)
            )
                .map((r) => String(r['QUERY PLAN']))
                .join('\n');
            expect(plan).toMatch(/Subplans Removed: [1-9]/);
        } finally {
            await rows(`SET plan_cache_mode = auto`);
            await rows(`DEALLOCATE store_pruned`);
        }
    });
});

describe('readers without a time range', () => {
    it('plan only the retention window: ListProperty, /log, alert notifications, the presence report', async () => {
        const now = Date.now();
        // A message, a presence change and a notification on a day past the retention (30 days) and on recent days.
        const old = now - 35 * DAY_MS;
        for (const t of [old, now - 3 * DAY_MS, now]) {
            const at = new Date(t).toISOString();
            for (const table of ['device_messages', 'device_presence', 'notifications'] as const)
                await ensureDayPartition(s.db, table, utcDay(t));
            await rows(`INSERT INTO device_messages (device_id, product_id, ts, method, data)
                VALUES (${device.id}, ${device.productId}, '${at}', 'thing.event.property.post', '{"Recent":1}')`);
            await rows(`INSERT INTO device_presence (device_id, ts, online) VALUES (${device.id}, '${at}', false)`);
            await rows(`INSERT INTO notifications (app_name, notify_type, message_type, recipient, content, ts)
                VALUES ('a', 'webhook', '告警通知', 'x', 'c', '${at}')`);
        }
        const [{ product_key: productKey, device_name: deviceName }] = await rows(
            `SELECT p.product_key, d.device_name FROM devices d JOIN products p ON p.id = d.product_id WHERE d.id = ${device.id}`,
        );
        const statements = await sessionStatements(async () => {
            for (const [method, path, body] of [
                [
                    'POST',
                    '/api/function/ListProperty',
                    form({ productKey: String(productKey), deviceName: String(deviceName), size: 10 }),
                ],
                [
                    'POST',
                    '/api/function/ListProperty',
                    form({ productKey: String(productKey), deviceName: String(deviceName), size: 100 }),
                ],
                ['GET', `/api/log/messages?productKey=${String(productKey)}&direction=up`],
                ['GET', `/api/log/messages?productKey=${String(productKey)}&deviceName=${String(deviceName)}`],
                ['GET', `/api/log/alerts`],
                ['GET', `/api/report/daily?startTime=${now - 6 * DAY_MS}&endTime=${now}`],
            ] as const) {
                const r = await call(s, method, path, body);
                expect(r.status, path).toBe(200);
            }
        });
        const oldDay = utcDay(old).replaceAll('-', '');
        let reading = 0;
        for (const q of statements) {
            for (const table of ['device_messages', 'device_presence', 'notifications']) {
                const visited = await planned(q, table);
                if (!visited.length) continue;
                reading++;
                // The day past the retention is pruned; so is every day before the window's first.
                expect(visited, textOf(q)).not.toContain(`${table}_p${oldDay}`);
                expect(visited.length, textOf(q)).toBeLessThanOrEqual(35);
            }
        }
        // ListProperty (a page of 10 from the last day; of 100: the last day, week, then the retention), /log's
        // page and count twice, the notifications' page and count, the report's presence.
        expect(reading).toBeGreaterThanOrEqual(10);
    });

    it('updates a notification by its key (id, ts): its own partition only', async () => {
        const notifier = createNotifier(s.db, { attempts: 1, timeoutMs: 500 });
        const statements = await sessionStatements(async () => {
            await notifier.send({
                channel: { id: null, name: 'x', type: 'webhook', config: { url: 'http://127.0.0.1:1/hook' } },
                ruleId: null,
                appName: '分区',
                messageType: '告警通知',
                content: 'c',
                vars: {},
            });
            await notifier.drain();
        });
        notifier.close();
        const updates = statements.filter((q) => /^update "notifications"/i.test(textOf(q)));
        expect(updates.length).toBe(1);
        expect(await planned(updates[0], 'notifications')).toEqual([
            `notifications_p${utcDay(Date.now()).replaceAll('-', '')}`,
        ]);
        expect(await rows(`SELECT status FROM notifications WHERE app_name = '分区'`)).toEqual([{ status: 'failed' }]);
    });
});

describe.skipIf(onPostgres)('answer cache', () => {
    it('counts a write into a partition as a write into its table', async () => {
        const versions = tableVersionsOf(s.db)!;
        await versions.ready();
        const since = versions.seq();
        await rows(`DELETE FROM device_messages_default WHERE device_id = -1`);
        expect(versions.changedSince(['device_messages'], since)).toBe(true);
        expect(versions.changedSince(['device_groups'], since)).toBe(false);
    });
});
