import { createServer, type Server as NetServer } from 'node:net';
import { createServer as createTlsServer, type SecureContextOptions, type Server as TlsServer } from 'node:tls';
import type { IncomingMessage, Server as HttpServer } from 'node:http';
import type { Server as HttpsServer } from 'node:https';
import type { Duplex } from 'node:stream';
import { Aedes, type AuthenticateError, type Client, type PublishPacket } from 'aedes';
import { WebSocketServer, createWebSocketStream } from 'ws';
import type { Db } from '../db/client';
import { createDirectory, type DeviceEntry } from './directory';
import { createPresence } from './presence';
import { parseClientId, passwordValid, parseUsername } from './signIn';
import { createRefusalLog, guardMqtt } from './packetLimit';
import { redisBackends } from './cluster';
import { createGatewaySessions } from './gateway';
import { mayPublish, topicClasses } from './topicCatalog';
import { ownerAllows, propertyPostTopic, topicAllowed } from './topics';
import { createUplink } from './uplink';
import { createMessageWriter } from './writer';
import { createTraffic } from './traffic';
import { createDownlink } from './downlink';
import { installFastConnect, type Authenticate } from './fastConnect';
import { createSessionIndex } from './sessionIndex';

/** MQTT CONNACK return codes (3.1.1). */
const CODE = { IDENTIFIER_REJECTED: 2, BAD_USERNAME_OR_PASSWORD: 4, NOT_AUTHORIZED: 5 } as const;

/** A device's connection to close wherever it is, but the one named `keep` (`${aedes.id}/${client.id}`). */
interface CloseMessage {
    deviceId: number;
    keep: string | null;
}

function refuse(code: number, message: string): AuthenticateError {
    return Object.assign(new Error(message), { returnCode: code }) as AuthenticateError;
}

export interface BrokerOptions {
    db: Db;
    /** Share the broker with other server processes through this Redis (REDIS_URL). */
    redisUrl?: string;
    /** Where refusals and failures are logged (default console.warn). */
    log?: (message: string) => void;
    /** The largest packet a device may send (MQTT_MAX_PACKET_BYTES); a CONNECT is held to 64 KB. */
    maxPacketBytes?: number;
    /** A connection that has not signed in (TLS handshake and CONNECT) within this is closed (HANDSHAKE_TIMEOUT_MS). */
    connectTimeoutMs?: number;
    /** In a cluster: this member is fenced (server/cluster/lease.ts) and takes no device now. */
    fenced?: () => boolean;
}

/**
 * The platform's MQTT 3.1.1 broker (aedes): device sign-in against the device table, topic rights, live status,
 * Alink uplink validated against the thing model and written in batches, downlink with replies. TCP on MQTT_PORT and
 * WebSocket on the HTTP server's /mqtt.
 */
