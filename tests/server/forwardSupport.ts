import { randomBytes } from 'node:crypto';
import { createServer, connect } from 'node:net';
import { expect } from 'vitest';
import type { ForwardRecord } from '../../server/forward/destinations/types';
import { DestinationError } from '../../server/forward/destinations/types';

/** What the forwarding destination tests share: the local services' check, records, a closed port. */

/** Whether host:port answers a TCP connect; when not and the run requires it (E2E_REQUIRED), throws. */
export async function serviceReachable(name: string, port: number, host = '127.0.0.1'): Promise<boolean> {
    const reachable = await new Promise<boolean>((resolve) => {
        const socket = connect(port, host, () => (socket.end(), resolve(true)));
        socket.once('error', () => resolve(false));
    });
    if (!reachable && process.env.E2E_REQUIRED) throw new Error(`${name} (${host}:${port}) is not reachable`);
    if (!reachable) console.warn(`${name} (${host}:${port}) 不可达 / not reachable: its forwarding tests are skipped`);
    return reachable;
}

/** A lower-case name with a random suffix: each test's own table, database, stream. */
export const randomName = (prefix: string) => `${prefix}_${randomBytes(5).toString('hex')}`;

/** A port nothing listens on (taken from the system, then closed). */
export async function closedPort(): Promise<number> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    await new Promise((resolve) => server.close(resolve));
    return port;
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
