import type { Aedes, AuthenticateError, Client, ConnectPacket } from 'aedes';
import type { SessionIndex } from './sessionIndex';

/**
 * A shorter CONNECT for the common case, through aedes' public `preConnect` hook (aedes 1.2).
 *
 * aedes' own CONNECT handler (node_modules/aedes/lib/handlers/connect.js) runs nine steps for every connection,
 * whatever its session. For a clean session three of them do nothing that anyone can see, yet were a sixth of the
 * broker's main thread in a connect storm (docs/device-access.md, "Connect storms"):
 * - `emptyQueue` builds a `stream.pipeline` over `persistence.outgoingStream()` and a Transform to clear the queue a
 *   clean session has none of; the pipeline's end aborts an AbortController, whose DOMException captures a stack;
 * - `fetchSubs` asks the persistence to forget the subscriptions a clean session never stored (aedes stores a
 *   client's subscriptions only when it is not clean);
 * - `registerClient` publishes `$SYS/{broker}/new/clients`, which only another process's aedes reads (to close a
 *   client with the same id there): in one process it goes to no one. (Nothing subscribes to `$SYS` otherwise:
 *   devices may only subscribe inside their own topics, topics.ts.)
 * The steps also run one after another through `setImmediate` and callbacks, and the CONNACK is four corked writes.
 *
 * So a CONNECT that asks for a clean session, under a client id that never asked for a persistent session in this
 * process and, in a cluster (REDIS_URL: the session store is shared), holds none in any process (`sessions`,
 * sessionIndex.ts), is handled here with aedes' own steps in aedes' order less those three, and one write of the same
 * four CONNACK bytes.
 * In a cluster the `$SYS/{broker}/new/clients` announcement of such a connect is left out too: its one reader, aedes'
 * closeSameClients in the other processes ([MQTT-3.1.4-2]: a client id connected elsewhere is closed), is done by the
 * platform's own close message (broker.ts, CLOSE_TOPIC), which each connect sends already, batched per event-loop
 * turn, and which names the new connection's client id.
 * Everything else — a persistent session (clean=false), a client id that had one, an MQTT version or client id aedes
 * refuses, a refused sign-in — goes through aedes' handler unchanged.
 * The sign-in itself runs once: a refusal found here is handed to aedes' handler, which answers it as always.
 *
 * What this relies on of aedes' internals (checked against 1.2.0; tests/server/mqttSession.test.ts covers each):
 * the client's fields its handler sets (`connecting`, `connected`, `connackSent`, `_authorized`, `_will`, `will`,
 * `_keepaliveInterval`/`_keepaliveTimer`), `pause()`/`resume()`, `waitForDrain()`, the broker's `registerClient`,
 * `clients`, `connectedClients`, and that a `preConnect` answering (null, false) lets the parser go on.
 */

/** What aedes' CONNECT handler sets on a client (lib/handlers/connect.js, lib/client.js). */
interface ClientState {
    id: string;
    clean: boolean;
    version: number;
    connecting: boolean;
    connected: boolean;
    connackSent: boolean;
    closed: boolean;
    errored: boolean;
    _authorized: boolean;
    _will: unknown;
    will: unknown;
    _keepaliveInterval: number;
    _keepaliveTimer: NodeJS.Timeout | null;
    conn: { write(chunk: Buffer): boolean };
    pause(): void;
    resume(): void;
    waitForDrain(cb: (err: Error | null) => void): void;
    emit(event: string, ...args: unknown[]): boolean;
}

/** The memory persistence's calls a clean connect makes (aedes-persistence 11). */
interface Persistence {
    delWill(client: Client): Promise<unknown>;
    putWill(client: Client, will: unknown): Promise<unknown>;
    cleanIncoming?(client: Client): Promise<unknown>;
}

