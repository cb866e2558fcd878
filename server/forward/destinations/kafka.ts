import {
    Kafka,
    logLevel,
    Partitioners,
    type Message,
    type Producer,
    type SASLOptions,
    type TopicMessages,
} from 'kafkajs';
import * as yup from 'yup';
import { defaultBody, SAMPLE_RECORD } from './body';
import { flag, requiredText, secret, textWithDefault, UNKNOWN_FIELDS } from './fields';
import { describeNetError } from './netError';
import { renderTemplate } from './template';
import { DestinationError, type DestinationKind, type ForwardRecord, type Sender, type SenderContext } from './types';

const BROKER = /^[^\s:,]+:\d{1,5}$/;

const saslSchema = yup
    .object({
        mechanism: yup
            .string()
            .trim()
            .oneOf(
                ['plain', 'scram-sha-256', 'scram-sha-512'] as const,
                'SASL 机制应为 plain、scram-sha-256 或 scram-sha-512',
            )
            .required('请选择 SASL 机制'),
        username: requiredText('SASL 用户名'),
        password: secret('SASL 密码').required('请填写 SASL 密码'),
    })
    .exact(UNKNOWN_FIELDS)
    .default(undefined)
    .optional();

const schema = yup
    .object({
        brokers: requiredText('Broker 地址', 1024).test(
            'brokers',
            'Broker 地址格式不正确：应为 主机:端口，多个以逗号分隔',
            (value) => value === undefined || brokerList(value).every((b) => BROKER.test(b)),
        ),
        clientId: textWithDefault('客户端标识', 'iot-forward', 128),
        topicTemplate: requiredText('主题模板', 1024),
        ssl: flag('SSL', false),
        sasl: saslSchema,
        acks: yup
            .number()
            .typeError('确认级别应为 -1（全部副本）或 1（仅 leader）')
            .oneOf([-1, 1] as const, '确认级别应为 -1（全部副本）或 1（仅 leader）')
            .default(-1),
    })
    .exact(UNKNOWN_FIELDS);

export type KafkaConfig = yup.InferType<typeof schema>;

/**
 * Short timeouts and few retries: the delivery loop retries a failed batch itself, so kafkajs should give up within
 * seconds (its defaults retry an idempotent producer forever) and let the flow show why.
 */
export const KAFKA_TIMEOUTS = {
    connectionTimeout: 3_000,
    requestTimeout: 10_000,
    retry: { retries: 3, initialRetryTime: 100, maxRetryTime: 1_000 },
};

/** Kafka: rows keyed by productKey/deviceName (one partition per device, so its order), resolved on the acks. */
export const kafkaDestination: DestinationKind<KafkaConfig> = {
    kind: 'kafka',
    label: 'Kafka',
    schema,
    // The contract names top-level fields: the whole SASL block (mechanism, user, password) is stored encrypted.
    secretFields: ['sasl'],
    open: (config, context) => new KafkaSender(config, context),
};

function brokerList(brokers: string): string[] {
    return brokers
        .split(',')
        .map((b) => b.trim())
        .filter(Boolean);
}

class KafkaSender implements Sender {
    private readonly kafka: Kafka;
    private readonly producer: Producer;
    private connecting?: Promise<void>;
    private closed = false;

    constructor(
        private readonly config: KafkaConfig,
        private readonly context: SenderContext,
    ) {
        this.kafka = new Kafka({
            clientId: config.clientId,
            brokers: brokerList(config.brokers),
            ssl: config.ssl,
            sasl: config.sasl as SASLOptions | undefined,
            ...KAFKA_TIMEOUTS,
            logLevel: logLevel.NOTHING,
        });
        // Idempotent (the broker drops a retried duplicate) needs acks from all replicas.
        this.producer = this.kafka.producer({
            idempotent: config.acks === -1,
            maxInFlightRequests: 1,
            allowAutoTopicCreation: false,
            createPartitioner: Partitioners.DefaultPartitioner,
        });
        this.producer.on(this.producer.events.DISCONNECT, () => {
            this.connecting = undefined;
            if (!this.closed) this.context.log(`Kafka ${config.brokers} 连接已断开 / disconnected`);
        });
    }

