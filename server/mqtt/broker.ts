import pTimeout from 'p-timeout';
import type { FenceToken } from '../cluster/fence';
import type { SecureContextOptions } from 'node:tls';
import type { Server as HttpServer } from 'node:http';
import type { Server as HttpsServer } from 'node:https';
import { Aedes, type Client, type PublishPacket } from 'aedes';
import type { Db } from '../db/client';
import { createDirectory, type DeviceEntry, type Directory } from './directory';
import { createPresence, type Presence } from './presence';
import { createRefusalLog } from './packetLimit';
import { redisBackends } from './cluster';
import { createGatewaySessions } from './gateway';
import { EXT_RRPC_PREFIX, topicAllowed } from './topics';
import { deleteDeviceTags, updateDeviceTags } from '../domain/tags';
import type { ScriptAccess } from '../scripts/calls';
import { sandboxFor, type ScriptLimits } from '../scripts/sandbox';
import { publishedScript } from '../scripts/store';
import { createUplink, type Uplink } from './uplink';
import { createMessageWriter, type MessageWriter } from './writer';
import { createTraffic, type Traffic } from './traffic';
import { createDownlink, type Downlink } from './downlink';
import { announceClient, createFastConnect, noStoredSession } from './fastConnect';
import { createLocalSessionIndex, createSessionIndex } from './sessionIndex';
import { createBrokerState, isOnline, owners, ownerOf, type BrokerState } from './brokerState';
import { authenticate, preConnect } from './authentication';
import { authorizeSubscribe } from './subscribing';
import { authorizePublish, newClassCache, type PublishDeps } from './publishing';
import {
    clientConnected,
    clientDisconnected,
    disconnectDevices,
    subOffline,
    subOnline,
    type LiveDeps,
} from './liveClients';
import { applyCloseMessage, CLOSE_TOPIC, closeEverywhere, parseCloseMessage, type CloseBatch } from './closeMessage';
import { attachWebSocket, createListeners, listenTcp, listenTls, stopListening, type Listeners } from './listeners';
import { withWillLedger } from './willPersistence';
import memoryPersistence from 'aedes-persistence';
import { FlatEmitter } from './flatEmitter';
import {
    deviceSignedIn,
    localLastSessions,
    redisLastSessions,
    type SessionStore,
    type StaleSessions,
} from './staleSessions';
import { answerRegistration, registerOverMqtt, type Registrations } from './mqttRegister';
import { changeShadow, loadShadow } from '../domain/shadow';
import { pushDesiredOnSubscribe, type ShadowStore } from './shadow';

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
    /** In a cluster: the member's fencing token, named by each message batch (server/cluster/fence.ts). */
    fence?: () => FenceToken | undefined;
    /** Data-parsing scripts' limits per run (SCRIPT_TIMEOUT_MS, SCRIPT_MEMORY_MB; default 100 ms, 16 MB). */
    scriptLimits?: ScriptLimits;
}

/** Publishes as the platform; `to`: the device the topic belongs to, when the caller knows it (else looked up). */
export function platformPublish(
    aedes: Aedes,
    traffic: { emit(kind: 'down', device: DeviceEntry, topic: string, payload: string | Buffer): void },
    state: BrokerState,
    [topic, payload, qos = 0, to]: [string, string | Buffer, (0 | 1)?, DeviceEntry?],
) {
    const device = to ?? ownerOf(state, topic);
    if (device) traffic.emit('down', device, topic, payload);
    return new Promise<void>((resolve, reject) =>
        aedes.publish({ cmd: 'publish', topic, payload, qos, retain: false, dup: false } as PublishPacket, (err) =>
            err ? reject(err) : resolve(),
        ),
    );
}

/**
 * aedes' authorizeForward: what a client gets of a publication. A custom RRPC's answer (`/ext/rrpc/...` from a device)
 * is the platform's alone: the request came on the same topic, and the device that subscribed to it is not sent its
 * own answer back as a new request (the platform's requests, published without a client, go through).
 */
export function forwardable<P extends { topic: string; clientId?: string }>(packet: P): P | null {
    return packet.clientId !== undefined && packet.topic.startsWith(EXT_RRPC_PREFIX) ? null : packet;
}

/** Delivers the broker's publications on `topic` to `fn` (from every process, with REDIS_URL); answers the unsubscribe. */
export function listenOn(aedes: Aedes, topic: string, fn: (payload: Buffer) => void) {
    return new Promise<() => void>((resolve) => {
        const deliver = (packet: { payload: Buffer | string }, cb: () => void) => {
            fn(Buffer.isBuffer(packet.payload) ? packet.payload : Buffer.from(packet.payload));
            cb();
        };
        aedes.subscribe(topic, deliver, () => resolve(() => aedes.unsubscribe(topic, deliver, () => undefined)));
    });
}

