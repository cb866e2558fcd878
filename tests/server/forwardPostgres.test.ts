import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresDestination, type PostgresConfig } from '../../server/forward/destinations/postgres';
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
 * The PostgreSQL destination against the machine's PostgreSQL (127.0.0.1:5432, user postgres, database test): each
 * test writes a table of its own (random name) that a statement-level trigger counts the INSERT statements of.
 */

const available = await serviceReachable('PostgreSQL', 5432);

const base = { host: '127.0.0.1', user: 'postgres', database: 'test' };

describe.skipIf(!available)('forwarding to a PostgreSQL table', () => {
    const admin = new pg.Client({ ...base, port: 5432 });
    const table = randomName('fwd_pg');
    const counter = `${table}_statements`;
    const senders: Sender[] = [];

    const open = async (extra: Record<string, unknown> = {}) => {
        const config = await postgresDestination.schema.validate({ ...base, table, ...extra });
        const sender = postgresDestination.open(config as PostgresConfig, silentContext);
        senders.push(sender);
        return sender;
    };
    const rows = async () => (await admin.query(`SELECT * FROM ${table} ORDER BY seq`)).rows;
    const statements = async () => Number((await admin.query(`SELECT n FROM ${counter}`)).rows[0].n);

    beforeAll(async () => {
        await admin.connect();
        await admin.query(`CREATE TABLE ${table} (
            seq serial PRIMARY KEY, n integer, x double precision, s text NOT NULL, b boolean, j jsonb, jt json,
            at timestamptz, rid text UNIQUE, device text)`);
        await admin.query(`CREATE TABLE ${counter} (n integer NOT NULL)`);
        await admin.query(`INSERT INTO ${counter} VALUES (0)`);
        await admin.query(`CREATE FUNCTION ${counter}_count() RETURNS trigger LANGUAGE plpgsql AS
            $$ BEGIN UPDATE ${counter} SET n = n + 1; RETURN NULL; END $$`);
        await admin.query(`CREATE TRIGGER ${counter}_t AFTER INSERT ON ${table}
            FOR EACH STATEMENT EXECUTE FUNCTION ${counter}_count()`);
    });

    afterAll(async () => {
        await Promise.all(senders.map((s) => s.close()));
        await admin.query(`DROP TABLE IF EXISTS ${table}`);
        await admin.query(`DROP TABLE IF EXISTS ${counter}`);
        await admin.query(`DROP FUNCTION IF EXISTS ${counter}_count()`);
        await admin.end();
    });

    it('inserts exactly the rows sent, in order, with their SQL types (JSON objects, $ts as a timestamp)', async () => {
        await admin.query(`TRUNCATE ${table}`);
        const columns = ['n', 'x', 's', 'b', 'j', 'jt'].map((c) => ({ column: c, from: c }));
        const sender = await open({
            columns: [...columns, { column: 'at', from: '$ts' }, { column: 'rid', from: '$id' }],
        });
        const sent = [
            record(1, { n: 21, x: 21.5, s: '温度', b: true, j: { a: [1, 2] }, jt: [1, 'x'], ignored: 1 }),
            record(2, { n: -3, x: 0.125, s: 'it\'s "quoted"', b: false, j: null, jt: { t: 1 } }),
            record(3, { n: 2147483647, x: 1e300, s: '', b: null, j: '{"raw":"JSON text"}', jt: 3 }),
        ];
        const before = await statements();
        await sender.send(sent);
        expect(await statements()).toBe(before + 1);
        const got = await rows();
        expect(got.map((r) => [r.n, r.x, r.s, r.b, r.j, r.jt])).toEqual([
            [21, 21.5, '温度', true, { a: [1, 2] }, [1, 'x']],
            [-3, 0.125, 'it\'s "quoted"', false, null, { t: 1 }],
            [2147483647, 1e300, '', null, { raw: 'JSON text' }, 3],
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

    it("writes NULL for a mapped name the row lacks, even one of Object's own ('constructor')", async () => {
        await admin.query(`TRUNCATE ${table}`);
        const sender = await open({
            columns: [
                { column: 's', from: 's' },
                { column: 'device', from: 'constructor' },
            ],
        });
        await sender.send([record(1, { s: 'a' })]);
        expect((await rows()).map((r) => [r.s, r.device])).toEqual([['a', null]]);
    });

    it('writes a batch of 500 in one statement, and nothing of it when one row is refused (permanent)', async () => {
        await admin.query(`TRUNCATE ${table}`);
        const sender = await open();
        const batch = Array.from({ length: 500 }, (_, i) => record(i, { n: i, s: `row ${i}` }));
        const before = await statements();
        await sender.send(batch);
        expect(await statements()).toBe(before + 1);
        expect((await rows()).map((r) => r.n)).toEqual(batch.map((_, i) => i));

        await admin.query(`TRUNCATE ${table}`);
        const bad = batch.map((r, i) => (i === 499 ? record(i, { n: 'not a number', s: 'x' }) : r));
        const error = await expectRefusal(sender.send(bad), true, /数据不符合数据表 public\.fwd_pg_\w+ 的列类型/);
        expect(error.message).toMatch(/请检查流转 SQL/);
        expect(await rows()).toEqual([]);
    });

    it('refuses NULL in a NOT NULL column and a duplicate key as permanent, inserting none of the batch', async () => {
        await admin.query(`TRUNCATE ${table}`);
        const sender = await open({
            columns: [
                { column: 's', from: 's' },
                { column: 'rid', from: 'key' },
            ],
        });
        await expectRefusal(sender.send([record(1, { s: 'ok' }), record(2, {})]), true, /列 s 不允许为空/);
        const dup = [record(1, { s: 'a', key: 'k1' }), record(2, { s: 'b', key: 'k1' })];
        await expectRefusal(sender.send(dup), true, /违反唯一约束/);
        expect(await rows()).toEqual([]);
    });

    it('refuses a mapped column the table lacks as permanent, a missing table as transient', async () => {
        const sender = await open({ columns: [{ column: 'nope', from: 's' }] });
        await expectRefusal(sender.send([record(1, { s: 'a' })]), true, /缺少列/);
        const missing = await open({ table: `${table}_none` });
        await expectRefusal(missing.send([record(1, { s: 'a' })]), false, /数据表 public\.\w+_none 不存在，请先建表/);
    });

    it('answers a closed port with a transient error saying it cannot connect', async () => {
        const sender = await open({ port: await closedPort() });
        await expectRefusal(
            sender.send([record(1, { s: 'a' })]),
            false,
            /无法连接 PostgreSQL 127\.0\.0\.1:\d+：连接被拒绝/,
        );
        await expectRefusal(sender.test(), false, /无法连接 PostgreSQL/);
    });

    it('tests the connection: passes on a good table, names a missing table or columns', async () => {
        await expect((await open({ columns: [{ column: 's', from: 'x' }] })).test()).resolves.toBeUndefined();
        await expectRefusal((await open({ table: 'no_such_table_x' })).test(), false, /public\.no_such_table_x 不存在/);
        const columns = [
            { column: 's', from: 's' },
            { column: 'temp', from: 't' },
            { column: 'hum', from: 'h' },
        ];
        await expectRefusal((await open({ columns })).test(), false, /缺少列 temp、hum/);
    });

    it('keeps a batch beyond the parameter limit in one transaction', async () => {
        const wide = randomName('fwd_pg_wide');
        const names = Array.from({ length: 40 }, (_, i) => `c${i}`);
        await admin.query(`CREATE TABLE ${wide} (${names.map((c) => `${c} integer`).join(', ')})`);
        try {
            const sender = await open({ table: wide });
            const row = (i: number) => Object.fromEntries(names.map((c, k) => [c, i * 100 + k]));
            const batch = Array.from({ length: 2000 }, (_, i) => record(i, row(i)));
            await sender.send(batch);
            expect(Number((await admin.query(`SELECT count(*) FROM ${wide}`)).rows[0].count)).toBe(2000);
            await admin.query(`TRUNCATE ${wide}`);
            batch[1999] = record(1999, { ...row(1999), c5: 'x' });
            await expectRefusal(sender.send(batch), true, /数据不符合/);
            expect(Number((await admin.query(`SELECT count(*) FROM ${wide}`)).rows[0].count)).toBe(0);
        } finally {
            await admin.query(`DROP TABLE ${wide}`);
        }
    });
});

describe('the PostgreSQL destination configuration', () => {
    const schema = postgresDestination.schema;
    const good = { host: ' db.local ', user: 'u', database: 'd', table: ' t ' };

    it('fills defaults, trims texts and lists the password as secret', async () => {
        const config = await schema.validate(good);
        expect(config).toMatchObject({ host: 'db.local', port: 5432, schema: 'public', table: 't', ssl: false });
        expect(await schema.validate({ ...good, schema: ' ' })).toMatchObject({ schema: 'public' });
        expect(postgresDestination.secretFields).toEqual(['password']);
        expect(postgresDestination.kind).toBe('postgres');
    });

    it('refuses bad ports, unknown keys, NUL, missing table and duplicate mapped columns, naming the field', async () => {
        expect(await refusalOf(() => schema.validate({ ...good, port: 70000 }))).toBe('端口必须是 1-65535 的整数');
        expect(await refusalOf(() => schema.validate({ ...good, port: 'abc' }))).toBe('端口必须是 1-65535 的整数');
        expect(await refusalOf(() => schema.validate({ ...good, extra: 1 }))).toMatch(/未知字段：extra/);
        expect(await refusalOf(() => schema.validate({ ...good, table: 'a\u0000b' }))).toMatch(/表名含有非法字符/);
        expect(await refusalOf(() => schema.validate({ ...good, table: '' }))).toBe('请填写表名');
        const columns = [
            { column: 'a', from: 'x' },
            { column: 'a', from: 'y' },
        ];
        expect(await refusalOf(() => schema.validate({ ...good, columns }))).toMatch(/列名重复/);
        const stray = [{ column: 'a', from: 'x', type: 'int' }];
        expect(await refusalOf(() => schema.validate({ ...good, columns: stray }))).toMatch(/未知字段：type/);
    });
});
