import type { TslDataType } from './thingValues';

/** What the broker knows of a device: who it is, its secret, whether it may connect, what it reports. */
export interface DeviceEntry {
    deviceId: number;
    productId: number;
    productKey: string;
    deviceName: string;
    secret: string;
    enabled: boolean;
    /** 1: gateway. */
    nodeType: number;
    /** Products of data type 1 pass raw payloads through (no Alink validation). */
    passthrough: boolean;
    gwId: number | null;
    /** As stored when looked up: another server process may hold the device's connection (ONLINE there). */
    status: string;
}

export interface ThingFunction {
    type: 'property' | 'event' | 'service';
    identifier: string;
    dataType: TslDataType | null;
    accessMode: string | null;
    inputData: Array<{ identifier: string; dataType: TslDataType }>;
    outputData: Array<{ identifier: string; dataType: TslDataType }>;
    callType: string | null;
}

export interface ThingModelIndex {
    properties: Map<string, ThingFunction>;
    events: Map<string, ThingFunction>;
    services: Map<string, ThingFunction>;
}
