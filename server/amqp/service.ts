import { createServer, type Server as NetServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { createServer as createTlsServer, type SecureContextOptions, type Server as TlsServer } from 'node:tls';
import { eq } from 'drizzle-orm';
import pg from 'pg';
import rhea, { type Connection, type Delivery, type EventContext, type Sender } from 'rhea';
import type { Db } from '../db/client';
import { accessKeys, consumerGroups } from '../db/schema';
import type { AcceptedMessage } from '../mqtt/uplink';
import { createQueue, NOTIFY_CHANNEL, type QueuedMessage } from './queue';
import { createRefusalLog, guardAmqp } from '../mqtt/packetLimit';
import { amqpPassword, parseAmqpUsername, passwordMatches, TIMESTAMP_SKEW_MS } from './signIn';

/**
 * Server-side subscription over AMQP 1.0 (rhea), like Alibaba Cloud IoT's: consumers sign in with an AccessKey
 * (SASL PLAIN, server/amqp/signIn.ts) naming one consumer group, open one receiver link, and get the property posts
 * of the group's subscribed products. Within a group, the connected consumers (on this process) share the messages
 * round robin, each only as far as the credit it granted; a message is deleted from the group's queue when accepted,
 * and delivered again when released, modified, or left unsettled by a consumer that went away.
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

export interface ConsumerInfo {
    clientId: string;
    address: string;
    connectedSince: Date;
    delivered: number;
    acknowledged: number;
}

interface Consumer extends ConsumerInfo {
    groupId: number;
    /** The AccessKey it signed in with. */
    authId: string;
    connection: Connection;
    sender: Sender;
    unsettled: Map<Delivery, QueuedMessage>;
    gone: boolean;
}

interface GroupState {
    id: number;
    consumers: Consumer[];
    /** Claimed by this process, not yet sent. */
    buffer: QueuedMessage[];
    held: Set<number>;
    claiming: boolean;
    /** The database may hold messages for it. */
    dirty: boolean;
    next: number;
    /** Deliveries per second, the last 60 seconds. */
    buckets: number[];
    bucketAt: number;
}

interface SignInResult {
    groupId?: number;
    authId: string;
    clientId: string;
    error?: { condition: string; description: string };
    at: number;
}

