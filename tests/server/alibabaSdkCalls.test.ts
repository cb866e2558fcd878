import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { and, asc, eq, ne } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deviceMessages, devices } from '../../server/db/schema';
import { createTestServer, type TestServer } from '../../server/testing';
import { createDevice, createProduct, type TestProduct } from './devicesSupport';
import { secretOf, until } from './mqttSupport';
import { startSdkProcess, type SdkProcess } from './sdkProcess';
import { call, form, json } from './support';
import { lampProduct, okData } from './telemetrySupport';
import { startTlsPlatform, tmpDir, type TlsPlatform } from './tlsSupport';

/**
 * Every public call of Alibaba's Node device SDK (alibabacloud-iot-device-sdk 1.2.8), unchanged and in a device
 * process of its own, against the platform over MQTT and over MQTTS (the device trusting the platform's CA through
 * NODE_EXTRA_CA_CERTS), each call's effect checked through the platform's API or database:
 *   connect (iot.device / iot.gateway), publish, subscribe, unsubscribe, end, postProps, onProps, postEvent,
 *   onService, postTags, deleteTags, getConfig, onConfig, getShadow, postShadow, deleteShadow, onShadow;
 *   the gateway's addTopo, getTopo, removeTopo, login, logout, regiestSubDevice; and iot.register (一型一密).
 * The SDK's connect subscribes to its preset topics: each is granted (none refused with 128).
 */

interface Dev {
    deviceId: number;
    productKey: string;
    deviceName: string;
    secret: string;
}

let s: TestServer;
let p: TlsPlatform;
let caFile: string;
let lamp: { productId: number; productKey: string };
let gatewayProduct: TestProduct;
let subProduct: TestProduct;
/** Direct devices that may fetch their DeviceSecret (动态注册). */
let registering: TestProduct;
const sdks: SdkProcess[] = [];

async function dev(productKey: string): Promise<Dev> {
    const row = await createDevice(s, productKey);
    const deviceId = Number(row.deviceId);
    return { deviceId, productKey: row.productKey, deviceName: row.deviceName, secret: await secretOf(s, deviceId) };
}

const name = (d: Dev) => ({ productKey: d.productKey, deviceName: d.deviceName });
const triple = (d: Dev) => ({ ...name(d), deviceSecret: d.secret });

/** The device's rows of the message log (its status changes left out), oldest first. */
async function logOf(deviceId: number) {
    return s.db
        .select({ method: deviceMessages.method, identifier: deviceMessages.identifier, data: deviceMessages.data })
        .from(deviceMessages)
        .where(and(eq(deviceMessages.deviceId, deviceId), ne(deviceMessages.method, 'device.status')))
        .orderBy(asc(deviceMessages.ts), asc(deviceMessages.id));
}

const statusOf = async (deviceId: number) =>
    (await s.db.select({ status: devices.status }).from(devices).where(eq(devices.id, deviceId)))[0].status;

const gwIdOf = async (deviceId: number) =>
    (await s.db.select({ gwId: devices.gwId }).from(devices).where(eq(devices.id, deviceId)))[0].gwId;

/** The answer's data in the general family (code 200: products, tags, configuration). */
function dataOf<T>(answer: { status: number; body: { code?: unknown; data?: unknown } }): T {
    expect(answer.body.code, JSON.stringify(answer.body)).toBe(200);
    return answer.body.data as T;
}

async function tagsOf(deviceId: number) {
    const answer = await call(s, 'GET', `/api/tag/get?type=2&objectId=${deviceId}`);
    return (answer.body.data as { list: Array<{ key: string; value: string }> }).list.map((t) => [t.key, t.value]);
}

