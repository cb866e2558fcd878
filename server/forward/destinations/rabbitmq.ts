import pTimeout from 'p-timeout';
import amqp, { type ChannelModel, type ConfirmChannel } from 'amqplib';
import * as yup from 'yup';
import { defaultBody } from './body';
import { flag, port, requiredText, secret, textWithDefault, UNKNOWN_FIELDS } from './fields';
import { describeNetError } from './netError';
import { renderTemplate } from './template';
import { DestinationError, type DestinationKind, type ForwardRecord, type Sender, type SenderContext } from './types';

const schema = yup
    .object({
        host: requiredText('主机'),
        port: port(5672),
        username: textWithDefault('用户名', 'guest'),
        password: secret('密码'),
        vhost: textWithDefault('虚拟主机', '/'),
        tls: flag('TLS', false),
        // '' is AMQP's default exchange (routes by queue name), so the field must be present but may be empty.
        exchange: yup
            .string()
            .trim()
            .max(255, '交换机不得超过255个字符')
            .defined('请填写交换机（默认交换机填空字符串）')
            .test('nul', '交换机含有非法字符（空字符）', (value) => !value.includes('\u0000')),
        routingKeyTemplate: requiredText('路由键模板', 1024),
        persistent: flag('持久化消息', true),
    })
    .exact(UNKNOWN_FIELDS);

export type RabbitmqConfig = yup.InferType<typeof schema>;

/** The broker's connect timeout and heartbeat (s): a dead peer is noticed within two heartbeats. */
const CONNECT_TIMEOUT_MS = 5_000;
const HEARTBEAT_S = 15;
/** How long a send waits for the broker's confirms: a broker under a resource alarm stops reading without closing. */
const CONFIRM_TIMEOUT_MS = 30_000;

interface Link {
    connection: ChannelModel;
    channel: ConfirmChannel;
    /** Why the channel or the connection closed, when the broker said (a 404 on publish, a forced close). */
    closedBy?: Error;
}

/** RabbitMQ through AMQP 0-9-1: each row published to the exchange, resolved once the broker confirmed them all. */
export const rabbitmqDestination: DestinationKind<RabbitmqConfig> = {
    kind: 'rabbitmq',
    label: 'RabbitMQ (AMQP 0-9-1)',
    schema,
    secretFields: ['password'],
    open: (config, context) => new RabbitmqSender(config, context),
};

class RabbitmqSender implements Sender {
    private link?: Promise<Link>;
    private closed = false;

    constructor(
        private readonly config: RabbitmqConfig,
        private readonly context: SenderContext,
    ) {}

    async send(records: ForwardRecord[]): Promise<void> {
        const link = await this.current();
        const { exchange, routingKeyTemplate, persistent } = this.config;
        try {
            for (const record of records) {
                const routingKey = renderTemplate(routingKeyTemplate, record);
                link.channel.publish(exchange, routingKey, Buffer.from(defaultBody(record)), {
                    messageId: record.id,
                    contentType: 'application/json',
                    persistent,
                });
            }
            await confirmed(link);
        } catch (err) {
            throw new DestinationError(this.publishFailure(link, err), false, { cause: err });
        }
    }

    /** Connects and checks the exchange on a channel of its own (a passive check that fails closes its channel). */
    async test(): Promise<void> {
        const { connection } = await this.current();
        const { exchange } = this.config;
        if (exchange === '') return;
        const channel = await connection.createChannel();
        channel.on('error', () => undefined);
        try {
            await channel.checkExchange(exchange);
        } catch (err) {
            if (/NOT_FOUND|404/.test(String(err))) throw new DestinationError(`交换机 ${exchange} 不存在`, false);
            throw new DestinationError(`检查交换机 ${exchange} 失败：${errorText(err)}`, false, { cause: err });
        }
        await channel.close().catch(() => undefined);
    }

    async close(): Promise<void> {
        this.closed = true;
        const link = this.link;
        this.link = undefined;
        const opened = await link?.catch(() => undefined);
        await opened?.connection.close().catch(() => undefined);
    }

