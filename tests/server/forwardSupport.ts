import { randomBytes } from 'node:crypto';
import { connect as netConnect, createServer, type Server, type Socket } from 'node:net';
import { expect } from 'vitest';
import type { ForwardRecord } from '../../server/forward/destinations/types';
import { DestinationError } from '../../server/forward/destinations/types';
import type { TestServer } from '../../server/testing';
import { ok } from './rulesSupport';

/** What the forwarding destination tests share: the local services' check, records, a closed port. */

/** Whether host:port answers a TCP connect; when not and the run requires it (E2E_REQUIRED), throws. */
export async function serviceReachable(name: string, port: number, host = '127.0.0.1'): Promise<boolean> {
    const reachable = await portOpen(host, port);
    if (!reachable && process.env.E2E_REQUIRED) throw new Error(`${name} (${host}:${port}) is not reachable`);
    if (!reachable) console.warn(`${name} (${host}:${port}) 不可达 / not reachable: its forwarding tests are skipped`);
    return reachable;
}

/** A lower-case name with a random suffix: each test's own table, database, stream. */
export const randomName = (prefix: string) => `${prefix}_${randomBytes(5).toString('hex')}`;

/**
 * A port nothing listens on: 2, below the ephemeral range (no test's listen(0) can take it), served by nothing on
 * these machines and not among the ports fetch refuses outright (1 is). A port taken from the system and closed again
 * was taken meanwhile by another file's listener in CI (an AMQP listener answered the RabbitMQ test's connect).
 */
export async function closedPort(): Promise<number> {
    return 2;
}

/** A record of device d-<i> with this selected row. */
export function record(i: number, row: Record<string, unknown>): ForwardRecord {
    return {
        id: `rec-${i}-${randomBytes(3).toString('hex')}`,
        flowId: 7,
        flowName: '温度流转',
        productKey: 'pk1',
        deviceName: `d-${i}`,
        topic: '/sys/pk1/d/thing/event/property/post',
        ts: 1_767_225_600_000 + i * 1000,
        row,
    };
}