interface BrokerState {
    id: string;
    closed: boolean;
    persistence: Persistence;
    clients: Record<string, Client>;
    connectedClients: number;
    maxClientsIdLength: number;
    keepaliveLimit: number;
    registerClient(client: Client): void;
    deleteClient(clientId: string): void;
    publish(packet: { topic: string; payload: Buffer }, done: () => void): void;
    emit(event: string, ...args: unknown[]): boolean;
}

/** The platform's sign-in (aedes' authenticate hook). */
export type Authenticate = (
    client: Client,
    username: string | undefined,
    password: Buffer | undefined,
    done: (err: AuthenticateError | null, ok: boolean | null) => void,
) => void;

/** CONNACK, accepted, no session present: what mqtt-packet writes for { returnCode: 0, sessionPresent: false }. */
const CONNACK_ACCEPTED = Buffer.from([0x20, 0x02, 0x00, 0x00]);
/** The packet aedes' `connackSent` event carries (read-only here: one object for every connect). */
const CONNACK_EVENT = Object.freeze({ cmd: 'connack', returnCode: 0, sessionPresent: false });

const noop = () => undefined;

/**
 * Installs the short CONNECT on `aedes` with `signIn` as its authenticate (it replaces `aedes.authenticate` and
 * `aedes.preConnect`). `sessions`: the broker shares sessions with other processes (Redis), and these client ids hold
 * one somewhere: their CONNECTs go through aedes' handler, and its `$SYS` client announcements are published as aedes
 * does.
 */
