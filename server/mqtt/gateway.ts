import type { Client } from 'aedes';
import type { Db } from '../db/client';
import type { Directory, DeviceEntry } from './directory';
import { parseClientId, sameSecret, sign, signContent, type SignMethod } from './signIn';
import { topologyAction, topologyRequest } from './topology';

/**
 * Alibaba's gateway sessions: a gateway brings its sub-devices online on `/ext/session/{pk}/{dn}/combine/login`
 * (params productKey, deviceName, clientId, timestamp, signMethod, sign = HMAC(sub-device secret,
 * `clientId{clientId}deviceName{dn}productKey{pk}timestamp{ts}`)) and takes them off on `.../combine/logout`. Only
 * the gateway's own sub-devices (bound to it on the console or by its own topo/add) may sign in through it. Answers on
 * `..._reply`. Its topology requests (`/sys/{pk}/{dn}/thing/topo/...`, list/found, sub/register) go to topology.ts.
 */

const METHODS: SignMethod[] = ['hmacmd5', 'hmacsha1', 'hmacsha256'];

interface Deps {
    db: Db;
    directory: Directory;
    reply: (topic: string, body: Record<string, unknown>) => Promise<void>;
    online: (gateway: Client, sub: DeviceEntry) => void;
    offline: (gateway: Client, subId: number) => void;
    log: (message: string) => void;
}

const str = (v: unknown) => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '');

export function createGatewaySessions({ db, directory, reply, online, offline, log }: Deps) {
    const prefix = (g: DeviceEntry) => `/ext/session/${g.productKey}/${g.deviceName}/combine/`;

    async function login(client: Client, gateway: DeviceEntry, topic: string, request: Record<string, unknown>) {
        const id = str(request.id);
        const answer = (code: number, message: string, data: Record<string, unknown> = {}) =>
            reply(`${topic}_reply`, { id, code, message, data });
        const p = (request.params ?? {}) as Record<string, unknown>;
        const productKey = str(p.productKey);
        const deviceName = str(p.deviceName);
        if (!productKey || !deviceName) return answer(460, '缺少子设备的 productKey 或 deviceName');
        const found = await directory.byName(productKey, deviceName);
        if (!('deviceId' in found)) return answer(460, found.unknownProduct ? '子设备的产品不存在' : '子设备不存在');
        if (found.gwId !== gateway.deviceId) return answer(6401, '该设备不是此网关的子设备');
        if (!found.enabled) return answer(6201, '子设备已禁用');
        const method = (str(p.signMethod) || 'hmacmd5').toLowerCase() as SignMethod;
        if (!METHODS.includes(method)) return answer(460, 'signMethod 只能是 hmacmd5、hmacsha1 或 hmacsha256');
        const clientId = str(p.clientId) || `${productKey}&${deviceName}`;
        const parsed = parseClientId(clientId);
        const content = signContent({
            clientId: parsed && parsed !== 'bad-signmethod' ? parsed.id : clientId,
            deviceName,
            productKey,
            timestamp: str(p.timestamp) || undefined,
        });
        if (!sameSecret(str(p.sign), sign(method, found.secret, content), true)) {
            log(
                `子设备上线被拒绝（签名错误）: ${productKey}/${deviceName}，网关 ${gateway.productKey}/${gateway.deviceName}`,
            );
            return answer(6100, '子设备签名错误');
        }
        online(client, found);
        return answer(200, 'success', { productKey, deviceName });
    }

    async function logout(client: Client, topic: string, request: Record<string, unknown>) {
        const p = (request.params ?? {}) as Record<string, unknown>;
        const found = await directory.byName(str(p.productKey), str(p.deviceName));
        if ('deviceId' in found) offline(client, found.deviceId);
        return reply(`${topic}_reply`, { id: str(request.id), code: 200, message: 'success', data: {} });
    }

    return {
        handles: (gateway: DeviceEntry, topic: string) =>
            topic.startsWith(prefix(gateway)) || (gateway.nodeType === 1 && !!topologyAction(gateway, topic)),
        async handle(client: Client, gateway: DeviceEntry, topic: string, payload: Buffer): Promise<void> {
            const action = topologyAction(gateway, topic);
            if (action) return topologyRequest({ db, reply, offline, log }, client, gateway, topic, action, payload);
            let request: Record<string, unknown>;
            try {
                request = JSON.parse(payload.toString('utf8')) as Record<string, unknown>;
                if (typeof request !== 'object' || request === null) throw new Error('not an object');
            } catch {
                return reply(`${topic}_reply`, { id: '', code: 460, message: '消息不是有效的 JSON 对象', data: {} });
            }
            const session = topic.slice(prefix(gateway).length);
            if (session === 'login') return login(client, gateway, topic, request);
            if (session === 'logout') return logout(client, topic, request);
            return reply(`${topic}_reply`, {
                id: str(request.id),
                code: 460,
                message: `不支持的操作 ${session}`,
                data: {},
            });
        },
    };
}
