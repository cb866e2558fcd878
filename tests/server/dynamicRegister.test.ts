import { request as httpsRequest } from 'node:https';
import { eq } from 'drizzle-orm';
import mqtt, { type MqttClient } from 'mqtt';
import iot from 'alibabacloud-iot-device-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { devices } from '../../server/db/schema';
import { registerSignature } from '../../server/domain/dynamicRegister';
import { sign, type SignMethod } from '../../server/mqtt/signIn';
import { createTestServer, type TestServer } from '../../server/testing';
import { createDevice, createProduct, type TestProduct } from './devicesSupport';
import { connect, secretOf } from './mqttSupport';
import { call, form, rowCounts } from './support';
import { startTlsPlatform, type TlsPlatform } from './tlsSupport';

/**
 * Dynamic registration of a directly connected device (一型一密, docs/device-access.md "动态注册"): the ProductSecret
 * behind the console's 查看, the 动态注册 and 免预注册 switches, POST /auth/register/device on HTTP and HTTPS (driven by
 * Alibaba's own SDK, iot.register, and by fetch), its refusals with Alibaba's codes, its per-product allowance and
 * body bound, and the MQTT variants (authType=register and, 免预注册, authType=regnwl then connwl), over TLS only.
 */

const PER_MINUTE = 6;
let s: TestServer;
let p: TlsPlatform;
const clients: MqttClient[] = [];

async function product(switches: { dynamicRegister?: boolean; noPreRegister?: boolean } = {}) {
    const made = await createProduct(s, { nodeType: 0 });
    const values: Record<string, string> = {};
    if (switches.dynamicRegister !== undefined) values.dynamicRegister = String(switches.dynamicRegister);
    if (switches.noPreRegister !== undefined) values.noPreRegister = String(switches.noPreRegister);
    if (Object.keys(values).length) {
        const set = await call(
            s,
            'POST',
            '/api/product/dynamicRegister',
            form({ productId: made.productId, ...values }),
        );
        expect(set.status).toBe(200);
    }
    const secret = await call(s, 'GET', `/api/product/secret?productId=${made.productId}`);
    return { ...made, productSecret: (secret.body.data as { productSecret: string }).productSecret };
}

type Product = TestProduct & { productSecret: string };

/** The form Alibaba's SDKs post, signed with `secret` (default: the product's). */
function registerForm(pr: Product, deviceName: string, secret = pr.productSecret, method: SignMethod = 'hmacsha256') {
    const request = { productKey: pr.productKey, deviceName, random: String(Math.random()).slice(2) };
    return { ...request, signMethod: method, sign: registerSignature(method, secret, request) };
}

async function post(values: Record<string, string>) {
    const answer = await call(s, 'POST', '/auth/register/device', { anonymous: true, ...form(values) });
    expect(answer.status).toBe(200);
    return answer.body as { code: number; data: Record<string, unknown>; message: string };
}

const registeredAt = async (deviceId: number) =>
    (await s.db.select({ at: devices.registeredAt }).from(devices).where(eq(devices.id, deviceId)))[0].at;

beforeAll(async () => {
    s = await createTestServer({ config: { dynamicRegisterPerMinute: PER_MINUTE } });
    p = await startTlsPlatform(s);
});

afterAll(async () => {
    for (const c of clients) c.end(true);
    await p?.close();
    await s?.close();
});

describe('the product page', () => {
    it('keeps a ProductSecret per product, with both switches off on a new product', async () => {
        const made = await createProduct(s, { nodeType: 0 });
        const detail = await call(s, 'GET', `/api/product/detail?productId=${made.productId}`);
        expect(detail.body.data).toMatchObject({ dynamicRegister: false, noPreRegister: false });
        expect(JSON.stringify(detail.body)).not.toContain('productSecret');
        const a = await call(s, 'GET', `/api/product/secret?productId=${made.productId}`);
        const other = await product();
        const secret = (a.body.data as { productSecret: string }).productSecret;
        expect(secret).toMatch(/^[0-9a-f]{32}$/);
        expect(other.productSecret).not.toBe(secret);
        const set = await call(
            s,
            'POST',
            '/api/product/dynamicRegister',
            form({ productId: made.productId, dynamicRegister: 'maybe' }),
        );
        expect(set.status).toBe(400);
    });
});

