/**
 * What the HTTP side asks of device access: close a device's connection when it is disabled, deleted or renamed;
 * send downlink calls; say who is online. The broker attaches itself once it runs; until then (tests without a
 * broker, a port that could not be taken) every device is simply offline.
 */
import type { Duplex } from 'node:stream';
import { duplexPair } from '../simulation/duplexPair';
import type { DownlinkResult, RrpcResult } from './downlink';
import type { Traffic } from './traffic';
import type { AcceptedMessage, TopicHandler } from './uplink';

export interface DeviceAccessBackend {
    disconnect(deviceIds: number[]): void;
    isOnline(deviceId: number): boolean;
    readonly connected: number;
    traffic: Pick<Traffic, 'subscribe' | 'rates'>;
    publishTo(deviceId: number, topic: string, payload: string, qos: 0 | 1): Promise<boolean>;
    /** Publishes as the platform wherever the topic's device is connected (any process of a cluster); QoS 0 by default. */
    publishDown?(topic: string, payload: string, qos?: 0 | 1): Promise<void>;
    downlink: {
        setProperties(
            deviceId: number,
            values: Record<string, unknown>,
            options?: { sync?: boolean; timeoutMs?: number },
        ): Promise<DownlinkResult>;
        invokeService(
            deviceId: number,
            identifier: string,
            input: Record<string, unknown>,
            options?: { sync?: boolean; timeoutMs?: number },
        ): Promise<DownlinkResult>;
        /** Alibaba's RRpc: bytes to the device on its RRPC topic (or a custom topic), its answer within the timeout. */
        rrpc(deviceId: number, request: Buffer, options?: { topic?: string; timeoutMs?: number }): Promise<RrpcResult>;
    };
    /** Accepted property and event posts (the rule engine listens). */
    uplink?: {
        onAccepted(fn: (message: AcceptedMessage) => void): () => void;
        /** A feature's own device topics (OTA). */
        addTopicHandler?(fn: TopicHandler): () => void;
    };
    /** The broker itself, for in-process connections (the simulator): it takes one end of a stream pair. */
    aedes?: { handle(stream: Duplex): unknown };
}

export function createAccessHub() {
    let backend: DeviceAccessBackend | undefined;
    const attachListeners: Array<(b: DeviceAccessBackend) => void> = [];
    return {
        attach(b: DeviceAccessBackend) {
            backend = b;
            for (const l of attachListeners) l(b);
        },
        /** `fn` with the backend once one attaches (now, if one already has): the rule engine listens to its messages. */
        onAttach(fn: (b: DeviceAccessBackend) => void) {
            attachListeners.push(fn);
            if (backend) fn(backend);
        },
        get running() {
            return backend !== undefined;
        },
        disconnect(deviceIds: number[]) {
            backend?.disconnect(deviceIds);
        },
        isOnline(deviceId: number) {
            return backend?.isOnline(deviceId) ?? false;
        },
        get downlink() {
            return backend?.downlink;
        },
        /** The running broker, or undefined (the routes then say device access is not running). */
        get backend() {
            return backend;
        },
        /**
         * A connection to the broker inside this process, as a device's socket would be (the simulator's devices sign
         * in through it with their own credentials); undefined while no broker runs.
         */
        connectStream(): Duplex | undefined {
            if (!backend?.aedes) return undefined;
            const [client, server] = duplexPair();
            Object.assign(server, { remoteAddress: '127.0.0.1' });
            server.on('error', () => undefined);
            client.on('error', () => undefined);
            backend.aedes.handle(server);
            return client;
        },
    };
}

export type AccessHub = ReturnType<typeof createAccessHub>;
