import mysql from 'mysql2/promise';
import * as yup from 'yup';
import { columnMappings, flag, host, identifier, port, requiredText, text, UNKNOWN_FIELDS } from './fields';
import { messageOf, networkReason } from './network';
import { insertRows, mappedColumns } from './rows';
import { DestinationError, type DestinationKind, type ForwardRecord, type Sender } from './types';

/**
 * MySQL / MariaDB 数据表: each batch is one multi-row INSERT with `?` parameters (mysql2 escapes the values; one
 * statement on InnoDB lands whole or not at all), over a pool of at most 2 connections. Values the table refuses (SQL
 * states 22 and 23, an unknown column, strict mode's refusals) are permanent; a lost connection, a missing table or
 * permission is transient. `$ts` is written in UTC (the pool's time zone 'Z').
 */

/** mysql2 fills `?` everywhere in the text, even inside a quoted name: names may not hold one. */
const mysqlName = (label: string) =>
    identifier(label, 64).test('question', `${label}不能包含问号（?）`, (v) => !v || !v.includes('?'));

const schema = yup
    .object({
        host: host(),
        port: port(3306),
        user: requiredText('用户名', 80),
        password: text('密码', 1000),
        database: mysqlName('数据库名'),
        table: mysqlName('表名'),
        columns: columnMappings(64).test(
            'question',
            '列名不能包含问号（?）',
            (list) => !list?.some((m) => m.column.includes('?')),
        ),
        ssl: flag('启用 SSL'),
    })
    .exact(UNKNOWN_FIELDS);

export type MysqlConfig = yup.InferType<typeof schema>;

/** Errors about the batch's values that a retry cannot fix, besides SQL states 22 and 23 (by errno). */
const PERMANENT_ERRNOS = new Set([
    1054, // ER_BAD_FIELD_ERROR: unknown column
    1265, // WARN_DATA_TRUNCATED (an error in strict mode)
    1292, // ER_TRUNCATED_WRONG_VALUE
    1364, // ER_NO_DEFAULT_FOR_FIELD
    1366, // ER_TRUNCATED_WRONG_VALUE_FOR_FIELD
    3819, // ER_CHECK_CONSTRAINT_VIOLATED (MySQL)
    4025, // ER_CONSTRAINT_FAILED (MariaDB: a CHECK, json_valid of a JSON column)
]);

type ServerError = Error & { errno: number; sqlState: string; code?: string };

const quoteIdent = (name: string) => `\`${name.replace(/`/g, '``')}\``;

const targetOf = (config: MysqlConfig) => `${config.database}.${config.table}`;

/** `INSERT INTO `d`.`t` (`a`,`b`) VALUES (?,?),(?,?)` for `rows` rows. */
function insertText(config: MysqlConfig, columns: string[], rows: number): string {
    const tuple = `(${new Array(columns.length).fill('?').join(',')})`;
    const table = `${quoteIdent(config.database)}.${quoteIdent(config.table)}`;
    return `INSERT INTO ${table} (${columns.map(quoteIdent).join(',')}) VALUES ${new Array(rows).fill(tuple).join(',')}`;
}

const isServerError = (error: unknown): error is ServerError =>
    error instanceof Error && typeof (error as ServerError).sqlState === 'string' && 'errno' in error;

/** A refusal of the server: permanent when it is about the batch's values. */
function serverError(error: ServerError, config: MysqlConfig): DestinationError {
    const target = targetOf(config);
    const permanent = (message: string) => new DestinationError(message, true, { cause: error });
    const transient = (message: string) => new DestinationError(message, false, { cause: error });
    const { errno, sqlState, message } = error;
    if (errno === 1048)
        return permanent(`数据表 ${target} 的列不允许为空（${message}）：请在流转 SQL 中选出该值或为列设置默认值`);
    if (errno === 1062) return permanent(`写入数据表 ${target} 违反唯一约束：${message}`);
    if (errno === 1054) return permanent(`数据表 ${target} 缺少列：${message}。请为表添加该列或修改列映射`);
    if (sqlState.startsWith('23') || errno === 3819 || errno === 4025)
        return permanent(`写入数据表 ${target} 违反约束：${message}`);
    if (sqlState.startsWith('22') || PERMANENT_ERRNOS.has(errno))
        return permanent(`数据不符合数据表 ${target} 的列类型或取值范围：${message}。请检查流转 SQL 选出的值或列映射`);
    if (errno === 1146) return transient(`数据表 ${target} 不存在，请先建表或修改表名`);
    if (errno === 1049) return transient(`数据库 ${config.database} 不存在，请检查数据库名`);
    if (errno === 1045) return transient(`MySQL 认证失败，请检查用户名和密码：${message}`);
    if (errno === 1044 || errno === 1142)
        return transient(`用户 ${config.user} 没有写入数据表 ${target} 的权限，请授予 INSERT 权限：${message}`);
    return transient(`MySQL 返回错误（${error.code ?? errno}）：${message}`);
}

/** Any failure of a send or a test as a DestinationError with its Chinese explanation. */
function explain(error: unknown, config: MysqlConfig): DestinationError {
    if (error instanceof DestinationError) return error;
    if (isServerError(error)) return serverError(error, config);
    const reason = networkReason(error) ?? messageOf(error);
    return new DestinationError(`无法连接 MySQL ${config.host}:${config.port}：${reason}`, false, { cause: error });
}

async function insertBatch(pool: mysql.Pool, config: MysqlConfig, records: ForwardRecord[]) {
    if (!records.length) return;
    const rows = insertRows(records, config.columns);
    if (!rows.columns.length) throw new DestinationError('流转 SQL 没有选出任何字段，无法写入数据表', true);
    await pool.query(insertText(config, rows.columns, records.length), rows.values);
}

/** The table exists and has every mapped column (MySQL's column names are case-insensitive). */
async function checkTable(pool: mysql.Pool, config: MysqlConfig) {
    const target = targetOf(config);
    const [rows] = await pool.query<mysql.RowDataPacket[]>(
        'SELECT COLUMN_NAME AS name FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?',
        [config.database, config.table],
    );
    if (!rows.length) throw new DestinationError(`数据表 ${target} 不存在（或当前用户无权访问），请先建表或修改表名`);
    const have = new Set(rows.map((r) => String(r.name).toLowerCase()));
    const missing = mappedColumns(config.columns).filter((c) => !have.has(c.toLowerCase()));
    if (missing.length)
        throw new DestinationError(`数据表 ${target} 缺少列 ${missing.join('、')}，请为表添加这些列或修改列映射`);
}

function makePool(config: MysqlConfig): mysql.Pool {
    return mysql.createPool({
        host: config.host,
        port: config.port,
        user: config.user,
        password: config.password,
        database: config.database,
        ssl: config.ssl ? {} : undefined,
        connectionLimit: 2,
        maxIdle: 2,
        idleTimeout: 30_000,
        connectTimeout: 10_000,
        timezone: 'Z',
        charset: 'utf8mb4',
    });
}

function open(config: MysqlConfig): Sender {
    const pool = makePool(config);
    return {
        send: (records) =>
            insertBatch(pool, config, records).catch((error: unknown) => Promise.reject(explain(error, config))),
        test: () => checkTable(pool, config).catch((error: unknown) => Promise.reject(explain(error, config))),
        close: () => pool.end(),
    };
}

export const mysqlDestination: DestinationKind<MysqlConfig> = {
    kind: 'mysql',
    label: 'MySQL / MariaDB 数据表',
    schema,
    secretFields: ['password'],
    open,
};
