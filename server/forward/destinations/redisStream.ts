import { Redis } from 'ioredis';
import * as yup from 'yup';
import { host, integer, port, requiredText, text, UNKNOWN_FIELDS } from './fields';
import { messageOf, networkReason } from './network';
import { renderTemplate } from './template';
import { DestinationError, type DestinationKind, type ForwardRecord, type Sender, type SenderContext } from './types';

/**
 * Redis Stream: each batch is one MULTI/EXEC of XADD, one entry per record, in order, to the stream its template names
 * ('iot:${productKey}'). An entry's fields are the selected columns (objects as JSON, null as the empty string) and
 * `_id` (the record's id, to de-duplicate a retried batch), `_device` (productKey/deviceName) and `_ts` (ms). The
 * connection does not retry by itself: a send that finds it closed connects again, a failed connect is transient.
 */

const schema = yup
    .object({
        host: host(),
        port: port(6379),
        password: text('密码', 1000),
        db: integer('数据库编号', 0, 255).default(0),
        streamTemplate: requiredText('Stream 键模板', 500),
        maxLen: integer('最大长度（MAXLEN）', 1, 1_000_000_000).optional(),
    })
    .exact(UNKNOWN_FIELDS);

export type RedisStreamConfig = yup.InferType<typeof schema>;

/** The fields the destination writes itself: a selected column of the same name gives way. */
const OWN_FIELDS = new Set(['_id', '_device', '_ts']);

const fieldText = (value: unknown) =>
    value === null || value === undefined ? '' : typeof value === 'object' ? JSON.stringify(value) : String(value);

/** XADD's arguments after the command: key, [MAXLEN ~ n], *, field value ... */
function xaddArgs(config: RedisStreamConfig, record: ForwardRecord): string[] {
    const key = renderTemplate(config.streamTemplate, record);
    if (!key)
        throw new DestinationError(`Stream 键模板“${config.streamTemplate}”对该记录生成了空的键名，请修改模板`, true);
    const args = config.maxLen ? [key, 'MAXLEN', '~', String(config.maxLen), '*'] : [key, '*'];
    for (const name in record.row) if (!OWN_FIELDS.has(name)) args.push(name, fieldText(record.row[name]));
    args.push('_id', record.id, '_device', `${record.productKey}/${record.deviceName}`, '_ts', String(record.ts));
    return args;
}

/**
 * Connects when not connected (first use, or after the connection was lost). ioredis rejects a failed connect with
 * "Connection is closed."; the socket's own error (ECONNREFUSED, ...) came before as an 'error' event: that one is
 * thrown, so the message says why.
 */
async function ready(redis: Redis) {
    if (redis.status !== 'wait' && redis.status !== 'end' && redis.status !== 'close') return;
    let cause: Error | undefined;
    const remember = (error: Error) => (cause = error);
    redis.on('error', remember);
    try {
        await redis.connect();
    } catch (error) {
        throw cause ?? error;
    } finally {
        redis.off('error', remember);
    }
}

/** A failure as a DestinationError: a key of another type is permanent, the rest transient. */
function explain(error: unknown, config: RedisStreamConfig): DestinationError {
    if (error instanceof DestinationError) return error;
    const message = messageOf(error);
    const network = networkReason(error);
    const transient = (text: string) => new DestinationError(text, false, { cause: error });
    if (message.startsWith('WRONGTYPE'))
        return new DestinationError(`目标键已存在且不是 Stream，请换一个键名或删除该键：${message}`, true, {
            cause: error,
        });
    if (/NOAUTH|WRONGPASS|invalid password/i.test(message)) return transient(`Redis 认证失败，请检查密码：${message}`);
    if (message.startsWith('OOM')) return transient(`Redis 内存已满，请清理数据或设置最大长度（MAXLEN）：${message}`);
    if (network) return transient(`无法连接 Redis ${config.host}:${config.port}：${network}`);
    return transient(`Redis 返回错误：${message}`);
}

async function addBatch(redis: Redis, config: RedisStreamConfig, records: ForwardRecord[]) {
    if (!records.length) return;
    const transaction = redis.multi();
    for (const record of records) transaction.call('XADD', xaddArgs(config, record));
    await ready(redis);
    const results = await transaction.exec();
    if (!results) throw new DestinationError('Redis 事务被中止，请重试');
    const failed = results.find(([error]) => error);
    if (failed) throw failed[0];
}

/** PING, and a key without placeholders must be a stream or not exist yet. */
async function check(redis: Redis, config: RedisStreamConfig) {
    await ready(redis);
    await redis.ping();
    if (config.streamTemplate.includes('${')) return;
    const type = await redis.type(config.streamTemplate);
    if (type !== 'none' && type !== 'stream')
        throw new DestinationError(
            `键 ${config.streamTemplate} 已存在且类型为 ${type}，不是 Stream：请换一个键名或删除该键`,
        );
}

function connection(config: RedisStreamConfig, context: SenderContext): Redis {
    const redis = new Redis({
        host: config.host,
        port: config.port,
        password: config.password || undefined,
        db: config.db,
        // Named in CLIENT LIST, so an operator sees which connections forwarding holds.
        connectionName: 'iot-forward',
        lazyConnect: true,
        connectTimeout: 10_000,
        // No reconnecting in the background: the next send connects again and its failure is the caller's retry.
        retryStrategy: () => null,
        maxRetriesPerRequest: 0,
    });
    redis.on('error', (error: Error) =>
        context.log(`Redis Stream 目的地连接出错 / Redis Stream destination connection error: ${error.message}`),
    );
    return redis;
}

function open(config: RedisStreamConfig, context: SenderContext): Sender {
    const redis = connection(config, context);
    return {
        send: (records) =>
            addBatch(redis, config, records).catch((error: unknown) => Promise.reject(explain(error, config))),
        test: () => check(redis, config).catch((error: unknown) => Promise.reject(explain(error, config))),
        close: async () => {
            redis.disconnect();
        },
    };
}

export const redisStreamDestination: DestinationKind<RedisStreamConfig> = {
    kind: 'redisStream',
    label: 'Redis Stream',
    schema,
    secretFields: ['password'],
    open,
};
