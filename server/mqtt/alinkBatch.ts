import { PROPERTY_POST } from '../domain/telemetry';
import { eventProblem, isRecord, propertyProblem, reply, requestIdOf, type AlinkRequest } from './alinkPosts';
import type { DeviceEntry } from './directory';
import { alinkTime, messageTime, withDeviceTime } from './messageTime';
import type { Delivery } from './resend';
import { ALINK, storeGroup, type AcceptedMessage, type GroupRow, type UplinkState } from './uplinkStore';

/**
 * Alink posts of many values, each under the time the device gives it (the message-time window of messageTime.ts
 * applies to each):
 * - `thing/event/property/batch/post` (thing.event.property.batch.post): `params.properties` `{ id: [{ value, time }] }`
 *   and `params.events` `{ id: [{ value: {outputs}, time }] }`; stored like property and event posts (rules and
 *   subscriptions hear them);
 * - `thing/event/property/history/post` (thing.event.property.history.post): `params` a list of `{ identity:
 *   { productKey, deviceName }, properties: [{ id: { value, time } }], events: [{ id: { value, time } }] }` for the
 *   device itself or, from a gateway, its sub-devices; stored into the devices' history only (past data triggers no
 *   rule). The batch form `{ id: [{ value, time }] }` is read here too.
 * Everything is checked against the thing models first; a post is stored whole in one statement, or refused whole
 * (460, or Alibaba's code for a device that is not the gateway's) with nothing stored, and answered on `_reply`.
 */

export const BATCH_POST = 'thing.event.property.batch.post';
export const HISTORY_POST = 'thing.event.property.history.post';

/** A post refused: its Alink code and why. */
class Refused extends Error {
    constructor(
        readonly code: number,
        message: string,
    ) {
        super(message);
    }
}

const refused = (message: string, code: number = ALINK.BAD_PARAMS) => new Refused(code, message);

/** One value a post carries, with the time the device gave it. */
interface Reading {
    kind: 'property' | 'event';
    identifier: string;
    value: unknown;
    time: unknown;
}

/** The readings of one device in a post. */
interface DeviceReadings {
    device: DeviceEntry;
    readings: Reading[];
}

/** `{ value, time }` of one reading; `timeRequired` for history data. */
function item(raw: unknown, where: string, timeRequired: boolean): { value: unknown; time: unknown } {
    if (!isRecord(raw) || !('value' in raw)) throw refused(`${where} 应为 { value, time }`);
    if (raw.time === undefined || raw.time === null) {
        if (timeRequired) throw refused(`${where} 缺少 time`);
    } else if (alinkTime(raw.time) === undefined) throw refused(`${where} 的 time 应为毫秒时间戳`);
    return { value: raw.value, time: raw.time };
}

/**
 * The readings of `properties` or `events` in either shape: `{ id: [{ value, time }] }` (batch post) or
 * `[{ id: { value, time } }]` (history post).
 */
function readingsOf(raw: unknown, kind: Reading['kind'], name: string, timeRequired: boolean): Reading[] {
    if (raw === undefined || raw === null) return [];
    const out: Reading[] = [];
    if (Array.isArray(raw)) {
        raw.forEach((group, i) => {
            if (!isRecord(group)) throw refused(`${name}[${i}] 应为对象`);
            for (const [identifier, v] of Object.entries(group)) {
                out.push({ kind, identifier, ...item(v, `${name}[${i}].${identifier}`, timeRequired) });
            }
        });
        return out;
    }
    if (!isRecord(raw)) throw refused(`${name} 应为对象或数组`);
    for (const [identifier, list] of Object.entries(raw)) {
        if (!Array.isArray(list)) throw refused(`${name}.${identifier} 应为数组`);
        list.forEach((v, i) => out.push({ kind, identifier, ...item(v, `${name}.${identifier}[${i}]`, timeRequired) }));
    }
    return out;
}

/** The device a history entry's identity names: the device itself or one of the gateway's sub-devices. */
async function identityOf(s: UplinkState, device: DeviceEntry, identity: unknown, i: number): Promise<DeviceEntry> {
    if (!isRecord(identity)) throw refused(`params[${i}].identity 应为 { productKey, deviceName }`);
    const { productKey, deviceName } = identity;
    if (typeof productKey !== 'string' || typeof deviceName !== 'string' || !productKey || !deviceName)
        throw refused(`params[${i}].identity 缺少 productKey 或 deviceName`);
    if (productKey === device.productKey && deviceName === device.deviceName) return device;
    const found = await s.directory.byName(productKey, deviceName);
    if (!('deviceId' in found)) throw refused(`设备 ${productKey}/${deviceName} 不存在`, 6100);
    if (found.gwId !== device.deviceId) throw refused(`设备 ${productKey}/${deviceName} 不是此网关的子设备`, 6401);
    if (!found.enabled) throw refused(`子设备 ${productKey}/${deviceName} 已禁用`, 6201);
    return found;
}

/** Refuses the first reading that does not fit its device's thing model. */
async function check(s: UplinkState, self: DeviceEntry, { device, readings }: DeviceReadings): Promise<void> {
    const whose = device === self ? '' : `子设备 ${device.deviceName}：`;
    for (const r of readings) {
        const problem =
            r.kind === 'property'
                ? await propertyProblem(s, device, { [r.identifier]: r.value })
                : await eventProblem(s, device, r.identifier, r.value);
        if (problem) throw refused(whose + problem);
    }
}