    /** The open link, or a new one when there is none or the last one dropped (a failed connect is not kept). */
    private current(): Promise<Link> {
        if (this.closed) return Promise.reject(new DestinationError('发送器已关闭', false));
        if (!this.link) {
            const opening = this.connect();
            this.link = opening;
            opening.catch(() => {
                if (this.link === opening) this.link = undefined;
            });
        }
        return this.link;
    }

    private async connect(): Promise<Link> {
        const { host, port: p, username, password, vhost, tls } = this.config;
        let connection: ChannelModel;
        try {
            connection = await amqp.connect(
                {
                    protocol: tls ? 'amqps' : 'amqp',
                    hostname: host,
                    port: p,
                    username,
                    password: password ?? '',
                    vhost,
                    heartbeat: HEARTBEAT_S,
                },
                { timeout: CONNECT_TIMEOUT_MS, servername: tls ? host : undefined },
            );
        } catch (err) {
            throw new DestinationError(this.connectFailure(err), false, { cause: err });
        }
        return this.watch(connection, await openChannel(connection));
    }

    /** Drops the link when its connection or channel closes, so that the next send reconnects; logs why. */
    private watch(connection: ChannelModel, channel: ConfirmChannel): Link {
        const link: Link = { connection, channel };
        const target = `${this.config.host}:${this.config.port}`;
        const drop = (what: string) => {
            if (this.link && !this.closed) this.context.log(`RabbitMQ ${target} ${what}，下次发送时重连 / ${what}`);
            void this.link?.then((current) => {
                if (current !== link) return;
                this.link = undefined;
                void connection.close().catch(() => undefined);
            });
        };
        connection.on('error', (err: Error) => (link.closedBy = err));
        connection.on('close', () => drop('连接已断开 connection closed'));
        channel.on('error', (err: Error) => (link.closedBy = err));
        channel.on('close', () => drop('通道已关闭 channel closed'));
        return link;
    }

    private connectFailure(err: unknown): string {
        const { host, port: p, username, vhost } = this.config;
        const text = String(err);
        if (/ACCESS.REFUSED|403/.test(text))
            return `RabbitMQ ${host}:${p} 拒绝登录：用户名或密码错误（用户 ${username}）`;
        if (/NOT.ALLOWED|530|vhost/i.test(text)) return `RabbitMQ 虚拟主机 ${vhost} 不存在或用户 ${username} 无权访问`;
        return describeNetError(err, `RabbitMQ ${host}:${p}`);
    }

    private publishFailure(link: Link, err: unknown): string {
        const cause = link.closedBy ?? err;
        const text = String(cause);
        if (/NOT_FOUND|404/.test(text)) return `交换机 ${this.config.exchange} 不存在，消息未投递`;
        if (/nack/i.test(String(err))) return 'RabbitMQ 拒绝了消息（nack），稍后重试';
        return `RabbitMQ 消息未确认（通道关闭或超时），稍后重试：${errorText(cause)}`;
    }
}

/** The channel's confirms within the timeout; past it the link is closed (the next send opens a new one). */
async function confirmed(link: Link): Promise<void> {
    await pTimeout(link.channel.waitForConfirms(), {
        milliseconds: CONFIRM_TIMEOUT_MS,
        fallback: () => {
            void link.connection.close().catch(() => undefined);
            throw new Error(`未在 ${CONFIRM_TIMEOUT_MS / 1000} 秒内收到确认`);
        },
    });
}

async function openChannel(connection: ChannelModel): Promise<ConfirmChannel> {
    try {
        return await connection.createConfirmChannel();
    } catch (err) {
        await connection.close().catch(() => undefined);
        throw new DestinationError(`RabbitMQ 打开通道失败：${errorText(err)}`, false, { cause: err });
    }
}

function errorText(err: unknown): string {
    return err instanceof Error ? err.message : String(err);
}
