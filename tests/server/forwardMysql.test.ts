import mysql from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mysqlDestination, type MysqlConfig } from '../../server/forward/destinations/mysql';
import type { Sender } from '../../server/forward/destinations/types';
import {
    closedPort,
    expectRefusal,
    randomName,
    record,
    refusalOf,
    serviceReachable,
    silentContext,
} from './forwardSupport';

/**
 * The MySQL / MariaDB destination against the machine's MariaDB (127.0.0.1:3306, root without password, database
 * test), on a table of its own (random name). A column defaulting to NOW(6) shows one statement: MySQL takes NOW once
 * per statement, so the rows of one INSERT share it and rows of two statements would not.
 */

const available = await serviceReachable('MariaDB', 3306);

const base = { host: '127.0.0.1', user: 'root', database: 'test' };

describe.skipIf(!available)('forwarding to a MySQL / MariaDB table', () => {
    let admin: mysql.Connection;
    const table = randomName('fwd_my');
    const senders: Sender[] = [];

    const open = async (extra: Record<string, unknown> = {}) => {
        const config = await mysqlDestination.schema.validate({ ...base, table, ...extra });
        const sender = mysqlDestination.open(config as MysqlConfig, silentContext);
        senders.push(sender);
        return sender;
    };
    const rows = async () => (await admin.query<mysql.RowDataPacket[]>(`SELECT * FROM ${table} ORDER BY seq`))[0];

    beforeAll(async () => {
        admin = await mysql.createConnection({ ...base, port: 3306, timezone: 'Z' });
        await admin.query(`CREATE TABLE ${table} (
            seq INT AUTO_INCREMENT PRIMARY KEY, n INT, x DOUBLE, s VARCHAR(100) NOT NULL, b BOOLEAN, j JSON,
            at DATETIME(3), rid VARCHAR(64) UNIQUE, device VARCHAR(64), created DATETIME(6) DEFAULT NOW(6)
        ) ENGINE=InnoDB CHARSET=utf8mb4`);
    });

    afterAll(async () => {
        await Promise.all(senders.map((s) => s.close()));
        await admin.query(`DROP TABLE IF EXISTS ${table}`);
        await admin.end();
    });

    it('inserts exactly the rows sent, in order, with their SQL types (JSON objects, $ts as a DATETIME)', async () => {
        await admin.query(`TRUNCATE ${table}`);
        const columns = ['n', 'x', 's', 'b', 'j'].map((c) => ({ column: c, from: c }));
        const sender = await open({
            columns: [...columns, { column: 'at', from: '$ts' }, { column: 'rid', from: '$id' }],
        });
        const sent = [
            record(1, { n: 21, x: 21.5, s: '温度', b: true, j: { a: [1, 2] }, ignored: 1 }),
            record(2, { n: -3, x: 0.125, s: "it's `quoted` \\ ?", b: false, j: [1, 'x'] }),
            record(3, { n: 2147483647, x: 1e300, s: '', b: null, j: null }),
        ];
        await sender.send(sent);
        const got = await rows();
        // MariaDB's JSON is LONGTEXT checked by json_valid: mysql2 answers it parsed or as text by server version.
        const json = (v: unknown) => (typeof v === 'string' ? JSON.parse(v) : v);
        expect(got.map((r) => [r.n, r.x, r.s, r.b, json(r.j)])).toEqual([
            [21, 21.5, '温度', 1, { a: [1, 2] }],
            [-3, 0.125, "it's `quoted` \\ ?", 0, [1, 'x']],
            [2147483647, 1e300, '', null, null],
        ]);
        expect(got.map((r) => (r.at as Date).getTime())).toEqual(sent.map((r) => r.ts));
        expect(got.map((r) => r.rid)).toEqual(sent.map((r) => r.id));
    });

    it('writes each selected name to the column of that name without mappings (a missing one as NULL)', async () => {
        await admin.query(`TRUNCATE ${table}`);
        const sender = await open();
        await sender.send([record(1, { s: 'a', n: 1 }), record(2, { s: 'b', device: 'd-2', x: 2.5 })]);
        expect((await rows()).map((r) => [r.s, r.n, r.device, r.x])).toEqual([
            ['a', 1, null, null],
            ['b', null, 'd-2', 2.5],
        ]);
    });

    it('writes a batch of 500 in one statement, and nothing of it when one row is refused (permanent)', async () => {
        await admin.query(`TRUNCATE ${table}`);
        const sender = await open();
        const batch = Array.from({ length: 500 }, (_, i) => record(i, { n: i, s: `row ${i}` }));
        await sender.send(batch);
        const got = await rows();
        expect(got.map((r) => r.n)).toEqual(batch.map((_, i) => i));
        expect(new Set(got.map((r) => (r.created as Date).toISOString())).size).toBe(1);

        await admin.query(`TRUNCATE ${table}`);
        const bad = batch.map((r, i) => (i === 499 ? record(i, { n: 'not a number', s: 'x' }) : r));
        await expectRefusal(sender.send(bad), true, /数据不符合数据表 test\.fwd_my_\w+ 的列类型.*请检查流转 SQL/);
        expect(await rows()).toEqual([]);
    });

    it('refuses NULL in a NOT NULL column, a duplicate key and invalid JSON as permanent, inserting nothing', async () => {
        await admin.query(`TRUNCATE ${table}`);
        const sender = await open({
            columns: [
                { column: 's', from: 's' },
                { column: 'rid', from: 'key' },
            ],
        });
        await expectRefusal(sender.send([record(1, { s: 'ok' }), record(2, {})]), true, /的列不允许为空/);
        const dup = [record(1, { s: 'a', key: 'k1' }), record(2, { s: 'b', key: 'k1' })];
        await expectRefusal(sender.send(dup), true, /违反唯一约束/);
        const json = await open();
        await expectRefusal(json.send([record(1, { s: 'a' }), record(2, { s: 'b', j: 'not json' })]), true, /约束/);
        expect(await rows()).toEqual([]);
    });

    it('refuses a mapped column the table lacks as permanent, a missing table as transient', async () => {
        const sender = await open({ columns: [{ column: 'nope', from: 's' }] });
        await expectRefusal(sender.send([record(1, { s: 'a' })]), true, /缺少列/);
        const missing = await open({ table: `${table}_none` });
        await expectRefusal(missing.send([record(1, { s: 'a' })]), false, /数据表 test\.\w+_none 不存在，请先建表/);
    });

    it('answers a closed port with a transient error saying it cannot connect', async () => {
        const sender = await open({ port: await closedPort() });
        await expectRefusal(sender.send([record(1, { s: 'a' })]), false, /无法连接 MySQL 127\.0\.0\.1:\d+：连接被拒绝/);
        await expectRefusal(sender.test(), false, /无法连接 MySQL/);
    });

    it('tests the connection: passes on a good table, names a missing table or columns', async () => {
        await expect((await open({ columns: [{ column: 'S', from: 'x' }] })).test()).resolves.toBeUndefined();
        await expectRefusal((await open({ table: 'no_such_table_x' })).test(), false, /test\.no_such_table_x 不存在/);
        const columns = [
            { column: 's', from: 's' },
            { column: 'temp', from: 't' },
            { column: 'hum', from: 'h' },
        ];
        await expectRefusal((await open({ columns })).test(), false, /缺少列 temp、hum/);
    });
});

