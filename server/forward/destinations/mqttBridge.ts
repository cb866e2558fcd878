import { randomBytes } from 'node:crypto';
import mqtt, { type IClientOptions, type MqttClient } from 'mqtt';
import * as yup from 'yup';
import { defaultBody } from './body';
import { flag, optionalText, requiredText, secret, UNKNOWN_FIELDS } from './fields';
import { describeNetError } from './netError';
import { renderTemplate } from './template';
import { DestinationError, type DestinationKind, type ForwardRecord, type Sender, type SenderContext } from './types';

const schema = yup
    .object({
        url: requiredText('服务器地址', 1024).matches(/^mqtts?:\/\/[^\s/]+/, {
            message: '服务器地址格式不正确：应为 mqtt://主机:端口 或 mqtts://主机:端口',
            excludeEmptyString: true,
        }),
        // Generated once when the configuration is saved, so the bridge keeps its client id across restarts.
        clientId: optionalText('客户端标识', 128).default(() => `iot-forward-${randomBytes(6).toString('hex')}`),
        username: optionalText('用户名'),
        password: secret('密码'),
        topicTemplate: requiredText('主题模板', 1024),
        qos: yup
            .number()
            .typeError('QoS应为 0 或 1')
            .oneOf([0, 1] as const, 'QoS应为 0 或 1')
            .default(1),
        retain: flag('保留消息', false),
    })
    .exact(UNKNOWN_FIELDS);

export type MqttBridgeConfig = yup.InferType<typeof schema>;

const CONNECT_TIMEOUT_MS = 5_000;
const RECONNECT_PERIOD_MS = 2_000;

/** MQTT bridge: each row published to another broker, resolved once every QoS 1 PUBACK came. */
export const mqttBridgeDestination: DestinationKind<MqttBridgeConfig> = {
    kind: 'mqtt',
    label: 'MQTT 桥接',
    schema,
    secretFields: ['password'],
    open: (config, context) => new MqttBridgeSender(config, context),
};

/** Why a broker refused the CONNECT (MQTT 3.1.1 return codes and their MQTT 5 counterparts). */
const REFUSALS: Record<number, string> = {
    1: '协议版本不受支持',
    2: '客户端标识被拒绝',
    3: '服务不可用',
    4: '用户名或密码错误',
    // Mosquitto and aedes answer 5 to a wrong password as well as to a refused user.
    5: '用户名或密码错误，或未获授权',
    133: '客户端标识被拒绝',
    134: '用户名或密码错误',
    135: '用户名或密码错误，或未获授权',
};

class MqttBridgeSender implements Sender {
    private client?: MqttClient;
    private firstConnect?: Promise<MqttClient>;
    private closed = false;

    constructor(
        private readonly config: MqttBridgeConfig,
        private readonly context: SenderContext,
    ) {}

    async send(records: ForwardRecord[]): Promise<void> {
        const client = await this.connected();
        const { topicTemplate, retain } = this.config;
        const qos = this.config.qos === 0 ? 0 : 1;
        const closed = rejectOnClose(client);
        try {
            const topics = records.map((record) => publishTopic(topicTemplate, record));
            const acks = records.map((record, i) =>
                client.publishAsync(topics[i], defaultBody(record), { qos, retain }),
            );
            await Promise.race([Promise.all(acks), closed.promise]);
        } catch (err) {
            forgetUnacknowledged(client);
            throw this.publishFailure(err);
        } finally {
            closed.dispose();
        }
    }

    /** Connects a client of its own (no reconnect) within 5 s, and names why the broker refused. */
    async test(): Promise<void> {
        const client = mqtt.connect(this.config.url, { ...this.options(), reconnectPeriod: 0 });
        try {
            await firstConnect(client);
        } catch (err) {
            throw this.connectFailure(err);
        } finally {
            await client.endAsync(true).catch(() => undefined);
        }
    }

    async close(): Promise<void> {
        this.closed = true;
        const client = this.client;
        this.client = undefined;
        this.firstConnect = undefined;
        await client?.endAsync(true).catch(() => undefined);
    }

