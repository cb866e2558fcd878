import type { Client } from 'aedes';
import type { BrokerState } from './brokerState';

/**
 * A device's connection closes wherever it is when it connects elsewhere (`keep` names the new connection,
 * `${aedes.id}/${client.id}`) or is disabled, deleted or renamed (`keep` null). Every process listens; with REDIS_URL
 * the message crosses processes.
 */
export const CLOSE_TOPIC = '$SYS/iot-platform/device/close';

export interface CloseMessage {
    deviceId: number;
    keep: string | null;
}

/** The closes asked for within one turn of the event loop, sent together. */
export interface CloseBatch {
    pending: CloseMessage[];
}

/**
 * Asks every process to close the device's connections but `keep`. The closes asked for within one turn of the event
 * loop go as one message, in order (a reconnect storm is a message per turn, not one per connect that every process
 * reads). One process (`send` undefined, no REDIS_URL): the callers have closed the connection here already and no
 * other process reads it, so nothing is sent.
 */
export function closeEverywhere(
    batch: CloseBatch,
    send: ((body: string) => Promise<void>) | undefined,
    deviceId: number,
    keep: string | null,
) {
    if (!send) return;
    if (!batch.pending.length)
        setImmediate(() => {
            const list = batch.pending;
            batch.pending = [];
            send(JSON.stringify(list)).catch(() => undefined);
        });
    batch.pending.push({ deviceId, keep });
}

export interface CloseDeps {
    state: BrokerState;
    /** aedes' connected clients by client id. */
    clientsById: Record<string, Client | undefined>;
    keyOf(client: Client): string;
    /** Disabled, deleted or renamed: signed in from the database next time. */
    forget(deviceIds: number[]): void;
    /** A sub-device leaves the gateway session it is in here. */
    subOffline(gateway: Client, subId: number): void;
}

/** Reads a close message (a list; a lone object from a process of an older version). */
export function parseCloseMessage(payload: Buffer): CloseMessage[] {
    const parsed = JSON.parse(payload.toString()) as CloseMessage | CloseMessage[];
    return Array.isArray(parsed) ? parsed : [parsed];
}

/**
 * How long a connection waits for its own close message to come back before it counts as announced anyway (the
 * message was lost with the Redis link): a close message read later than this was sent after it.
 */
export const ANNOUNCE_GRACE_MS = 5_000;

/**
 * Whether a connection here is older than the connection a close message keeps. The processes' close messages reach
 * every process in one order (Redis' publish order): a connection whose own message has not come back yet connected
 * after the message's sender, so it is the newer one and stays; two devices connecting on two processes at once then
 * leave exactly one connection, the later in that order. A takedown (`keep` null) closes whatever is here.
 */
function olderThanMessage(deps: CloseDeps, client: Client, keep: string | null): boolean {
    if (keep === null || deps.state.announced.has(client)) return true;
    const signedIn = deps.state.signedInAt.get(client);
    return signedIn === undefined || performance.now() - signedIn > ANNOUNCE_GRACE_MS;
}

/** Closes a connection here that a close message replaces (an older connection of the device, or of its client id). */
function closeReplaced(deps: CloseDeps, client: Client, keep: string | null) {
    if (!olderThanMessage(deps, client, keep)) return;
    if (keep !== null) deps.state.takenOver.add(client);
    client.close();
}

/** Closes here what a close message names. */
export function applyCloseMessage(deps: CloseDeps, list: CloseMessage[]) {
    const gone = list.filter((c) => c.keep === null).map((c) => c.deviceId);
    if (gone.length) deps.forget(gone);
    for (const { deviceId, keep } of list) {
        const client = deps.state.live.get(deviceId);
        if (client && deps.keyOf(client) === keep) deps.state.announced.add(client);
        else if (client) closeReplaced(deps, client, keep);
        const gateway = deps.state.subLive.get(deviceId);
        if (gateway && keep === null) deps.subOffline(gateway, deviceId);
        // [MQTT-3.1.4-2] across processes: another connection under the new one's client id (another device's)
        // closes, as aedes' `$SYS/+/new/clients` would, which a short-path connect does not publish
        // (fastConnect.ts). Not a takeover: that device goes OFFLINE.
        if (keep === null) continue;
        const same = deps.clientsById[keep.slice(keep.indexOf('/') + 1)];
        if (same && same !== client && deps.keyOf(same) !== keep && olderThanMessage(deps, same, keep)) same.close();
    }
}
