import pg from 'pg';
import * as yup from 'yup';
import { survivesLostConnections } from '../../db/lostConnections';
import { columnMappings, flag, host, identifier, port, requiredText, text, UNKNOWN_FIELDS } from './fields';
import { messageOf, networkReason } from './network';
import { insertRows, mappedColumns, type InsertRows } from './rows';
import { DestinationError, type DestinationKind, type ForwardRecord, type Sender, type SenderContext } from './types';

/**
 * PostgreSQL 数据表: each batch is one multi-row parameterized INSERT (one statement is one transaction: the batch
 * lands whole or not at all), over a pool of at most 2 connections. Values the table refuses (SQLSTATE class 22 and
 * 23, an unknown column) are permanent; a lost connection, a missing table or permission is transient: the flow
 * waits until the operator fixes it.
 */

const schema = yup
    .object({
        host: host(),
        port: port(5432),
        user: requiredText('用户名', 63),
        password: text('密码', 1000),
        database: identifier('数据库名', 63),
        schema: text('模式名', 63)
            .transform((v: string) => v || undefined)
            .default('public'),
        table: identifier('表名', 63),
        columns: columnMappings(63),
        ssl: flag('启用 SSL'),
    })
    .exact(UNKNOWN_FIELDS);

export type PostgresConfig = yup.InferType<typeof schema>;

/** PostgreSQL's limit of parameters in one statement: larger batches go in several statements of one transaction. */
const MAX_PARAMETERS = 65_535;

export const quoteIdent = (name: string) => `"${name.replace(/"/g, '""')}"`;

const targetOf = (config: PostgresConfig) => `${config.schema}.${config.table}`;

/** `INSERT INTO "s"."t" ("a","b") VALUES ($1,$2),($3,$4)` for `rows` rows. */
function insertText(config: PostgresConfig, columns: string[], rows: number): string {
    const tuples: string[] = new Array(rows);
    let n = 1;
    for (let r = 0; r < rows; r++) {
        const params: string[] = new Array(columns.length);
        for (let c = 0; c < columns.length; c++) params[c] = `$${n++}`;
        tuples[r] = `(${params.join(',')})`;
    }
    const table = `${quoteIdent(config.schema)}.${quoteIdent(config.table)}`;
    return `INSERT INTO ${table} (${columns.map(quoteIdent).join(',')}) VALUES ${tuples.join(',')}`;
}

/** The statements of a batch: one, unless its values pass the parameter limit. */
function statements(config: PostgresConfig, rows: InsertRows): Array<{ text: string; values: unknown[] }> {
    const width = rows.columns.length;
    const total = rows.values.length / width;
    const perStatement = Math.floor(MAX_PARAMETERS / width);
    const out = [];
    for (let first = 0; first < total; first += perStatement) {
        const count = Math.min(perStatement, total - first);
        const values = rows.values.slice(first * width, (first + count) * width);
        out.push({ text: insertText(config, rows.columns, count), values });
    }
    return out;
}

/** Several statements in one transaction, so the batch still lands whole or not at all. */
async function inTransaction(pool: pg.Pool, list: Array<{ text: string; values: unknown[] }>) {
    const client = await pool.connect();
    try {
        await client.query('BEGIN');
        for (const statement of list) await client.query(statement.text, statement.values);
        await client.query('COMMIT');
        client.release();
    } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        client.release(true);
        throw error;
    }
}