/** The longest close() waits for the last presence and message writes. */
const CLOSE_WRITES_MS = 10_000;

/** Whether `promise` settled within `ms` (it goes on either way; a rejection counts as settled). */
function settledWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
    const settled = promise.then(
        () => true,
        () => true,
    );
    // p-timeout takes a positive time only: a deadline already past gives the promise one more millisecond.
    return pTimeout(settled, { milliseconds: Math.max(1, ms), fallback: () => false });
}

/**
 * SIGTERM: stop taking connections, stop reading from the connected devices, wait until what they sent is stored and
 * acknowledged, then close them (they reconnect elsewhere through the load balancer). Nothing acknowledged is lost,
 * and nothing is left half-handled to be sent again. All within `timeoutMs`: what a stalled or overloaded database has
 * not stored by then is not acknowledged either, so its devices send it again elsewhere (the writer's resend check
 * finds one that was stored after all, server/mqtt/resend.ts).
 */
export async function drainBroker(
    state: BrokerState,
    listeners: Listeners,
    writer: MessageWriter,
    timeoutMs: number,
    log: (message: string) => void,
) {
    stopListening(listeners);
    // aedes' own pause: it stops parsing the socket's packets (what is parsed already is counted in inflight).
    for (const c of state.live.values()) (c as unknown as { pause(): void }).pause();
    const until = Date.now() + timeoutMs;
    while ((state.inflight > 0 || writer.pending > 0) && Date.now() < until) {
        await new Promise((r) => setTimeout(r, 20));
    }
    await settledWithin(writer.drain(), until - Date.now());
    if (state.inflight > 0) {
        log(
            `排空超时（${timeoutMs} ms）：${state.inflight} 条消息未写入、未确认，设备会重发 / ` +
                `drain timed out: ${state.inflight} messages neither stored nor acknowledged; their devices resend them`,
        );
    }
    // The PUBACKs just queued reach the sockets before they close.
    await new Promise((r) => setTimeout(r, 50));
    for (const c of state.live.values()) c.close();
}

/**
 * The platform's MQTT 3.1.1 broker (aedes): device sign-in against the device table (authentication.ts), topic rights
 * (publishing.ts, subscribing.ts), live status (liveClients.ts), Alink uplink validated against the thing model and
 * stored before its PUBACK, downlink with replies. TCP on MQTT_PORT and WebSocket on the HTTP server's /mqtt.
 */
