import { EventEmitter } from 'node:events';
import type { Client, ConnectPacket, PublishPacket } from 'aedes';
import { describe, expect, it, vi } from 'vitest';
import { authenticate, CODE, type AuthenticationDeps } from '../../server/mqtt/authentication';
import { createBrokerState, type BrokerState } from '../../server/mqtt/brokerState';
import {
    ANNOUNCE_GRACE_MS,
    applyCloseMessage,
    closeEverywhere,
    parseCloseMessage,
} from '../../server/mqtt/closeMessage';
import type { DeviceEntry, ThingModelIndex } from '../../server/mqtt/directory';
import { resendKeyOf } from '../../server/mqtt/resend';
import { announceClient, createFastConnect, noStoredSession } from '../../server/mqtt/fastConnect';
import { clientConnected, clientDisconnected, subOnline, type LiveDeps } from '../../server/mqtt/liveClients';
import {
    ackWhenStored,
    authorizePublish,
    newClassCache,
    NotStored,
    type PublishDeps,
} from '../../server/mqtt/publishing';
import { createLocalSessionIndex } from '../../server/mqtt/sessionIndex';
import { createSignInCache, forget, keep, nameKey, signedInBefore } from '../../server/mqtt/signInCache';
import { alibabaCredentials } from '../../server/mqtt/signIn';
import { authorizeSubscribe } from '../../server/mqtt/subscribing';
import { mustDelete, withWillLedger } from '../../server/mqtt/willPersistence';

// The broker's steps (server/mqtt/*.ts), each reached without a broker.

let nextId = 1;
function device(over: Partial<DeviceEntry> = {}): DeviceEntry {
    const id = nextId++;
    return {
        deviceId: id,
        productId: 1,
        productKey: 'pk1',
        deviceName: `dev${id}`,
        secret: 'secret',
        enabled: true,
        nodeType: 0,
        passthrough: false,
        gwId: null,
        status: 'OFFLINE',
        ...over,
    };
}

/** A stand-in for aedes' client: an id, a connection, close(). */
function client(id = `c${nextId++}`, clean = true) {
    return { id, clean, conn: {}, close: vi.fn() } as unknown as Client & { close: ReturnType<typeof vi.fn> };
}

const emptyModel: ThingModelIndex = { properties: new Map(), events: new Map(), services: new Map() };

function publishDeps(state: BrokerState, over: Partial<PublishDeps> = {}) {
    const log: string[] = [];
    const deps: PublishDeps = {
        state,
        directory: { model: vi.fn(async () => emptyModel) },
        uplink: { handle: vi.fn(async () => undefined) },
        gatewaySessions: { handles: () => false, handle: vi.fn(async () => undefined) },
        traffic: { emit: vi.fn() },
        log: (m) => log.push(m),
        classCache: newClassCache(),
        ...over,
    };
    return { deps, log };
}

const packet = (topic: string, qos: 0 | 1 | 2 = 1) =>
    ({
        cmd: 'publish',
        topic,
        qos,
        payload: Buffer.from('{}'),
        retain: false,
        dup: false,
        ...(qos ? { messageId: 7 } : {}),
    }) as PublishPacket;

/** Calls a step with aedes' done and answers what done got (once called). */
function answer(step: (done: (err?: Error | null) => void) => void): Promise<Error | null | undefined> {
    return new Promise((resolve) => step((err) => resolve(err)));
}

