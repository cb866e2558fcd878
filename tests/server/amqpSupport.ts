import { expect } from 'vitest';
import rhea, { type Connection, type Receiver, type ReceiverOptions } from 'rhea';
import { amqpCredentials, type SignMethod } from '../../server/amqp/signIn';
import type { TestServer } from '../../server/testing';
import { alibabaCredentials } from '../../server/mqtt/signIn';
import { connect, secretOf, startBroker } from './mqttSupport';
import { call, form } from './support';
import { freshLamp, lampProduct } from './telemetrySupport';

export interface AmqpMessage {
    body: string;
    properties: Record<string, unknown>;
    messageId: unknown;
}

/** The answer's data after checking the general family's success (code 200). */
export function ok200<T>(answer: { status: number; body: unknown }): T {
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect((answer.body as { code: number }).code).toBe(200);
    return (answer.body as { data: T }).data;
}

export async function createAccessKey(s: TestServer) {
    return ok200<{ id: number; accessKey: string; accessSecret: string }>(
        await call(s, 'POST', '/api/accessKey/create'),
    );
}

/** The lamp product's project, a new consumer group in it and a subscription of the lamp product to it. */
export async function subscribeLamp(s: TestServer, groupName = `g${Math.random().toString(36).slice(2, 10)}`) {
    const product = await lampProduct(s);
    const products = ok200<Array<{ productKey: string; projectCode: string | null; subscribed: boolean }>>(
        await call(s, 'GET', '/api/subscription/products'),
    );
    const lamp = products.find((p) => p.productKey === product.productKey)!;
    const projectCode = lamp.projectCode!;
    const group = ok200<{ id: number }>(
        await call(s, 'POST', '/api/consumerGroup/save', form({ projectCode, name: groupName })),
    );
    const existing = ok200<{ records: Array<{ id: number; group: number[] }> }>(
        await call(s, 'GET', `/api/subscription/list?productId=${product.productId}`),
    ).records[0];
    if (existing) {
        ok200(
            await call(
                s,
                'POST',
                '/api/subscription/edit',
                form({
                    id: existing.id,
                    productKey: product.productKey,
                    group: [...existing.group, group.id].join(','),
                    message: 'post',
                }),
            ),
        );
    } else {
        ok200(
            await call(
                s,
                'POST',
                '/api/subscription/save',
                form({ projectCode, productKey: product.productKey, group: String(group.id), message: 'post' }),
            ),
        );
    }
    await s.amqp.invalidate();
    return { groupId: group.id, projectCode, productKey: product.productKey };
}

/** Broker and AMQP listener of a test server on ephemeral ports. */
export async function startDelivery(s: TestServer) {
    const mqtt = await startBroker(s);
    s.amqp.attach(mqtt.broker);
    const amqpPort = await s.amqp.listen(0, '127.0.0.1');
    return { ...mqtt, amqpPort };
}

/** A lamp device signed in over MQTT; `post(values)` publishes a property post and resolves on the platform's reply. */
export async function lampDevice(s: TestServer, mqttUrl: string) {
    const device = await freshLamp(s);
    const secret = await secretOf(s, Number(device.deviceId));
    const creds = { productKey: device.productKey, deviceName: device.deviceName, secret };
    const client = await connect(mqttUrl, alibabaCredentials(creds));
    const topic = `/sys/${device.productKey}/${device.deviceName}/thing/event/property/post`;
    await client.subscribeAsync(`${topic}_reply`, { qos: 1 });
    let n = 0;
    return {
        client,
        topic,
        deviceId: Number(device.deviceId),
        async post(values: Record<string, unknown> = { LightSwitch: 1 }) {
            const id = String(++n);
            const payload = JSON.stringify({ id, version: '1.0', params: values, method: 'thing.event.property.post' });
            const replied = new Promise<void>((resolve) => {
                const onMessage = (t: string, p: Buffer) => {
                    if (t === `${topic}_reply` && (JSON.parse(p.toString()) as { id: string }).id === id) {
                        client.off('message', onMessage);
                        resolve();
                    }
                };
                client.on('message', onMessage);
            });
            await client.publishAsync(topic, payload, { qos: 1 });
            await replied;
            return payload;
        },
    };
}

export interface Consumer {
    connection: Connection;
    receiver: Receiver;
    messages: AmqpMessage[];
    /** Resolves with the next n messages received (counting from the call). */
    next(n?: number, timeoutMs?: number): Promise<AmqpMessage[]>;
    close(): Promise<void>;
}

function bodyText(body: unknown): string {
    const b = body as { content?: Buffer; typecode?: number } | Buffer | string;
    if (Buffer.isBuffer(b)) return b.toString('utf8');
    if (typeof b === 'string') return b;
    if (b && Buffer.isBuffer(b.content)) return b.content.toString('utf8');
    return JSON.stringify(b);
}