export async function createBroker({
    db,
    redisUrl,
    log = (m) => console.warn(m),
    maxPacketBytes = 256 * 1024,
    connectTimeoutMs = 10_000,
    fenced = () => false,
    fence,
    scriptLimits,
}: BrokerOptions) {
    const state = createBrokerState();
    const directory = createDirectory(db);
    const writer = createMessageWriter(db, { fenced, fence });
    /** This process's member id in a cluster (joinCluster), written beside each ONLINE. */
    let nodeId: string | undefined;
    const presence = createPresence(
        db,
        (err) => log(`设备状态写入失败: ${String(err)}`),
        () => nodeId,
    );
    const traffic = createTraffic();
    /** Connections of Alibaba's MQTT dynamic registration, and the answer each gets after its CONNACK. */
    const registrations: Registrations = new WeakMap();
    const backends = redisUrl ? await redisBackends(redisUrl) : undefined;
    const fast = createFastConnect(Boolean(backends));
    const listeners = createListeners({
        maxPacketBytes,
        connectTimeoutMs,
        refusal: createRefusalLog(log),
        handle: (conn, req) => aedes.handle(conn, req),
    });
    const publishDeps: PublishDeps = {
        state,
        directory,
        uplink: { handle: (...args) => uplink.handle(...args) },
        gatewaySessions: {
            handles: (...a) => gatewaySessions.handles(...a),
            handle: (...a) => gatewaySessions.handle(...a),
        },
        traffic,
        log,
        classCache: newClassCache(),
        fenced,
    };
    // One process: aedes' in-memory persistence, made here so the stale sessions below can clean it.
    const localPersistence = backends ? undefined : memoryPersistence();
    const aedes = await Aedes.createBroker({
        drainTimeout: 10_000,
        connectTimeout: connectTimeoutMs,
        // A device reconnecting with the same Alibaba clientId takes over; aedes closes the older session.
        ...(backends
            ? {
                  mq: backends.mq,
                  persistence: withWillLedger(backends.persistence as never, {
                      ids: new Set(),
                      brokerId: () => aedes.id,
                  }),
              }
            : // One process: mqemitter's behaviour over flat maps, not a trie of Maps per device (flatEmitter.ts);
              // aedes' own default concurrency.
              { mq: new FlatEmitter(100), persistence: localPersistence }),
        preConnect: (_client, _packet, done) => preConnect(fenced, done),
        authenticate: (client, username, password, done) =>
            authenticate(
                {
                    state,
                    directory,
                    secure: listeners.secure,
                    log,
                    fenced,
                    register: (...args) =>
                        registerOverMqtt({ db, registrations, secure: listeners.secure, log }, ...args),
                },
                client,
                username,
                password,
                done,
            ),
        authorizePublish: (client, packet, done) => authorizePublish(publishDeps, client, packet, done),
        authorizeSubscribe: (client, sub, done) => authorizeSubscribe(state, log, client, sub, done),
        authorizeForward: (_client, packet) => forwardable(packet),
        noStoredSession: (client, packet) => noStoredSession(fast, client, packet),
        announceClient: (client) => announceClient(fast, client),
    });
    const local = createLocalSessionIndex(aedes);
    fast.local = local;
    const stale: StaleSessions = {
        last: backends ? redisLastSessions(backends.redis) : localLastSessions(),
        store: (localPersistence ?? backends!.persistence) as SessionStore,
        forget: local.forget,
        log,
    };
    const keyOf = (client: Client) => `${aedes.id}/${client.id}`;
    const publish = (...args: [string, string | Buffer, (0 | 1)?, DeviceEntry?]) =>
        platformPublish(aedes, traffic, state, args);
    const listen = (topic: string, fn: (payload: Buffer) => void) => listenOn(aedes, topic, fn);
    const online = (deviceId: number) => isOnline(state, deviceId);
    const shadow: ShadowStore = {
        load: (deviceId) => loadShadow(db, deviceId),
        change: (deviceId, change, version) => changeShadow(db, deviceId, change, version),
    };
    const scripts: ScriptAccess = { published: (id) => publishedScript(db, id), sandbox: sandboxFor(scriptLimits) };
    const downlink = createDownlink({ directory, writer, publish, isOnline: online, listen, scripts });
    const uplink = createUplink({
        directory,
        writer,
        publish,
        log,
        scripts,
        tags: {
            update: async (deviceId, pairs) => void (await updateDeviceTags(db, deviceId, pairs)),
            remove: (deviceId, keys) => deleteDeviceTags(db, deviceId, keys),
        },
        shadow,
    });
    const closes: CloseBatch = { pending: [] };
    const send = backends ? (body: string) => publish(CLOSE_TOPIC, body) : undefined;
    const live: LiveDeps = {
        state,
        presence,
        traffic,
        downlink,
        closeEverywhere: (deviceId, keep) => closeEverywhere(closes, send, deviceId, keep),
        keyOf,
    };
    const gatewaySessions = createGatewaySessions({
        db,
        directory,
        reply: (topic, body) => publish(topic, JSON.stringify(body)),
        online: (gateway, sub) => subOnline(live, gateway, sub),
        offline: (gateway, subId) => subOffline(live, gateway, subId),
        log,
    });
    const clientsById = (aedes as unknown as { clients: Record<string, Client | undefined> }).clients;
    await listen(CLOSE_TOPIC, (payload) =>
        applyCloseMessage(
            {
                state,
                clientsById,
                keyOf,
                forget: (ids) => directory.forget(ids),
                subOffline: (g, id) => subOffline(live, g, id),
            },
            parseCloseMessage(payload),
        ),
    );
    // In a cluster, client ids with a persistent session in any process take aedes' full CONNECT (sessionIndex.ts).
    if (backends) fast.cluster = await createSessionIndex(aedes, backends.redis);

    aedes.on('client', (client) => {
        if (answerRegistration(registrations, client)) return;
        const device = state.devices.get(client);
        if (device)
            deviceSignedIn(stale, device, client).catch((err: unknown) =>
                log(`记录设备会话失败 / noting a device's session failed: ${String(err)}`),
            );
        clientConnected(live, client);
    });
    aedes.on('clientDisconnect', (client) => clientDisconnected(live, client));
    aedes.on('subscribe', (subs, client) => {
        const device = client && state.devices.get(client);
        if (!device) return;
        const topics = subs.map((sub) => sub.topic);
        const push = { load: shadow.load, publish, log };
        void pushDesiredOnSubscribe(push, owners(state, client, device), topics);
    });
    aedes.on('clientError', () => undefined);
    aedes.on('connectionError', () => undefined);

    return brokerApi({
        aedes,
        state,
        directory,
        writer,
        uplink,
        downlink,
        traffic,
        presence,
        listeners,
        live,
        publish,
        online,
        setNodeId: (id) => (nodeId = id),
        log,
    });
}