describe('store, then PUBACK (publishing.ackWhenStored)', () => {
    it('acknowledges once the store resolved, and not before', async () => {
        const state = createBrokerState();
        const { deps } = publishDeps(state);
        let store!: () => void;
        const done = vi.fn();
        ackWhenStored(deps, packet('/t'), new Promise<void>((r) => (store = r)), done);
        expect(state.inflight).toBe(1);
        await new Promise((r) => setTimeout(r, 5));
        expect(done).not.toHaveBeenCalled();
        store();
        await vi.waitFor(() => expect(done).toHaveBeenCalledWith(null));
        expect(state.inflight).toBe(0);
    });

    it('answers a QoS 1 or 2 message that was not stored with an error: aedes closes the client without a PUBACK', async () => {
        for (const qos of [1, 2] as const) {
            const state = createBrokerState();
            const { deps, log } = publishDeps(state);
            const err = await answer((done) =>
                ackWhenStored(deps, packet('/t', qos), Promise.reject(new Error('db down')), done),
            );
            expect(err).toBeInstanceOf(NotStored);
            expect(state.inflight).toBe(0);
            expect(log.join()).toContain('db down');
        }
    });

    it('lets a QoS 0 message that was not stored go (it promised nothing): the connection stays', async () => {
        const { deps } = publishDeps(createBrokerState());
        const err = await answer((done) =>
            ackWhenStored(deps, packet('/t', 0), Promise.reject(new Error('db down')), done),
        );
        expect(err).toBeNull();
    });
});

describe('publish authorization (publishing.authorizePublish)', () => {
    it("stores a device's property post before acknowledging it", async () => {
        const state = createBrokerState();
        const handle = vi.fn(async () => undefined);
        const { deps } = publishDeps(state, { uplink: { handle } });
        const c = client();
        const d = device();
        state.devices.set(c, d);
        const topic = `/sys/${d.productKey}/${d.deviceName}/thing/event/property/post`;
        expect(await answer((done) => authorizePublish(deps, c, packet(topic), done))).toBeNull();
        // With its resend key (packet id 7 and the payload's CRC-32), so a resend of it is stored once.
        expect(handle).toHaveBeenCalledWith(
            d,
            topic,
            expect.any(Buffer),
            expect.objectContaining({ resendKey: resendKeyOf(7, Buffer.from('{}')) }),
        );
    });

    it('withholds the PUBACK when the uplink rejects, when the rights lookup fails, when a gateway request fails', async () => {
        const state = createBrokerState();
        const c = client();
        const d = device({ nodeType: 1 }); // a gateway
        state.devices.set(c, d);
        const post = `/sys/${d.productKey}/${d.deviceName}/thing/event/property/post`;
        const custom = `/${d.productKey}/${d.deviceName}/user/update`;
        const failing = publishDeps(state, { uplink: { handle: () => Promise.reject(new Error('write failed')) } });
        expect(await answer((done) => authorizePublish(failing.deps, c, packet(post), done))).toBeInstanceOf(NotStored);
        const noModel = publishDeps(state, { directory: { model: () => Promise.reject(new Error('db down')) } });
        expect(await answer((done) => authorizePublish(noModel.deps, c, packet(custom), done))).toBeInstanceOf(
            NotStored,
        );
        const gateway = publishDeps(state, {
            gatewaySessions: { handles: () => true, handle: () => Promise.reject(new Error('db down')) },
        });
        const login = `/ext/session/${d.productKey}/${d.deviceName}/combine/login`;
        expect(await answer((done) => authorizePublish(gateway.deps, c, packet(login), done))).toBeInstanceOf(
            NotStored,
        );
    });

    it("refuses another device's topic and a topic the catalog does not let it publish on", async () => {
        const state = createBrokerState();
        const { deps, log } = publishDeps(state);
        const c = client();
        const d = device();
        state.devices.set(c, d);
        const other = await answer((done) => authorizePublish(deps, c, packet('/pk1/someoneElse/user/update'), done));
        expect(other?.message).toBe('无权发布到该 Topic');
        // A gateway's topic, from a device that is not a gateway.
        const login = `/ext/session/${d.productKey}/${d.deviceName}/combine/login`;
        const refused = await answer((done) => authorizePublish(deps, c, packet(login), done));
        expect(refused).toBeInstanceOf(Error);
        expect(refused).not.toBeInstanceOf(NotStored);
        expect(log.join('\n')).toContain('不是可发布的 Topic');
        expect(await answer((done) => authorizePublish(deps, null, packet(login), done))).toBeNull();
    });
});

