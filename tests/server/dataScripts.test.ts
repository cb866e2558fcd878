import { readFileSync } from 'node:fs';
import path from 'node:path';
import { and, desc, eq, ne } from 'drizzle-orm';
import type { MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deviceMessages, productScripts } from '../../server/db/schema';
import { alibabaCredentials } from '../../server/mqtt/signIn';
import { DEFAULT_SCRIPT } from '../../server/scripts/template';
import { createTestServer, type TestServer } from '../../server/testing';
import { createProduct } from './devicesSupport';
import { connect, newDevice, startBroker, subscribe, until, type Broker, type DeviceCredentials } from './mqttSupport';
import { run, scratchDir } from './helpSupport';
import { call, json, propertyFunction, ROOT, rowCounts } from './support';

/**
 * Data-parsing scripts (数据解析) at the protocol (mqtt.js against the broker) and through the API: a 透传/自定义
 * device's up_raw bytes become the Alink post Alibaba's template describes, stored and answered with up_raw_reply
 * bytes; a property set goes down as down_raw bytes and its down_raw_reply is the call's answer; a custom topic's
 * bytes are logged as transformPayload's JSON; a script that throws or loops is logged per message with the message
 * kept raw, and the platform goes on answering. The API refuses what it cannot keep.
 */

let s: TestServer;
let broker: Broker;
let url: string;
let port: number;
const clients: MqttClient[] = [];

interface Passthrough {
    productId: number;
    productKey: string;
    device: DeviceCredentials;
    client: MqttClient;
}

/** A 透传/自定义 product with the template's three properties, one device signed in. */
async function passthrough(): Promise<Passthrough> {
    const product = await createProduct(s, { dataType: 1 });
    const productId = Number(product.productId);
    const props = [
        { identifier: 'prop_int16', dataType: { type: 'int', specs: { min: '-32768', max: '32767', step: '1' } } },
        { identifier: 'prop_bool', dataType: { type: 'bool', specs: { '0': '关', '1': '开' } } },
        { identifier: 'prop_float', dataType: { type: 'float', specs: { min: '-1000', max: '1000', step: '0.001' } } },
    ];
    for (const p of props) {
        const saved = await call(
            s,
            'POST',
            '/api/function/save',
            json(propertyFunction(productId, { ...p, accessMode: 'rw' })),
        );
        expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    }
    const device = await newDevice(s, product.productKey);
    const client = await connect(url, alibabaCredentials(device));
    clients.push(client);
    return { productId, productKey: product.productKey, device, client };
}

async function publish(productId: number, script: string) {
    const answer = await call(s, 'POST', '/api/product/script/publish', json({ productId, script }));
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
}

const model = (d: DeviceCredentials, rest: string) => `/sys/${d.productKey}/${d.deviceName}/thing/model/${rest}`;

/** The next message on `topic`, as bytes. */
function nextBytes(client: MqttClient, topic: string, timeoutMs = 5_000): Promise<Buffer> {
    return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
            client.off('message', onMessage);
            reject(new Error(`no message on ${topic}`));
        }, timeoutMs);
        const onMessage = (t: string, payload: Buffer) => {
            if (t !== topic) return;
            clearTimeout(timer);
            client.off('message', onMessage);
            resolve(payload);
        };
        client.on('message', onMessage);
    });
}

/** The device's message-log rows, newest first (status changes left out). */
async function logOf(deviceId: number) {
    return s.db
        .select({ method: deviceMessages.method, data: deviceMessages.data })
        .from(deviceMessages)
        .where(and(eq(deviceMessages.deviceId, deviceId), ne(deviceMessages.method, 'device.status')))
        .orderBy(desc(deviceMessages.ts), desc(deviceMessages.id));
}

/** Waits for the device's newest log row of `method`. */
async function logged(deviceId: number, method: string) {
    let row: { method: string; data: unknown } | undefined;
    await until(async () => Boolean((row = (await logOf(deviceId)).find((r) => r.method === method))));
    return row!.data as Record<string, unknown>;
}

/** Alibaba's example report: command 0x00, id 1, prop_int16 50, prop_bool 1, prop_float 0. */
const REPORT = Buffer.from('000000000100320100000000', 'hex');