beforeAll(async () => {
    s = await createTestServer();
    p = await startTlsPlatform(s);
    caFile = path.join(tmpDir('sdk-ca-'), 'ca.pem');
    writeFileSync(caFile, p.ca);
    lamp = await lampProduct(s);
    // A sync service (called through RRPC) beside the lamp's async SetSchedule.
    const reboot = {
        productId: lamp.productId,
        type: 'service',
        identifier: 'Reboot',
        name: '重启',
        callType: 'sync',
        inputData: [],
        outputData: [{ identifier: 'Result', name: '结果', dataType: { type: 'int', specs: { min: '0', max: '1' } } }],
    };
    expect((await call(s, 'POST', '/api/function/save', json(reboot))).status).toBe(200);
    gatewayProduct = await createProduct(s, { nodeType: 1 });
    subProduct = await createProduct(s, { nodeType: 0, gatewayType: 1, networkType: 11 });
    registering = await createProduct(s, { nodeType: 0 });
    for (const product of [subProduct, registering]) {
        const allowed = form({ productId: product.productId, dynamicRegister: 'true' });
        expect((await call(s, 'POST', '/api/product/dynamicRegister', allowed)).status).toBe(200);
    }
}, 60_000);

afterAll(async () => {
    for (const sdk of sdks) sdk.close();
    await p?.close();
    await s?.close();
});

