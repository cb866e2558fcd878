import type { MqttClient } from 'mqtt';
import { expect } from 'vitest';
import { alibabaCredentials } from '../../server/mqtt/signIn';
import type { TestServer } from '../../server/testing';
import { createDevice } from './devicesSupport';
import { connect, secretOf } from './mqttSupport';
import { lampProduct } from './telemetrySupport';

type Json = Record<string, unknown>;

/** A JSON call through the in-process app: status and body. */
export async function api(s: TestServer, method: string, target: string, body?: unknown) {
    const res = await s.fetch(target, {
        method,
        ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
    });
    return { status: res.status, body: (await res.json()) as { code: number; msg: string; data: Json } };
}

/** Data of a code-200 answer. */
export async function ok<T = Json>(s: TestServer, method: string, target: string, body?: unknown): Promise<T> {
    const r = await api(s, method, target, body);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.code).toBe(200);
    return r.body.data as T;
}

export interface LampDevice {
    deviceId: number;
    productKey: string;
    deviceName: string;
    secret: string;
}

/** A fresh device of the demo lamp product (ActivePower float 0..2000, LightSwitch bool rw, LampFault event). */
export async function lamp(s: TestServer): Promise<LampDevice> {
    const { productKey } = await lampProduct(s);
    const d = await createDevice(s, productKey);
    const deviceId = Number(d.deviceId);
    return { deviceId, productKey, deviceName: d.deviceName, secret: await secretOf(s, deviceId) };
}

export interface Device extends LampDevice {
    client: MqttClient;
    /** Property set calls the platform sent to this device. */
    sets: Json[];
    post(values: Json): Promise<void>;
    event(identifier: string, values: Json): Promise<void>;
}

let seq = 1;

/** Signs the device in over MQTT, records the property sets it receives (and answers them 200). */
export async function online(url: string, d: LampDevice): Promise<Device> {
    const client = await connect(url, alibabaCredentials(d));
    const sets: Json[] = [];
    const base = `/sys/${d.productKey}/${d.deviceName}`;
    await client.subscribeAsync(`${base}/thing/service/property/set`, { qos: 1 });
    client.on('message', (topic, payload) => {
        if (topic !== `${base}/thing/service/property/set`) return;
        const m = JSON.parse(payload.toString()) as Json;
        sets.push(m);
        client.publish(`${topic}_reply`, JSON.stringify({ id: m.id, code: 200, data: {} }));
    });
    const publish = (topic: string, params: Json) =>
        client.publishAsync(topic, JSON.stringify({ id: String(seq++), version: '1.0', params })).then(() => undefined);
    return {
        ...d,
        client,
        sets,
        post: (values) => publish(`${base}/thing/event/property/post`, values),
        event: (identifier, values) => publish(`${base}/thing/event/${identifier}/post`, { value: values }),
    };
}

export interface AlertRow {
    id: number;
    level: number;
    status: number;
    params: string;
    ruleId: number | null;
    deviceName: string;
    remark: string | null;
    open: boolean;
    recoverTime: string | null;
}

export async function alertsOf(s: TestServer, ruleId: number): Promise<AlertRow[]> {
    return (await ok<{ records: AlertRow[] }>(s, 'GET', `/api/alert-log/list?ruleId=${ruleId}&pageSize=100`)).records;
}

export interface JournalRow {
    ruleId: number;
    deviceName: string | null;
    triggerType: string;
    input: Json;
    results: Array<{ type: string; ok: boolean; message: string }>;
    success: boolean;
}

export async function journalOf(s: TestServer, ruleId: number): Promise<JournalRow[]> {
    return (await ok<{ records: JournalRow[] }>(s, 'GET', `/api/rule/log/list?ruleId=${ruleId}&pageSize=100`)).records;
}