beforeAll(async () => {
    s = await createTestServer();
    ({ broker, url, port } = await startBroker(s));
});

afterAll(async () => {
    for (const c of clients) c.end(true);
    await broker?.close();
    await s?.close();
});

describe('uplink through rawDataToProtocol', () => {
    it('stores the up_raw bytes as the Alink property post they encode and answers up_raw_reply bytes', async () => {
        const { productId, device, client } = await passthrough();
        await publish(productId, DEFAULT_SCRIPT);
        await subscribe(client, model(device, 'up_raw_reply'));
        const reply = nextBytes(client, model(device, 'up_raw_reply'));
        await client.publishAsync(model(device, 'up_raw'), REPORT, { qos: 1 });
        // protocolToRawData of the reply {id: '1', code: 200, method: thing.event.property.post}: 0x02, id, 0xc8.
        expect((await reply).toString('hex')).toBe('0200000001c8');
        const post = await logged(device.deviceId, 'thing.event.property.post');
        expect(post).toMatchObject({ prop_int16: 50, prop_bool: 1, prop_float: 0 });
    });

    it('keeps the bytes raw, with the reason, when no script is published', async () => {
        const { device, client } = await passthrough();
        await client.publishAsync(model(device, 'up_raw'), REPORT, { qos: 1 });
        const row = await logged(device.deviceId, 'thing.model.up_raw');
        expect(row).toEqual({ raw: REPORT.toString('base64') });
    });

    it('a script that throws: the message kept raw with its error, no reply, the next message converted', async () => {
        const { productId, device, client } = await passthrough();
        await publish(productId, DEFAULT_SCRIPT.replace('var fHead = uint8Array[0];', "throw new Error('坏帧');"));
        await subscribe(client, model(device, 'up_raw_reply'));
        const replies: Buffer[] = [];
        client.on('message', (t, p) => t === model(device, 'up_raw_reply') && replies.push(p));
        await client.publishAsync(model(device, 'up_raw'), REPORT, { qos: 1 });
        const row = await logged(device.deviceId, 'thing.model.up_raw');
        expect(row).toEqual({ raw: REPORT.toString('base64'), error: '脚本执行出错：坏帧' });
        // A reply would have come before the stored row's PUBACK; none did.
        expect(replies).toEqual([]);
        expect((await logOf(device.deviceId)).some((r) => r.method === 'thing.event.property.post')).toBe(false);
    });

    it('a script that never ends: logged as timed out, kept raw, and the platform goes on answering', async () => {
        const { productId, device, client } = await passthrough();
        await publish(productId, DEFAULT_SCRIPT.replace('var fHead = uint8Array[0];', 'while (true) {}'));
        let ticks = 0;
        const timer = setInterval(() => ticks++, 10);
        try {
            await client.publishAsync(model(device, 'up_raw'), REPORT, { qos: 1 });
            const row = await logged(device.deviceId, 'thing.model.up_raw');
            expect(row.error).toBe('脚本执行超时（超过 100 毫秒）');
            expect(row.raw).toBe(REPORT.toString('base64'));
        } finally {
            clearInterval(timer);
        }
        // The script ran on the sandbox's thread: this one kept its timers running meanwhile.
        expect(ticks).toBeGreaterThan(3);
        const answer = await call(s, 'GET', `/api/product/script?productId=${productId}`);
        expect(answer.status).toBe(200);
        // The same device is still connected and its next message is handled (here: kept raw again, the same script).
        await client.publishAsync(model(device, 'up_raw'), REPORT, { qos: 1 });
        await until(
            async () => (await logOf(device.deviceId)).filter((r) => r.method === 'thing.model.up_raw').length === 2,
        );
    });

    it('an Alink method a device may not post is kept raw with the reason', async () => {
        const { productId, device, client } = await passthrough();
        await publish(
            productId,
            DEFAULT_SCRIPT.replace(
                "jsonMap['method'] = ALINK_PROP_REPORT_METHOD;",
                "jsonMap['method'] = 'thing.service.property.set';",
            ),
        );
        await client.publishAsync(model(device, 'up_raw'), REPORT, { qos: 1 });
        const row = await logged(device.deviceId, 'thing.model.up_raw');
        expect(row.error).toBe(
            'rawDataToProtocol 返回的 method "thing.service.property.set" 不是设备可上报的 Alink 方法',
        );
    });
});