/** Messages claimed from the database at once per group (and the most held beyond the consumers' credit). */
const CLAIM_BATCH = 500;
const RATE_WINDOW_S = 10;

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
    const queue = createQueue({
        db,
        backlogMax,
        backlogHours,
        leaseMs,
        log,
        notify: Boolean(databaseUrl),
        takeOnInsert: (groupId, n) => {
            const g = groups.get(groupId);
            if (!g?.consumers.length || closed) return 0;
            let credit = 0;
            for (const c of g.consumers) if (!c.gone) credit += (c.sender as unknown as { credit: number }).credit;
            return Math.max(0, Math.min(n, credit - g.buffer.length));
        },
    });
    const groups = new Map<number, GroupState>();
    const consumers = new WeakMap<Sender, Consumer>();
    const signIns = new Map<string, SignInResult>();
    const container = rhea.create_container({ id: 'iot-platform-amqp' });
    const servers: NetServer[] = [];
    const tlsServers: TlsServer[] = [];
    const refusal = createRefusalLog(log);
    /** Sockets not yet open, and the function that stops their sign-in timer. */
    const pendingOpen = new WeakMap<object, () => void>();
    /** rhea's own listen, with the frame guard in front of each socket (servers made here, not by rhea). */
    const accept = (socket: Socket, listener: string) => {
        pendingOpen.set(socket, guardAmqp(socket, { maxFrame: maxFrameBytes, refusal, listener, handshakeTimeoutMs }));
        container.create_connection({ max_frame_size: maxFrameBytes } as rhea.ConnectionOptions).accept(socket);
    };
    const listenOn = (server: NetServer, port: number, host?: string) =>
        new Promise<number>((resolve, reject) => {
            const onError = (err: Error) => reject(err);
            server.once('error', onError);
            server.listen(port, host, () => {
                server.off('error', onError);
                servers.push(server);
                resolve((server.address() as AddressInfo).port);
            });
        });
    const connections = new Set<Connection>();
    const unsubscribes: Array<() => void> = [];
    let closed = false;
    let started: Promise<void> | undefined;

    function groupOf(id: number): GroupState {
        let g = groups.get(id);
        if (!g) {
            g = {
                id,
                consumers: [],
                buffer: [],
                held: new Set(),
                claiming: false,
                dirty: true,
                next: 0,
                buckets: new Array(60).fill(0),
                bucketAt: Math.floor(Date.now() / 1000),
            };
            groups.set(id, g);
        }
        return g;
    }

    function tick(g: GroupState, n: number) {
        const now = Math.floor(Date.now() / 1000);
        while (g.bucketAt < now) {
            g.bucketAt++;
            g.buckets[g.bucketAt % 60] = 0;
            if (now - g.bucketAt > 60) g.bucketAt = now;
        }
        g.buckets[now % 60] += n;
    }

    function rateOf(g: GroupState | undefined): number {
        if (!g) return 0;
        tick(g, 0);
        const now = Math.floor(Date.now() / 1000);
        let sum = 0;
        // The last complete seconds (the current one is still counting).
        for (let s = now - RATE_WINDOW_S; s < now; s++) sum += g.buckets[((s % 60) + 60) % 60];
        return Math.round((sum / RATE_WINDOW_S) * 10) / 10;
    }

    function sendable(g: GroupState): Consumer | undefined {
        for (let i = 0; i < g.consumers.length; i++) {
            const c = g.consumers[(g.next + i) % g.consumers.length];
            if (!c.gone && c.sender.sendable()) {
                g.next = (g.next + i + 1) % g.consumers.length;
                return c;
            }
        }
        return undefined;
    }

    function send(g: GroupState, c: Consumer, m: QueuedMessage) {
        const delivery = c.sender.send({
            message_id: m.messageId,
            application_properties: { topic: m.topic, messageId: m.messageId, generateTime: m.generateTime },
            body: rhea.message.data_section(Buffer.from(m.payload, 'utf8')),
        });
        c.delivered++;
        tick(g, 1);
        if (delivery.settled) {
            // A consumer that asked for pre-settled (at most once) delivery: done once sent.
            c.acknowledged++;
            g.held.delete(m.id);
            queue.ack(m.id);
        } else c.unsettled.set(delivery, m);
    }

    function pump(g: GroupState) {
        if (closed || !g.consumers.length) return;
        while (g.buffer.length) {
            const c = sendable(g);
            if (!c) break;
            send(g, c, g.buffer.shift()!);
        }
        if (g.claiming || !g.dirty) return;
        let credit = 0;
        for (const c of g.consumers) if (!c.gone) credit += (c.sender as unknown as { credit: number }).credit;
        const want = Math.min(CLAIM_BATCH, credit - g.buffer.length);
        if (want <= 0) return;
        g.claiming = true;
        queue
            .claim(g.id, want)
            .then((rows) => {
                if (rows.length < want) g.dirty = false;
                const fresh = rows.filter((r) => !g.held.has(r.id));
                for (const r of fresh) g.held.add(r.id);
                g.buffer.push(...fresh);
                if (!g.consumers.length) void giveBack(g);
            })
            .catch((err) => {
                if (!closed) log(`读取消费者组 ${g.id} 的消息失败: ${String(err)}`);
            })
            .finally(() => {
                g.claiming = false;
                if (g.buffer.length || g.dirty) setImmediate(() => pump(g));
            });
    }

    /** The last consumer of a group on this process left: its claimed, unsent messages go back to the queue. */
    async function giveBack(g: GroupState) {
        const ids = g.buffer.map((m) => m.id);
        g.buffer = [];
        for (const id of ids) g.held.delete(id);
        g.dirty = true;
        await queue.release(ids).catch((err) => log(`释放消息失败: ${String(err)}`));
    }

    function requeue(g: GroupState, m: QueuedMessage) {
        g.buffer.unshift(m);
        if (g.buffer.length > 1 && g.buffer[1].id < m.id) g.buffer.sort((a, b) => a.id - b.id);
    }

    function drop(c: Consumer) {
        if (c.gone) return;
        c.gone = true;
        const g = groupOf(c.groupId);
        g.consumers = g.consumers.filter((x) => x !== c);
        // Dispositions that arrived with the close are not dispatched yet: their outcome is read here.
        for (const [delivery, m] of c.unsettled) {
            const state = (delivery as unknown as { remote_state?: { constructor?: { composite_type?: string } } })
                .remote_state?.constructor?.composite_type;
            if (state === 'accepted' || state === 'rejected') {
                if (state === 'accepted') c.acknowledged++;
                g.held.delete(m.id);
                queue.ack(m.id);
            } else requeue(g, m);
        }
        c.unsettled.clear();
        if (!g.consumers.length) void giveBack(g);
        else pump(g);
    }

    function outcome(context: EventContext, accepted: boolean | 'rejected') {
        const sender = context.sender;
        const delivery = context.delivery;
        if (!sender || !delivery) return;
        const c = consumers.get(sender);
        if (!c) return;
        const m = c.unsettled.get(delivery);
        if (!m) return;
        c.unsettled.delete(delivery);
        const g = groupOf(c.groupId);
        if (accepted) {
            // Accepted, or rejected (a message the consumer can never take: not delivered again).
            if (accepted === true) c.acknowledged++;
            g.held.delete(m.id);
            queue.ack(m.id);
        } else {
            requeue(g, m);
        }
        pump(g);
    }

    async function checkSignIn(username: string, password: string): Promise<boolean> {
        const parsed = parseAmqpUsername(username);
        if (!parsed) return false;
        const [key] = await db.select().from(accessKeys).where(eq(accessKeys.accessKey, parsed.authId));
        if (!key) return false;
        const expected = amqpPassword(key.accessSecret, key.accessKey, parsed.timestamp, parsed.signMethod);
        if (!passwordMatches(expected, password)) return false;
        const result: SignInResult = { clientId: parsed.clientId, authId: key.accessKey, at: Date.now() };
        const groupId = /^\d{1,9}$/.test(parsed.consumerGroupId) ? Number(parsed.consumerGroupId) : 0;
        const [group] = groupId ? await db.select().from(consumerGroups).where(eq(consumerGroups.id, groupId)) : [];
        if (!key.enabled) {
            result.error = { condition: 'amqp:unauthorized-access', description: 'AccessKey 已禁用' };
        } else if (Math.abs(Date.now() - parsed.timestamp) > TIMESTAMP_SKEW_MS) {
            result.error = {
                condition: 'amqp:unauthorized-access',
                description: 'timestamp 与服务器时间相差超过 15 分钟，请校准时间后重新签名',
            };
        } else if (!group) {
            result.error = { condition: 'amqp:not-found', description: `消费者组 ${parsed.consumerGroupId} 不存在` };
        } else if (parsed.iotInstanceId && parsed.iotInstanceId !== group.projectCode) {
            result.error = {
                condition: 'amqp:unauthorized-access',
                description: `消费者组 ${group.id} 不属于项目 ${parsed.iotInstanceId}`,
            };
        } else {
            result.groupId = group.id;
            void db
                .update(accessKeys)
                .set({ lastUsedTime: new Date() })
                .where(eq(accessKeys.id, key.id))
                .catch(() => undefined);
        }
        signIns.set(username, result);
        // Sign-ins not followed by an open within a minute are forgotten.
        for (const [name, r] of signIns) if (Date.now() - r.at > 60_000) signIns.delete(name);
        return true;
    }

    container.sasl_server_mechanisms.enable_plain((username: string, password: string) =>
        checkSignIn(username, password).catch((err) => {
            log(`AMQP 登录校验失败: ${String(err)}`);
            return false;
        }),
    );

    const signInOf = (connection: Connection): SignInResult | undefined => {
        const name = (connection as unknown as { sasl_transport?: { username?: string } }).sasl_transport?.username;
        return name ? signIns.get(name) : undefined;
    };

    container.on('connection_open', (context: EventContext) => {
        const connection = context.connection;
        connections.add(connection);
        const socket = (connection as unknown as { socket?: object }).socket;
        if (socket) pendingOpen.get(socket)?.();
        const result = signInOf(connection);
        if (result && !result.error && fenced()) {
            connection.close({ condition: 'amqp:connection:forced', description: '节点暂不可用，请重新连接' });
        } else if (!result || result.error || closed) {
            connection.close(
                result?.error ?? { condition: 'amqp:unauthorized-access', description: '请使用 AccessKey 签名登录' },
            );
        }
    });

    container.on('sender_open', (context: EventContext) => {
        const connection = context.connection;
        const sender = context.sender!;
        const result = signInOf(connection);
        // A refused connection is being closed with its reason (its links go with it).
        if (!result?.groupId || closed || fenced()) return;
        const taken = [...(groups.get(result.groupId)?.consumers ?? [])].some(
            (c) => c.connection === connection && !c.gone,
        );
        if (taken) {
            sender.close({ condition: 'amqp:resource-limit-exceeded', description: '每个连接只能打开一个接收链路' });
            return;
        }
        const socket = (connection as unknown as { socket?: { remoteAddress?: string; remotePort?: number } }).socket;
        const c: Consumer = {
            clientId: result.clientId,
            address: socket?.remoteAddress
                ? `${socket.remoteAddress.replace(/^::ffff:/, '')}:${socket.remotePort}`
                : '',
            connectedSince: new Date(),
            delivered: 0,
            acknowledged: 0,
            groupId: result.groupId,
            authId: result.authId,
            connection,
            sender,
            unsettled: new Map(),
            gone: false,
        };
        consumers.set(sender, c);
        const g = groupOf(result.groupId);
        g.consumers.push(c);
        g.dirty = true;
        pump(g);
    });

    container.on('sendable', (context: EventContext) => {
        const c = context.sender && consumers.get(context.sender);
        if (c && !c.gone) pump(groupOf(c.groupId));
    });
    container.on('accepted', (context: EventContext) => outcome(context, true));
    container.on('rejected', (context: EventContext) => outcome(context, 'rejected'));
    container.on('released', (context: EventContext) => outcome(context, false));
    container.on('modified', (context: EventContext) => outcome(context, false));

    const senderGone = (context: EventContext) => {
        const c = context.sender && consumers.get(context.sender);
        if (c) drop(c);
    };
    const connectionGone = (context: EventContext) => {
        const connection = context.connection;
        connections.delete(connection);
        for (const g of groups.values()) for (const c of [...g.consumers]) if (c.connection === connection) drop(c);
    };
    container.on('sender_close', senderGone);
    container.on('sender_error', senderGone);
    container.on('connection_close', connectionGone);
    container.on('connection_error', connectionGone);
    container.on('disconnected', connectionGone);
    // A consumer's socket error is its own (it shows as a disconnect).
    container.on('error', (err: unknown) => log(`AMQP 连接错误: ${String(err)}`));

    const wake = (ids: Iterable<number>) => {
        for (const id of ids) {
            const g = groups.get(id);
            if (!g?.consumers.length) continue;
            g.dirty = true;
            pump(g);
        }
    };
    queue.onInserted((ids, taken) => {
        for (const m of taken) {
            const g = groupOf(m.groupId);
            if (g.held.has(m.id)) continue;
            g.held.add(m.id);
            g.buffer.push(m);
        }
        for (const id of ids) {
            const g = groups.get(id);
            if (g && !g.consumers.length && g.buffer.length) void giveBack(g);
        }
        wake(ids);
    });

    /** LISTEN for other processes' (and this one's) new messages; the poll covers the time it is not connected. */
    let listener: pg.Client | undefined;
    async function listenForNotifications() {
        if (!databaseUrl || closed) return;
        const client = new pg.Client({ connectionString: databaseUrl });
        client.on('notification', (n) => {
            if (n.channel === NOTIFY_CHANNEL && n.payload) wake(n.payload.split(',').map(Number));
        });
        client.on('error', () => {
            listener = undefined;
            client.end().catch(() => undefined);
            if (!closed) setTimeout(() => void listenForNotifications(), 1000).unref();
        });
        try {
            await client.connect();
            await client.query(`LISTEN ${NOTIFY_CHANNEL}`);
            listener = client;
            if (closed) await client.end();
        } catch (err) {
            log(`AMQP 消息通知连接失败（改为轮询）: ${String(err)}`);
            client.end().catch(() => undefined);
            if (!closed) setTimeout(() => void listenForNotifications(), 5000).unref();
        }
    }

    const poll = setInterval(() => {
        for (const g of groups.values()) {
            if (!g.consumers.length) continue;
            g.dirty = true;
            pump(g);
        }
    }, pollMs);
    poll.unref();
    const renew = setInterval(
        () => void queue.renew().catch((err) => !closed && log(`续租消息失败: ${String(err)}`)),
        Math.max(1000, Math.floor(leaseMs / 3)),
    );
    renew.unref();
    const sweep = setInterval(
        () => void queue.trim().catch((err) => !closed && log(`清理堆积失败: ${String(err)}`)),
        sweepMs,
    );
    sweep.unref();

    return {
        queue,
        /** Loads the subscriptions; messages accepted before this resolves are routed once it has. */
        start(): Promise<void> {
            started ??= Promise.all([queue.start(), listenForNotifications()]).then(() => undefined);
            return started;
        },
        /** Device messages from the broker's uplink. */
        attach(broker: { uplink: { onAccepted(fn: (m: AcceptedMessage) => unknown): () => void } }) {
            void this.start();
            unsubscribes.push(broker.uplink.onAccepted((m) => queue.accept(m)));
        },
        /** A subscription or consumer group changed. */
        invalidate: () => queue.invalidate(),
        /** Listens for consumers; resolves with the port (rejects with EADDRINUSE when taken). */
        listen(port: number, host?: string): Promise<number> {
            return listenOn(
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
            tlsServers.push(server);
            return listenOn(server, port, host);
        },
        /** A renewed certificate for the next handshakes; open connections keep theirs. */
        setSecureContext(context: SecureContextOptions) {
            for (const s of tlsServers) s.setSecureContext(context);
        },
        /** The group's consumers on this process, its delivery rate (messages/s over 10 s) and its backlog. */
        async groupStatus(groupId: number) {
            const g = groups.get(groupId);
            const clients: ConsumerInfo[] = (g?.consumers ?? []).map((c) => ({
                clientId: c.clientId,
                address: c.address,
                connectedSince: c.connectedSince,
                delivered: c.delivered,
                acknowledged: c.acknowledged,
            }));
            return { clients, deliveryRate: rateOf(g), backlog: await queue.backlog(groupId) };
        },
        /** The AMQP listener is listening (readiness). */
        get listening() {
            return servers.length > 0 && servers.every((s) => s.listening);
        },
        /** Every group's consumers on this process and its delivery rate (the cluster heartbeat's share, /metrics). */
        consumerFigures() {
            return [...groups.values()]
                .filter((g) => g.consumers.length)
                .map((g) => ({
                    groupId: g.id,
                    deliveryRate: rateOf(g),
                    clients: g.consumers.map((c) => ({
                        clientId: c.clientId,
                        address: c.address,
                        connectedSince: c.connectedSince,
                        delivered: c.delivered,
                        acknowledged: c.acknowledged,
                    })),
                }));
        },
        /** 清空堆积. */
        clear: (groupId: number) => queue.clear(groupId),
        /** Applies the backlog bounds now. */
        trim: () => queue.trim(),
        /** Disconnects the group's consumers (the group was deleted). */
        disconnectGroup(groupId: number) {
            const g = groups.get(groupId);
            for (const c of [...(g?.consumers ?? [])]) {
                c.connection.close({ condition: 'amqp:not-found', description: '消费者组已删除' });
                drop(c);
            }
        },
        /** Disconnects every consumer here (this member fenced itself: they reconnect elsewhere). */
        closeAll() {
            for (const connection of connections) {
                connection.close({ condition: 'amqp:connection:forced', description: '节点暂不可用，请重新连接' });
            }
        },
        /** Disconnects the consumers signed in with this AccessKey (it was disabled or deleted). */
        disconnectKey(accessKey: string) {
            for (const g of groups.values()) {
                for (const c of [...g.consumers]) {
                    if (c.authId !== accessKey) continue;
                    c.connection.close({
                        condition: 'amqp:unauthorized-access',
                        description: 'AccessKey 已禁用或已删除',
                    });
                    drop(c);
                }
            }
        },
        async close() {
            if (closed) return;
            closed = true;
            clearInterval(poll);
            clearInterval(renew);
            clearInterval(sweep);
            await listener?.end().catch(() => undefined);
            for (const u of unsubscribes) u();
            for (const connection of connections) {
                try {
                    connection.close();
                    (connection as unknown as { socket?: { destroy(): void } }).socket?.destroy();
                } catch {
                    // already gone
                }
            }
            await Promise.all(servers.map((s) => new Promise((r) => s.close(() => r(undefined)))));
            await queue.close().catch((err) => log(`关闭 AMQP 队列失败: ${String(err)}`));
        },
    };
}

export type AmqpService = ReturnType<typeof createAmqpService>;