    /**
     * The connected client: the first send waits for the first connect; later, while mqtt.js reconnects, a send
     * fails at once rather than queueing in the client with no bound.
     */
    private async connected(): Promise<MqttClient> {
        if (this.closed) throw new DestinationError('发送器已关闭', false);
        if (this.firstConnect) return this.firstConnect;
        if (!this.client) {
            const client = this.createClient();
            this.firstConnect = firstConnect(client).then(
                () => ((this.firstConnect = undefined), client),
                (err: unknown) => {
                    this.client = this.firstConnect = undefined;
                    void client.endAsync(true).catch(() => undefined);
                    throw this.connectFailure(err);
                },
            );
            this.client = client;
            return this.firstConnect;
        }
        if (!this.client.connected)
            throw new DestinationError(`MQTT 服务器 ${this.target()} 连接已断开，正在重连`, false);
        return this.client;
    }

    private createClient(): MqttClient {
        const client = mqtt.connect(this.config.url, this.options());
        let wasConnected = false;
        client.on('error', (err) => {
            if (wasConnected) this.context.log(`MQTT 桥接 ${this.target()} 出错 / error: ${err.message}`);
        });
        client.on('connect', () => {
            if (wasConnected) this.context.log(`MQTT 桥接 ${this.target()} 已重连 / reconnected`);
            wasConnected = true;
        });
        client.on('offline', () => this.context.log(`MQTT 桥接 ${this.target()} 连接已断开 / offline`));
        return client;
    }

    private options(): IClientOptions {
        const { clientId, username, password } = this.config;
        return {
            clientId,
            username,
            password,
            clean: true,
            connectTimeout: CONNECT_TIMEOUT_MS,
            reconnectPeriod: RECONNECT_PERIOD_MS,
            queueQoSZero: false,
        };
    }

    private target(): string {
        return this.config.url.replace(/^mqtts?:\/\//, '');
    }

    private connectFailure(err: unknown): DestinationError {
        const code = (err as { code?: unknown }).code;
        const refusal = typeof code === 'number' ? REFUSALS[code] : undefined;
        const message = refusal
            ? `MQTT 服务器 ${this.target()} 拒绝连接：${refusal}`
            : describeNetError(err, `MQTT 服务器 ${this.target()}`);
        return new DestinationError(message, false, { cause: err });
    }

    private publishFailure(err: unknown): DestinationError {
        if (err instanceof DestinationError) return err;
        const text = err instanceof Error ? err.message : String(err);
        return new DestinationError(`MQTT 发布失败，稍后重试：${text}`, false, { cause: err });
    }
}

/**
 * The record's topic. One that is empty or holds a wildcard (+ #) cannot be published however often it is retried (a
 * broker disconnects the client for it): permanent, so the caller dead-letters that record alone.
 */
function publishTopic(template: string, record: ForwardRecord): string {
    const topic = renderTemplate(template, record);
    if (topic === '' || /[+#]/.test(topic) || topic.includes('\u0000'))
        throw new DestinationError(`MQTT 主题无效（为空或含通配符 + #）：${topic}`, true);
    return topic;
}

/** Resolves on the client's first CONNACK; rejects on its first error, or when none came within the timeout. */
function firstConnect(client: MqttClient): Promise<void> {
    return new Promise<void>((resolve, reject) => {
        const timer = setTimeout(
            () => finish(Object.assign(new Error('连接超时'), { code: 'ETIMEDOUT' })),
            CONNECT_TIMEOUT_MS,
        );
        const finish = (err?: Error) => {
            clearTimeout(timer);
            client.off('connect', onConnect);
            client.off('error', finish);
            if (err) reject(err);
            else resolve();
        };
        const onConnect = () => finish();
        client.once('connect', onConnect);
        client.once('error', finish);
    });
}

/** A promise that rejects when the client's connection closes, so pending PUBACKs do not wait for a reconnect. */
function rejectOnClose(client: MqttClient): { promise: Promise<never>; dispose: () => void } {
    let onClose = (): void => undefined;
    const promise = new Promise<never>((_, reject) => {
        onClose = () => reject(new DestinationError('MQTT 连接在确认前断开，消息未确认，稍后重试', false));
        client.once('close', onClose);
    });
    promise.catch(() => undefined);
    return { promise, dispose: () => void client.off('close', onClose) };
}

/**
 * Drops the publishes still waiting for their PUBACK from the client's store: a failed send is retried whole by its
 * caller, and mqtt.js would otherwise send them again itself on reconnecting, a second copy that may arrive after
 * newer records of the same device.
 */
function forgetUnacknowledged(client: MqttClient) {
    for (const id of Object.keys(client.outgoing)) client.removeOutgoingMessage(Number(id));
}
