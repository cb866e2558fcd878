import type { Client } from 'aedes';
/**
 * A device's persistent session is the device's, not its clientId's: Alibaba's clientId carries the sign-in's
 * parameters (`{id}|securemode=3,signmethod=hmacsha1,timestamp=…|`, the SDK's timestamp taken once per process), so a
 * device that starts again connects under a new clientId, and the stored session of its older one (clean=false, the
 * SDK's default: its subscriptions in the broker's persistence, and the QoS 1 messages queued to them) would stay for
 * ever, one more at each restart. As a device signs in, the stored subscriptions of the clientId it last held a
 * persistent session under here, when that was another, are removed (in one process: aedes' in-memory persistence).
 */

/** The part of aedes-persistence this needs (a client is known to it by its id). */
export interface SessionStore {
    cleanSubscriptions(client: Client, cb: (err: unknown) => void): void;
}

export interface StaleSessions {
    /** The clientId of each device's last persistent session here. */
    lastId: Map<number, string>;
    store: SessionStore;
    /** Forgets a removed clientId elsewhere (the fast CONNECT's session index). */
    forget(clientId: string): void;
    log(message: string): void;
}

export function createStaleSessions(store: SessionStore, forget: (id: string) => void, log: (m: string) => void) {
    return { lastId: new Map(), store, forget, log } satisfies StaleSessions;
}

/** A device signed in on a connection: its older clientId's stored session goes; a persistent one is noted. */
export function deviceSignedIn(s: StaleSessions, deviceId: number, client: { id: string; clean: boolean }) {
    const older = s.lastId.get(deviceId);
    if (older !== undefined && older !== client.id) {
        s.forget(older);
        s.store.cleanSubscriptions({ id: older } as Client, (err) => {
            if (err) s.log(`清除设备旧会话失败: ${String(err)}`);
        });
    }
    if (client.clean) s.lastId.delete(deviceId);
    else s.lastId.set(deviceId, client.id);
}