    async send(records: ForwardRecord[]): Promise<void> {
        await this.connect();
        try {
            await this.producer.sendBatch({
                topicMessages: byTopic(this.config.topicTemplate, records),
                acks: this.config.acks,
            });
        } catch (err) {
            throw this.failure(err);
        }
    }

    /** Connects an admin client and checks the sample record's topic exists. */
    async test(): Promise<void> {
        const admin = this.kafka.admin();
        const topic = renderTemplate(this.config.topicTemplate, SAMPLE_RECORD);
        try {
            await admin.connect();
            await admin.fetchTopicMetadata({ topics: [topic] });
        } catch (err) {
            throw this.failure(err, topic);
        } finally {
            await admin.disconnect().catch(() => undefined);
        }
    }

    async close(): Promise<void> {
        this.closed = true;
        await this.producer.disconnect().catch(() => undefined);
    }

    private connect(): Promise<void> {
        if (this.closed) return Promise.reject(new DestinationError('发送器已关闭', false));
        if (!this.connecting) {
            const connecting = this.producer.connect().catch((err: unknown) => {
                if (this.connecting === connecting) this.connecting = undefined;
                throw this.failure(err);
            });
            this.connecting = connecting;
        }
        return this.connecting;
    }

    private failure(err: unknown, topic?: string): DestinationError {
        if (err instanceof DestinationError) return err;
        const brokers = `Kafka ${this.config.brokers}`;
        const chain = causes(err);
        const protocol = String(chain.find((e) => typeof e.type === 'string')?.type ?? '');
        if (chain.some((e) => e.name === 'KafkaJSSASLAuthenticationError'))
            return new DestinationError(`${brokers} 认证失败：用户名或密码错误`, false, { cause: err });
        if (Object.hasOwn(PROTOCOL_ERRORS, protocol)) {
            const [message, permanent] = PROTOCOL_ERRORS[protocol];
            return new DestinationError(`${brokers}：${message}${topic ? `（主题 ${topic}）` : ''}`, permanent, {
                cause: err,
            });
        }
        const connection = chain.find((e) => e.name === 'KafkaJSConnectionError' || typeof e.code === 'string');
        if (connection) return new DestinationError(describeNetError(connection, brokers), false, { cause: err });
        const last = chain[chain.length - 1];
        return new DestinationError(`${brokers} 发送失败，稍后重试：${last?.message ?? String(err)}`, false, {
            cause: err,
        });
    }
}

/** The broker's refusals worth a Chinese explanation, and whether retrying the same records can succeed. */
const PROTOCOL_ERRORS: Record<string, [string, boolean]> = {
    UNKNOWN_TOPIC_OR_PARTITION: ['主题不存在，请先创建主题', false],
    TOPIC_AUTHORIZATION_FAILED: ['无权写入主题', false],
    CLUSTER_AUTHORIZATION_FAILED: ['无权使用幂等生产者（需要 IdempotentWrite 权限）', false],
    INVALID_TOPIC_EXCEPTION: ['主题名称无效', true],
    MESSAGE_TOO_LARGE: ['消息超过 Broker 允许的大小', true],
    RECORD_LIST_TOO_LARGE: ['消息超过 Broker 允许的大小', true],
    INVALID_RECORD: ['Broker 拒绝了消息', true],
};

type KafkaErrorLike = Error & { type?: unknown; code?: unknown };

/** The error and what caused it (kafkajs keeps the cause in `cause` or `originalError`). */
function causes(err: unknown): KafkaErrorLike[] {
    const chain: KafkaErrorLike[] = [];
    for (let e = err; e instanceof Error && chain.length < 6;) {
        chain.push(e);
        const next = (e as { originalError?: unknown }).originalError ?? e.cause;
        e = next === e ? undefined : next;
    }
    return chain;
}

/** The records as kafkajs's topic batches, in order within each topic, keyed so one device stays on one partition. */
function byTopic(template: string, records: ForwardRecord[]): TopicMessages[] {
    const topics = new Map<string, Message[]>();
    for (const record of records) {
        const topic = renderTemplate(template, record);
        let messages = topics.get(topic);
        if (!messages) topics.set(topic, (messages = []));
        messages.push({
            key: `${record.productKey}/${record.deviceName}`,
            value: defaultBody(record),
            headers: { messageId: record.id },
        });
    }
    return Array.from(topics, ([topic, messages]) => ({ topic, messages }));
}