describe('subscription authorization (subscribing.authorizeSubscribe)', () => {
    it('grants its own topics and refuses others (granted null)', () => {
        const state = createBrokerState();
        const c = client();
        const d = device();
        state.devices.set(c, d);
        const done = vi.fn();
        const own = { topic: `/${d.productKey}/${d.deviceName}/user/get`, qos: 1 } as never;
        authorizeSubscribe(state, () => undefined, c, own, done);
        expect(done).toHaveBeenLastCalledWith(null, own);
        authorizeSubscribe(state, () => undefined, c, { topic: '/pk1/other/user/get', qos: 1 } as never, done);
        expect(done).toHaveBeenLastCalledWith(null, null);
    });
});

describe('authentication.authenticate', () => {
    function deps(found: DeviceEntry | { unknownProduct: boolean }, secure = false) {
        const state = createBrokerState();
        const log: string[] = [];
        const c = client();
        const d: AuthenticationDeps = {
            state,
            directory: { byName: vi.fn(async () => found), signedInBefore: () => undefined },
            secure: new WeakSet(secure ? [c.conn] : []),
            log: (m) => log.push(m),
        };
        return { d, c, state, log };
    }
    const run = (d: AuthenticationDeps, c: Client, username: string | undefined, password: string) =>
        new Promise<{ err: { returnCode?: number } | null; ok: boolean | null }>((resolve) =>
            authenticate(d, c, username, Buffer.from(password), (err, ok) => resolve({ err, ok })),
        );

    it('signs in an enabled device with its signature and notes it on the connection', async () => {
        const dev = device();
        const { d, c, state } = deps(dev);
        const creds = alibabaCredentials(dev);
        Object.assign(c, { id: creds.clientId });
        expect(await run(d, c, creds.username, creds.password)).toEqual({ err: null, ok: true });
        expect(state.devices.get(c)).toBe(dev);
    });

    it('refuses a bad username, a bad signature, a disabled or unknown device, securemode=2 in clear', async () => {
        const dev = device();
        const creds = alibabaCredentials(dev);
        let t = deps(dev);
        Object.assign(t.c, { id: creds.clientId });
        expect((await run(t.d, t.c, 'nobody', creds.password)).err?.returnCode).toBe(CODE.BAD_USERNAME_OR_PASSWORD);
        expect((await run(t.d, t.c, creds.username, 'wrong')).err?.returnCode).toBe(CODE.BAD_USERNAME_OR_PASSWORD);
        t = deps({ ...dev, enabled: false });
        Object.assign(t.c, { id: creds.clientId });
        expect((await run(t.d, t.c, creds.username, creds.password)).err?.returnCode).toBe(CODE.NOT_AUTHORIZED);
        t = deps({ unknownProduct: false });
        Object.assign(t.c, { id: creds.clientId });
        expect((await run(t.d, t.c, creds.username, creds.password)).err?.returnCode).toBe(CODE.IDENTIFIER_REJECTED);
        const tls = alibabaCredentials(dev, { securemode: 2 });
        t = deps(dev);
        Object.assign(t.c, { id: tls.clientId });
        expect((await run(t.d, t.c, tls.username, tls.password)).err?.returnCode).toBe(CODE.NOT_AUTHORIZED);
        t = deps(dev, true);
        Object.assign(t.c, { id: tls.clientId });
        expect((await run(t.d, t.c, tls.username, tls.password)).ok).toBe(true);
    });
});