describe('POST /auth/register/device', () => {
    it("answers Alibaba's SDK (iot.register) with the DeviceSecret of a pre-registered device, once", async () => {
        const pr = await product({ dynamicRegister: true });
        const device = await createDevice(s, pr.productKey);
        const secret = await secretOf(s, Number(device.deviceId));
        const register = () =>
            new Promise<unknown>((resolve) =>
                iot.register(
                    {
                        productKey: pr.productKey,
                        productSecret: pr.productSecret,
                        deviceName: device.deviceName,
                        registerURL: `http://127.0.0.1:${p.ports.http}/auth/register/device`,
                    },
                    resolve,
                ),
            );
        expect(await register()).toEqual({
            code: 200,
            message: 'success',
            data: { productKey: pr.productKey, deviceName: device.deviceName, deviceSecret: secret },
        });
        expect(await registeredAt(Number(device.deviceId))).not.toBeNull();
        // The SDK hands a refusal to its callback as it came (it throws the answer).
        expect(await register()).toMatchObject({ code: 6289, data: {} });
    });

    it('answers fetch over HTTPS too, every signing method in any case', async () => {
        const pr = await product({ dynamicRegister: true });
        const device = await createDevice(s, pr.productKey);
        const values = { ...registerForm(pr, device.deviceName, pr.productSecret, 'hmacmd5'), signMethod: 'HmacMD5' };
        const body = await new Promise<string>((resolve, reject) => {
            const req = httpsRequest(
                {
                    host: '127.0.0.1',
                    servername: 'localhost',
                    port: p.ports.https,
                    path: '/auth/register/device',
                    method: 'POST',
                    ca: p.ca,
                    headers: { 'content-type': 'application/x-www-form-urlencoded' },
                },
                (res) => {
                    let text = '';
                    res.on('data', (chunk: Buffer) => (text += chunk.toString()));
                    res.on('end', () => resolve(text));
                },
            );
            req.on('error', reject);
            req.end(new URLSearchParams(values).toString());
        });
        expect(JSON.parse(body)).toMatchObject({
            code: 200,
            data: { deviceSecret: await secretOf(s, Number(device.deviceId)) },
        });
    });

    it("refuses with Alibaba's codes, handing out nothing", async () => {
        const on = await product({ dynamicRegister: true });
        const off = await product();
        const device = await createDevice(s, on.productKey);
        const offDevice = await createDevice(s, off.productKey);
        const before = await rowCounts(s.db);

        // A wrong signature: 401. A signature made with another product's secret is as wrong.
        expect(await post(registerForm(on, device.deviceName, 'x'.repeat(32)))).toMatchObject({ code: 401, data: {} });
        expect(await post(registerForm(on, device.deviceName, off.productSecret))).toMatchObject({ code: 401 });
        // 动态注册 off: 6288.
        expect(await post(registerForm(off, offDevice.deviceName))).toMatchObject({ code: 6288 });
        // A device the platform does not have: 6100 (免预注册 is not served over HTTPS, as at Alibaba).
        expect(await post(registerForm(on, 'no_such_device'))).toMatchObject({ code: 6100 });
        // An unknown product: 6250; missing or malformed parameters: 460.
        expect(await post(registerForm({ ...on, productKey: 'NoSuchProd1' }, 'abcd'))).toMatchObject({ code: 6250 });
        const { sign: _sign, ...unsigned } = registerForm(on, device.deviceName);
        expect(await post(unsigned)).toMatchObject({ code: 460 });
        expect(await post({ ...registerForm(on, device.deviceName), signMethod: 'sha512' })).toMatchObject({
            code: 460,
        });

        expect(await rowCounts(s.db)).toEqual(before);
        expect(await registeredAt(Number(device.deviceId))).toBeNull();
        expect(await registeredAt(Number(offDevice.deviceId))).toBeNull();

        // A device that has connected is active already: 6289 without a registration before.
        const active = await createDevice(s, on.productKey);
        await s.db
            .update(devices)
            .set({ status: 'OFFLINE' })
            .where(eq(devices.id, Number(active.deviceId)));
        expect(await post(registerForm(on, active.deviceName))).toMatchObject({ code: 6289 });
        // A disabled device: 6204.
        const disabled = await createDevice(s, on.productKey);
        await s.db
            .update(devices)
            .set({ enabled: false, status: 'DISABLE' })
            .where(eq(devices.id, Number(disabled.deviceId)));
        expect(await post(registerForm(on, disabled.deviceName))).toMatchObject({ code: 6204 });
    });

    it('allows a product only so many registrations a minute (429), whatever the device', async () => {
        const pr = await product({ dynamicRegister: true });
        const answers: number[] = [];
        for (let i = 0; i < PER_MINUTE + 2; i++) answers.push((await post(registerForm(pr, `nobody_${i}`))).code);
        // Each signed request counts: the allowance is spent on refusals too, and then the product is throttled.
        expect(answers.slice(0, PER_MINUTE)).toEqual(Array(PER_MINUTE).fill(6100));
        expect(answers.slice(PER_MINUTE)).toEqual([429, 429]);
        // Unsigned guesses do not spend another product's allowance.
        const other = await product({ dynamicRegister: true });
        for (let i = 0; i < PER_MINUTE + 2; i++) await post(registerForm(other, 'anyone', 'y'.repeat(32)));
        const device = await createDevice(s, other.productKey);
        expect(await post(registerForm(other, device.deviceName))).toMatchObject({ code: 200 });
    });

    it('refuses a body over 4 KB before reading it', async () => {
        const res = await s.anonFetch('/auth/register/device', {
            method: 'POST',
            headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-length': String(5000) },
            body: 'productKey=' + 'a'.repeat(4989),
        });
        expect(res.status).toBe(413);
        expect(await res.json()).toMatchObject({ code: 460 });
    });
});