describe('downlink through protocolToRawData', () => {
    it('a property set goes down as down_raw bytes; the down_raw_reply bytes are its answer', async () => {
        const { productId, device, client } = await passthrough();
        await publish(productId, DEFAULT_SCRIPT);
        await subscribe(client, model(device, 'down_raw'));
        client.on('message', (topic, payload) => {
            if (topic !== model(device, 'down_raw')) return;
            // The device answers: 0x03, the call's id, code 200.
            void client.publishAsync(
                model(device, 'down_raw_reply'),
                Buffer.concat([Buffer.from([3]), payload.subarray(1, 5), Buffer.from([200])]),
            );
        });
        const request = nextBytes(client, model(device, 'down_raw'));
        const answer = await call(
            s,
            'POST',
            '/api/device/propertyTestSet',
            json({ deviceId: device.deviceId, params: { prop_int16: 333, prop_bool: 1, prop_float: 123.452 } }),
        );
        expect(answer.status, JSON.stringify(answer.body)).toBe(200);
        const bytes = await request;
        // Alibaba's example: 0x01, the id, 014d (333), 01, 42f6e76d (123.452).
        expect(bytes.subarray(0, 1).toString('hex')).toBe('01');
        expect(bytes.subarray(5).toString('hex')).toBe('014d0142f6e76d');
        const data = (answer.body as { data: Record<string, unknown> }).data;
        expect(data).toMatchObject({ state: 'replied', code: 200 });
        expect(bytes.readInt32BE(1)).toBe(Number(data.messageId) | 0);
        const reply = await logged(device.deviceId, 'thing.service.property.set_reply');
        expect(reply).toMatchObject({ direction: 'up', reply: { code: 200 } });
    });

    it('a call the script cannot convert is refused with its reason, nothing sent', async () => {
        const { productId, device, client } = await passthrough();
        await publish(productId, DEFAULT_SCRIPT.replace('return payloadArray;', 'return [256];'));
        await subscribe(client, model(device, 'down_raw'));
        const sent: Buffer[] = [];
        client.on('message', (t, p) => t === model(device, 'down_raw') && sent.push(p));
        const answer = await call(
            s,
            'POST',
            '/api/device/propertyTestSet',
            json({ deviceId: device.deviceId, params: { prop_int16: 1 }, sync: false }),
        );
        expect(answer.status).toBe(400);
        expect(JSON.stringify(answer.body)).toContain('protocolToRawData 返回的第 1 个元素 256 不是 0~255 的整数');
        await new Promise((r) => setTimeout(r, 200));
        expect(sent).toEqual([]);
    });
});

describe('custom topics through transformPayload', () => {
    it("logs a custom topic's bytes as the JSON the script gives", async () => {
        const { productId, device, client } = await passthrough();
        await publish(productId, DEFAULT_SCRIPT);
        const topic = `/${device.productKey}/${device.deviceName}/user/update`;
        await client.publishAsync(topic, REPORT, { qos: 1 });
        const row = await logged(device.deviceId, 'user.message');
        expect(row).toMatchObject({ topic, parsed: true });
        expect(JSON.parse(row.payload as string)).toEqual({ topic, prop_int16: 50, prop_bool: 1, prop_float: 0 });
    });
});