/**
 * The rows of one device's readings: its property values grouped per stored time (a row holds an identifier once),
 * each event a row of its own.
 */
function rowsOf(
    s: UplinkState,
    { device, readings }: DeviceReadings,
    accepted: Pick<AcceptedMessage, 'topic' | 'requestId' | 'payload'> | undefined,
    delivery: Delivery | undefined,
): GroupRow[] {
    const base = { deviceId: device.deviceId, productId: device.productId, delivery };
    const groups: Array<{ key: string; time: ReturnType<typeof messageTime>; values: Record<string, unknown> }> = [];
    const rows: GroupRow[] = [];
    for (const r of readings) {
        const time = messageTime(r.time, s.retentionDays);
        if (r.kind === 'event') {
            const values = r.value as Record<string, unknown>;
            const method = `thing.event.${r.identifier}.post`;
            rows.push({
                write: { ...base, ts: time.ts, method, identifier: r.identifier, data: withDeviceTime(values, time) },
                accepted: accepted && {
                    ...accepted,
                    device,
                    kind: 'event',
                    identifier: r.identifier,
                    values,
                    ts: time.ts,
                },
            });
            continue;
        }
        const key = `${time.ts.getTime()}/${time.deviceTime ?? ''}`;
        let group = groups.find((g) => g.key === key && !(r.identifier in g.values));
        if (!group) groups.push((group = { key, time, values: {} }));
        group.values[r.identifier] = r.value;
    }
    for (const { time, values } of groups) {
        rows.push({
            write: {
                ...base,
                ts: time.ts,
                method: PROPERTY_POST,
                identifier: null,
                data: withDeviceTime(values, time),
                values,
            },
            accepted: accepted && { ...accepted, device, kind: 'property', values, ts: time.ts },
        });
    }
    return rows;
}

/** A batch post's readings (all of the device itself). */
function batchReadings(request: AlinkRequest): Reading[] {
    const params = request.params;
    if (!isRecord(params)) throw refused('params 应为对象');
    const readings = [
        ...readingsOf(params.properties, 'property', 'properties', false),
        ...readingsOf(params.events, 'event', 'events', false),
    ];
    if (!readings.length) throw refused('批量上报不能为空');
    return readings;
}

/** A history post's readings per device, the same device's entries together. */
async function historyReadings(s: UplinkState, device: DeviceEntry, request: AlinkRequest): Promise<DeviceReadings[]> {
    const params = request.params;
    if (!Array.isArray(params) || !params.length) throw refused('params 应为非空数组');
    const byDevice = new Map<number, DeviceReadings>();
    for (const [i, entry] of params.entries()) {
        if (!isRecord(entry)) throw refused(`params[${i}] 应为对象`);
        const target = await identityOf(s, device, entry.identity, i);
        const readings = [
            ...readingsOf(entry.properties, 'property', `params[${i}].properties`, true),
            ...readingsOf(entry.events, 'event', `params[${i}].events`, true),
        ];
        let of = byDevice.get(target.deviceId);
        if (!of) byDevice.set(target.deviceId, (of = { device: target, readings: [] }));
        of.readings.push(...readings);
    }
    const all = [...byDevice.values()];
    if (!all.some((d) => d.readings.length)) throw refused('历史数据上报不能为空');
    return all;
}

/** Answers a refusal, or rethrows what is not one (the store failed: no PUBACK, as for any post). */
function answerRefusal(
    s: UplinkState,
    device: DeviceEntry,
    topic: string,
    request: AlinkRequest,
    method: string,
    err: unknown,
) {
    if (err instanceof Refused) return reply(s, device, topic, request, method, err.code, err.message);
    throw err;
}

export async function batchPost(
    s: UplinkState,
    device: DeviceEntry,
    topic: string,
    request: AlinkRequest | undefined,
    payload: Buffer,
    delivery?: Delivery,
) {
    if (!request) return reply(s, device, topic, request, BATCH_POST, ALINK.BAD_PARAMS, '消息不是有效的 JSON 对象');
    let rows: GroupRow[];
    try {
        const of = { device, readings: batchReadings(request) };
        await check(s, device, of);
        rows = rowsOf(s, of, { topic, requestId: requestIdOf(request), payload }, delivery);
    } catch (err) {
        return answerRefusal(s, device, topic, request, BATCH_POST, err);
    }
    // One subscription copy of the whole post (its first property row's), as the device sent it.
    await storeGroup(s, rows, rows.find((r) => r.accepted?.kind === 'property')?.accepted);
    return reply(s, device, topic, request, BATCH_POST, ALINK.OK, 'success');
}

export async function historyPost(
    s: UplinkState,
    device: DeviceEntry,
    topic: string,
    request: AlinkRequest | undefined,
    delivery?: Delivery,
) {
    if (!request) return reply(s, device, topic, request, HISTORY_POST, ALINK.BAD_PARAMS, '消息不是有效的 JSON 对象');
    let rows: GroupRow[];
    try {
        const devices = await historyReadings(s, device, request);
        for (const of of devices) await check(s, device, of);
        rows = devices.flatMap((of) => rowsOf(s, of, undefined, delivery));
    } catch (err) {
        return answerRefusal(s, device, topic, request, HISTORY_POST, err);
    }
    await storeGroup(s, rows);
    return reply(s, device, topic, request, HISTORY_POST, ALINK.OK, 'success');
}