/** What createBroker assembled. */
interface Assembled {
    aedes: Aedes;
    state: BrokerState;
    directory: Directory;
    writer: MessageWriter;
    uplink: Uplink;
    downlink: Downlink;
    traffic: Traffic;
    presence: Presence;
    listeners: Listeners;
    live: LiveDeps;
    publish: (topic: string, payload: string | Buffer, qos?: 0 | 1) => Promise<void>;
    online: (deviceId: number) => boolean;
    setNodeId: (id: string) => void;
    log: (message: string) => void;
}

/** The broker as the server uses it (server/index.ts, cluster/node.ts, the routes). */
function brokerApi(b: Assembled) {
    return {
        aedes: b.aedes,
        directory: b.directory,
        writer: b.writer,
        uplink: b.uplink,
        downlink: b.downlink,
        traffic: b.traffic,
        /** Publishes to a connected device's own topic (the debug page's 发布消息); false when it is not connected. */
        async publishTo(deviceId: number, topic: string, payload: string, qos: 0 | 1): Promise<boolean> {
            const client = b.state.live.get(deviceId) ?? b.state.subLive.get(deviceId);
            const device = client && b.state.devices.get(client);
            const target = client && device && owners(b.state, client, device).find((o) => o.deviceId === deviceId);
            if (!target || !topicAllowed(topic, [target])) return false;
            await b.publish(topic, payload, qos);
            return true;
        },
        /**
         * A notice to a device (thing/topo/change, thing/config/push), wherever it is connected: the cluster's broker
         * carries it there.
         */
        publishDown: (topic: string, payload: string, qos: 0 | 1 = 0) => b.publish(topic, payload, qos),
        /** Devices connected now. */
        get connected() {
            return b.state.live.size;
        },
        isOnline: b.online,
        /** Listens for MQTT over TCP; resolves with the port taken. */
        listen: (port: number, host: string) => listenTcp(b.listeners, port, host),
        /** Listens for MQTT over TLS (MQTTS); resolves with the port taken. */
        listenTls: (port: number, host: string, context: SecureContextOptions) =>
            listenTls(b.listeners, port, host, context),
        /** A renewed certificate for the next handshakes; connections already made keep theirs. */
        setSecureContext(context: SecureContextOptions) {
            for (const s of b.listeners.tlsServers) s.setSecureContext(context);
        },
        /** MQTT over WebSocket on the HTTP (or HTTPS) server's /mqtt (the mqtt subprotocol). */
        attachWebSocket: (http: HttpServer | HttpsServer) => attachWebSocket(b.listeners, http),
        /** Every MQTT listener is listening (readiness). */
        get listening() {
            return b.listeners.servers.length > 0 && b.listeners.servers.every((s) => s.listening);
        },
        /** Uplink messages not yet answered. */
        get inflight() {
            return b.state.inflight;
        },
        /**
         * In a cluster: this member's id on its devices' ONLINE rows; the devices connected now (gateway sub-devices
         * too) are noted again.
         */
        joinCluster(id: string) {
            b.setNodeId(id);
            b.presence.reassert();
        },
        /** Closes every device connection here (this member fenced itself: the devices reconnect elsewhere). */
        closeAll() {
            for (const c of b.state.live.values()) c.close();
        },
        drain: (timeoutMs = 10_000) => drainBroker(b.state, b.listeners, b.writer, timeoutMs, b.log),
        /** Closes the connections of these devices at once (disabled, deleted, renamed). */
        disconnect(deviceIds: number[]) {
            b.directory.forget(deviceIds);
            disconnectDevices(b.live, deviceIds);
        },
        async close() {
            for (const s of b.listeners.servers) s.close();
            for (const c of b.state.live.values()) c.close();
            b.listeners.wss.close();
            await new Promise<void>((resolve) => b.aedes.close(() => resolve()));
            b.traffic.close();
            // Presence and messages written last, within a bound: a stalled database must not hold a stop.
            const written = Promise.all([b.presence.drain(), b.writer.drain()]);
            if (!(await settledWithin(written, CLOSE_WRITES_MS)))
                b.log(
                    `关闭 MQTT 时仍有 ${b.writer.pending} 条消息未写入 / closed with ${b.writer.pending} messages unwritten`,
                );
        },
    };
}

export type Broker = ReturnType<typeof brokerApi>;