describe('the MySQL destination configuration', () => {
    const schema = mysqlDestination.schema;
    const good = { host: 'db.local', user: 'u', database: 'd', table: ' t ' };

    it('fills defaults, trims texts and lists the password as secret', async () => {
        expect(await schema.validate(good)).toMatchObject({ port: 3306, table: 't', ssl: false, password: '' });
        expect(mysqlDestination.secretFields).toEqual(['password']);
        expect(mysqlDestination.label).toBe('MySQL / MariaDB 数据表');
    });

    it('refuses bad ports, unknown keys, NUL and question marks in names', async () => {
        expect(await refusalOf(() => schema.validate({ ...good, port: 0 }))).toBe('端口必须是 1-65535 的整数');
        expect(await refusalOf(() => schema.validate({ ...good, schema: 'x' }))).toMatch(/未知字段：schema/);
        expect(await refusalOf(() => schema.validate({ ...good, password: 'a\u0000' }))).toMatch(/密码含有非法字符/);
        expect(await refusalOf(() => schema.validate({ ...good, table: 'a?b' }))).toMatch(/表名不能包含问号/);
        const columns = [{ column: 'a?', from: 'x' }];
        expect(await refusalOf(() => schema.validate({ ...good, columns }))).toMatch(/列名不能包含问号/);
        expect(await refusalOf(() => schema.validate({ ...good, host: 'http://x/' }))).toMatch(/主机地址格式不正确/);
    });
});
