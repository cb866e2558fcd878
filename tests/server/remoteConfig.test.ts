import { createHash } from 'node:crypto';
import { eq } from 'drizzle-orm';
import type { MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deviceGroups, groupDevices, projects, remoteConfigVersions, scenes } from '../../server/db/schema';
import { createAccessHub } from '../../server/mqtt/access';
import { createBroker } from '../../server/mqtt/broker';
import { alibabaCredentials } from '../../server/mqtt/signIn';
import { createRemoteConfigService, type RemoteConfigService } from '../../server/remoteConfig/service';
import { createTestServer, type TestServer } from '../../server/testing';
import { answered, sdkDevice, type SdkDevice } from './alibabaSdk';
import { createProduct, type TestProduct } from './devicesSupport';
import { connect, newDevice, nextMessage, startBroker, subscribe, until, type Broker } from './mqttSupport';
import { REDIS_URL, clusterRedisReachable, takeTurnOnRedis } from './redisTurn';
import { call, json, type Answer } from './support';

/**
 * Remote configuration (远程配置) as Alibaba's devices use it: thing/config/get answered with configId, configSize,
 * sign (SHA-256) and a signed URL that downloads exactly those bytes (6710 when the product has none), 批量推送 on
 * thing/config/push with each device's state from its push_reply (离线未推送 for one not connected), the download's
 * signature and expiry, the API's refusals, and Alibaba's Node SDK's getConfig / onConfig.
 */

let s: TestServer;
let broker: Broker;
let url: string;
const clients: MqttClient[] = [];
const sdks: SdkDevice[] = [];
let clock = Date.now();

type Dev = Awaited<ReturnType<typeof newDevice>>;

const sys = (d: Dev, rest: string) => `/sys/${d.productKey}/${d.deviceName}/thing/config/${rest}`;

async function signIn(d: Dev) {
    const client = await connect(url, alibabaCredentials(d));
    clients.push(client);
    return client;
}

function dataOf<T>(answer: Answer<unknown>): T {
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect((answer.body as { code: number }).code).toBe(200);
    return (answer.body as { data: T }).data;
}

const save = (productId: number, format: string, content: string) =>
    call(s, 'POST', '/api/product/config/save', json({ productId, format, content }));

/** The download a device makes: the URL as told, without a session. */
async function download(told: string) {
    const u = new URL(told);
    return s.anonFetch(`${u.pathname}${u.search}`);
}

interface ConfigReply {
    id: string;
    code: number;
    version?: string;
    method?: string;
    message?: string;
    data: { configId: string; configSize: number; sign: string; signMethod: string; url: string; getType: string };
}

async function configGet(
    client: MqttClient,
    d: Dev,
    id: string,
    params: unknown = { configScope: 'product', getType: 'file' },
) {
    await subscribe(client, sys(d, 'get_reply'));
    const reply = nextMessage(client, sys(d, 'get_reply'));
    client.publish(sys(d, 'get'), JSON.stringify({ id, version: '1.0', params, method: 'thing.config.get' }));
    return (await reply) as unknown as ConfigReply;
}

beforeAll(async () => {
    s = await createTestServer({ now: () => new Date(clock) });
    ({ broker, url } = await startBroker(s));
});

afterAll(async () => {
    for (const c of clients) c.end(true);
    for (const d of sdks) d.end(true);
    await broker?.close();
    await s?.close();
});

