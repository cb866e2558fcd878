import { randomInt } from 'node:crypto';
import { asc, eq, inArray, sql } from 'drizzle-orm';
import { MqttClient } from 'mqtt';
import type { Db } from '../db/client';
import { devices, products, simulationDevices, simulations } from '../db/schema';
import { badRequest } from '../http/errors';
import type { AccessHub } from '../mqtt/access';
import { createDirectory, type ThingFunction, type ThingModelIndex } from '../mqtt/directory';
import { alibabaCredentials } from '../mqtt/signIn';
import { curveOf } from './curves';
import { createSimOta, type SimOtaDevice, type SimOtaOptions } from './ota';
import { eventValues, propertyPost, randomValue } from './values';

/**
 * The device simulator: simulated devices are real MQTT clients (mqtt.js) that sign in through the platform's own
 * broker with their own DeviceSecret (Alibaba's scheme), over an in-process stream (AccessHub.connectStream), so
 * they need no free port and are seen like any device: ONLINE while connected, their property and event posts
 * checked against the thing model and stored. Each answers property sets and service calls with code 200. A
 * simulation posts every interval; it runs in the server, so it keeps running when the browser closes, and the
 * running ones resume when the server starts (`resume`). They play OTA as an Alibaba-SDK device does (./ota.ts):
 * inform their version, ask for a pending task, download a pushed firmware, report progress and inform the new version.
 */

export interface SimulatorOptions {
    db: Db;
    access: AccessHub;
    log?: (message: string) => void;
    /** The simulated devices' download speed and flash time (tests make them quick). */
    ota?: Partial<SimOtaOptions>;
}

/** Owner of a simulated device's connection: a simulation's id, or 'manual' (onLine). */
type Owner = number | 'manual';

interface SimDeviceInfo {
    deviceId: number;
    productId: number;
    productKey: string;
    deviceName: string;
    secret: string;
}

interface SimDevice extends SimDeviceInfo, SimOtaDevice {
    client?: MqttClient;
    owners: Set<Owner>;
    /** Messages this device published (property posts, events, replies). */
    sent: number;
    nextId: number;
}

interface Running {
    id: number;
    deviceIds: number[];
    intervalMs: number;
    mode: 'random' | 'fixed';
    fixed: Record<string, unknown>;
    events: boolean;
    timer?: NodeJS.Timeout;
    /** Messages sent since the last flush to the table. */
    unflushed: number;
    /** When it started in this process: the demo curves' excursions are timed from it. */
    startedAt: number;
}

/** How often the running simulations' message counts are written to their rows. */
const FLUSH_MS = 5_000;

const SERVICE_TOPIC = 'thing/service/';