/** The promise rejects with a DestinationError of this permanence whose message matches. */
export async function expectRefusal(promise: Promise<unknown>, permanent: boolean, message: RegExp) {
    const error = await promise.then(
        () => undefined,
        (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(DestinationError);
    expect((error as DestinationError).message).toMatch(message);
    expect((error as DestinationError).permanent).toBe(permanent);
    return error as DestinationError;
}

/** The Chinese message of a refused configuration. */
export async function refusalOf(validate: () => Promise<unknown>): Promise<string> {
    try {
        await validate();
    } catch (error) {
        return (error as Error).message;
    }
    throw new Error('the configuration was accepted');
}

export const silentContext = { log: () => undefined };

/** Whether host:port answers a TCP connect. */
export function portOpen(host: string, port: number): Promise<boolean> {
    return new Promise<boolean>((resolve) => {
        const socket = netConnect(port, host, () => (socket.end(), resolve(true)));
        socket.once('error', () => resolve(false));
    });
}

/** `count` records of one flow for the device, ids and rows distinct, in order. */
export function sampleRecords(count: number, productKey = 'pk1', deviceName = 'lamp-1', from = 0): ForwardRecord[] {
    const flowId = 7;
    return Array.from({ length: count }, (_, i) => ({
        id: `${flowId}-${randomName('m')}-${from + i}`,
        flowId,
        flowName: '温度转发',
        productKey,
        deviceName,
        topic: `/sys/${productKey}/${deviceName}/thing/event/property/post`,
        ts: 1_765_000_000_000 + from + i,
        row: { temperature: 20 + i, seq: from + i, note: '室内' },
    }));
}

/** The body every destination sends by default, built here independently of the code under test. */
export function expectedBody(record: ForwardRecord): unknown {
    return {
        id: record.id,
        flowId: record.flowId,
        flowName: record.flowName,
        productKey: record.productKey,
        deviceName: record.deviceName,
        topic: record.topic,
        ts: record.ts,
        row: record.row,
    };
}

/** Awaits the promise's rejection and checks it is a transient DestinationError with a Chinese message. */
export async function expectTransient(promise: Promise<unknown>, pattern?: RegExp): Promise<DestinationError> {
    const err = await promise.then(
        () => undefined,
        (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(DestinationError);
    const failure = err as DestinationError;
    expect(failure.permanent).toBe(false);
    expect(failure.message).toMatch(/[\u4e00-\u9fff]/);
    if (pattern) expect(failure.message).toMatch(pattern);
    return failure;
}

/** Polls until the check passes or the time is up (then the check's own failure is thrown). */
export async function until<T>(check: () => T | Promise<T>, timeoutMs = 5_000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
        try {
            return await check();
        } catch (err) {
            if (Date.now() > deadline) throw err;
            await new Promise((resolve) => setTimeout(resolve, 50));
        }
    }
}

/**
 * A TCP proxy the test owns in front of a broker: `cut()` drops every connection through it and refuses new ones
 * (a broker restart or a network loss as the sender sees it), `restore()` lets connections through again.
 */
export interface TcpProxy {
    port: number;
    cut(): void;
    restore(): void;
    close(): Promise<void>;
}

export async function tcpProxy(targetPort: number, targetHost = '127.0.0.1'): Promise<TcpProxy> {
    const sockets = new Set<Socket>();
    let open = true;
    const server: Server = createServer((client) => {
        if (!open) return void client.destroy();
        const upstream = netConnect(targetPort, targetHost);
        for (const s of [client, upstream]) {
            sockets.add(s);
            s.on('error', () => undefined);
            s.on('close', () => (sockets.delete(s), client.destroy(), upstream.destroy()));
        }
        client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const cutAll = () => {
        for (const s of sockets) s.destroy();
    };
    return {
        port: (server.address() as { port: number }).port,
        cut: () => ((open = false), cutAll()),
        restore: () => (open = true),
        close: () => (cutAll(), new Promise<void>((resolve) => server.close(() => resolve()))),
    };
}

/** A device signed in over MQTT (rulesSupport's online()): what the fault tests post through. */
export interface PostingDevice {
    productKey: string;
    deviceName: string;
    client: import('mqtt').MqttClient;
}

/** A device posting property posts whose ActivePower is its sequence number; `acked` holds those PUBACKed, in order. */
export interface SequencedDevice {
    deviceName: string;
    acked: number[];
    post(seq: number): Promise<void>;
}

export function sequenced(device: PostingDevice): SequencedDevice {
    const topic = `/sys/${device.productKey}/${device.deviceName}/thing/event/property/post`;
    const acked: number[] = [];
    return {
        deviceName: device.deviceName,
        acked,
        async post(seq) {
            const body = { id: `${device.deviceName}-${seq}`, version: '1.0', params: { ActivePower: seq } };
            // QoS 1: resolves on the broker's PUBACK, which means the message is stored (docs/forwarding.md).
            await device.client.publishAsync(topic, JSON.stringify(body), { qos: 1 });
            acked.push(seq);
        },
    };
}

/** Rounds `from`..`to`: each device posts that sequence number, the devices at once; `gapMs` between rounds. */
export async function postRounds(devices: SequencedDevice[], from: number, to: number, gapMs = 0): Promise<void> {
    for (let seq = from; seq <= to; seq++) {
        await Promise.all(devices.map((d) => d.post(seq)));
        if (gapMs && seq < to) await new Promise((resolve) => setTimeout(resolve, gapMs));
    }
}

/** One delivery as the destination saw it: the device and its sequence number. */
export interface Arrival {
    dn: string;
    seq: number;
}

/** Whether every device's acknowledged sequence numbers have arrived (at least once). */
export function allArrived(arrivals: Arrival[], devices: SequencedDevice[]): boolean {
    return devices.every((d) => {
        const seen = new Set(arrivals.filter((a) => a.dn === d.deviceName).map((a) => a.seq));
        return d.acked.every((seq) => seen.has(seq));
    });
}

/**
 * At least once and in order per device: per device, the first arrival of each sequence number, in arrival order, is
 * exactly what the device had acknowledged, in its order (none lost, none extra, none overtaking another). Answers
 * the duplicates (arrivals after a number's first, all devices) and the most copies of one post that arrived.
 */
export function checkArrivals(arrivals: Arrival[], devices: SequencedDevice[]): { duplicates: number; copies: number } {
    let duplicates = 0;
    let copies = 0;
    for (const d of devices) {
        const mine = arrivals.filter((a) => a.dn === d.deviceName).map((a) => a.seq);
        const firsts = mine.filter((seq, i) => mine.indexOf(seq) === i);
        expect(firsts, `${d.deviceName}: first arrivals in order`).toEqual(d.acked);
        duplicates += mine.length - firsts.length;
        for (const seq of firsts) copies = Math.max(copies, mine.filter((m) => m === seq).length);
    }
    expect(arrivals.filter((a) => !devices.some((d) => d.deviceName === a.dn))).toEqual([]);
    return { duplicates, copies };
}

/**
 * A started flow of `projectId` selecting each post's device and sequence number (`items.ActivePower.value AS seq`)
 * from the topic filter `from`, sent to a new destination of its own; its id. Stopped by the pushed cleanup.
 */
export async function startSequenceFlow(
    s: TestServer,
    flow: { projectId: number; name: string; from: string; destination: Record<string, unknown> },
    cleanups: Array<() => Promise<unknown>>,
): Promise<number> {
    const { projectId, name } = flow;
    const destination = await ok<{ id: number }>(s, 'POST', '/api/forward/destination/save', {
        projectId,
        name,
        ...flow.destination,
    });
    const { id } = await ok<{ id: number }>(s, 'POST', '/api/forward/flow/save', {
        projectId,
        name,
        sql: `SELECT deviceName() AS dn, items.ActivePower.value AS seq FROM "${flow.from}"`,
        destinationIds: [destination.id],
    });
    await ok(s, 'POST', '/api/forward/flow/enable', { id, enabled: true });
    cleanups.push(() => ok(s, 'POST', '/api/forward/flow/enable', { id, enabled: false }));
    return id;
}