describe('the API', () => {
    it('answers the template for a product without a script, and applies only to 透传/自定义 products', async () => {
        const { productId } = await passthrough();
        const got = await call(s, 'GET', `/api/product/script?productId=${productId}`);
        expect(got.body).toMatchObject({
            code: 200,
            data: {
                applies: true,
                draft: DEFAULT_SCRIPT,
                published: null,
                version: 0,
                limits: { timeoutMs: 100, memoryMb: 16 },
            },
        });
        const standard = await createProduct(s, { dataType: 0 });
        const other = await call(s, 'GET', `/api/product/script?productId=${standard.productId}`);
        expect(other.body).toMatchObject({ data: { applies: false, dataType: 0 } });
        const save = await call(
            s,
            'POST',
            '/api/product/script/save',
            json({ productId: standard.productId, script: 'x' }),
        );
        expect(save.status).toBe(400);
        expect(JSON.stringify(save.body)).toContain('无需数据解析');
    });

    it('saves a draft without touching the published version, and publishes', async () => {
        const { productId } = await passthrough();
        await publish(productId, DEFAULT_SCRIPT);
        const draft = `${DEFAULT_SCRIPT}\n// 草稿`;
        expect((await call(s, 'POST', '/api/product/script/save', json({ productId, script: draft }))).status).toBe(
            200,
        );
        const got = await call(s, 'GET', `/api/product/script?productId=${productId}`);
        expect(got.body).toMatchObject({ data: { draft, published: DEFAULT_SCRIPT, version: 1 } });
        await publish(productId, draft);
        const again = await call(s, 'GET', `/api/product/script?productId=${productId}`);
        expect(again.body).toMatchObject({ data: { draft, published: draft, version: 2 } });
    });

    it('refuses scripts it cannot keep or run, changing nothing', async () => {
        const { productId } = await passthrough();
        const before = (await rowCounts(s.db)).productScripts;
        const refusals: Array<[string, unknown, string]> = [
            ['/save', 'x'.repeat(65_537), '脚本不能超过 64 KB'],
            ['/save', 'var a = 1;\u0000', '空字符'],
            ['/save', '', '请输入脚本'],
            ['/publish', 'function rawDataToProtocol( {', '脚本无法发布：脚本执行出错：SyntaxError'],
            ['/publish', 'function rawDataToProtocol(b) { return {}; }', '未定义 protocolToRawData 函数'],
            ['/publish', 'while (true) {}', '脚本无法发布：脚本执行超时'],
        ];
        for (const [path, script, message] of refusals) {
            const answer = await call(s, 'POST', `/api/product/script${path}`, json({ productId, script }));
            expect(answer.status, `${path} ${String(script).slice(0, 30)}`).toBe(400);
            expect(JSON.stringify(answer.body)).toContain(message);
        }
        expect((await rowCounts(s.db)).productScripts).toBe(before);
        const [row] = await s.db.select().from(productScripts).where(eq(productScripts.productId, productId));
        expect(row).toBeUndefined();
    });

    it('refuses callers without a session, and a product that does not exist', async () => {
        const { productId } = await passthrough();
        const anonymous = await call(s, 'GET', `/api/product/script?productId=${productId}`, { anonymous: true });
        expect(anonymous.status).toBe(401);
        const write = await call(s, 'POST', '/api/product/script/save', {
            ...json({ productId, script: 'x' }),
            anonymous: true,
        });
        expect(write.status).toBe(401);
        expect((await call(s, 'GET', '/api/product/script?productId=999999')).status).toBe(404);
    });

    it('deletes the script with the product', async () => {
        const product = await createProduct(s, { dataType: 1 });
        const productId = Number(product.productId);
        await publish(productId, DEFAULT_SCRIPT);
        expect(await s.db.select().from(productScripts).where(eq(productScripts.productId, productId))).toHaveLength(1);
        expect((await call(s, 'DELETE', `/api/product?productId=${productId}`)).status).toBe(200);
        expect(await s.db.select().from(productScripts).where(eq(productScripts.productId, productId))).toEqual([]);
    });
});

