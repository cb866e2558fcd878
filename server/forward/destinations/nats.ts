import pTimeout from 'p-timeout';
import { jetstream, jetstreamManager, type JetStreamClient } from '@nats-io/jetstream';
import { AuthorizationError, connect, headers, RequestError, type NatsConnection } from '@nats-io/transport-node';
import * as yup from 'yup';
import { defaultBody, SAMPLE_RECORD } from './body';
import { flag, optionalText, requiredText, secret, textWithDefault, UNKNOWN_FIELDS } from './fields';
import { describeNetError } from './netError';
import { renderTemplate } from './template';
import { DestinationError, type DestinationKind, type ForwardRecord, type Sender, type SenderContext } from './types';

const SERVER = /^((nats|tls):\/\/)?[^\s/,]+(:\d{1,5})?$/;

const schema = yup
    .object({
        servers: requiredText('服务器地址', 1024).test(
            'servers',
            '服务器地址格式不正确：应为 nats://主机:端口，多个以逗号分隔',
            (value) => value === undefined || serverList(value).every((s) => SERVER.test(s)),
        ),
        user: optionalText('用户名'),
        password: secret('密码'),
        token: secret('令牌'),
        subjectTemplate: textWithDefault('主题模板', 'iot.${productKey}.${deviceName}', 1024).required(
            '请填写主题模板',
        ),
        jetstream: flag('JetStream', false),
    })
    .exact(UNKNOWN_FIELDS);

export type NatsConfig = yup.InferType<typeof schema>;

const CONNECT_TIMEOUT_MS = 5_000;
/** How long a send waits for the server's PONG (core) or PubAcks (JetStream) before it gives up. */
const ACK_TIMEOUT_MS = 5_000;

/** NATS: core publish then flush (the server has them), or JetStream publish with msgID = record id (de-duplicated). */
export const natsDestination: DestinationKind<NatsConfig> = {
    kind: 'nats',
    label: 'NATS / JetStream',
    schema,
    secretFields: ['password', 'token'],
    open: (config, context) => new NatsSender(config, context),
};

function serverList(servers: string): string[] {
    return servers
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
}

interface Link {
    nc: NatsConnection;
    js: JetStreamClient;
    /** False between a disconnect and the reconnect: sends fail at once instead of buffering. */
    connected: boolean;
}

class NatsSender implements Sender {
    private link?: Promise<Link>;
    private closed = false;

    constructor(
        private readonly config: NatsConfig,
        private readonly context: SenderContext,
    ) {}

    async send(records: ForwardRecord[]): Promise<void> {
        const link = await this.current();
        if (!link.connected) throw new DestinationError(`NATS ${this.config.servers} 连接已断开，正在重连`, false);
        if (this.config.jetstream) await this.publishJetStream(link, records);
        else await this.publishCore(link, records);
    }

    async test(): Promise<void> {
        const { nc } = await this.current();
        if (!this.config.jetstream) return;
        const subject = renderTemplate(this.config.subjectTemplate, SAMPLE_RECORD);
        const jsm = await jetstreamManager(nc).catch((err: unknown) => {
            throw new DestinationError(`NATS 服务器未启用 JetStream：${errorText(err)}`, false, { cause: err });
        });
        await jsm.streams.find(subject).catch((err: unknown) => {
            throw new DestinationError(noStream(subject), false, { cause: err });
        });
    }

    async close(): Promise<void> {
        this.closed = true;
        const link = this.link;
        this.link = undefined;
        const opened = await link?.catch(() => undefined);
        await opened?.nc.close().catch(() => undefined);
    }

    /** Core NATS: publishes in order, each with its id as Nats-Msg-Id, then a flush (the server's PONG). */
    private async publishCore({ nc }: Link, records: ForwardRecord[]): Promise<void> {
        try {
            for (const record of records) {
                const h = headers();
                h.set('Nats-Msg-Id', record.id);
                nc.publish(renderTemplate(this.config.subjectTemplate, record), defaultBody(record), { headers: h });
            }
            await pTimeout(nc.flush(), {
                milliseconds: ACK_TIMEOUT_MS,
                message: new DestinationError('NATS 服务器未在 5 秒内确认', false),
            });
        } catch (err) {
            throw this.failure(err);
        }
    }

    /**
     * JetStream: the publishes are pipelined (each goes out on the connection when called, so in order) and the send
     * resolves once every PubAck came; JetStream drops a repeated msgID within its duplicate window.
     */
    private async publishJetStream({ js }: Link, records: ForwardRecord[]): Promise<void> {
        const publishOne = async (record: ForwardRecord) => {
            const subject = renderTemplate(this.config.subjectTemplate, record);
            try {
                await js.publish(subject, defaultBody(record), { msgID: record.id, timeout: ACK_TIMEOUT_MS });
            } catch (err) {
                if (noResponders(err)) throw new DestinationError(noStream(subject), false);
                throw this.failure(err);
            }
        };
        await Promise.all(records.map(publishOne));
    }

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
        const { servers, user, password, token } = this.config;
        let nc: NatsConnection;
        try {
            nc = await connect({
                servers: serverList(servers),
                user,
                pass: password,
                token,
                timeout: CONNECT_TIMEOUT_MS,
                maxReconnectAttempts: -1,
                name: 'iot-forward',
            });
        } catch (err) {
            throw this.failure(err);
        }
        const link: Link = { nc, js: jetstream(nc, { timeout: ACK_TIMEOUT_MS }), connected: true };
        this.watch(link);
        return link;
    }

    /** Follows the connection's status: disconnected sends fail at once; a closed connection is opened anew. */
    private watch(link: Link): void {
        void link.nc.closed().then(() => {
            link.connected = false;
            if (this.link === undefined) return;
            void this.link.then((current) => {
                if (current === link) this.link = undefined;
            });
        });
        void this.followStatus(link);
    }

    private async followStatus(link: Link): Promise<void> {
        for await (const status of link.nc.status()) {
            if (status.type === 'disconnect') {
                link.connected = false;
                this.context.log(`NATS ${this.config.servers} 连接已断开，正在重连 / disconnected, reconnecting`);
            } else if (status.type === 'reconnect') {
                link.connected = true;
                this.context.log(`NATS ${this.config.servers} 已重连 / reconnected`);
            }
        }
    }

    private failure(err: unknown): DestinationError {
        if (err instanceof DestinationError) return err;
        if (err instanceof AuthorizationError || /authori[sz]ation/i.test(errorText(err)))
            return new DestinationError(`NATS ${this.config.servers} 拒绝登录：用户名、密码或令牌错误`, false, {
                cause: err,
            });
        return new DestinationError(describeNetError(err, `NATS ${this.config.servers}`), false, { cause: err });
    }
}

/** JetStream answers 503 no-responders (wrapped as "jetstream is not enabled") when no stream takes the subject. */
function noResponders(err: unknown): boolean {
    const cause = err instanceof Error ? err.cause : undefined;
    return cause instanceof RequestError && cause.isNoResponders();
}

function noStream(subject: string): string {
    return `没有 JetStream 流匹配主题 ${subject}，请先创建流`;
}

function errorText(err: unknown): string {
    return err instanceof Error ? err.message : String(err);
}
