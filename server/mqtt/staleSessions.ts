import type { Client } from 'aedes';
/**
 * A device's persistent session is the device's, not its clientId's: Alibaba's clientId carries the sign-in's
 * parameters (`{id}|securemode=3,signmethod=hmacsha1,timestamp=…|`, the SDK's timestamp taken once per process), so a
 * device that starts again connects under a new clientId, and the stored session of its older one (clean=false, the
 * SDK's default: its subscriptions in the broker's persistence, and the QoS 1 messages queued to them) would stay for
 * ever, one more at each restart. As a device signs in, the stored subscriptions of the clientId it last held a
 * persistent session under, when that was another, are removed: in one process from aedes' in-memory persistence, in a
 * cluster from aedes-persistence-redis (which then drops the older id's outgoing queue and announces the removal to
 * every process's session index), the last clientId of each device being kept in Redis, as the device may have held
 * it on another process.
 */

/** The part of aedes-persistence this needs (a client is known to it by its id). */
export interface SessionStore {
    cleanSubscriptions(client: Client, cb: (err: unknown) => void): void;
}

/** A device as Alibaba names it: the key of its last session. */
export interface DeviceName {
    productKey: string;
    deviceName: string;
}

/** Each device's last persistent clientId: this process's map, or Redis in a cluster. */
export interface LastSessions {
    /** Notes `clientId` as the device's (undefined: a clean session, none) and answers the one noted before. */
    swap(device: DeviceName, clientId: string | undefined): Promise<string | undefined>;
}

const nameOf = (d: DeviceName) => `${d.productKey}/${d.deviceName}`;

export interface StaleSessions {
    last: LastSessions;
    store: SessionStore;
    /** Forgets a removed clientId elsewhere (the fast CONNECT's session index). */
    forget(clientId: string): void;
    log(message: string): void;
}

export function localLastSessions(): LastSessions {
    const ids = new Map<string, string>();
    return {
        swap(device, clientId) {
            const name = nameOf(device);
            const before = ids.get(name);
            if (clientId === undefined) ids.delete(name);
            else ids.set(name, clientId);
            return Promise.resolve(before);
        },
    };
}

/** The Redis commands the cluster's store needs (an ioredis connection; Redis 6.2 or later). */
export interface LastSessionsRedis {
    set(key: string, value: string, get: 'GET'): Promise<string | null>;
    getdel(key: string): Promise<string | null>;
}

/** By the device's name rather than its row id, which another database on the same Redis (a restore, tests) reuses. */
export const lastSessionKey = (device: DeviceName) => `iot:mqtt:last-session:${nameOf(device)}`;

/** One key per device: SET … GET and GETDEL swap it in one command, whichever process the device signs in on. */
export function redisLastSessions(redis: LastSessionsRedis): LastSessions {
    return {
        async swap(device, clientId) {
            const key = lastSessionKey(device);
            const before = clientId === undefined ? await redis.getdel(key) : await redis.set(key, clientId, 'GET');
            return before ?? undefined;
        },
    };
}

/** A device signed in on a connection: its older clientId's stored session goes; a persistent one is noted. */
export async function deviceSignedIn(s: StaleSessions, device: DeviceName, client: { id: string; clean: boolean }) {
    const older = await s.last.swap(device, client.clean ? undefined : client.id);
    if (older === undefined || older === client.id) return;
    s.forget(older);
    await new Promise<void>((resolve) =>
        s.store.cleanSubscriptions({ id: older } as Client, (err) => {
            if (err) s.log(`清除设备旧会话失败 / removing a device's older session failed: ${String(err)}`);
            resolve();
        }),
    );
}
