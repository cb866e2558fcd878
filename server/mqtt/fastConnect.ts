import type { Client, ConnectPacket } from 'aedes';
import type { SessionIndex } from './sessionIndex';

/**
 * A shorter CONNECT for the common case, through two hooks aedes takes as options (patches/aedes+1.2.0.patch, applied
 * by patch-package on install; tests/unit/aedesPatch.test.ts pins the aedes version it was checked against).
 *
 * aedes' CONNECT handler (node_modules/aedes/lib/handlers/connect.js) runs nine steps for every connection, whatever
 * its session. For a clean session under a client id with no stored session three of them do nothing anyone can see,
 * yet were a sixth of the broker's main thread in a connect storm (docs/device-access.md, "Connect storms"):
 * - `emptyQueue` builds a `stream.pipeline` over `persistence.outgoingStream()` to clear a queue there is none of;
 * - `fetchSubs` / `restoreSubs` forget and restore subscriptions that were never stored (aedes stores a client's
 *   subscriptions only when it is not clean);
 * - `registerClient` publishes `$SYS/{broker}/new/clients`, which only another process's aedes reads (to close a
 *   client with the same id there): in one process it goes to no one.
 *
 * `noStoredSession` answers, per clean CONNECT, whether its client id holds no session: none stored in this process
 * (`local`) and, in a cluster (REDIS_URL: the session store is shared), none in any process (`cluster`). aedes then
 * runs its steps less the first two. `announceClient` leaves out the `$SYS` announcements in one process, and in a
 * cluster those of a short-path connection: their one reader, aedes' closeSameClients in the other processes
 * ([MQTT-3.1.4-2]: a client id connected elsewhere is closed), is done by the platform's own close message
 * (closeMessage.ts), which each connect sends already and which names the new connection's client id.
 */
export interface FastConnect {
    /** Client ids with a persistent session's subscriptions stored in this process. */
    local: SessionIndex;
    /** In a cluster: client ids with one stored anywhere (set once the index has read the stored sessions). */
    cluster?: SessionIndex;
    clustered: boolean;
    /** Connections that took the short path. */
    short: WeakSet<Client>;
}

const NO_SESSIONS: SessionIndex = { has: () => false, size: 0 };

/** `clustered`: the session store is shared with other processes; `local` and `cluster` are set once made. */
export function createFastConnect(clustered: boolean): FastConnect {
    return { local: NO_SESSIONS, clustered, short: new WeakSet() };
}

/** aedes' noStoredSession hook (asked for clean CONNECTs only). */
export function noStoredSession(fc: FastConnect, client: Client, packet: ConnectPacket): boolean {
    const id = packet.clientId;
    if (!id || fc.local.has(id) || (fc.clustered && (!fc.cluster || fc.cluster.has(id)))) return false;
    fc.short.add(client);
    return true;
}

/** aedes' announceClient hook: publish `$SYS/{broker}/new|disconnect/clients` for this client? */
export function announceClient(fc: FastConnect, client: Client): boolean {
    return fc.clustered && !fc.short.has(client);
}