describe('thing/config/get', () => {
    let product: TestProduct;
    let d: Dev;
    let client: MqttClient;

    beforeAll(async () => {
        product = await createProduct(s);
        d = await newDevice(s, product.productKey);
        client = await signIn(d);
    });

    it('answers 6710 (no data) while the product has no configuration', async () => {
        const reply = await configGet(client, d, '7');
        expect(reply).toMatchObject({ id: '7', version: '1.0', code: 6710, method: 'thing.config.get', data: {} });
        expect(dataOf(await call(s, 'GET', `/api/product/config?productId=${product.productId}`))).toBeNull();
    });

    it("answers the current file's id, size, sign and a URL that downloads exactly those bytes", async () => {
        const content = '{"interval": 30, "名称": "温控"}';
        const saved = dataOf<{ configId: string; size: number; sign: string; version: number }>(
            await save(product.productId, 'json', content),
        );
        const bytes = Buffer.from(content, 'utf8');
        expect(saved).toMatchObject({ version: 1, size: bytes.length });
        const reply = await configGet(client, d, '8');
        expect(reply).toEqual({
            id: '8',
            version: '1.0',
            code: 200,
            method: 'thing.config.get',
            data: {
                configId: saved.configId,
                configSize: bytes.length,
                sign: createHash('sha256').update(bytes).digest('hex'),
                signMethod: 'Sha256',
                url: expect.stringMatching(
                    /^http:\/\/127\.0\.0\.1:\d+\/api\/config\/download\?configId=[0-9a-f]{32}&expires=\d+&signature=[0-9a-f]{64}$/,
                ),
                getType: 'file',
            },
        });
        const res = await download(reply.data.url);
        expect(res.status).toBe(200);
        const got = Buffer.from(await res.arrayBuffer());
        expect(got.equals(bytes)).toBe(true);
        expect(createHash('sha256').update(got).digest('hex')).toBe(reply.data.sign);
        expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    });

    it('tells the newest version once another is saved, and the old URL still downloads the old bytes', async () => {
        const before = await configGet(client, d, '9');
        const text = 'interval=60\nmode=eco\n';
        dataOf(await save(product.productId, 'text', text));
        const after = await configGet(client, d, '10');
        expect(after.data.configId).not.toBe(before.data.configId);
        expect(after.data.configSize).toBe(Buffer.byteLength(text));
        expect(await (await download(after.data.url)).text()).toBe(text);
        expect(await (await download(before.data.url)).text()).toBe('{"interval": 30, "名称": "温控"}');
    });

    it('answers 460 for a scope or type Alibaba does not have', async () => {
        const reply = await configGet(client, d, '11', { configScope: 'device', getType: 'file' });
        expect(reply).toMatchObject({ id: '11', code: 460, message: 'configScope 只支持 product' });
    });
});

describe('the download URL', () => {
    let told: URL;

    beforeAll(async () => {
        const product = await createProduct(s);
        const d = await newDevice(s, product.productKey);
        dataOf(await save(product.productId, 'text', 'a=1'));
        told = new URL((await configGet(await signIn(d), d, '1')).data.url);
    });

    it('refuses an altered signature, id or expiry', async () => {
        const q = told.searchParams;
        const variants: Array<Record<string, string>> = [
            { ...Object.fromEntries(q), signature: q.get('signature')!.replace(/^./, (c) => (c === 'a' ? 'b' : 'a')) },
            { ...Object.fromEntries(q), expires: String(Number(q.get('expires')) + 1) },
            { ...Object.fromEntries(q), configId: '0'.repeat(32) },
            { configId: q.get('configId')!, expires: q.get('expires')! },
        ];
        for (const v of variants) {
            const res = await s.anonFetch(`/api/config/download?${new URLSearchParams(v)}`);
            expect(res.status).toBe(403);
            expect(await res.json()).toEqual({ code: 403, msg: '下载地址签名无效' });
        }
    });

    it('refuses a firmware signature for the same id (links of one kind only)', async () => {
        const firmware = await s.ota.signer.sign(1, clock + 60_000);
        const signature = new URL(`http://x${firmware}`).searchParams.get('signature')!;
        const q = new URLSearchParams({
            configId: told.searchParams.get('configId')!,
            expires: String(clock + 60_000),
            signature,
        });
        expect((await s.anonFetch(`/api/config/download?${q}`)).status).toBe(403);
    });

    it('refuses it once expired (OTA_URL_HOURS after it was told)', async () => {
        const saved = clock;
        clock = Number(told.searchParams.get('expires')) + 1;
        try {
            const res = await s.anonFetch(`${told.pathname}${told.search}`);
            expect(res.status).toBe(403);
            expect(await res.json()).toEqual({ code: 403, msg: '下载地址已过期，请让设备重新获取配置' });
        } finally {
            clock = saved;
        }
    });
});