describe('模拟运行', () => {
    const debug = (body: Record<string, unknown>) => call(s, 'POST', '/api/product/script/debug', json(body));

    it('runs each direction on a sample', async () => {
        const { productId } = await passthrough();
        const up = await debug({
            productId,
            script: DEFAULT_SCRIPT,
            direction: 'up',
            payload: '0x000000000100320100000000',
        });
        expect(up.body).toMatchObject({
            data: {
                success: true,
                json: {
                    method: 'thing.event.property.post',
                    id: '1',
                    params: { prop_int16: 50, prop_bool: 1, prop_float: 0 },
                },
            },
        });
        const down = await debug({
            productId,
            script: DEFAULT_SCRIPT,
            direction: 'down',
            payload:
                '{"method":"thing.service.property.set","id":"12345","version":"1.0","params":{"prop_float":123.452,"prop_int16":333,"prop_bool":1}}',
        });
        expect(down.body).toMatchObject({ data: { success: true, hex: '0100003039014d0142f6e76d' } });
        const topic = '/pk/dn/user/update';
        const custom = await debug({
            productId,
            script: DEFAULT_SCRIPT,
            direction: 'transform',
            topic,
            format: 'base64',
            payload: Buffer.from('000000000100320100000000', 'hex').toString('base64'),
        });
        expect(custom.body).toMatchObject({ data: { success: true, json: { topic, prop_int16: 50 } } });
    });

    it("answers the script's error in Chinese, and 400 for a sample it cannot read", async () => {
        const { productId } = await passthrough();
        const broken = await debug({
            productId,
            script: 'function rawDataToProtocol(b) { return b.x.y; }',
            direction: 'up',
            payload: '00',
        });
        expect(broken.status).toBe(200);
        expect(broken.body).toMatchObject({ data: { success: false } });
        expect((broken.body as { data: { error: string } }).data.error).toMatch(/^脚本执行出错：TypeError/);
        const bytes = await debug({
            productId,
            script: 'function rawDataToProtocol(b) { return [1]; }',
            direction: 'up',
            payload: '00',
        });
        expect(bytes.body).toMatchObject({ data: { success: false, error: 'rawDataToProtocol 应返回 JSON 对象' } });
        for (const [body, message] of [
            [{ direction: 'up', payload: 'zz' }, '模拟数据不是有效的十六进制'],
            [{ direction: 'down', payload: '[1]' }, '模拟数据应为 JSON 对象'],
            [{ direction: 'sideways', payload: '00' }, '模拟类型只能是'],
            [{ direction: 'transform', payload: '00' }, '请输入自定义 Topic'],
        ] as const) {
            const answer = await debug({ productId, script: DEFAULT_SCRIPT, ...body });
            expect(answer.status).toBe(400);
            expect(JSON.stringify(answer.body)).toContain(message);
        }
    });
});

describe('docs/device-access.md', () => {
    /** The fenced block of device-access.md whose info string is `js sample={name}`. */
    function docSample(name: string): string {
        const text = readFileSync(path.join(ROOT, 'docs', 'device-access.md'), 'utf8');
        const match = new RegExp('```js sample=' + name + '\\n([\\s\\S]*?)```').exec(text);
        expect(match, `docs/device-access.md has no sample ${name}`).not.toBeNull();
        return match![1];
    }

    it("the up_raw sample runs as printed: the device's bytes stored as properties, the reply's bytes printed", async () => {
        const product = await createProduct(s, { dataType: 1 });
        const productId = Number(product.productId);
        for (const [identifier, dataType] of [
            ['prop_int16', { type: 'int', specs: { min: '-32768', max: '32767', step: '1' } }],
            ['prop_bool', { type: 'bool', specs: { '0': '关', '1': '开' } }],
            ['prop_float', { type: 'float', specs: { min: '-1000', max: '1000', step: '0.001' } }],
        ] as const)
            await call(s, 'POST', '/api/function/save', json(propertyFunction(productId, { identifier, dataType })));
        await publish(productId, DEFAULT_SCRIPT);
        const device = await newDevice(s, product.productKey);
        const code = docSample('up-raw')
            .replace("'a1RawDemo01'", `'${device.productKey}'`)
            .replace("'raw-0001'", `'${device.deviceName}'`)
            .replace("'rawDeviceSecretExample'", `'${device.secret}'`)
            .replace('127.0.0.1:1883', `127.0.0.1:${port}`);
        const scratch = scratchDir();
        try {
            const sample = { file: 'device-access.md', line: 0, lang: 'js', code };
            const ran = await run(sample, code, scratch.dir, 1);
            expect(ran.code, ran.output).toBe(0);
            expect(ran.output).toContain('平台应答: 0200000001c8');
        } finally {
            scratch.remove();
        }
        expect(await logged(device.deviceId, 'thing.event.property.post')).toMatchObject({
            prop_int16: 50,
            prop_bool: 1,
            prop_float: 0,
        });
    });
});