/** Alibaba's MQTT dynamic registration CONNECT: clientId with authType and random, password signed with the ProductSecret. */
function registerConnect(
    pr: Product,
    deviceName: string,
    authType: 'register' | 'regnwl',
    securemode = -2,
    secret = pr.productSecret,
) {
    const random = String(Math.floor(Math.random() * 1e9));
    return {
        clientId: `${deviceName}|securemode=${securemode},authType=${authType},random=${random},signmethod=hmacsha256|`,
        username: `${deviceName}&${pr.productKey}`,
        password: sign('hmacsha256', secret, `deviceName${deviceName}productKey${pr.productKey}random${random}`),
    };
}

/** Connects, then resolves with the one message the platform sends unasked, and once the connection is closed. */
function registerOverMqtt(url: string, options: ReturnType<typeof registerConnect>) {
    return new Promise<{ topic: string; body: Record<string, unknown> }>((resolve, reject) => {
        const client = mqtt.connect(url, { ...options, ca: p.ca, reconnectPeriod: 0, connectTimeout: 5_000 });
        clients.push(client);
        let got: { topic: string; body: Record<string, unknown> } | undefined;
        client.on('message', (topic, payload) => (got = { topic, body: JSON.parse(payload.toString()) }));
        client.once('error', reject);
        client.once('close', () => (got ? resolve(got) : reject(new Error('closed without an answer'))));
    });
}

