import type { Client } from 'aedes';
import type { Db } from '../db/client';
import { ALINK_CODE, Refusal } from '../domain/dynamicRegister';
import {
    addTopology,
    deleteTopology,
    registerSubDevices,
    storeFound,
    topologyOf,
    type Gateway,
} from '../domain/topology';

/**
 * A gateway's topology requests on its own `/sys/{pk}/{dn}/thing/...` topics (Alibaba's Alink: topo/add, topo/delete,
 * topo/get, list/found, sub/register), each answered on `..._reply` as Alibaba answers: `{ id, code, data, message,
 * method, version }`, `data` the request's result or `{}` with a refusal's code. `sys.ack: 0` asks for no answer.
 * The gateway's answer to a thing/topo/change notice (topo/change_reply) is taken and needs nothing.
 */

const ACTIONS = {
    'thing/topo/add': 'thing.topo.add',
    'thing/topo/delete': 'thing.topo.delete',
    'thing/topo/get': 'thing.topo.get',
    'thing/list/found': 'thing.list.found',
    'thing/sub/register': 'thing.sub.register',
    'thing/topo/change_reply': 'thing.topo.change',
} as const;

type Action = keyof typeof ACTIONS;

export interface TopologyDeps {
    db: Db;
    reply: (topic: string, body: Record<string, unknown>) => Promise<void>;
    /** A sub-device unbound by topo/delete leaves the gateway's session. */
    offline: (gateway: Client, subId: number) => void;
    log: (message: string) => void;
}

/** The topology action of a topic of the gateway's own, or undefined. */
export function topologyAction(gateway: Gateway, topic: string): Action | undefined {
    const prefix = `/sys/${gateway.productKey}/${gateway.deviceName}/`;
    if (!topic.startsWith(prefix)) return undefined;
    const rest = topic.slice(prefix.length);
    return rest in ACTIONS ? (rest as Action) : undefined;
}

async function run(deps: TopologyDeps, client: Client, gateway: Gateway, action: Action, params: unknown) {
    switch (action) {
        case 'thing/topo/add':
            return addTopology(deps.db, gateway, params);
        case 'thing/topo/delete': {
            const removed = await deleteTopology(deps.db, gateway, params);
            for (const r of removed) deps.offline(client, r.deviceId);
            return removed.map(({ productKey, deviceName }) => ({ productKey, deviceName }));
        }
        case 'thing/topo/get':
            return topologyOf(deps.db, gateway.deviceId);
        case 'thing/list/found':
            await storeFound(deps.db, gateway, params);
            return {};
        case 'thing/sub/register':
            return registerSubDevices(deps.db, gateway, params);
        default:
            return {};
    }
}

export async function topologyRequest(
    deps: TopologyDeps,
    client: Client,
    gateway: Gateway,
    topic: string,
    action: Action,
    payload: Buffer,
): Promise<void> {
    if (action === 'thing/topo/change_reply') return;
    const method = ACTIONS[action];
    let request: Record<string, unknown> | undefined;
    try {
        const parsed: unknown = JSON.parse(payload.toString('utf8'));
        if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) request = parsed as Record<string, unknown>;
    } catch {
        // answered below
    }
    const id = typeof request?.id === 'string' || typeof request?.id === 'number' ? String(request.id) : '';
    const answer = (code: number, message: string, data: unknown) =>
        (request?.sys as { ack?: unknown } | undefined)?.ack === 0
            ? Promise.resolve()
            : deps.reply(`${topic}_reply`, { id, code, data, message, method, version: '1.0' });
    if (!request) return answer(ALINK_CODE.parameter, '消息不是有效的 JSON 对象', {});
    try {
        return await answer(200, 'success', await run(deps, client, gateway, action, request.params));
    } catch (err) {
        if (!(err instanceof Refusal)) throw err;
        deps.log(`网关 ${gateway.productKey}/${gateway.deviceName} 的 ${method} 被拒绝（${err.code}）: ${err.message}`);
        return answer(err.code, err.message, {});
    }
}