describe('live clients (liveClients.ts)', () => {
    function liveDeps(state: BrokerState) {
        const events: string[] = [];
        const deps: LiveDeps = {
            state,
            presence: {
                online: (id) => events.push(`online ${id}`),
                offline: (id) => events.push(`offline ${id}`),
            },
            traffic: { emit: () => undefined },
            downlink: { deviceLeft: (id) => events.push(`left ${id}`) },
            closeEverywhere: (id, keep) => events.push(`close ${id} but ${keep}`),
            keyOf: (c) => `broker/${c.id}`,
        };
        return { deps, events };
    }

    it('a newer connection of a device takes over: the older closes without an OFFLINE', () => {
        const state = createBrokerState();
        const { deps, events } = liveDeps(state);
        const d = device();
        const [older, newer] = [client(), client()];
        state.devices.set(older, d);
        state.devices.set(newer, d);
        clientConnected(deps, older);
        clientConnected(deps, newer);
        expect(older.close).toHaveBeenCalled();
        expect(state.takenOver.has(older)).toBe(true);
        clientDisconnected(deps, older);
        expect(state.live.get(d.deviceId)).toBe(newer);
        expect(events).toEqual([
            `close ${d.deviceId} but broker/${older.id}`,
            `online ${d.deviceId}`,
            `close ${d.deviceId} but broker/${newer.id}`,
            `online ${d.deviceId}`,
        ]);
        clientDisconnected(deps, newer);
        expect(events.slice(-2)).toEqual([`offline ${d.deviceId}`, `left ${d.deviceId}`]);
        expect(state.live.size).toBe(0);
        expect(state.liveByName.size).toBe(0);
    });

    it("a gateway's disconnect takes its sub-devices offline", () => {
        const state = createBrokerState();
        const { deps, events } = liveDeps(state);
        const gw = device({ nodeType: 1 });
        const sub = device({ gwId: gw.deviceId });
        const c = client();
        state.devices.set(c, gw);
        clientConnected(deps, c);
        subOnline(deps, c, sub);
        expect(state.subLive.get(sub.deviceId)).toBe(c);
        clientDisconnected(deps, c);
        expect(events).toContain(`offline ${sub.deviceId}`);
        expect(state.subLive.size).toBe(0);
    });
});

describe('the close message (closeMessage.ts)', () => {
    it('sends the closes of one event-loop turn as one message, and nothing in one process', async () => {
        const sent: string[] = [];
        const batch = { pending: [] };
        const send = async (body: string) => void sent.push(body);
        closeEverywhere(batch, send, 1, 'b/x');
        closeEverywhere(batch, send, 2, null);
        closeEverywhere(batch, undefined, 3, null);
        await new Promise((r) => setImmediate(r));
        expect(sent.map((s) => parseCloseMessage(Buffer.from(s)))).toEqual([
            [
                { deviceId: 1, keep: 'b/x' },
                { deviceId: 2, keep: null },
            ],
        ]);
    });

    it('closes a device connected here under another connection (a takeover) and forgets a disabled one', () => {
        const state = createBrokerState();
        const here = client('here');
        const d = device();
        state.live.set(d.deviceId, here);
        const forgotten: number[][] = [];
        const deps = {
            state,
            clientsById: {},
            keyOf: (c: Client) => `me/${c.id}`,
            forget: (ids: number[]) => void forgotten.push(ids),
            subOffline: () => undefined,
        };
        applyCloseMessage(deps, [{ deviceId: d.deviceId, keep: 'me/here' }]);
        expect(here.close).not.toHaveBeenCalled();
        applyCloseMessage(deps, [{ deviceId: d.deviceId, keep: 'other/there' }]);
        expect(here.close).toHaveBeenCalledTimes(1);
        expect(state.takenOver.has(here)).toBe(true);
        applyCloseMessage(deps, [{ deviceId: 99, keep: null }]);
        expect(forgotten).toEqual([[99]]);
        expect(parseCloseMessage(Buffer.from('{"deviceId":5,"keep":null}'))).toEqual([{ deviceId: 5, keep: null }]);
    });

    it('keeps a connection whose own close message has not come back: the message read was sent before it connected', () => {
        // Two processes take the same device at once: A's message (keep a/old) is read here after this connection
        // signed in but before its own (keep me/here) came back, so it was sent earlier, by the older connection.
        const state = createBrokerState();
        const here = client('here');
        const d = device();
        state.live.set(d.deviceId, here);
        state.signedInAt.set(here, performance.now());
        const deps = { state, clientsById: {}, keyOf: (c: Client) => `me/${c.id}`, forget: () => undefined };
        const apply = (keep: string | null) =>
            applyCloseMessage({ ...deps, subOffline: () => undefined }, [{ deviceId: d.deviceId, keep }]);
        apply('a/old');
        expect(here.close).not.toHaveBeenCalled();
        apply('me/here'); // its own, back through the shared channel: any later message is newer
        apply('b/newer');
        expect(here.close).toHaveBeenCalledTimes(1);
        expect(state.takenOver.has(here)).toBe(true);
        // A message lost with the link: past the grace the connection counts as announced.
        const lost = client('lost');
        state.live.set(d.deviceId, lost);
        state.signedInAt.set(lost, performance.now() - ANNOUNCE_GRACE_MS - 1);
        apply('c/later');
        expect(lost.close).toHaveBeenCalledTimes(1);
        // A takedown (disabled, deleted) closes a connection whatever its order.
        const fresh = client('fresh');
        state.live.set(d.deviceId, fresh);
        state.signedInAt.set(fresh, performance.now());
        apply(null);
        expect(fresh.close).toHaveBeenCalledTimes(1);
    });
});