/**
 * An AMQP 1.0 consumer with rhea as Alibaba's samples connect: SASL PLAIN with the aksign username, one receiver.
 * Rejects with the connection's error when refused. `onMessage` may settle itself (autoaccept off then).
 */
export function consume(
    port: number,
    opts: {
        accessKey: string;
        accessSecret: string;
        groupId: number | string;
        clientId?: string;
        signMethod?: SignMethod;
        timestamp?: number;
        iotInstanceId?: string;
        password?: string;
        receiver?: ReceiverOptions;
        onMessage?: (context: rhea.EventContext, m: AmqpMessage) => void;
        /** More connection options: `{ transport: 'tls', ca, servername }` for amqps. */
        connection?: Record<string, unknown>;
    },
): Promise<Consumer> {
    const creds = amqpCredentials({
        clientId: opts.clientId ?? `c${Math.random().toString(36).slice(2, 8)}`,
        accessKey: opts.accessKey,
        accessSecret: opts.accessSecret,
        consumerGroupId: opts.groupId,
        signMethod: opts.signMethod,
        timestamp: opts.timestamp,
        iotInstanceId: opts.iotInstanceId,
    });
    const container = rhea.create_container();
    const messages: AmqpMessage[] = [];
    const waiters: Array<() => void> = [];
    return new Promise((resolve, reject) => {
        const connection = container.connect({
            host: '127.0.0.1',
            port,
            username: creds.username,
            password: opts.password ?? creds.password,
            reconnect: false,
            ...opts.connection,
        } as rhea.ConnectionOptions);
        connection.on('connection_error', (context) => reject(context.error ?? new Error('connection error')));
        connection.on('connection_close', (context) => reject(context.error ?? new Error('closed')));
        connection.on('disconnected', (context) => reject(context.error ?? new Error('disconnected')));
        const receiver = connection.open_receiver({ source: { address: 'default' }, ...opts.receiver });
        receiver.on('receiver_error', (context) => reject(context.receiver?.error ?? new Error('receiver error')));
        receiver.on('message', (context) => {
            const m: AmqpMessage = {
                body: bodyText(context.message?.body),
                properties: (context.message?.application_properties ?? {}) as Record<string, unknown>,
                messageId: context.message?.message_id,
            };
            messages.push(m);
            opts.onMessage?.(context, m);
            for (const w of [...waiters]) w();
        });
        receiver.on('receiver_open', () =>
            resolve({
                connection,
                receiver,
                messages,
                next(n = 1, timeoutMs = 5_000) {
                    const start = messages.length;
                    return new Promise((res, rej) => {
                        const timer = setTimeout(
                            () => rej(new Error(`received ${messages.length - start} of ${n} messages`)),
                            timeoutMs,
                        );
                        const check = () => {
                            if (messages.length - start >= n) {
                                clearTimeout(timer);
                                waiters.splice(waiters.indexOf(check), 1);
                                res(messages.slice(start, start + n));
                            }
                        };
                        waiters.push(check);
                        check();
                    });
                },
                close: () =>
                    new Promise<void>((res) => {
                        if (connection.is_closed() || !connection.is_open()) return res();
                        connection.once('connection_close', () => res());
                        connection.close();
                        setTimeout(res, 1000);
                    }),
            }),
        );
    });
}

/**
 * Signs in as `consume` does and answers the error the server closes the connection with (SASL failures and refusals
 * after open alike), or undefined when the connection stays open for a second.
 */
export function refusal(
    port: number,
    opts: Parameters<typeof consume>[1],
): Promise<{ condition?: string; description?: string } | undefined> {
    const creds = amqpCredentials({
        clientId: 'refused',
        accessKey: opts.accessKey,
        accessSecret: opts.accessSecret,
        consumerGroupId: opts.groupId,
        signMethod: opts.signMethod,
        timestamp: opts.timestamp,
        iotInstanceId: opts.iotInstanceId,
    });
    const container = rhea.create_container();
    return new Promise((resolve) => {
        const connection = container.connect({
            host: '127.0.0.1',
            port,
            username: creds.username,
            password: opts.password ?? creds.password,
            reconnect: false,
        });
        const done = (error: unknown) => {
            clearTimeout(timer);
            const e = error as { condition?: string; description?: string } | undefined;
            resolve(e ? { condition: e.condition, description: e.description } : { condition: 'disconnected' });
        };
        const timer = setTimeout(() => {
            connection.close();
            resolve(undefined);
        }, 1000);
        connection.on('connection_error', (context) => done(context.error));
        connection.on('connection_close', (context) => done(context.error));
        connection.on('disconnected', (context) => done(context.error));
        const receiver = connection.open_receiver({ source: { address: 'default' } });
        receiver.on('receiver_error', () => undefined);
    });
}