describe('批量推送', () => {
    let product: TestProduct;
    let a: Dev;
    let b: Dev;
    let away: Dev;
    let clientA: MqttClient;
    let clientB: MqttClient;

    beforeAll(async () => {
        product = await createProduct(s);
        [a, b, away] = [
            await newDevice(s, product.productKey),
            await newDevice(s, product.productKey),
            await newDevice(s, product.productKey),
        ];
        clientA = await signIn(a);
        clientB = await signIn(b);
        await subscribe(clientA, sys(a, 'push'));
        await subscribe(clientB, sys(b, 'push'));
    });

    it('refuses a push while the product has no configuration, storing nothing', async () => {
        const answer = await call(
            s,
            'POST',
            '/api/product/config/push',
            json({ productId: product.productId, scope: 'all' }),
        );
        expect(answer.status).toBe(400);
        expect(answer.body).toEqual({ code: 400, msg: '该产品还没有配置文件，请先编辑配置' });
        const pushes = dataOf<{ total: number }>(
            await call(s, 'GET', `/api/product/config/pushes?productId=${product.productId}`),
        );
        expect(pushes.total).toBe(0);
    });

    it("pushes to connected devices, records each one's push_reply, and the offline one as 离线未推送", async () => {
        const content = '{"threshold":42}';
        dataOf(await save(product.productId, 'json', content));
        const gotA = nextMessage(clientA, sys(a, 'push'));
        const gotB = nextMessage(clientB, sys(b, 'push'));
        const push = dataOf<{ pushId: number; total: number; pushing: number; offline: number; version: number }>(
            await call(s, 'POST', '/api/product/config/push', json({ productId: product.productId, scope: 'all' })),
        );
        expect(push).toMatchObject({ total: 3, pushing: 2, offline: 1, version: 1 });
        const [msgA, msgB] = (await Promise.all([gotA, gotB])) as unknown as Array<{
            id: string;
            version: string;
            method: string;
            params: ConfigReply['data'];
        }>;
        expect(msgA).toMatchObject({ version: '1.0', method: 'thing.config.push' });
        expect(msgA.params).toMatchObject({
            configSize: Buffer.byteLength(content),
            sign: createHash('sha256').update(content).digest('hex'),
            signMethod: 'Sha256',
            getType: 'file',
        });
        expect(await (await download(msgA.params.url)).text()).toBe(content);
        clientA.publish(sys(a, 'push_reply'), JSON.stringify({ id: msgA.id, code: 200, data: {} }));
        clientB.publish(
            sys(b, 'push_reply'),
            JSON.stringify({ id: msgB.id, code: 100001, message: '磁盘已满', data: {} }),
        );
        const devicesOf = async () =>
            dataOf<{ records: Array<Record<string, unknown>>; total: number }>(
                await call(
                    s,
                    'GET',
                    `/api/product/config/push/devices?productId=${product.productId}&pushId=${push.pushId}`,
                ),
            );
        await until(async () => (await devicesOf()).records.every((r) => r.state !== 'pushing'));
        const rows = (await devicesOf()).records;
        expect(rows.map((r) => [r.deviceName, r.state, r.code, r.message])).toEqual([
            [a.deviceName, 'succeeded', 200, ''],
            [b.deviceName, 'failed', 100001, '磁盘已满'],
            [away.deviceName, 'offline', null, ''],
        ]);
        expect(
            dataOf(
                await call(s, 'GET', `/api/product/config/push?productId=${product.productId}&pushId=${push.pushId}`),
            ),
        ).toMatchObject({ total: 3, succeeded: 1, failed: 1, offline: 1, pushing: 0 });
        // A page of one state.
        const failed = dataOf<{ records: unknown[]; total: number }>(
            await call(
                s,
                'GET',
                `/api/product/config/push/devices?productId=${product.productId}&pushId=${push.pushId}&state=failed&pageSize=1`,
            ),
        );
        expect(failed.total).toBe(1);
    });

    it('pushes to the devices of one group only', async () => {
        const [scene] = await s.db.insert(scenes).values({ name: '配置场景' }).returning();
        const [project] = await s.db
            .insert(projects)
            .values({ code: `rc${Date.now()}`, name: '配置项目', classId: scene.id })
            .returning();
        const [group] = await s.db
            .insert(deviceGroups)
            .values({ name: '一组', level: 1, projectCode: project.code })
            .returning();
        await s.db.insert(groupDevices).values({ groupId: group.id, deviceId: a.deviceId });
        const got = nextMessage(clientA, sys(a, 'push'));
        const push = dataOf<{ pushId: number; total: number; groupName: string; scope: string }>(
            await call(
                s,
                'POST',
                '/api/product/config/push',
                json({ productId: product.productId, scope: 'group', groupId: group.id }),
            ),
        );
        expect(push).toMatchObject({ total: 1, scope: 'group', groupName: '一组' });
        expect(await got).toMatchObject({ method: 'thing.config.push' });
        const noGroup = await call(
            s,
            'POST',
            '/api/product/config/push',
            json({ productId: product.productId, scope: 'group' }),
        );
        expect(noGroup.body).toEqual({ code: 400, msg: '请选择分组' });
    });
});