export async function createBroker({
    db,
    redisUrl,
    log = (m) => console.warn(m),
    maxPacketBytes = 256 * 1024,
    connectTimeoutMs = 10_000,
    fenced = () => false,
}: BrokerOptions) {
    const directory = createDirectory(db);
    const writer = createMessageWriter(db);
    /** This process's member id in a cluster (joinCluster), written beside each ONLINE. */
    let nodeId: string | undefined;
    const presence = createPresence(
        db,
        (err) => log(`设备状态写入失败: ${String(err)}`),
        () => nodeId,
    );
    /** Uplink messages being handled (their PUBACK waits for the write): a drain waits for them. */
    let inflight = 0;
    const devices = new WeakMap<Client, DeviceEntry>();
    /** The live connection of each device: a newer one takes over. */
    const live = new Map<number, Client>();
    /** Sub-devices signed in through a gateway's connection (combine login), and the gateway connection of each. */
    const sessions = new WeakMap<Client, Map<number, DeviceEntry>>();
    const subLive = new Map<number, Client>();
    const isOnline = (deviceId: number) => live.has(deviceId) || subLive.has(deviceId);

    const backends = redisUrl ? await redisBackends(redisUrl) : undefined;
    const aedes = await Aedes.createBroker({
        drainTimeout: 10_000,
        connectTimeout: connectTimeoutMs,
        // A device reconnecting with the same Alibaba clientId takes over; aedes closes the older session.
        ...(backends ? { mq: backends.mq, persistence: backends.persistence } : {}),
    });
    /** Connections closed because the device connected again (here or on another process): not an OFFLINE. */
    const takenOver = new WeakSet<Client>();
    const keyOf = (client: Client) => `${aedes.id}/${client.id}`;
    /** aedes' connected clients by client id. */
    const clientsById = (aedes as unknown as { clients: Record<string, Client | undefined> }).clients;

    /** Delivers the broker's publications on `topic` to `fn` (from every process, with REDIS_URL). */
    const listen = (topic: string, fn: (payload: Buffer) => void) =>
        new Promise<() => void>((resolve) => {
            const deliver = (packet: { payload: Buffer | string }, cb: () => void) => {
                fn(Buffer.isBuffer(packet.payload) ? packet.payload : Buffer.from(packet.payload));
                cb();
            };
            aedes.subscribe(topic, deliver, () => resolve(() => aedes.unsubscribe(topic, deliver, () => undefined)));
        });

    const traffic = createTraffic();
    /** Connected devices by `{productKey}/{deviceName}`, to name the device a platform publish goes to. */
    const liveByName = new Map<string, DeviceEntry>();
    const ownerOf = (topic: string) => {
        const m = /^\/(?:sys\/)?([^/]+)\/([^/]+)\//.exec(topic);
        return m ? liveByName.get(`${m[1]}/${m[2]}`) : undefined;
    };

    /** Publishes as the platform; `to`: the device the topic belongs to, when the caller knows it (else looked up). */
    const publish = (topic: string, payload: string | Buffer, qos: 0 | 1 = 0, to?: DeviceEntry) => {
        const device = to ?? ownerOf(topic);
        if (device) traffic.emit('down', device, topic, payload);
        return new Promise<void>((resolve, reject) =>
            aedes.publish({ cmd: 'publish', topic, payload, qos, retain: false, dup: false } as PublishPacket, (err) =>
                err ? reject(err) : resolve(),
            ),
        );
    };
    const status = (device: DeviceEntry, online: boolean) =>
        traffic.emit('status', device, '', online ? 'online' : 'offline');

    const downlink = createDownlink({ directory, writer, publish, isOnline, listen });
    const uplink = createUplink({ directory, writer, publish, log });

    // A device's connection closes wherever it is when it connects elsewhere (keep names the new connection) or is
    // disabled, deleted or renamed (keep null). Every process listens; with REDIS_URL the message crosses processes.
    const CLOSE_TOPIC = '$SYS/iot-platform/device/close';
    // The closes asked for within one turn of the event loop go as one message (a reconnect storm is a message per
    // turn, not one per connect that every process of a cluster reads), in the order they were asked for.
    let closing: Array<{ deviceId: number; keep: string | null }> = [];
    const closeEverywhere = (deviceId: number, keep: string | null) => {
        // One process (no REDIS_URL): the callers have closed the device's connection here already (the takeover in the
        // 'client' handler, disconnect()) and no other process reads the message; it was ~5 % of a connect storm's
        // main thread (the publish, then the listener's parse of each batch).
        if (!redisUrl) return;
        if (!closing.length)
            setImmediate(() => {
                const batch = closing;
                closing = [];
                publish(CLOSE_TOPIC, JSON.stringify(batch)).catch(() => undefined);
            });
        closing.push({ deviceId, keep });
    };
    await listen(CLOSE_TOPIC, (payload) => {
        // A list since the closes are batched; a lone object from a process of an older version.
        const parsed = JSON.parse(payload.toString()) as CloseMessage | CloseMessage[];
        const list = Array.isArray(parsed) ? parsed : [parsed];
        // Disabled, deleted or renamed (keep null): signed in from the database next time, in every process.
        const gone = list.filter((c) => c.keep === null).map((c) => c.deviceId);
        if (gone.length) directory.forget(gone);
        for (const { deviceId, keep } of list) {
            const client = live.get(deviceId);
            if (client && keyOf(client) !== keep) {
                if (keep !== null) takenOver.add(client);
                client.close();
            }
            const gateway = subLive.get(deviceId);
            if (gateway && keep === null) subOffline(gateway, deviceId);
            // [MQTT-3.1.4-2] across processes: another connection under the new one's client id (another device's)
            // closes, as aedes' `$SYS/+/new/clients` would, which a short-path connect does not publish
            // (fastConnect.ts). Not a takeover: that device goes OFFLINE.
            if (keep === null) continue;
            const same = clientsById[keep.slice(keep.indexOf('/') + 1)];
            if (same && same !== client && keyOf(same) !== keep) same.close();
        }
    });

    /** Connections that arrived over TLS (MQTTS, or WebSocket over HTTPS). */
    const secure = new WeakSet<object>();
    const refusal = createRefusalLog(log);

    const authenticate: Authenticate = (client, username, password, done) => {
        if (fenced()) return done(refuse(3, '服务暂不可用'), false);
        const who = parseUsername(username);
        if (!who) {
            return done(refuse(CODE.BAD_USERNAME_OR_PASSWORD, '用户名应为 {deviceName}&{productKey}'), false);
        }
        // Alibaba's securemode=2 means "over TLS": a device that asked for TLS must not sign in over plain TCP, where its
        // payloads would cross the network in clear while it believes them encrypted. securemode=3 is accepted on both.
        const alibaba = parseClientId(client.id);
        if (typeof alibaba === 'object' && alibaba.securemode === '2' && !secure.has(client.conn)) {
            log(
                `MQTT 拒绝连接（securemode=2 要求 TLS，但设备通过明文端口连接；请连接 MQTTS 端口或使用 mqtts:// / wss://）: ${username}`,
            );
            return done(refuse(CODE.NOT_AUTHORIZED, 'securemode=2 须通过 TLS 连接'), false);
        }
        const signIn = (found: Awaited<ReturnType<typeof directory.byName>>) => {
            if (!('deviceId' in found)) {
                log(`MQTT 拒绝连接（${found.unknownProduct ? '产品不存在' : '设备不存在'}）: ${username}`);
                return done(
                    refuse(CODE.IDENTIFIER_REJECTED, found.unknownProduct ? '产品不存在' : '设备不存在'),
                    false,
                );
            }
            if (!passwordValid(client.id, who.deviceName, who.productKey, found.secret, password?.toString() ?? '')) {
                log(`MQTT 拒绝连接（签名错误）: ${username}`);
                return done(refuse(CODE.BAD_USERNAME_OR_PASSWORD, '签名错误'), false);
            }
            if (!found.enabled) {
                log(`MQTT 拒绝连接（设备已禁用）: ${username}`);
                return done(refuse(CODE.NOT_AUTHORIZED, '设备已禁用'), false);
            }
            devices.set(client, found);
            done(null, true);
        };
        // A device signed in before (a reconnect): its entry without the database.
        const known = directory.signedInBefore(who.productKey, who.deviceName);
        if (known) return signIn(known);
        directory
            .byName(who.productKey, who.deviceName)
            .then(signIn)
            .catch((err) => {
                log(`MQTT 认证失败: ${String(err)}`);
                done(refuse(3, '服务暂不可用'), false);
            });
    };
    // A clean session's CONNECT without aedes' steps for persistent sessions (fastConnect.ts); it signs in here.
    // In a cluster, for a client id with no persistent session anywhere (sessionIndex.ts).
    installFastConnect(aedes, authenticate, {
        sessions: backends ? await createSessionIndex(aedes, backends.redis) : undefined,
    });

    /** The device itself, and for a gateway the sub-devices signed in through this connection. */
    const owners = (client: Client, device: DeviceEntry): DeviceEntry[] => [
        device,
        ...(sessions.get(client)?.values() ?? []),
    ];

    const subOnline = (gateway: Client, sub: DeviceEntry) => {
        let map = sessions.get(gateway);
        if (!map) sessions.set(gateway, (map = new Map()));
        const older = subLive.get(sub.deviceId);
        if (older && older !== gateway) sessions.get(older)?.delete(sub.deviceId);
        map.set(sub.deviceId, sub);
        subLive.set(sub.deviceId, gateway);
        liveByName.set(`${sub.productKey}/${sub.deviceName}`, sub);
        presence.online(sub.deviceId);
        status(sub, true);
    };
    const subOffline = (gateway: Client, subId: number) => {
        const sub = sessions.get(gateway)?.get(subId);
        if (!sub) return;
        sessions.get(gateway)!.delete(subId);
        if (subLive.get(subId) !== gateway) return;
        subLive.delete(subId);
        liveByName.delete(`${sub.productKey}/${sub.deviceName}`);
        presence.offline(subId);
        status(sub, false);
        downlink.deviceLeft(subId);
    };
    const gatewaySessions = createGatewaySessions({
        directory,
        reply: (topic, body) => publish(topic, JSON.stringify(body)),
        online: subOnline,
        offline: subOffline,
        log,
    });

    aedes.authorizeSubscribe = (client, sub, done) => {
        const device = devices.get(client);
        if (!device || !topicAllowed(sub.topic, owners(client, device))) {
            log(`MQTT 拒绝订阅 ${sub.topic}（${device ? `${device.productKey}/${device.deviceName}` : '未知客户端'}）`);
            return done(null, null);
        }
        done(null, sub);
    };

    aedes.authorizePublish = (client, packet, done) => {
        if (!client) return done(null); // the platform's own messages (replies, downlink, wills)
        const gateway = devices.get(client);
        // The device itself first, without building the list of its sub-devices (the commonest case).
        const device =
            gateway &&
            (ownerAllows(packet.topic, gateway)
                ? gateway
                : owners(client, gateway).find((o) => ownerAllows(packet.topic, o)));
        if (!gateway || !device) {
            log(
                `MQTT 拒绝发布 ${packet.topic}（${gateway ? `${gateway.productKey}/${gateway.deviceName}` : '未知客户端'}）`,
            );
            return done(new Error('无权发布到该 Topic'));
        }
        // The property post (most messages) is always allowed: accepted without a promise in between.
        if (packet.topic === propertyPostTopic(device)) return accept(client, gateway, device, packet, done);
        mayPublishOn(device, packet.topic)
            .then((allowed) => (allowed ? accept(client, gateway, device, packet, done) : deny(gateway, packet, done)))
            .catch(() => done(null));
    };

    /** The topic catalog's 发布 topics of the device (the property post, the commonest, without a lookup). */
    // A device's topic classes, made once per thing-model version (the directory hands out a new model object when the
    // product's model is reloaded) instead of on every publish.
    const classCache = new WeakMap<object, Map<string, ReturnType<typeof topicClasses>>>();
    async function mayPublishOn(device: DeviceEntry, topic: string): Promise<boolean> {
        if (topic === propertyPostTopic(device)) return true;
        const model = await directory.model(device.productId);
        let byDevice = classCache.get(model);
        if (!byDevice) classCache.set(model, (byDevice = new Map()));
        const key = `${device.productKey}/${device.deviceName}/${device.nodeType}/${device.passthrough}`;
        let classes = byDevice.get(key);
        if (!classes) {
            classes = topicClasses(device, device.deviceName, [...model.events.keys()], [...model.services.keys()]);
            byDevice.set(key, classes);
        }
        return mayPublish(classes, topic);
    }

    function deny(gateway: DeviceEntry, packet: PublishPacket, done: (err?: Error | null) => void) {
        log(`MQTT 拒绝发布 ${packet.topic}（${gateway.productKey}/${gateway.deviceName}：不是可发布的 Topic）`);
        done(new Error('无权发布到该 Topic'));
    }

    function accept(
        client: Client,
        gateway: DeviceEntry,
        device: DeviceEntry,
        packet: PublishPacket,
        done: (err?: Error | null) => void,
    ) {
        traffic.emit('up', device, packet.topic, packet.payload as Buffer);
        if (device === gateway && gatewaySessions.handles(gateway, packet.topic)) {
            gatewaySessions
                .handle(client, gateway, packet.topic, packet.payload as Buffer)
                .then(() => done(null))
                .catch(() => done(null));
            return;
        }
        // PUBACK follows the write: an acknowledged QoS 1 message is stored.
        inflight++;
        uplink.handle(device, packet.topic, packet.payload as Buffer).then(
            () => (inflight--, done(null)),
            (err: unknown) => {
                inflight--;
                log(`上行消息处理失败（${packet.topic}）: ${String(err)}`);
                done(null);
            },
        );
    }

    aedes.on('client', (client) => {
        const device = devices.get(client);
        if (!device) return;
        const older = live.get(device.deviceId);
        live.set(device.deviceId, client);
        liveByName.set(`${device.productKey}/${device.deviceName}`, device);
        if (older && older !== client) {
            takenOver.add(older);
            older.close();
        }
        closeEverywhere(device.deviceId, keyOf(client));
        status(device, true);
        const address = (client.conn as { remoteAddress?: string }).remoteAddress;
        presence.online(device.deviceId, address);
    });

    aedes.on('clientDisconnect', (client) => {
        const device = devices.get(client);
        if (!device || live.get(device.deviceId) !== client) return; // taken over here: the newer one is online
        live.delete(device.deviceId);
        if (takenOver.has(client)) {
            // Taken over by another process: the device is online there.
            liveByName.delete(`${device.productKey}/${device.deviceName}`);
            return;
        }
        liveByName.delete(`${device.productKey}/${device.deviceName}`);
        for (const subId of [...(sessions.get(client)?.keys() ?? [])]) subOffline(client, subId);
        presence.offline(device.deviceId);
        status(device, false);
        downlink.deviceLeft(device.deviceId);
    });

    aedes.on('clientError', () => undefined);
    aedes.on('connectionError', () => undefined);

    const servers: NetServer[] = [];
    const tlsServers: TlsServer[] = [];
    // ws buffers a whole WebSocket frame before handing it on: its own limit, checked from the frame header, keeps
    // that to one packet (the MQTT guard below then follows packets across frames).
    const wss = new WebSocketServer({ noServer: true, maxPayload: maxPacketBytes + 8 });
    const handle = (conn: Duplex, listener: string, isSecure: boolean, req?: IncomingMessage) => {
        if (isSecure) secure.add(conn);
        guardMqtt(conn, { maxPacket: maxPacketBytes, refusal, listener, address: req?.socket.remoteAddress });
        aedes.handle(conn, req);
    };

    return {
        aedes,
        directory,
        writer,
        uplink,
        downlink,
        traffic,
        /** Publishes to a connected device's own topic (the debug page's 发布消息); false when it is not connected. */
        async publishTo(deviceId: number, topic: string, payload: string, qos: 0 | 1): Promise<boolean> {
            const client = live.get(deviceId) ?? subLive.get(deviceId);
            const device = client && devices.get(client);
            const target = client && device && owners(client, device).find((o) => o.deviceId === deviceId);
            if (!target || !topicAllowed(topic, [target])) return false;
            await publish(topic, payload, qos);
            return true;
        },
        /** Devices connected now. */
        get connected() {
            return live.size;
        },
        isOnline,
        /** Listens for MQTT over TCP; resolves with the port taken. */
        listen(port: number, host: string): Promise<number> {
            const server = createServer((socket) => handle(socket, 'MQTT', false));
            servers.push(server);
            return new Promise((resolve, reject) => {
                server.once('error', reject);
                server.listen(port, host, () => {
                    server.off('error', reject);
                    resolve((server.address() as { port: number }).port);
                });
            });
        },
        /** Listens for MQTT over TLS (MQTTS); resolves with the port taken. */
        listenTls(port: number, host: string, context: SecureContextOptions): Promise<number> {
            const server = createTlsServer({ ...context, handshakeTimeout: connectTimeoutMs }, (socket) =>
                handle(socket, 'MQTTS', true),
            );
            // Plaintext on the TLS port, a stalled handshake, garbage: Node closes the socket; one line per address.
            server.on('tlsClientError', (err, socket) => {
                const address = (socket.remoteAddress ?? '未知地址').replace(/^::ffff:/, '');
                refusal(
                    `MQTTS ${address}`,
                    `MQTTS 关闭来自 ${address} 的连接：TLS 握手失败（${err.message}）（同一端口同一地址一分钟内只记录一次）`,
                );
                socket.destroy(); // with a listener here, Node leaves the closing to it
            });
            servers.push(server);
            tlsServers.push(server);
            return new Promise((resolve, reject) => {
                server.once('error', reject);
                server.listen(port, host, () => {
                    server.off('error', reject);
                    resolve((server.address() as { port: number }).port);
                });
            });
        },
        /** A renewed certificate for the next handshakes; connections already made keep theirs. */
        setSecureContext(context: SecureContextOptions) {
            for (const s of tlsServers) s.setSecureContext(context);
        },
        /** MQTT over WebSocket on the HTTP (or HTTPS) server's /mqtt (the mqtt subprotocol). */
        attachWebSocket(http: HttpServer | HttpsServer) {
            http.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
                if ((req.url ?? '').split('?')[0] !== '/mqtt') return;
                wss.handleUpgrade(req, socket, head, (ws) => {
                    const stream = createWebSocketStream(ws);
                    stream.on('error', () => undefined);
                    const isSecure = 'encrypted' in req.socket && Boolean(req.socket.encrypted);
                    handle(stream, isSecure ? 'MQTT over WSS' : 'MQTT over WebSocket', isSecure, req);
                });
            });
        },
        /** Every MQTT listener is listening (readiness). */
        get listening() {
            return servers.length > 0 && servers.every((s) => s.listening);
        },
        /** Uplink messages not yet answered. */
        get inflight() {
            return inflight;
        },
        /**
         * In a cluster: this member's id on its devices' ONLINE rows; the devices connected now (gateway sub-devices
         * too) are noted again.
         */
        joinCluster(id: string) {
            nodeId = id;
            presence.reassert();
        },
        /**
         * SIGTERM: stop taking connections, stop reading from the connected devices, wait until what they sent is
         * stored and acknowledged, then close them (they reconnect elsewhere through the load balancer). Nothing
         * acknowledged is lost, and nothing is left half-handled to be sent again.
         */
        async drain(timeoutMs = 10_000) {
            for (const s of servers) s.close();
            wss.close();
            // aedes' own pause: it stops parsing the socket's packets (what is parsed already is counted in inflight).
            for (const c of live.values()) (c as unknown as { pause(): void }).pause();
            const until = Date.now() + timeoutMs;
            while ((inflight > 0 || writer.pending > 0) && Date.now() < until) {
                await new Promise((r) => setTimeout(r, 20));
            }
            await writer.drain();
            // The PUBACKs just queued reach the sockets before they close.
            await new Promise((r) => setTimeout(r, 50));
            for (const c of live.values()) c.close();
        },
        /** Closes every device connection here (this member fenced itself: the devices reconnect elsewhere). */
        closeAll() {
            for (const c of live.values()) c.close();
        },
        /** Closes the connections of these devices at once (disabled, deleted, renamed). */
        disconnect(deviceIds: number[]) {
            directory.forget(deviceIds);
            for (const id of deviceIds) {
                live.get(id)?.close();
                const gateway = subLive.get(id);
                if (gateway) subOffline(gateway, id);
                closeEverywhere(id, null);
            }
        },
        async close() {
            for (const s of servers) s.close();
            for (const c of live.values()) c.close();
            wss.close();
            await new Promise<void>((resolve) => aedes.close(() => resolve()));
            traffic.close();
            await presence.drain();
            await writer.drain();
        },
    };
}

export type Broker = Awaited<ReturnType<typeof createBroker>>;