/** A refusal of the database, by its SQLSTATE: permanent when it is about the batch's values. */
function databaseError(error: pg.DatabaseError, config: PostgresConfig): DestinationError {
    const target = targetOf(config);
    const code = error.code ?? '';
    const detail = error.detail ? `${error.message}（${error.detail}）` : error.message;
    const permanent = (message: string) => new DestinationError(message, true, { cause: error });
    const transient = (message: string) => new DestinationError(message, false, { cause: error });
    if (code === '23502')
        return permanent(
            `数据表 ${target} 的列 ${error.column ?? ''} 不允许为空：请在流转 SQL 中选出该值或为该列设置默认值`,
        );
    if (code === '23505') return permanent(`写入数据表 ${target} 违反唯一约束：${detail}`);
    if (code.startsWith('23')) return permanent(`写入数据表 ${target} 违反约束 ${error.constraint ?? ''}：${detail}`);
    if (code.startsWith('22') || code === '42804')
        return permanent(`数据不符合数据表 ${target} 的列类型或取值范围：${detail}。请检查流转 SQL 选出的值或列映射`);
    if (code === '42703') return permanent(`数据表 ${target} 缺少列：${detail}。请为表添加该列或修改列映射`);
    if (code === '42P01') return transient(`数据表 ${target} 不存在，请先建表或修改表名`);
    if (code === '3F000') return transient(`模式 ${config.schema} 不存在，请先创建模式或修改模式名`);
    if (code === '42501') return transient(`用户 ${config.user} 没有写入数据表 ${target} 的权限，请授予 INSERT 权限`);
    if (code === '28P01' || code === '28000') return transient(`PostgreSQL 认证失败，请检查用户名和密码：${detail}`);
    if (code === '3D000') return transient(`数据库 ${config.database} 不存在，请检查数据库名`);
    return transient(`PostgreSQL 返回错误（${code}）：${detail}`);
}

/** Any failure of a send or a test as a DestinationError with its Chinese explanation. */
function explain(error: unknown, config: PostgresConfig): DestinationError {
    if (error instanceof DestinationError) return error;
    if (error instanceof pg.DatabaseError) return databaseError(error, config);
    const reason = networkReason(error) ?? messageOf(error);
    return new DestinationError(`无法连接 PostgreSQL ${config.host}:${config.port}：${reason}`, false, {
        cause: error,
    });
}

async function insertBatch(pool: pg.Pool, config: PostgresConfig, records: ForwardRecord[]) {
    if (!records.length) return;
    const rows = insertRows(records, config.columns);
    if (!rows.columns.length) throw new DestinationError('流转 SQL 没有选出任何字段，无法写入数据表', true);
    const list = statements(config, rows);
    if (list.length === 1) await pool.query(list[0].text, list[0].values);
    else await inTransaction(pool, list);
}

/** The table exists, the user may insert into it, and it has every mapped column. */
async function checkTable(pool: pg.Pool, config: PostgresConfig) {
    const target = targetOf(config);
    const { rows } = await pool.query<{ column_name: string }>(
        'SELECT column_name FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2',
        [config.schema, config.table],
    );
    if (!rows.length) throw new DestinationError(`数据表 ${target} 不存在（或当前用户无权访问），请先建表或修改表名`);
    const have = new Set(rows.map((r) => r.column_name));
    const missing = mappedColumns(config.columns).filter((c) => !have.has(c));
    if (missing.length)
        throw new DestinationError(`数据表 ${target} 缺少列 ${missing.join('、')}，请为表添加这些列或修改列映射`);
    const privilege = await pool.query<{ can: boolean }>(
        "SELECT has_table_privilege(format('%I.%I', $1::text, $2::text), 'INSERT') AS can",
        [config.schema, config.table],
    );
    if (!privilege.rows[0]?.can)
        throw new DestinationError(`用户 ${config.user} 没有写入数据表 ${target} 的权限，请授予 INSERT 权限`);
}

function makePool(config: PostgresConfig, context: SenderContext): pg.Pool {
    const pool = new pg.Pool({
        host: config.host,
        port: config.port,
        user: config.user,
        password: config.password,
        database: config.database,
        ssl: config.ssl ? {} : false,
        max: 2,
        connectionTimeoutMillis: 10_000,
        idleTimeoutMillis: 30_000,
        application_name: 'iot-forward',
    });
    // An idle connection that breaks must not crash the process, nor one lost in a batch's transaction: the next
    // send reconnects.
    pool.on('error', (error) =>
        context.log(`PostgreSQL 目的地连接断开 / PostgreSQL destination connection lost: ${error.message}`),
    );
    survivesLostConnections(pool);
    return pool;
}

function open(config: PostgresConfig, context: SenderContext): Sender {
    const pool = makePool(config, context);
    return {
        send: (records) =>
            insertBatch(pool, config, records).catch((error: unknown) => Promise.reject(explain(error, config))),
        test: () => checkTable(pool, config).catch((error: unknown) => Promise.reject(explain(error, config))),
        close: () => pool.end(),
    };
}

export const postgresDestination: DestinationKind<PostgresConfig> = {
    kind: 'postgres',
    label: 'PostgreSQL 数据表',
    schema,
    secretFields: ['password'],
    open,
};