export function installFastConnect(aedes: Aedes, signIn: Authenticate, { sessions }: { sessions?: SessionIndex }) {
    const broker = aedes as unknown as BrokerState;
    /** Connections that took the short path (in a cluster: announced by the platform's close message). */
    const short = new WeakSet<Client>();
    /** Client ids that asked for a persistent session here: their clean CONNECT must clear it (aedes' handler). */
    const persistentIds = new Set<string>();
    /** A refusal found on the short path, answered by aedes' handler (which calls authenticate again). */
    const refused = new WeakMap<Client, AuthenticateError | null>();
    aedes.authenticate = (client, username, password, done) => {
        if (refused.has(client)) {
            const err = refused.get(client)!;
            refused.delete(client);
            return done(err, false);
        }
        signIn(client, username, password, done);
    };

    // The client ids whose will this broker stored and has not deleted: what its putWill / delWill were asked (the will
    // of a client id is kept per broker id, aedes-persistence; aedes deletes another, dead broker's wills by that id).
    const wills = new Set<string>();
    const store = broker.persistence;
    const putWill = store.putWill.bind(store);
    const delWill = store.delWill.bind(store);
    store.putWill = (client, will) => (wills.add(client.id), putWill(client, will));
    store.delWill = (client) => {
        const { brokerId } = client as unknown as { brokerId?: string };
        if (brokerId === undefined || brokerId === broker.id) wills.delete(client.id);
        return delWill(client);
    };

    aedes.preConnect = (client, packet, callback) => {
        if (!packet.clean && packet.clientId) persistentIds.add(packet.clientId);
        if (!eligible(packet)) return callback(null, true);
        connect(client as unknown as ClientState, packet, callback);
    };

    const eligible = (packet: ConnectPacket) =>
        packet.clean &&
        !!packet.clientId &&
        !persistentIds.has(packet.clientId) &&
        !sessions?.has(packet.clientId) &&
        (packet.protocolVersion === 4 ||
            (packet.protocolVersion === 3 && packet.clientId.length <= broker.maxClientsIdLength)) &&
        !(broker.keepaliveLimit && (!packet.keepalive || packet.keepalive > broker.keepaliveLimit));

    /** aedes' steps for a clean session (authenticate, setKeepAlive, storeWill, registerClient, cleanIncoming, doConnack). */
    function connect(client: ClientState, packet: ConnectPacket, callback: (err: Error | null, ok: boolean) => void) {
        const asClient = client as unknown as Client;
        short.add(asClient);
        client.id = packet.clientId;
        client.clean = true;
        client.version = packet.protocolVersion ?? 4;
        client._will = packet.will;
        client.pause();
        signIn(asClient, packet.username, packet.password, (err, ok) => {
            // aedes stops here too when the connection or the broker closed during the sign-in.
            if (client.closed || broker.closed) return;
            if (err || !ok) {
                // aedes' handler answers the refusal (CONNACK with its code, then close) exactly as before.
                refused.set(asClient, err);
                return callback(null, true);
            }
            client._authorized = true;
            keepAlive(client, packet.keepalive ?? 0);
            client.will = client._will;
            const persistence = broker.persistence;
            // Any will this client id left behind is replaced (aedes' storeWill); none stored, nothing to delete (with
            // Redis that was three commands per connect).
            (wills.has(client.id) ? persistence.delWill(asClient) : Promise.resolve())
                .catch(noop)
                .then(() => (client.will ? persistence.putWill(asClient, client.will) : undefined))
                .then(() => {
                    broker.registerClient(asClient);
                    // After registering, as aedes does: a taken-over client's QoS 2 state is gone with it.
                    return persistence.cleanIncoming?.(asClient);
                })
                .then(
                    () => connack(client, callback),
                    (e: Error) => finish(client, e, callback),
                );
        });
    }

    function keepAlive(client: ClientState, keepalive: number) {
        if (!(keepalive > 0)) return;
        // [MQTT-3.1.2-24], as aedes' setKeepAlive: one and a half periods.
        client._keepaliveInterval = keepalive * 1500 + 1;
        client._keepaliveTimer = setTimeout(() => {
            broker.emit('keepaliveTimeout', client);
            client.emit('error', new Error('keep alive timeout'));
        }, client._keepaliveInterval);
    }

    function connack(client: ClientState, callback: (err: Error | null, ok: boolean) => void) {
        // aedes' write(): only while connecting; a full socket buffer waits for 'drain' (with its drain timeout).
        if (!client.connecting || client.closed) return finish(client, new Error('connection closed'), callback);
        const sent = () => {
            broker.emit('connackSent', CONNACK_EVENT, client);
            client.connackSent = true;
            // aedes' emptyQueue: the socket is read again; a clean session has no queue to send.
            client.resume();
            finish(client, null, callback);
        };
        if (client.conn.write(CONNACK_ACCEPTED) || client.errored) return sent();
        client.waitForDrain((err) => (err ? finish(client, err, callback) : sent()));
    }

    /** The end of aedes' connect series: connected, its events, then the parser goes on (or the error closes it). */
    function finish(client: ClientState, err: Error | null, callback: (err: Error | null, ok: boolean) => void) {
        client.connecting = false;
        if (!err) {
            client.connected = true;
            broker.emit('clientReady', client);
            client.emit('connected');
        }
        // (null, false): aedes' preConnect answer that ends its handler here; it goes on reading the socket. An error
        // is handed on as aedes' series hands it on (the client emits it and closes).
        callback(err, false);
    }

    // The `$SYS` announcements of each connect and disconnect: no reader in one process, and in a cluster none for a
    // short-path connection (see above; nothing reads the disconnect one). aedes' registerClient / unregisterClient less
    // the publish; aedes' own for the others.
    const own = broker as unknown as {
        _finishRegisterClient(client: Client): void;
        unregisterClient(client: Client): void;
    };
    const announceNew = own._finishRegisterClient.bind(broker);
    const announceGone = own.unregisterClient.bind(broker);
    const quiet = (client: Client) => !sessions || short.has(client);
    own._finishRegisterClient = function (client: Client) {
        if (!quiet(client)) return announceNew(client);
        broker.connectedClients++;
        broker.clients[client.id] = client;
        broker.emit('client', client);
    };
    own.unregisterClient = function (client) {
        if (!quiet(client)) return announceGone(client);
        broker.deleteClient(client.id);
        broker.emit('clientDisconnect', client);
    };
}