describe.each([
    ['MQTT', 'mqtt'],
    ['MQTTS', 'mqtts'],
] as const)("Alibaba's Node SDK over %s", (_label, transport) => {
    const brokerUrl = () =>
        transport === 'mqtt' ? `mqtt://127.0.0.1:${p.ports.mqtt}` : `mqtts://localhost:${p.ports.mqtts}`;
    let sdk: SdkProcess;

    beforeAll(() => {
        sdk = startSdkProcess(transport === 'mqtts' ? { NODE_EXTRA_CA_CERTS: caFile } : {});
        sdks.push(sdk);
    });

    it('a device: connect (every preset subscription granted), props, events, tags, shadow, configuration, services both ways, publish, subscribe, unsubscribe, end', async () => {
        const d = await dev(lamp.productKey);
        await sdk.connect('lamp', 'device', { ...triple(d), brokerUrl: brokerUrl() });
        await until(async () => (await statusOf(d.deviceId)) === 'ONLINE');
        const granted = await sdk.granted('lamp');
        expect(granted.filter((g) => g.qos === 128)).toEqual([]);

        // postProps: answered 200 and stored.
        expect(await sdk.call('lamp', 'postProps', { Brightness: 37 })).toMatchObject({ code: 200 });
        // postEvent in the SDK's own form: answered 200 and stored with its values.
        expect(await sdk.call('lamp', 'postEvent', 'LampFault', { FaultCode: 2 })).toMatchObject({ code: 200 });
        // publish: an Alink post the SDK sends as it is.
        const raw = { id: '77', version: '1.0', method: 'thing.event.property.post', params: { Brightness: 38 } };
        await sdk.call(
            'lamp',
            'publish',
            `/sys/${d.productKey}/${d.deviceName}/thing/event/property/post`,
            JSON.stringify(raw),
            { qos: 1 },
        );
        await until(async () => (await logOf(d.deviceId)).length === 3);
        expect((await logOf(d.deviceId)).map((r) => [r.method, r.data])).toEqual([
            ['thing.event.property.post', { Brightness: 37 }],
            ['thing.event.LampFault.post', { FaultCode: 2 }],
            ['thing.event.property.post', { Brightness: 38 }],
        ]);

        // postTags / deleteTags: answered, and the device's 标签 follow.
        expect(
            await sdk.call('lamp', 'postTags', [
                { attrKey: 'site', attrValue: 'B3' },
                { attrKey: 'fw', attrValue: '1.2' },
            ]),
        ).toMatchObject({ code: 200 });
        expect(await tagsOf(d.deviceId)).toEqual([
            ['site', 'B3'],
            ['fw', '1.2'],
        ]);
        expect(await sdk.call('lamp', 'deleteTags', ['site'])).toMatchObject({ code: 200 });
        expect(await tagsOf(d.deviceId)).toEqual([['fw', '1.2']]);

        // onProps: a property set from the console reaches the SDK's callback.
        await sdk.on('lamp', 'onProps');
        const set = await call(
            s,
            'POST',
            '/api/device/propertyTestSet',
            form({ deviceId: d.deviceId, params: JSON.stringify({ Brightness: 80 }), sync: 'false' }),
        );
        expect(set.status).toBe(200);
        expect(await sdk.next('lamp', 'onProps')).toMatchObject({
            method: 'thing.service.property.set',
            params: { Brightness: 80 },
        });

        // onService: an async service answered on thing/service/{id}_reply, a sync one through RRPC.
        await sdk.on('lamp', 'onService', { service: 'SetSchedule', reply: { Result: 1 }, type: 'async' });
        await sdk.on('lamp', 'onService', { service: 'Reboot', reply: { Result: 1 }, type: 'sync' });
        // onService subscribes without waiting for the SUBACK: the same subscription through the SDK's subscribe does.
        await sdk.call('lamp', 'subscribe', `/sys/${d.productKey}/${d.deviceName}/thing/service/SetSchedule`, {
            qos: 1,
        });
        for (const identifier of ['SetSchedule', 'Reboot']) {
            const answer = await call(
                s,
                'POST',
                '/api/device/serviceTestSet',
                // The API waits for the async service's thing/service/{id}_reply as it does for the sync one's.
                form({ deviceId: d.deviceId, identifier, params: '{}', sync: 'true' }),
            );
            expect(okData(answer), identifier).toMatchObject({ state: 'replied', code: 200, data: { Result: 1 } });
        }
        expect(await sdk.next('lamp', 'service')).toMatchObject({ method: 'thing.service.SetSchedule' });
        expect(await sdk.next('lamp', 'service')).toMatchObject({ method: 'thing.service.Reboot' });

        // The shadow: postShadow, getShadow, deleteShadow answered on onShadow; a desired state from the console too.
        await sdk.on('lamp', 'onShadow');
        const shadow = async () =>
            okData<{ state: { reported: Record<string, unknown>; desired: Record<string, unknown> } }>(
                await call(s, 'GET', `/api/device/shadow?deviceId=${d.deviceId}`),
            ).state;
        await sdk.call('lamp', 'postShadow', { Brightness: 5, LightSwitch: 1 });
        expect(await sdk.next('lamp', 'onShadow')).toMatchObject({ method: 'reply', payload: { status: 'success' } });
        expect((await shadow()).reported).toEqual({ Brightness: 5, LightSwitch: 1 });
        await sdk.call('lamp', 'getShadow');
        expect(await sdk.next('lamp', 'onShadow')).toMatchObject({
            method: 'reply',
            payload: { status: 'success', state: { reported: { Brightness: 5, LightSwitch: 1 } } },
        });
        await sdk.call('lamp', 'deleteShadow', 'LightSwitch');
        expect(await sdk.next('lamp', 'onShadow')).toMatchObject({ method: 'reply', payload: { status: 'success' } });
        expect((await shadow()).reported).toEqual({ Brightness: 5 });
        const desired = await call(
            s,
            'POST',
            '/api/device/shadow/update',
            form({ deviceId: d.deviceId, desired: JSON.stringify({ Brightness: 90 }) }),
        );
        expect(okData(desired)).toMatchObject({ sent: true });
        expect(await sdk.next('lamp', 'onShadow')).toMatchObject({
            method: 'control',
            payload: { state: { desired: { Brightness: 90 } } },
        });

        // getConfig / onConfig: the product's file with its signed download; a 批量推送 heard, its push_reply recorded.
        const content = `{"interval":${transport === 'mqtt' ? 30 : 60}}`;
        const saved = await call(
            s,
            'POST',
            '/api/product/config/save',
            json({ productId: lamp.productId, format: 'json', content }),
        );
        const configId = dataOf<{ configId: string }>(saved).configId;
        const got = (await sdk.call('lamp', 'getConfig')) as { code: number; data: { configId: string; url: string } };
        expect(got).toMatchObject({ code: 200, data: { configId, configSize: content.length, signMethod: 'Sha256' } });
        const url = new URL(got.data.url);
        expect(await (await s.anonFetch(`${url.pathname}${url.search}`)).text()).toBe(content);
        await sdk.on('lamp', 'onConfig');
        const pushed = await call(
            s,
            'POST',
            '/api/product/config/push',
            json({ productId: lamp.productId, scope: 'all' }),
        );
        const pushId = dataOf<{ pushId: number }>(pushed).pushId;
        const heard = (await sdk.next('lamp', 'onConfig')) as { id: string; method: string; params: unknown };
        expect(heard).toMatchObject({ method: 'thing.config.push', params: { configId } });
        const pushReply = JSON.stringify({ id: heard.id, code: 200, data: {} });
        await sdk.call('lamp', 'publish', `/sys/${d.productKey}/${d.deviceName}/thing/config/push_reply`, pushReply, {
            qos: 1,
        });
        await until(async () => {
            const page = await call(
                s,
                'GET',
                `/api/product/config/push/devices?productId=${lamp.productId}&pushId=${pushId}`,
            );
            const records = dataOf<{ records: Array<{ deviceName: string; state: string }> }>(page).records;
            return records.some((r) => r.deviceName === d.deviceName && r.state === 'succeeded');
        });

        // subscribe / unsubscribe: a custom RRPC on the device's user topic arrives while subscribed, not after.
        await sdk.on('lamp', 'message');
        const custom = `/ext/rrpc/+/${d.productKey}/${d.deviceName}/user/get`;
        expect(await sdk.call('lamp', 'subscribe', custom, { qos: 0 })).toEqual([{ topic: custom, qos: 0 }]);
        const request = (text: string) =>
            call(
                s,
                'POST',
                '/api/device/rrpc',
                form({
                    deviceId: d.deviceId,
                    requestBase64Byte: Buffer.from(text).toString('base64'),
                    topic: `/${d.productKey}/${d.deviceName}/user/get`,
                    timeout: '1000',
                }),
            );
        const asked = request('ping');
        const rrpcTopic = (m: unknown) => (m as { topic: string }).topic.startsWith('/ext/rrpc/');
        expect(await sdk.next('lamp', 'message', 10_000, rrpcTopic)).toMatchObject({ payload: 'ping' });
        await asked;
        await sdk.call('lamp', 'unsubscribe', custom);
        expect(okData(await request('again'))).toMatchObject({ rrpcCode: 'TIMEOUT' });
        await expect(sdk.next('lamp', 'message', 300, rrpcTopic)).rejects.toThrow(/no message/);

        // end: the device leaves, and is OFFLINE.
        await sdk.call('lamp', 'end');
        await until(async () => (await statusOf(d.deviceId)) === 'OFFLINE');
    });

    it('a gateway: regiestSubDevice, addTopo, getTopo, login, logout, removeTopo', async () => {
        const gw = await dev(gatewayProduct.productKey);
        const sub = await dev(subProduct.productKey);
        await sdk.connect('gw', 'gateway', { ...triple(gw), brokerUrl: brokerUrl() });
        expect((await sdk.granted('gw')).filter((g) => g.qos === 128)).toEqual([]);
        expect(await sdk.call('gw', 'regiestSubDevice', name(sub))).toMatchObject({ code: 200, data: [triple(sub)] });
        expect(await sdk.call('gw', 'addTopo', [triple(sub)])).toMatchObject({ code: 200, data: [name(sub)] });
        expect(await gwIdOf(sub.deviceId)).toBe(gw.deviceId);
        expect(await sdk.call('gw', 'getTopo')).toMatchObject({ code: 200, data: [name(sub)] });
        expect(await sdk.call('gw', 'login', triple(sub), 'sub')).toMatchObject({ code: 200 });
        await until(async () => (await statusOf(sub.deviceId)) === 'ONLINE');
        expect(await sdk.call('gw', 'logout', name(sub))).toMatchObject({ code: 200 });
        await until(async () => (await statusOf(sub.deviceId)) === 'OFFLINE');
        expect(await sdk.call('gw', 'removeTopo', [name(sub)])).toMatchObject({ code: 200, data: [name(sub)] });
        expect(await gwIdOf(sub.deviceId)).toBeNull();
        await sdk.call('gw', 'end');
    });

    it('iot.register: the DeviceSecret of a pre-registered device of a product that allows it', async () => {
        const d = await dev(registering.productKey);
        const secret = await call(s, 'GET', `/api/product/secret?productId=${registering.productId}`);
        const productSecret = (secret.body.data as { productSecret: string }).productSecret;
        const registerURL =
            transport === 'mqtt'
                ? `http://127.0.0.1:${p.ports.http}/auth/register/device`
                : `https://localhost:${p.ports.https}/auth/register/device`;
        // Over HTTPS the SDK (axios) is in the device process, trusting the CA as mqtts does.
        const answer = await sdk.register({ ...name(d), productSecret, registerURL });
        expect(answer).toEqual({ code: 200, message: 'success', data: { ...name(d), deviceSecret: d.secret } });
    });
});