describe('MQTT dynamic registration', () => {
    it('answers a pre-registered device its DeviceSecret on /ext/register (authType=register), then closes', async () => {
        const pr = await product({ dynamicRegister: true });
        const device = await createDevice(s, pr.productKey);
        const answer = await registerOverMqtt(
            `mqtts://localhost:${p.ports.mqtts}`,
            registerConnect(pr, device.deviceName, 'register', 2),
        );
        expect(answer).toEqual({
            topic: '/ext/register',
            body: {
                productKey: pr.productKey,
                deviceName: device.deviceName,
                deviceSecret: await secretOf(s, Number(device.deviceId)),
            },
        });
        // Once.
        await expect(
            connect(`mqtts://localhost:${p.ports.mqtts}`, {
                ...registerConnect(pr, device.deviceName, 'register', 2),
                ca: p.ca,
            }),
        ).rejects.toMatchObject({ code: 5 });
    });

    it('免预注册: creates the device (authType=regnwl), answers clientId and deviceToken, which then sign it in (connwl)', async () => {
        const pr = await product({ dynamicRegister: true, noPreRegister: true });
        const deviceName = `nwl_${Date.now()}`;
        const answer = await registerOverMqtt(
            `mqtts://localhost:${p.ports.mqtts}`,
            registerConnect(pr, deviceName, 'regnwl'),
        );
        expect(answer.topic).toBe('/ext/regnwl');
        expect(answer.body).toMatchObject({ productKey: pr.productKey, deviceName });
        const { clientId, deviceToken } = answer.body as { clientId: string; deviceToken: string };
        expect(clientId).toBeTruthy();
        expect(deviceToken).toBeTruthy();
        // The sign-in Alibaba's SDKs make with them.
        const client = await connect(`mqtts://localhost:${p.ports.mqtts}`, {
            clientId: `${clientId}|authType=connwl,securemode=-2,_ss=1,ext=3,_v=sdk-c-4.1.0|`,
            username: `${deviceName}&${pr.productKey}`,
            password: deviceToken,
            ca: p.ca,
        });
        clients.push(client);
        expect(client.connected).toBe(true);

        // authType=register under 免预注册: a device the platform lacks is created too, its secret on /ext/register.
        const other = `reg_${Date.now()}`;
        const registered = await registerOverMqtt(
            `mqtts://localhost:${p.ports.mqtts}`,
            registerConnect(pr, other, 'register'),
        );
        expect(registered.topic).toBe('/ext/register');
        const [row] = await s.db.select({ secret: devices.secret }).from(devices).where(eq(devices.deviceName, other));
        expect(registered.body).toEqual({ productKey: pr.productKey, deviceName: other, deviceSecret: row.secret });
    });

    it('refuses a switch that is off, a bad signature and a plain TCP connection, creating nothing', async () => {
        const pre = await product({ dynamicRegister: true });
        const off = await product();
        const device = await createDevice(s, pre.productKey);
        const offDevice = await createDevice(s, off.productKey);
        // Devices only: the device signed in by the test before goes online meanwhile (its status rows change).
        const before = (await rowCounts(s.db)).devices;
        const tls = `mqtts://localhost:${p.ports.mqtts}`;
        // 免预注册 off: a name the platform lacks is not created.
        await expect(
            connect(tls, { ...registerConnect(pre, 'not_yet_here', 'regnwl'), ca: p.ca }),
        ).rejects.toMatchObject({ code: 5 });
        // 动态注册 off.
        await expect(
            connect(tls, { ...registerConnect(off, offDevice.deviceName, 'register'), ca: p.ca }),
        ).rejects.toMatchObject({
            code: 5,
        });
        // A bad signature: bad username or password.
        await expect(
            connect(tls, { ...registerConnect(pre, device.deviceName, 'register', -2, 'z'.repeat(32)), ca: p.ca }),
        ).rejects.toMatchObject({ code: 4 });
        // The secret would cross the network in clear: plain TCP is refused (Alibaba: TLS only).
        await expect(
            connect(`mqtt://127.0.0.1:${p.ports.mqtt}`, registerConnect(pre, device.deviceName, 'register')),
        ).rejects.toMatchObject({ code: 5 });
        expect((await rowCounts(s.db)).devices).toBe(before);
        expect(await registeredAt(Number(device.deviceId))).toBeNull();
    });
});
