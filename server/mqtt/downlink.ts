import { randomInt } from 'node:crypto';
import { badRequest } from '../http/errors';
import type { Directory, DeviceEntry } from './directory';
import { checkValue } from './thingValues';
import type { MessageWriter } from './writer';

/**
 * Downlink: set properties (`thing.service.property.set`) and invoke services (`thing.service.{identifier}`), with
 * parameters checked against the thing model. Synchronous calls wait for the device's `_reply` (or a timeout);
 * asynchronous ones answer once the message is sent. Requests and results go to the message log.
 */

export interface DownlinkResult {
    messageId: string;
    /** 'replied' (with the device's code and data), 'sent' (asynchronous), 'timeout', 'offline'. */
    state: 'replied' | 'sent' | 'timeout' | 'offline';
    code?: number;
    message?: string;
    data?: unknown;
}

interface Deps {
    directory: Directory;
    writer: MessageWriter;
    publish: (topic: string, payload: string, qos?: 0 | 1) => Promise<void>;
    isOnline: (deviceId: number) => boolean;
    /** Listens on a topic through the broker (replies come from whichever process holds the device); answers the unsubscribe. */
    listen: (topic: string, fn: (payload: Buffer) => void) => Promise<() => void>;
}

export const DEFAULT_TIMEOUT_MS = 5_000;

export function createDownlink({ directory, writer, publish, isOnline, listen }: Deps) {
    const waiting = new Map<
        string,
        { deviceId: number; resolve: (r: DownlinkResult) => void; timer: NodeJS.Timeout }
    >();

    async function send(
        device: DeviceEntry,
        method: string,
        identifier: string | null,
        topicRest: string,
        params: Record<string, unknown>,
        options: { sync?: boolean; timeoutMs?: number },
    ): Promise<DownlinkResult> {
        const messageId = String(randomInt(1, 2 ** 47));
        // Connected here, or to another process of the platform (its status says ONLINE).
        if (!isOnline(device.deviceId) && device.status !== 'ONLINE')
            return { messageId, state: 'offline', message: '设备不在线' };
        const topic = `/sys/${device.productKey}/${device.deviceName}/${topicRest}`;
        const body = { id: messageId, version: '1.0', params, method };
        await writer.write({
            deviceId: device.deviceId,
            productId: device.productId,
            ts: new Date(),
            method,
            identifier,
            data: { direction: 'down', id: messageId, params },
        });
        let stopListening: (() => void) | undefined;
        const replied = options.sync
            ? new Promise<DownlinkResult>((resolve) => {
                  const timer = setTimeout(() => {
                      waiting.delete(messageId);
                      resolve({ messageId, state: 'timeout', message: '设备未在规定时间内应答' });
                  }, options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
                  waiting.set(messageId, { deviceId: device.deviceId, resolve, timer });
              })
            : undefined;
        if (replied) {
            stopListening = await listen(`${topic}_reply`, (payload) => {
                try {
                    reply(device.deviceId, JSON.parse(payload.toString('utf8')) as Record<string, unknown>);
                } catch {
                    // not JSON: not an answer to this call
                }
            });
        }
        await publish(topic, JSON.stringify(body), 1);
        const result = replied ? await replied : { messageId, state: 'sent' as const };
        stopListening?.();
        if (result.state === 'timeout' || result.state === 'offline') {
            await writer
                .write({
                    deviceId: device.deviceId,
                    productId: device.productId,
                    ts: new Date(),
                    method: `${method}_reply`,
                    identifier,
                    data: { direction: 'up', id: messageId, state: result.state, code: result.code, data: result.data },
                })
                .catch(() => undefined);
        }
        return result;
    }

    /** A device's `_reply` to a downlink call. */
    function reply(deviceId: number, message: Record<string, unknown>) {
        const id = String(message.id ?? '');
        const entry = waiting.get(id);
        if (!entry || entry.deviceId !== deviceId) return;
        waiting.delete(id);
        clearTimeout(entry.timer);
        entry.resolve({
            messageId: id,
            state: 'replied',
            code: typeof message.code === 'number' ? message.code : Number(message.code),
            message: typeof message.message === 'string' ? message.message : undefined,
            data: message.data,
        });
    }

    return {
        /** Sets writable properties; every identifier and value must fit the thing model. */
        async setProperties(
            deviceId: number,
            values: Record<string, unknown>,
            options: { sync?: boolean; timeoutMs?: number } = {},
        ) {
            const device = await directory.byId(deviceId);
            if (!device) throw badRequest('设备不存在');
            if (!Object.keys(values).length) throw badRequest('请至少设置一个属性');
            const model = await directory.model(device.productId);
            for (const [identifier, value] of Object.entries(values)) {
                const fn = model.properties.get(identifier);
                if (!fn) throw badRequest(`属性 ${identifier} 未在物模型中定义`);
                if (fn.accessMode === 'r') throw badRequest(`属性 ${identifier} 是只读的`);
                const why = checkValue(fn.dataType, value);
                if (why) throw badRequest(`属性 ${identifier} ${why}`);
            }
            return send(device, 'thing.service.property.set', null, 'thing/service/property/set', values, options);
        },
        /** Invokes a service with its input parameters. */
        async invokeService(
            deviceId: number,
            identifier: string,
            input: Record<string, unknown>,
            options: { sync?: boolean; timeoutMs?: number } = {},
        ) {
            const device = await directory.byId(deviceId);
            if (!device) throw badRequest('设备不存在');
            const model = await directory.model(device.productId);
            const fn = model.services.get(identifier);
            if (!fn) throw badRequest(`服务 ${identifier} 未在物模型中定义`);
            const inputs = new Map(fn.inputData.map((p) => [p.identifier, p]));
            for (const [key, value] of Object.entries(input)) {
                const param = inputs.get(key);
                if (!param) throw badRequest(`服务 ${identifier} 没有参数 ${key}`);
                const why = checkValue(param.dataType, value);
                if (why) throw badRequest(`服务 ${identifier} 的参数 ${key} ${why}`);
            }
            const sync = options.sync ?? fn.callType !== 'async';
            return send(device, `thing.service.${identifier}`, identifier, `thing/service/${identifier}`, input, {
                ...options,
                sync,
            });
        },
        /** A device that left answers nothing more: its waiting calls end as timeouts at once. */
        deviceLeft(deviceId: number) {
            for (const [id, entry] of waiting) {
                if (entry.deviceId !== deviceId) continue;
                waiting.delete(id);
                clearTimeout(entry.timer);
                entry.resolve({ messageId: id, state: 'offline', message: '设备已离线' });
            }
        },
    };
}

export type Downlink = ReturnType<typeof createDownlink>;