describe('a device that does not answer', () => {
    it('is 未应答 once the wait is over, and a late answer still counts', async () => {
        const product = await createProduct(s);
        const d = await newDevice(s, product.productKey);
        const client = await signIn(d);
        await subscribe(client, sys(d, 'push'));
        dataOf(await save(product.productId, 'text', 'k=v'));
        const got = nextMessage(client, sys(d, 'push'));
        const push = dataOf<{ pushId: number }>(
            await call(s, 'POST', '/api/product/config/push', json({ productId: product.productId, scope: 'all' })),
        );
        const { id } = (await got) as { id: string };
        const at = `productId=${product.productId}&pushId=${push.pushId}`;
        const stateOf = async (extra = '') =>
            dataOf<{ records: Array<{ state: string }>; total: number }>(
                await call(s, 'GET', `/api/product/config/push/devices?${at}${extra}`),
            );
        expect((await stateOf()).records[0].state).toBe('pushing');
        const saved = clock;
        clock += 61_000;
        try {
            expect((await stateOf()).records[0].state).toBe('timeout');
            expect((await stateOf('&state=timeout')).total).toBe(1);
            expect((await stateOf('&state=pushing')).total).toBe(0);
            expect(dataOf(await call(s, 'GET', `/api/product/config/push?${at}`))).toMatchObject({
                pushing: 0,
                timeout: 1,
            });
            client.publish(sys(d, 'push_reply'), JSON.stringify({ id, code: 200, data: {} }));
            await until(async () => (await stateOf()).records[0].state === 'succeeded');
        } finally {
            clock = saved;
        }
    });
});

describe('the API refuses bad input and changes nothing', () => {
    let product: TestProduct;
    const versions = async () =>
        (await s.db.select().from(remoteConfigVersions).where(eq(remoteConfigVersions.productId, product.productId)))
            .length;

    beforeAll(async () => {
        product = await createProduct(s);
    });

    it('takes exactly 64 KB and refuses one byte more', async () => {
        dataOf(await save(product.productId, 'text', 'x'.repeat(64 * 1024)));
        const over = await save(product.productId, 'text', 'x'.repeat(64 * 1024 + 1));
        expect(over.status).toBe(400);
        expect(over.body).toEqual({ code: 400, msg: '配置文件不能超过 64KB（当前 64 KB）' });
        // Counted in UTF-8 bytes: 21,846 Chinese characters are 65,538 bytes.
        expect((await save(product.productId, 'text', '温'.repeat(21_846))).status).toBe(400);
        expect(await versions()).toBe(1);
    });

    it('refuses invalid JSON in the JSON format, blank content, NUL and an unknown format', async () => {
        const bad = await save(product.productId, 'json', '{"a":');
        expect(bad.status).toBe(400);
        expect((bad.body as { msg: string }).msg).toMatch(/^配置内容不是有效的 JSON：/);
        expect((await save(product.productId, 'json', '   ')).body).toEqual({ code: 400, msg: '请输入配置内容' });
        expect((await save(product.productId, 'text', 'a\u0000b')).status).toBe(400);
        expect((await save(product.productId, 'yaml', 'a: 1')).body).toEqual({
            code: 400,
            msg: '配置格式只能是 json 或 text',
        });
        expect(await versions()).toBe(1);
    });

    it('refuses every path without a session', async () => {
        const paths = [
            ['GET', `/api/product/config?productId=${product.productId}`],
            ['POST', '/api/product/config/save'],
            ['GET', `/api/product/config/versions?productId=${product.productId}`],
            ['POST', '/api/product/config/push'],
        ] as const;
        for (const [method, path] of paths) {
            const body = method === 'POST' ? json({ productId: product.productId, format: 'text', content: 'x' }) : {};
            const answer = await call(s, method, path, { anonymous: true, ...body });
            expect(answer.status).toBe(401);
        }
        expect(await versions()).toBe(1);
    });

    it('lists versions newest first, shows one, and restores an old one as a new version', async () => {
        const second = dataOf<{ versionId: number }>(await save(product.productId, 'json', '{"v":2}'));
        const list = dataOf<{
            records: Array<{ version: number; content?: string; versionId: number }>;
            total: number;
        }>(await call(s, 'GET', `/api/product/config/versions?productId=${product.productId}`));
        expect(list.records.map((r) => r.version)).toEqual([2, 1]);
        expect(list.records[0].content).toBeUndefined();
        const first = list.records[1];
        expect(
            dataOf<{ content: string }>(
                await call(
                    s,
                    'GET',
                    `/api/product/config/version?productId=${product.productId}&versionId=${first.versionId}`,
                ),
            ).content,
        ).toBe('x'.repeat(64 * 1024));
        const restored = dataOf<{ version: number; remark: string; restoredFrom: number; format: string }>(
            await call(
                s,
                'POST',
                '/api/product/config/restore',
                json({ productId: product.productId, versionId: first.versionId }),
            ),
        );
        expect(restored).toMatchObject({ version: 3, remark: '恢复自版本 1', restoredFrom: 1, format: 'text' });
        // A version of another product is not this product's.
        const other = await createProduct(s);
        const wrong = await call(
            s,
            'POST',
            '/api/product/config/restore',
            json({ productId: other.productId, versionId: second.versionId }),
        );
        expect(wrong.status).toBe(404);
        expect(wrong.body).toEqual({ code: 404, msg: '配置版本不存在' });
    });

    it('deletes the versions with the product', async () => {
        const deleted = await call(s, 'DELETE', `/api/product?productId=${product.productId}`);
        expect(deleted.status).toBe(200);
        expect(await versions()).toBe(0);
    });
});