describe('the short CONNECT (fastConnect.ts) and the stored sessions it asks (sessionIndex.ts)', () => {
    const connect = (clientId: string) => ({ cmd: 'connect', clientId, clean: true }) as ConnectPacket;

    it('holds no client id of a persistent session that stored nothing: the index stays bounded', () => {
        const aedes = new EventEmitter();
        const index = createLocalSessionIndex(aedes);
        for (let i = 0; i < 1_000; i++) {
            const c = { id: `persistent-${i}`, clean: false };
            aedes.emit('clientReady', c);
            aedes.emit('subscribe', [{ topic: '/t', qos: 128 }], c); // refused: nothing stored
        }
        expect(index.size).toBe(0);
    });

    it('drops a client id when its session ends: unsubscribed, or cleared by a clean CONNECT', () => {
        const aedes = new EventEmitter();
        const index = createLocalSessionIndex(aedes);
        const [a, b] = [client('a', false), client('b', false)];
        aedes.emit(
            'subscribe',
            [
                { topic: '/a/1', qos: 1 },
                { topic: '/a/2', qos: 0 },
            ],
            a,
        );
        aedes.emit('subscribe', [{ topic: '/b/1', qos: 1 }], b);
        aedes.emit('subscribe', [{ topic: '/c/1', qos: 1 }], client('c', true)); // clean: aedes stores nothing
        expect([index.has('a'), index.has('b'), index.has('c'), index.size]).toEqual([true, true, false, 2]);
        aedes.emit('unsubscribe', ['/a/1'], a);
        expect(index.has('a')).toBe(true);
        aedes.emit('unsubscribe', ['/a/2'], a);
        expect(index.has('a')).toBe(false);
        aedes.emit('clientReady', client('b', false)); // back as a persistent session: kept
        expect(index.has('b')).toBe(true);
        aedes.emit('clientReady', client('b', true)); // a clean CONNECT through aedes' handler cleared it
        expect(index.size).toBe(0);
    });

    it('takes the short path only for a client id without a stored session; announces only in a cluster', () => {
        const aedes = new EventEmitter();
        const one = createFastConnect(false);
        one.local = createLocalSessionIndex(aedes);
        aedes.emit('subscribe', [{ topic: '/t', qos: 1 }], client('kept', false));
        const [c1, c2] = [client(), client()];
        expect(noStoredSession(one, c1, connect('fresh'))).toBe(true);
        expect(noStoredSession(one, c2, connect('kept'))).toBe(false);
        expect([announceClient(one, c1), announceClient(one, c2)]).toEqual([false, false]);

        const cluster = createFastConnect(true);
        const c3 = client();
        // The cluster's index not read yet: aedes' full handler.
        expect(noStoredSession(cluster, c3, connect('fresh'))).toBe(false);
        cluster.cluster = { has: (id) => id === 'elsewhere', size: 1 };
        const [c4, c5] = [client(), client()];
        expect(noStoredSession(cluster, c4, connect('fresh'))).toBe(true);
        expect(noStoredSession(cluster, c5, connect('elsewhere'))).toBe(false);
        expect([announceClient(cluster, c3), announceClient(cluster, c4), announceClient(cluster, c5)]).toEqual([
            true,
            false,
            true,
        ]);
    });
});

