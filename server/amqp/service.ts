import { createServer, type Server as NetServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { createServer as createTlsServer, type SecureContextOptions, type Server as TlsServer } from 'node:tls';
import rhea, { type Connection, type Container, type EventContext } from 'rhea';
import type { Db } from '../db/client';
import type { AcceptedMessage } from '../mqtt/uplink';
import { createRefusalLog, guardAmqp } from '../mqtt/packetLimit';
import type { MessageCopies } from './copies';
import {
    CLAIM_LINGER_MS,
    infoOf,
    pump,
    rateOf,
    spareCredit,
    takeInserted,
    wake,
    groupOf,
    type ConsumerInfo,
} from './delivery';
import { disconnect, drop, dropConnection, openConsumer, outcome, type LinkState } from './links';
import { listenForNotifications, stopListening, type NotificationListener } from './notifications';
import { createQueue, type Queue } from './queue';
import { CHECK_UNAVAILABLE, checkSignIn, signInOf, uncheckedSignIn, type SignInResult } from './saslCheck';

export type { ConsumerInfo } from './delivery';

/**
 * Server-side subscription over AMQP 1.0 (rhea), like Alibaba Cloud IoT's: consumers sign in with an AccessKey
 * (SASL PLAIN, saslCheck.ts) naming one consumer group, open one receiver link (links.ts), and get the property posts
 * of the group's subscribed products (delivery.ts). A message is deleted from the group's queue (queue.ts) when
 * accepted, and delivered again when released, modified, or left unsettled by a consumer that went away.
 */

export interface AmqpOptions {
    db: Db;
    backlogMax: number;
    backlogHours: number;
    /** Checks the database for messages of groups with waiting consumers this often (other processes, expiries). */
    pollMs?: number;
    /** Backlog bounds are applied this often. */
    sweepMs?: number;
    leaseMs?: number;
    /** PostgreSQL (DATABASE_URL): new messages are announced to every server process with LISTEN / NOTIFY. */
    databaseUrl?: string;
    log?: (message: string) => void;
    /** The largest AMQP frame a peer may send (AMQP_MAX_FRAME_BYTES); also announced in the open frame. */
    maxFrameBytes?: number;
    /** A connection not open (TLS handshake, SASL, open) within this is closed (HANDSHAKE_TIMEOUT_MS). */
    handshakeTimeoutMs?: number;
    /** In a cluster: this member is fenced (server/cluster/lease.ts) and takes no consumer now. */
    fenced?: () => boolean;
}

interface ServiceState extends LinkState {
    db: Db;
    queue: Queue;
    signIns: Map<string, SignInResult>;
    connections: Set<Connection>;
    container: Container;
    servers: NetServer[];
    tlsServers: TlsServer[];
    /** Sockets not yet open, and the function that stops their sign-in timer. */
    pendingOpen: WeakMap<object, () => void>;
    sockets: WeakMap<Connection, Socket>;
    notifications?: NotificationListener;
    timers: NodeJS.Timeout[];
    unsubscribes: Array<() => void>;
    fenced: () => boolean;
}

const FENCED = { condition: 'amqp:connection:forced', description: '节点暂不可用，请重新连接' };

/** A connection opened: refused with its sign-in's reason unless the sign-in named a group it may consume. */
function connectionOpen(s: ServiceState, context: EventContext) {
    const connection = context.connection;
    s.connections.add(connection);
    const socket = (connection as unknown as { socket?: object }).socket;
    if (socket) s.pendingOpen.get(socket)?.();
    const result = signInOf(s.signIns, connection);
    if (result && !result.error && s.fenced()) {
        connection.close(FENCED);
    } else if (!result || result.error || s.closed) {
        connection.close(
            result?.error ?? { condition: 'amqp:unauthorized-access', description: '请使用 AccessKey 签名登录' },
        );
    }
}

/**
 * A receiver link attached: a consumer of the group its connection signed in for. A link that cannot be one (the
 * member fenced since the open, the service closing, a sign-in no longer kept) closes its connection with the reason,
 * so the client reconnects rather than wait on a link nothing is sent to.
 */
function senderOpen(s: ServiceState, context: EventContext) {
    const result = signInOf(s.signIns, context.connection);
    if (result?.groupId && !s.closed && !s.fenced()) {
        openConsumer(s, context.connection, context.sender!, { ...result, groupId: result.groupId });
        return;
    }
    const error = s.fenced() ? FENCED : (result?.error ?? CHECK_UNAVAILABLE);
    if (!context.connection.is_closed()) context.connection.close(error);
}

/** rhea's events, each to its step. */
function wireContainer(s: ServiceState) {
    const { container } = s;
    container.sasl_server_mechanisms.enable_plain((username: string, password: string) => {
        const checkedFrom = performance.now();
        return checkSignIn(s.db, s.signIns, username, password, checkedFrom).catch((err) => {
            s.log(`AMQP 登录校验失败（连接将以 forced 关闭，客户端会重连）: ${String(err)}`);
            return uncheckedSignIn(s.signIns, username, checkedFrom);
        });
    });
    // A peer's framing error after sign-in: one line a minute, not rhea's default dump of the whole buffer to stderr.
    const protocolErrors = createRefusalLog(s.log);
    container.on('protocol_error', (err: Error) =>
        protocolErrors('AMQP protocol', `AMQP 关闭连接：协议错误（${err.message}）（一分钟内只记录一次）`),
    );
    container.on('connection_open', (context: EventContext) => connectionOpen(s, context));
    container.on('sender_open', (context: EventContext) => senderOpen(s, context));
    container.on('sendable', (context: EventContext) => {
        const c = context.sender && s.consumers.get(context.sender);
        if (c && !c.gone) pump(s, groupOf(s, c.groupId));
    });
    container.on('accepted', (context: EventContext) => outcome(s, context, 'accepted'));
    container.on('rejected', (context: EventContext) => outcome(s, context, 'rejected'));
    container.on('released', (context: EventContext) => outcome(s, context, 'again'));
    container.on('modified', (context: EventContext) => outcome(s, context, 'again'));
    const senderGone = (context: EventContext) => {
        const c = context.sender && s.consumers.get(context.sender);
        if (c) drop(s, c);
    };
    const connectionGone = (context: EventContext) => {
        s.connections.delete(context.connection);
        dropConnection(s, context.connection);
    };
    container.on('sender_close', senderGone);
    container.on('sender_error', senderGone);
    container.on('connection_close', connectionGone);
    container.on('connection_error', connectionGone);
    container.on('disconnected', connectionGone);
    // A consumer's socket error is its own (it shows as a disconnect).
    container.on('error', (err: unknown) => s.log(`AMQP 连接错误: ${String(err)}`));
}

/** The poll for messages of groups with consumers here, the claims' renewal and the backlog sweep. */
function startTimers(s: ServiceState, pollMs: number, sweepMs: number) {
    const every = (ms: number, fn: () => void) => {
        const t = setInterval(fn, ms);
        t.unref();
        s.timers.push(t);
    };
    every(pollMs, () => wake(s, [...s.groups.keys()]));
    every(Math.max(1000, Math.floor(s.queue.leaseMs / 3)), () => {
        s.queue.renew().catch((err) => !s.closed && s.log(`续租消息失败: ${String(err)}`));
    });
    every(sweepMs, () => {
        s.queue.trim().catch((err) => !s.closed && s.log(`清理堆积失败: ${String(err)}`));
    });
}

function listenOn(s: ServiceState, server: NetServer, port: number, host?: string) {
    return new Promise<number>((resolve, reject) => {
        const onError = (err: Error) => reject(err);
        server.once('error', onError);
        server.listen(port, host, () => {
            server.off('error', onError);
            s.servers.push(server);
            resolve((server.address() as AddressInfo).port);
        });
    });
}

async function closeService(s: ServiceState) {
    if (s.closed) return;
    s.closed = true;
    for (const t of s.timers) clearInterval(t);
    if (s.notifications) await stopListening(s.notifications);
    for (const u of s.unsubscribes) u();
    for (const connection of s.connections) {
        try {
            connection.close();
            (connection as unknown as { socket?: { destroy(): void } }).socket?.destroy();
        } catch {
            // already gone
        }
    }
    await Promise.all(s.servers.map((server) => new Promise((r) => server.close(() => r(undefined)))));
    await s.queue.close().catch((err) => s.log(`关闭 AMQP 队列失败: ${String(err)}`));
}

export function createAmqpService({
    db,
    backlogMax,
    backlogHours,
    pollMs = 250,
    sweepMs = 10_000,
    leaseMs = 60_000,
    databaseUrl,
    log = (m) => console.warn(m),
    maxFrameBytes = 256 * 1024,
    handshakeTimeoutMs = 10_000,
    fenced = () => false,
}: AmqpOptions) {
    const s: ServiceState = {
        db,
        fenced,
        log,
        groups: new Map(),
        consumers: new WeakMap(),
        closed: false,
        claimLingerMs: CLAIM_LINGER_MS,
        signIns: new Map(),
        connections: new Set(),
        container: rhea.create_container({ id: 'iot-platform-amqp' }),
        servers: [],
        tlsServers: [],
        pendingOpen: new WeakMap(),
        sockets: new WeakMap(),
        timers: [],
        unsubscribes: [],
        queue: createQueue({
            db,
            backlogMax,
            backlogHours,
            leaseMs,
            log,
            notify: Boolean(databaseUrl),
            takeOnInsert: (groupId, n) => spareCredit(s, groupId, n),
        }),
    };
    s.queue.onInserted((ids, taken) => takeInserted(s, ids, taken));
    if (databaseUrl) s.notifications = { databaseUrl, wake: (ids) => wake(s, ids), log, stopped: false };
    wireContainer(s);
    startTimers(s, pollMs, sweepMs);
    const refusal = createRefusalLog(log);
    /** rhea's own accept, with the frame guard in front of each socket (servers made here, not by rhea). */
    const accept = (socket: Socket, listener: string) => {
        s.pendingOpen.set(
            socket,
            guardAmqp(socket, { maxFrame: maxFrameBytes, refusal, listener, handshakeTimeoutMs }),
        );
        const connection = s.container.create_connection({ max_frame_size: maxFrameBytes } as rhea.ConnectionOptions);
        s.sockets.set(connection, socket);
        connection.accept(socket);
    };
    let started: Promise<void> | undefined;
    const figures = (groupId: number) => {
        const g = s.groups.get(groupId);
        return { clients: (g?.consumers ?? []).map(infoOf), deliveryRate: rateOf(g) };
    };

    return {
        queue: s.queue,
        /** Loads the subscriptions; messages accepted before this resolves are routed once it has. */
        start(): Promise<void> {
            started ??= Promise.all([s.queue.start(), s.notifications && listenForNotifications(s.notifications)]).then(
                () => undefined,
            );
            return started;
        },
        /** Device messages from the broker's uplink: each property post's copies are stored with it. */
        attach(broker: { uplink: { addCopier(fn: (m: AcceptedMessage) => MessageCopies | undefined): () => void } }) {
            void this.start();
            s.unsubscribes.push(broker.uplink.addCopier((m) => s.queue.copiesOf(m)));
        },
        /** A subscription or consumer group changed. */
        invalidate: () => s.queue.invalidate(),
        /** Listens for consumers; resolves with the port (rejects with EADDRINUSE when taken). */
        listen(port: number, host?: string): Promise<number> {
            return listenOn(
                s,
                createServer((socket) => accept(socket, 'AMQP')),
                port,
                host,
            );
        },
        /** Listens for consumers over TLS (amqps); resolves with the port. */
        listenTls(port: number, host: string | undefined, context: SecureContextOptions): Promise<number> {
            const server = createTlsServer({ ...context, handshakeTimeout: handshakeTimeoutMs }, (socket) =>
                accept(socket, 'AMQPS'),
            );
            server.on('tlsClientError', (err, socket) => {
                const address = (socket.remoteAddress ?? '未知地址').replace(/^::ffff:/, '');
                refusal(
                    `AMQPS ${address}`,
                    `AMQPS 关闭来自 ${address} 的连接：TLS 握手失败（${err.message}）（同一端口同一地址一分钟内只记录一次）`,
                );
                socket.destroy(); // with a listener here, Node leaves the closing to it
            });
            s.tlsServers.push(server);
            return listenOn(s, server, port, host);
        },
        /** A renewed certificate for the next handshakes; open connections keep theirs. */
        setSecureContext(context: SecureContextOptions) {
            for (const server of s.tlsServers) server.setSecureContext(context);
        },
        /** The group's consumers on this process, its delivery rate (messages/s over 10 s) and its backlog. */
        async groupStatus(groupId: number) {
            return { ...figures(groupId), backlog: await s.queue.backlog(groupId) };
        },
        /** The AMQP listener is listening (readiness). */
        get listening() {
            return s.servers.length > 0 && s.servers.every((server) => server.listening);
        },
        /** Every group's consumers on this process and its delivery rate (the cluster heartbeat's share, /metrics). */
        consumerFigures(): Array<{ groupId: number; deliveryRate: number; clients: ConsumerInfo[] }> {
            return [...s.groups.values()]
                .filter((g) => g.consumers.length)
                .map((g) => ({ groupId: g.id, ...figures(g.id) }));
        },
        /** 清空堆积. */
        clear: (groupId: number) => s.queue.clear(groupId),
        /** Applies the backlog bounds now. */
        trim: () => s.queue.trim(),
        /** Disconnects the group's consumers (the group was deleted). */
        disconnectGroup(groupId: number) {
            disconnect(s, (c) => c.groupId === groupId, { condition: 'amqp:not-found', description: '消费者组已删除' });
        },
        /** Disconnects the consumers signed in with this AccessKey (it was disabled or deleted). */
        disconnectKey(accessKey: string) {
            disconnect(s, (c) => c.authId === accessKey, {
                condition: 'amqp:unauthorized-access',
                description: 'AccessKey 已禁用或已删除',
            });
        },
        /** Disconnects every consumer here (this member fenced itself: they reconnect elsewhere). */
        closeAll() {
            for (const connection of s.connections) connection.close(FENCED);
        },
        close: () => closeService(s),
    };
}

export type AmqpService = ReturnType<typeof createAmqpService>;
