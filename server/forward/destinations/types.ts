import type * as yup from 'yup';

/**
 * A destination kind of data forwarding (数据流转, docs/forwarding.md): the form's fields and their checks, which of
 * them are secrets (stored encrypted, never sent back to the console), and how to open a sender. Each kind lives in a
 * file of its own under server/forward/destinations/ and uses the library made for its system (pg, mysql2, ioredis,
 * amqplib, nats, mqtt, kafkajs, fetch); the registry (index.ts) lists them.
 */
export interface DestinationKind<C extends object = Record<string, unknown>> {
    /** The kind's name in the API and the database: 'postgres', 'mysql', 'redisStream', 'http', 'rabbitmq', ... */
    kind: string;
    /** Its name in the console, Chinese: 'PostgreSQL 数据表'. */
    label: string;
    /** The configuration's checks, with Chinese messages naming the field; unknown keys are refused. */
    schema: yup.ObjectSchema<C>;
    /** Configuration fields that are secrets (passwords, tokens, HMAC keys): stored encrypted, answered masked. */
    secretFields: ReadonlyArray<keyof C & string>;
    /** A sender for this configuration (connects lazily or at once; a failed connect rejects `send`, not `open`). */
    open(config: C, context: SenderContext): Sender;
}

export interface SenderContext {
    /** Logs a line (a connection lost, a reconnect): bilingual like the rest of the server's log. */
    log: (message: string) => void;
    /** The platform's own broker (the republish kind): publishes as the platform; undefined while none runs. */
    platform?: { publish: (topic: string, payload: string, qos: 0 | 1) => Promise<void> };
}

/** One selected row on its way to a destination. */
export interface ForwardRecord {
    /** Unique per (message, flow): a destination that can de-duplicate uses it (a header, a message id, a column). */
    id: string;
    flowId: number;
    flowName: string;
    productKey: string;
    deviceName: string;
    /** The device topic the message came on (/sys/{productKey}/{deviceName}/thing/event/property/post, ...). */
    topic: string;
    /** When the platform stored the message, ms since the epoch. */
    ts: number;
    /** What the flow's SELECT produced: column name → value (JSON values: string, number, boolean, null, object). */
    row: Record<string, unknown>;
}

export interface Sender {
    /**
     * Delivers the records, in order, and resolves once the destination has acknowledged every one (a committed
     * insert, a broker's confirm, a 2xx answer). Rejects with a DestinationError (or any Error) when it could not: the
     * caller retries the batch; a record may then arrive twice (at least once), never out of order per device.
     */
    send(records: ForwardRecord[]): Promise<void>;
    /** 测试连接: connects and checks what send needs (the table and its columns, the exchange, the stream) exists. */
    test(): Promise<void>;
    close(): Promise<void>;
}

/**
 * A failure with its Chinese explanation. `permanent` when retrying the same records cannot succeed (a value the
 * column refuses, a 4xx answer other than 408/429): the caller then sends the batch's records one at a time and
 * moves the one that keeps failing to the dead letters instead of blocking the flow.
 */
export class DestinationError extends Error {
    constructor(
        message: string,
        readonly permanent = false,
        options?: { cause?: unknown },
    ) {
        super(message, options);
        this.name = 'DestinationError';
    }
}
