/**
 * What the HTTP side asks of device access: close a device's connection when it is disabled, deleted or renamed;
 * send downlink calls; say who is online. The broker attaches itself once it runs; until then (tests without a
 * broker, a port that could not be taken) every device is simply offline.
 */
import type { DownlinkResult } from './downlink';

export interface DeviceAccessBackend {
    disconnect(deviceIds: number[]): void;
    isOnline(deviceId: number): boolean;
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
    };
}

export function createAccessHub() {
    let backend: DeviceAccessBackend | undefined;
    return {
        attach(b: DeviceAccessBackend) {
            backend = b;
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
    };
}

export type AccessHub = ReturnType<typeof createAccessHub>;
