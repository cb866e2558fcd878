import { createRequire } from 'node:module';
import type { Broker } from './mqttSupport';
import { until } from './mqttSupport';

/**
 * Alibaba's Node device SDK (alibabacloud-iot-device-sdk, node_modules, a devDependency), unchanged: a device written
 * for Alibaba, pointed at this platform's broker by its brokerUrl. The SDK ships no types; these are the calls the
 * tests make.
 */

/** An Alink answer as the SDK hands it to a callback. */
export interface SdkReply {
    id: string;
    code: number;
    message?: string;
    method?: string;
    data?: unknown;
}

/** A service call as onService hands it over, and its reply (type 'sync' answers on the RRPC response topic). */
export type SdkServiceHandler = (
    request: { id: string; method: string; params: Record<string, unknown> },
    reply: (answer: { id?: string; code: number; data?: unknown; message?: string }, type?: 'sync' | 'async') => void,
) => void;

/** A message on the device's /shadow/get topic as onShadow hands it over (Alibaba's shadow reply or control). */
export interface SdkShadowMessage {
    method: 'reply' | 'control';
    payload: {
        status?: 'success' | 'error';
        version?: number;
        state?: { reported?: Record<string, unknown>; desired?: Record<string, unknown> };
        metadata?: Record<string, unknown>;
        content?: { errorcode: string; errormessage: string };
    };
    version?: number;
    timestamp: number;
}

export interface SdkDevice {
    on(event: 'connect' | 'error' | 'close', fn: (...args: unknown[]) => void): void;
    postProps(props: Record<string, unknown>, cb: (res: SdkReply) => void): void;
    postEvent(name: string, params: Record<string, unknown>, cb: (res: SdkReply) => void): void;
    postTags(tags: Array<{ attrKey: string; attrValue: string }>, cb: (res: SdkReply) => void): void;
    deleteTags(keys: string[], cb: (res: SdkReply) => void): void;
    onService(name: string, fn: SdkServiceHandler): void;
    /** Device shadow: `{"method":"get"}` on /shadow/update; the reply comes to onShadow. */
    getShadow(): void;
    /** Reports these values (`update`, version Date.now()). */
    postShadow(reported: Record<string, unknown>): void;
    /** Deletes these reported keys (one, several, or all when none is given). */
    deleteShadow(keys?: string | string[]): void;
    /** Every message on /shadow/get: replies and the cloud's `control`. */
    onShadow(fn: (message: SdkShadowMessage) => void): void;
    /** 远程配置: thing/config/get (configScope product, getType file); the callback gets get_reply. */
    getConfig(cb: (res: SdkReply) => void): void;
    /** Every message on the config topics but get_reply (the platform's thing/config/push). */
    onConfig(fn: (message: { id: string; method?: string; params?: Record<string, unknown> }) => void): void;
    publish(topic: string, payload: string, options?: { qos?: 0 | 1 }): void;
    end(force?: boolean, cb?: () => void): void;
}

interface Sdk {
    device(config: {
        productKey: string;
        deviceName: string;
        deviceSecret: string;
        brokerUrl: string;
        clientId?: string;
    }): SdkDevice;
}

const sdk = createRequire(import.meta.url)('alibabacloud-iot-device-sdk') as Sdk;

/** `fn(cb)` as a promise of what the SDK hands its callback. */
export const answered = (fn: (cb: (res: SdkReply) => void) => void, timeoutMs = 5_000) =>
    new Promise<SdkReply>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`the SDK got no answer within ${timeoutMs} ms`)), timeoutMs);
        fn((res) => {
            clearTimeout(timer);
            resolve(res);
        });
    });

/**
 * An SDK device signed in to `url` (its own Alibaba credentials, securemode=3 over plain MQTT), once the broker
 * holds its subscription to `filter` (the SDK subscribes to its reply and RRPC topics after CONNACK).
 */
export async function sdkDevice(
    broker: Broker,
    url: string,
    device: { productKey: string; deviceName: string; secret: string },
    filter = `/sys/${device.productKey}/${device.deviceName}/rrpc/request/+`,
): Promise<SdkDevice> {
    const d = sdk.device({
        productKey: device.productKey,
        deviceName: device.deviceName,
        deviceSecret: device.secret,
        brokerUrl: url,
    });
    await new Promise<void>((resolve, reject) => {
        d.on('connect', () => resolve());
        d.on('error', (err) => reject(err as Error));
    });
    const clients = (broker.aedes as unknown as { clients: Record<string, { subscriptions: Record<string, unknown> }> })
        .clients;
    // The SDK's client id: `{pk}&{dn}|securemode=3,signmethod=…,timestamp=…,lan=…,_v=…|`.
    const prefix = `${device.productKey}&${device.deviceName}|`;
    await until(() =>
        Object.entries(clients).some(([id, c]) => id.startsWith(prefix) && c && filter in c.subscriptions),
    );
    return d;
}