describe("Alibaba's Node SDK", () => {
    it('getConfig gets the file, onConfig hears a push, and its push_reply is recorded', async () => {
        const product = await createProduct(s);
        const d = await newDevice(s, product.productKey);
        const content = '{"sdk":true}';
        const saved = dataOf<{ configId: string }>(await save(product.productId, 'json', content));
        const device = await sdkDevice(broker, url, d, sys(d as Dev, 'push'));
        sdks.push(device);
        const reply = await answered((cb) => device.getConfig(cb));
        expect(reply).toMatchObject({ code: 200, data: { configId: saved.configId, configSize: content.length } });
        expect(await (await download((reply.data as { url: string }).url)).text()).toBe(content);
        const heard = new Promise<{ id: string; method?: string; params?: Record<string, unknown> }>((resolve) =>
            device.onConfig((m) => {
                if (m.method === 'thing.config.push') resolve(m);
            }),
        );
        const push = dataOf<{ pushId: number; pushing: number }>(
            await call(s, 'POST', '/api/product/config/push', json({ productId: product.productId, scope: 'all' })),
        );
        expect(push.pushing).toBe(1);
        const m = await heard;
        expect(m.params).toMatchObject({ configId: saved.configId, signMethod: 'Sha256' });
        device.publish(sys(d, 'push_reply'), JSON.stringify({ id: m.id, code: 200, data: {} }));
        await until(async () => {
            const page = dataOf<{ records: Array<{ state: string }> }>(
                await call(
                    s,
                    'GET',
                    `/api/product/config/push/devices?productId=${product.productId}&pushId=${push.pushId}`,
                ),
            );
            return page.records[0]?.state === 'succeeded';
        });
    });
});

const clustered = await clusterRedisReachable();

describe.skipIf(!clustered)('in a cluster (two processes, one Redis)', () => {
    const brokers: Broker[] = [];
    const urls: string[] = [];
    const services: RemoteConfigService[] = [];
    takeTurnOnRedis();
    beforeAll(async () => {
        // Two processes of one platform: each its broker, its access hub and its remote configuration service.
        for (let i = 0; i < 2; i++) {
            const b = await createBroker({ db: s.db, redisUrl: REDIS_URL, log: () => undefined });
            urls.push(`mqtt://127.0.0.1:${await b.listen(0, '127.0.0.1')}`);
            const access = createAccessHub();
            access.attach(b);
            brokers.push(b);
            services.push(
                createRemoteConfigService({ db: s.db, access, config: s.config, now: () => new Date(clock) }),
            );
        }
    }, 60_000);
    afterAll(async () => {
        for (const c of services) await c.close();
        for (const b of brokers) await b.close();
    });

    it('a push made on one process reaches a device on the other, whose answer that process records', async () => {
        const product = await createProduct(s);
        const d = await newDevice(s, product.productKey);
        const client = await connect(urls[0], alibabaCredentials(d));
        clients.push(client);
        await subscribe(client, sys(d, 'push'));
        await until(async () => (await brokers[1].directory.byId(d.deviceId))?.status === 'ONLINE');
        dataOf(await save(product.productId, 'json', '{"cluster":true}'));
        const got = nextMessage(client, sys(d, 'push'));
        const push = await services[1].push(product.productId, { scope: 'all' });
        expect(push).toMatchObject({ total: 1, pushing: 1, offline: 0 });
        const { id } = (await got) as { id: string };
        client.publish(sys(d, 'push_reply'), JSON.stringify({ id, code: 200, data: {} }));
        await until(async () => {
            const page = dataOf<{ records: Array<{ state: string }> }>(
                await call(
                    s,
                    'GET',
                    `/api/product/config/push/devices?productId=${product.productId}&pushId=${push.pushId}`,
                ),
            );
            return page.records[0]?.state === 'succeeded';
        });
    });
});