describe('the will ledger (willPersistence.ts)', () => {
    class Store {
        #wills = new Map<string, unknown>();
        async putWill(c: { id: string }, will: unknown) {
            this.#wills.set(c.id, will);
        }
        async delWill(c: { id: string }) {
            this.#wills.delete(c.id);
        }
        async getWill(c: { id: string }) {
            return this.#wills.get(c.id);
        }
        async setup() {}
    }

    it('skips a delWill for a will this broker never stored, and passes every other call on', async () => {
        const store = new Store();
        const del = vi.spyOn(store, 'delWill');
        const ledger = { ids: new Set<string>(), brokerId: () => 'me' };
        const wrapped = withWillLedger(store, ledger);
        expect(wrapped.setup.constructor.name).toBe('AsyncFunction'); // aedes checks it
        await wrapped.delWill({ id: 'a' });
        expect(del).not.toHaveBeenCalled();
        await wrapped.putWill({ id: 'a' }, 'will');
        expect(await wrapped.getWill({ id: 'a' })).toBe('will');
        await wrapped.delWill({ id: 'a' });
        expect(del).toHaveBeenCalledTimes(1);
        expect(await wrapped.getWill({ id: 'a' })).toBeUndefined();
        expect(ledger.ids.size).toBe(0);
        // Another (dead) broker's will: always to the store.
        expect(mustDelete(ledger, { id: 'b', brokerId: 'dead' })).toBe(true);
        expect(mustDelete(ledger, { id: 'b', brokerId: 'me' })).toBe(false);
    });
});

describe('the sign-in cache (signInCache.ts)', () => {
    it('keeps the newest entries up to its size, one name per device, for its TTL', () => {
        const cache = createSignInCache(2, 1_000);
        const [a, b, c] = [device(), device(), device()];
        keep(cache, nameKey(a.productKey, a.deviceName), a, 0);
        keep(cache, nameKey(b.productKey, b.deviceName), b, 0);
        keep(cache, nameKey(c.productKey, c.deviceName), c, 0);
        expect(signedInBefore(cache, a.productKey, a.deviceName, 10)).toBeUndefined(); // the oldest went
        expect(signedInBefore(cache, c.productKey, c.deviceName, 10)).toEqual(c);
        expect(signedInBefore(cache, c.productKey, c.deviceName, 10)).not.toBe(c); // a copy
        // Renamed: the older name goes with the new one kept.
        keep(cache, nameKey(c.productKey, 'renamed'), { ...c, deviceName: 'renamed' }, 0);
        expect(signedInBefore(cache, c.productKey, c.deviceName, 10)).toBeUndefined();
        expect(signedInBefore(cache, b.productKey, b.deviceName, 2_000)).toBeUndefined(); // too old
        expect(cache.entries.size).toBe(1);
    });

    it('forgets a device at once and moves the generation on (a lookup begun before keeps nothing)', () => {
        const cache = createSignInCache();
        const a = device();
        keep(cache, nameKey(a.productKey, a.deviceName), a, performance.now());
        const before = cache.generation;
        forget(cache, [a.deviceId, 12345]);
        expect(signedInBefore(cache, a.productKey, a.deviceName)).toBeUndefined();
        expect(cache.generation).toBe(before + 1);
        expect(cache.keys.size).toBe(0);
    });
});