export function createSimulator({ db, access, log = (m) => console.warn(m), ota: otaOptions }: SimulatorOptions) {
    const directory = createDirectory(db);
    const live = new Map<number, SimDevice>();
    const running = new Map<number, Running>();
    let flushTimer: NodeJS.Timeout | undefined;
    let closed = false;

    const sysTopic = (d: SimDeviceInfo, rest: string) => `/sys/${d.productKey}/${d.deviceName}/${rest}`;

    function count(device: SimDevice) {
        device.sent++;
        for (const owner of device.owners) {
            if (owner !== 'manual') {
                const sim = running.get(owner);
                if (sim) sim.unflushed++;
            }
        }
    }

    function publish(device: SimDevice, topic: string, body: Record<string, unknown>, qos: 0 | 1 = 1) {
        const client = device.client;
        if (!client?.connected) return false;
        client.publish(topic, JSON.stringify(body), { qos }, (err) => {
            if (err && !closed) log(`模拟设备 ${device.deviceName} 发布失败: ${err.message}`);
        });
        count(device);
        return true;
    }

    const ota = createSimOta(db, (d, topic, body) => publish(d as SimDevice, topic, body), log, otaOptions);

    function postProperties(device: SimDevice, values: Record<string, unknown>) {
        if (!Object.keys(values).length) return false;
        return publish(device, sysTopic(device, 'thing/event/property/post'), {
            id: String(device.nextId++),
            version: '1.0',
            params: values,
            method: 'thing.event.property.post',
        });
    }

    function postEvent(device: SimDevice, identifier: string, value: Record<string, unknown>) {
        return publish(device, sysTopic(device, `thing/event/${identifier}/post`), {
            id: String(device.nextId++),
            version: '1.0',
            params: { value, time: Date.now() },
            method: `thing.event.${identifier}.post`,
        });
    }

    /** A property set or service call from the platform: answered with code 200 (and the set values posted back). */
    async function answer(device: SimDevice, topic: string, payload: Buffer) {
        const prefix = sysTopic(device, SERVICE_TOPIC);
        if (!topic.startsWith(prefix) || topic.endsWith('_reply')) return;
        const identifier = topic.slice(prefix.length);
        let request: { id?: unknown; params?: unknown };
        try {
            request = JSON.parse(payload.toString('utf8')) as typeof request;
        } catch {
            return;
        }
        const id = typeof request?.id === 'string' || typeof request?.id === 'number' ? String(request.id) : '';
        const params =
            request.params && typeof request.params === 'object' && !Array.isArray(request.params)
                ? (request.params as Record<string, unknown>)
                : {};
        let data: Record<string, unknown> = {};
        if (identifier !== 'property/set') {
            const model = await directory.model(device.productId).catch(() => undefined);
            const fn = model?.services.get(identifier);
            if (fn) {
                for (const p of fn.outputData) {
                    const v = randomValue(p.dataType);
                    if (v !== undefined) data[p.identifier] = v;
                }
            }
        } else {
            data = {};
        }
        const method = identifier === 'property/set' ? 'thing.service.property.set' : `thing.service.${identifier}`;
        publish(device, `${topic}_reply`, { id, code: 200, data, message: 'success', version: '1.0', method });
        // A device that took new property values reports them, as real devices do.
        if (identifier === 'property/set') postProperties(device, params);
    }

    function connect(device: SimDevice): boolean {
        if (device.client && !device.client.disconnecting) {
            if (!device.client.connected && !device.client.reconnecting) device.client.reconnect();
            return true;
        }
        if (!access.running) return false;
        const creds = alibabaCredentials(device, { id: `${device.productKey}.${device.deviceName}` });
        const client = new MqttClient(
            () => {
                const stream = access.connectStream();
                if (!stream) throw new Error('设备接入服务未运行');
                return stream;
            },
            {
                ...creds,
                protocolVersion: 4,
                keepalive: 60,
                clean: true,
                reconnectPeriod: 3_000,
                connectTimeout: 10_000,
            },
        );
        device.client = client;
        client.on('connect', () => {
            client
                .subscribeAsync([sysTopic(device, `${SERVICE_TOPIC}#`), ...ota.topics(device)], { qos: 1 })
                // Subscribed first, so the answer to its firmware/get (and a push) reaches it.
                .then(() => ota.connected(device))
                .catch((err: Error) => {
                    if (!closed) log(`模拟设备 ${device.deviceName} 订阅失败: ${err.message}`);
                });
            // The first report at once, so a new simulation shows values without waiting a whole interval.
            for (const owner of device.owners) {
                if (owner === 'manual') continue;
                const sim = running.get(owner);
                if (sim) void tickDevice(sim, device);
            }
        });
        client.on('message', (topic, payload) => {
            if (ota.message(device, topic, payload)) return;
            void answer(device, topic, payload).catch((err: Error) =>
                log(`模拟设备 ${device.deviceName} 应答失败: ${err.message}`),
            );
        });
        client.on('error', (err) => {
            if (!closed) log(`模拟设备 ${device.deviceName} 连接失败: ${err.message}`);
        });
        return true;
    }

    async function loadDevices(ids: number[]): Promise<SimDeviceInfo[]> {
        if (!ids.length) return [];
        const rows = await db
            .select({
                deviceId: devices.id,
                productId: devices.productId,
                productKey: products.productKey,
                deviceName: devices.deviceName,
                secret: devices.secret,
            })
            .from(devices)
            .innerJoin(products, eq(products.id, devices.productId))
            .where(inArray(devices.id, ids));
        return rows.map((r) => ({ ...r, deviceId: Number(r.deviceId) }));
    }

    /** The device's simulated connection, opened for this owner (or shared with the owners it has). */
    function acquire(info: SimDeviceInfo, owner: Owner): SimDevice {
        let device = live.get(info.deviceId);
        if (!device) {
            device = { ...info, owners: new Set(), sent: 0, nextId: 1 };
            live.set(info.deviceId, device);
        } else {
            // A renamed device or a new secret since: sign in with what the table says now.
            Object.assign(device, info);
        }
        device.owners.add(owner);
        connect(device);
        return device;
    }

    async function release(deviceId: number, owner: Owner) {
        const device = live.get(deviceId);
        if (!device) return;
        device.owners.delete(owner);
        if (device.owners.size) return;
        live.delete(deviceId);
        ota.stop(device);
        await device.client?.endAsync().catch(() => undefined);
    }

    async function tickDevice(sim: Running, device: SimDevice) {
        const model = await directory.model(device.productId).catch(() => undefined);
        if (!model) return;
        const values = propertyPost(model.properties.values(), sim.mode, sim.fixed);
        // A demo product's random simulation follows its curves (server/simulation/curves.ts), for the properties its
        // thing model still has, and posts an event only now and then.
        const curve = sim.mode === 'random' ? curveOf(device.productKey) : undefined;
        if (curve) {
            const ctx = { now: Date.now(), startedAt: sim.startedAt, index: sim.deviceIds.indexOf(device.deviceId) };
            for (const [identifier, value] of Object.entries(curve.values(ctx))) {
                if (model.properties.has(identifier)) values[identifier] = value;
            }
        }
        postProperties(device, values);
        const eventNow = !curve || (curve.eventOneIn !== undefined && randomInt(curve.eventOneIn) === 0);
        if (sim.events && model.events.size && eventNow) {
            const list = [...model.events.values()];
            const fn = list[randomInt(list.length)];
            postEvent(device, fn.identifier, eventValues(fn));
        }
    }

    function tick(sim: Running) {
        for (const id of sim.deviceIds) {
            const device = live.get(id);
            if (device?.client?.connected) void tickDevice(sim, device);
        }
    }

    async function flush() {
        const pending = [...running.values()].filter((s) => s.unflushed > 0);
        for (const sim of pending) {
            const n = sim.unflushed;
            sim.unflushed = 0;
            await db
                .update(simulations)
                .set({ messagesSent: sql`${simulations.messagesSent} + ${n}` })
                .where(eq(simulations.id, sim.id))
                .catch((err: Error) => {
                    sim.unflushed += n;
                    log(`模拟消息计数写入失败: ${err.message}`);
                });
        }
    }

    function ensureFlushing() {
        if (flushTimer || closed) return;
        flushTimer = setInterval(() => void flush(), FLUSH_MS);
        flushTimer.unref();
    }

    async function run(id: number): Promise<void> {
        const [row] = await db.select().from(simulations).where(eq(simulations.id, id));
        if (!row) throw badRequest('模拟不存在');
        const ids = (
            await db
                .select({ deviceId: simulationDevices.deviceId })
                .from(simulationDevices)
                .where(eq(simulationDevices.simulationId, id))
                .orderBy(asc(simulationDevices.position))
        ).map((r) => Number(r.deviceId));
        const infos = await loadDevices(ids);
        const sim: Running = {
            id,
            deviceIds: infos.map((d) => d.deviceId),
            intervalMs: row.intervalSeconds * 1000,
            mode: row.mode === 'fixed' ? 'fixed' : 'random',
            fixed: (row.fixedValues ?? {}) as Record<string, unknown>,
            events: row.events,
            unflushed: 0,
            startedAt: Date.now(),
        };
        running.set(id, sim);
        for (const info of infos) acquire(info, id);
        sim.timer = setInterval(() => tick(sim), sim.intervalMs);
        sim.timer.unref();
        ensureFlushing();
    }

    async function halt(id: number) {
        const sim = running.get(id);
        if (!sim) return;
        clearInterval(sim.timer);
        await flush();
        running.delete(id);
        await Promise.all(sim.deviceIds.map((d) => release(d, id)));
    }

    function manualDevice(deviceId: number): SimDevice {
        const device = live.get(deviceId);
        if (!device?.client?.connected) throw badRequest('设备未通过模拟上线，请先调用 onLine');
        return device;
    }

    async function modelOf(device: SimDevice): Promise<ThingModelIndex> {
        return directory.model(device.productId);
    }

    return {
        /** Whether a broker runs to connect to. */
        get available() {
            return access.running;
        },

        /** Starts a stored simulation and marks it running (it then resumes after a restart). */
        async start(id: number) {
            if (!access.running) throw badRequest('设备接入服务未运行，无法启动模拟');
            if (running.has(id)) return;
            await run(id);
            await db
                .update(simulations)
                .set({ running: true, startTime: new Date(), stopTime: null })
                .where(eq(simulations.id, id));
        },

        /** Stops it: its devices disconnect (OFFLINE) unless another running simulation or onLine holds them. */
        async stop(id: number) {
            await halt(id);
            await db.update(simulations).set({ running: false, stopTime: new Date() }).where(eq(simulations.id, id));
        },

        /** Stops it in this process only (before the row is deleted). */
        halt,

        /** Starts every simulation marked running (at server start). Answers how many. */
        async resume(): Promise<number> {
            if (!access.running) return 0;
            const rows = await db.select({ id: simulations.id }).from(simulations).where(eq(simulations.running, true));
            let n = 0;
            for (const r of rows) {
                if (running.has(r.id)) continue;
                try {
                    await run(r.id);
                    n++;
                } catch (err) {
                    log(`模拟 ${r.id} 恢复失败: ${String(err)}`);
                }
            }
            return n;
        },

        /** Live figures of a simulation: running here, its devices connected now, messages not yet in its row. */
        status(id: number) {
            const sim = running.get(id);
            if (!sim) return { active: false, connected: 0, unflushed: 0 };
            const connected = sim.deviceIds.filter((d) => live.get(d)?.client?.connected).length;
            return { active: true, connected, unflushed: sim.unflushed };
        },

        /** SPEC onLine: the device signs in as a simulated device (kept until offLine). */
        async onLine(deviceId: number) {
            if (!access.running) throw badRequest('设备接入服务未运行，无法上线');
            const [info] = await loadDevices([deviceId]);
            if (!info) throw badRequest('设备不存在');
            const device = acquire(info, 'manual');
            // Wait briefly for the broker's answer, so the caller learns of a refusal (disabled device).
            const client = device.client!;
            if (!client.connected) {
                await new Promise<void>((resolve, reject) => {
                    const timer = setTimeout(() => done(new Error('连接超时')), 5_000);
                    const onConnect = () => done();
                    const onError = (err: Error) => done(err);
                    const done = (err?: Error) => {
                        clearTimeout(timer);
                        client.off('connect', onConnect);
                        client.off('error', onError);
                        if (err) reject(err);
                        else resolve();
                    };
                    client.once('connect', onConnect);
                    client.once('error', onError);
                }).catch(async (err: Error) => {
                    await release(deviceId, 'manual');
                    throw badRequest(`设备上线失败：${err.message}`);
                });
            }
            return { deviceId, deviceName: info.deviceName, online: true };
        },

        /** SPEC offLine: the device's simulated connection closes (OFFLINE), whoever opened it. */
        async offLine(deviceId: number) {
            const device = live.get(deviceId);
            if (!device) return { deviceId, online: false };
            for (const sim of running.values()) {
                if (sim.deviceIds.includes(deviceId)) sim.deviceIds = sim.deviceIds.filter((d) => d !== deviceId);
            }
            device.owners.clear();
            live.delete(deviceId);
            ota.stop(device);
            await device.client?.endAsync().catch(() => undefined);
            return { deviceId, online: false };
        },

        /** SPEC sendProperty: one property post now (the given values, else random ones from the thing model). */
        async sendProperty(deviceId: number, values: Record<string, unknown> | undefined) {
            const device = manualDevice(deviceId);
            const model = await modelOf(device);
            const params = values ?? propertyPost(model.properties.values(), 'random', {});
            if (!Object.keys(params).length) throw badRequest('该产品的物模型没有可上报的属性');
            postProperties(device, params);
            return { deviceId, params };
        },

        /** SPEC sendEvent: one event post now (the given output values, else random ones). */
        async sendEvent(deviceId: number, identifier: string, value: Record<string, unknown> | undefined) {
            const device = manualDevice(deviceId);
            const model = await modelOf(device);
            const fn: ThingFunction | undefined = model.events.get(identifier);
            if (!fn) throw badRequest(`事件 ${identifier} 未在物模型中定义`);
            const params = value ?? eventValues(fn);
            postEvent(device, identifier, params);
            return { deviceId, identifier, value: params };
        },

        /** Whether a device has a simulated connection now. */
        isSimulated(deviceId: number) {
            return !!live.get(deviceId)?.client?.connected;
        },

        /** Ends every simulated connection (the rows keep `running`, so they resume at the next start). */
        async close() {
            closed = true;
            clearInterval(flushTimer);
            for (const sim of running.values()) clearInterval(sim.timer);
            await flush();
            running.clear();
            const all = [...live.values()];
            live.clear();
            for (const d of all) ota.stop(d);
            // Forced: at a stop the broker has already paused its connections (the drain), so a post in flight would
            // never get its PUBACK and a polite end would wait for it forever (the server never exited).
            await Promise.all(all.map((d) => d.client?.endAsync(true).catch(() => undefined)));
        },

        /**
         * Runs here a simulation marked running that another process of the cluster ran (it died or left): its row
         * keeps its start time and count (server/cluster/simulations.ts). False when it cannot run here.
         */
        async adopt(id: number): Promise<boolean> {
            if (closed || !access.running) return false;
            if (!running.has(id)) await run(id);
            return true;
        },
    };
}

export type Simulator = ReturnType<typeof createSimulator>;
