/* eslint-disable @typescript-eslint/no-explicit-any -- the answers are checked by value (toMatchObject), not by type */
import { eq } from 'drizzle-orm';
import type { MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOPIC_FILTER_TEXT, isTopicFilter } from '../../schemas/edge';
import { devices, rules } from '../../server/db/schema';
import { alibabaCredentials } from '../../server/mqtt/signIn';
import { createTestServer, type TestServer } from '../../server/testing';
import { createDevice, createProduct, listForm, type TestProduct } from './devicesSupport';
import { connect, nextMessage, secretOf, startBroker, subscribe, until, type Broker } from './mqttSupport';
import { call, form, json } from './support';

/**
 * The edge instance detail's 监控 / 场景联动 / 函数计算 / 流数据分析 / 消息路由 / 设置 tabs (/api/edge/instance/*): each
 * validated in Chinese, each part of the deployment document the gateway receives; 监控 reads what the gateway reports
 * about itself over MQTT.
 */

let s: TestServer;
let broker: Broker;
let url: string;
let gatewayProduct: TestProduct;
let gateway: { deviceId: number; productKey: string; deviceName: string; secret: string };
let subName: string;
let instanceId: number;
let otherInstanceId: number;
const clients: MqttClient[] = [];

const data = <T = any>(a: { body: unknown }) => (a.body as { data: T }).data;
const msg = (a: { body: unknown }) => (a.body as { msg: string }).msg;
const post = (path: string, values: Record<string, string | number>) =>
    call(s, 'POST', `/api/edge/instance/${path}`, form(values));

const fn = (overrides: Record<string, string | number> = {}) => ({
    instanceId,
    name: 'filter',
    runtime: 'nodejs20',
    handler: 'index.handler',
    code: 'exports.handler = (event, ctx, cb) => cb(null, event);',
    memoryMb: 128,
    timeoutSeconds: 5,
    mode: 'trigger',
    env: JSON.stringify({ LOG_LEVEL: 'info' }),
    ...overrides,
});

beforeAll(async () => {
    s = await createTestServer();
    ({ broker, url } = await startBroker(s));
    gatewayProduct = await createProduct(s, { nodeType: 1 });
    for (const identifier of ['cpuUsage', 'memUsage', 'diskUsage', 'msgUp', 'msgDown']) {
        const saved = await call(
            s,
            'POST',
            '/api/function/save',
            json({
                productId: gatewayProduct.productId,
                type: 'property',
                identifier,
                name: identifier,
                accessMode: 'r',
                dataType: { type: 'float', specs: { min: '0', max: '1000000', step: '0.1', unit: '%' } },
            }),
        );
        expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    }
    const gw = await createDevice(s, gatewayProduct.productKey);
    gateway = {
        deviceId: Number(gw.deviceId),
        productKey: gw.productKey,
        deviceName: gw.deviceName,
        secret: await secretOf(s, Number(gw.deviceId)),
    };
    const subProduct = await createProduct(s, { nodeType: 0 });
    const sub = await createDevice(s, subProduct.productKey);
    subName = sub.deviceName;
    await call(s, 'POST', '/api/device/subDevice/add', listForm({ gwId: gateway.deviceId, deviceId: [sub.deviceId] }));
    instanceId = data(
        await call(s, 'POST', '/api/edge/instance/save', form({ name: 'tabs_edge', gatewayId: gateway.deviceId })),
    ).id;
    const other = await createDevice(s, gatewayProduct.productKey);
    otherInstanceId = data(
        await call(s, 'POST', '/api/edge/instance/save', form({ name: 'other_edge', gatewayId: other.deviceId })),
    ).id;
});

afterAll(async () => {
    for (const c of clients) c.end(true);
    await broker?.close();
    await s?.close();
});

describe('MQTT topic filters', () => {
    it('accepts + and # only as whole levels, # only last', () => {
        for (const ok of ['#', '+', 'a/b', '/sys/+/+/thing/#', 'a/+/c', '+/+', 'a//b'])
            expect(isTopicFilter(ok), ok).toBe(true);
        for (const bad of ['', 'a/#/b', 'a/b#', 'a+/b', 'a/+b', '##', 'a/\u0000', 'x'.repeat(257)])
            expect(isTopicFilter(bad), bad).toBe(false);
    });
});

describe('函数计算', () => {
    it.each([
        [{ name: '' }, '请输入函数名称'],
        [{ runtime: 'go1' }, '请选择运行环境'],
        [{ handler: 'index handler' }, '函数入口格式为 文件名.函数名，例如 index.handler'],
        [{ memoryMb: 4096 }, '内存规格为16~2048之间的整数（MB）'],
        [{ memoryMb: 'abc' }, '内存规格为16~2048之间的整数（MB）'],
        [{ timeoutSeconds: 0 }, '超时时间为1~900之间的整数（秒）'],
        [{ mode: 'cron' }, '请选择运行方式'],
        [{ env: '[1]' }, '环境变量必须是JSON对象'],
        [{ env: '{"1ABC":"x"}' }, '环境变量名只能包含字母、数字和下划线，且不能以数字开头'],
    ])('refuses %o with 400 %s and stores nothing', async (overrides, message) => {
        const answer = await post('function/save', fn(overrides));
        expect([answer.status, msg(answer)]).toEqual([400, message]);
        expect(data(await call(s, 'GET', `/api/edge/instance/functions?instanceId=${instanceId}`)).total).toBe(0);
    });

    it('adds, edits and lists a function with its environment; a second of the same name is refused', async () => {
        const saved = data(await post('function/save', fn()));
        expect(saved).toMatchObject({ name: 'filter', runtime: 'nodejs20', memoryMb: 128, mode: 'trigger' });
        expect(JSON.parse(saved.env)).toEqual({ LOG_LEVEL: 'info' });
        const again = await post('function/save', fn());
        expect([again.status, msg(again)]).toEqual([409, '该实例已有同名函数']);
        const edited = data(
            await post(
                'function/save',
                fn({ id: saved.id, runtime: 'python3', handler: 'main.handler', memoryMb: 256 }),
            ),
        );
        expect(edited).toMatchObject({ id: saved.id, runtime: 'python3', handler: 'main.handler', memoryMb: 256 });
        const list = data(await call(s, 'GET', `/api/edge/instance/functions?instanceId=${instanceId}`));
        expect(list.records.map((r: any) => [r.name, r.runtime])).toEqual([['filter', 'python3']]);
    });

    it("does not reach another instance's function through its own instance", async () => {
        const [{ id }] = data(await call(s, 'GET', `/api/edge/instance/functions?instanceId=${instanceId}`)).records;
        const edit = await post('function/save', fn({ instanceId: otherInstanceId, id }));
        expect([edit.status, msg(edit)]).toEqual([404, '函数不存在']);
        const remove = await post('function/delete', { instanceId: otherInstanceId, id });
        expect([remove.status, msg(remove)]).toEqual([404, '函数不存在']);
    });
});

describe('流数据分析', () => {
    const job = (overrides: Record<string, string | number> = {}) => ({
        instanceId,
        name: 'avg_temp',
        sourceTopic: '/sys/+/+/thing/event/property/post',
        windowType: 'tumbling',
        windowSeconds: 60,
        statement: 'SELECT deviceName, avg(Temperature) AS t FROM source GROUP BY deviceName',
        targetType: 'cloud',
        ...overrides,
    });

    it.each([
        [{ sourceTopic: 'a/#/b' }, TOPIC_FILTER_TEXT],
        [{ sourceTopic: '' }, '请输入数据源Topic'],
        [{ windowSeconds: 0 }, '窗口长度为1~86400之间的整数（秒）'],
        [{ statement: 'DELETE FROM source' }, '分析语句必须是以 SELECT 开头的 SQL 语句'],
        [{ targetType: 'function' }, '请选择输出到的函数或任务'],
        [{ targetType: 'function', targetName: 'nope' }, '该实例没有名为“nope”的函数'],
    ])('refuses %o with 400 %s', async (overrides, message) => {
        const answer = await post('stream/save', job(overrides));
        expect([answer.status, msg(answer)]).toEqual([400, message]);
    });

    it('adds a windowed job whose output goes to a function of the instance', async () => {
        const saved = data(await post('stream/save', job({ targetType: 'function', targetName: 'filter' })));
        expect(saved).toMatchObject({
            name: 'avg_temp',
            windowType: 'tumbling',
            windowSeconds: 60,
            targetName: 'filter',
        });
        const plain = data(await post('stream/save', job({ name: 'raw', windowType: 'none', windowSeconds: 30 })));
        expect(plain).toMatchObject({ windowType: 'none', windowSeconds: 0, targetType: 'cloud', targetName: null });
        expect((await post('stream/delete', { instanceId, id: plain.id })).status).toBe(200);
    });
});

describe('消息路由', () => {
    const route = (overrides: Record<string, string | number> = {}) => ({
        instanceId,
        sourceType: 'allDevices',
        topicFilter: '/sys/+/+/thing/event/#',
        targetType: 'cloud',
        qos: 1,
        ...overrides,
    });

    it.each([
        [{ topicFilter: 'sensor/+x/data' }, TOPIC_FILTER_TEXT],
        [{ topicFilter: 'sensor/#/data' }, TOPIC_FILTER_TEXT],
        [{ qos: 2 }, 'QoS只能是0或1'],
        [{ sourceType: 'device' }, '请选择来源设备、函数或任务'],
        [{ sourceType: 'device', sourceName: 'not_mine' }, '来源设备必须是该网关或其子设备'],
        [{ targetType: 'stream', targetName: 'nope' }, '该实例没有名为“nope”的流数据分析任务'],
        [
            { sourceType: 'function', sourceName: 'filter', targetType: 'function', targetName: 'filter' },
            '消息来源与目标不能相同',
        ],
    ])('refuses %o with 400 %s', async (overrides, message) => {
        const answer = await post('route/save', route(overrides));
        expect([answer.status, msg(answer)]).toEqual([400, message]);
    });

    it('routes a sub-device to a function and the function to the cloud', async () => {
        const first = data(
            await post(
                'route/save',
                route({
                    sourceType: 'device',
                    sourceName: subName,
                    topicFilter: '+/+/user/data',
                    targetType: 'function',
                    targetName: 'filter',
                    qos: 0,
                }),
            ),
        );
        expect(first).toMatchObject({ sourceName: subName, targetType: 'function', targetName: 'filter', qos: 0 });
        await post('route/save', route({ sourceType: 'function', sourceName: 'filter', topicFilter: '#' }));
        const list = data(await call(s, 'GET', `/api/edge/instance/routes?instanceId=${instanceId}`));
        expect(list.records.map((r: any) => [r.sourceType, r.targetType])).toEqual([
            ['device', 'function'],
            ['function', 'cloud'],
        ]);
    });
});

describe('场景联动', () => {
    let sceneId: number;
    it('adds a scene linkage rule of the gateway’s project, refuses an alert rule or another project’s', async () => {
        const [gw] = await s.db
            .select({ projectId: devices.projectId })
            .from(devices)
            .where(eq(devices.id, gateway.deviceId));
        const values = { productId: gatewayProduct.productId, projectId: gw.projectId };
        [{ id: sceneId }] = await s.db
            .insert(rules)
            .values({ ...values, name: 'edge_scene', type: 1 })
            .returning({ id: rules.id });
        const [{ id: alertId }] = await s.db
            .insert(rules)
            .values({ ...values, name: 'edge_alert', type: 2 })
            .returning({ id: rules.id });
        const options = data(await call(s, 'GET', `/api/edge/instance/ruleOptions?instanceId=${instanceId}`));
        expect(options.map((o: any) => o.id)).toContain(sceneId);
        expect(options.map((o: any) => o.id)).not.toContain(alertId);
        const alert = await post('rule/add', { instanceId, ruleId: alertId });
        expect([alert.status, msg(alert)]).toEqual([400, '只能添加场景联动规则']);
        expect((await post('rule/add', { instanceId, ruleId: sceneId })).status).toBe(200);
        const list = data(await call(s, 'GET', `/api/edge/instance/rules?instanceId=${instanceId}`));
        expect(list.records).toMatchObject([{ ruleId: sceneId, name: 'edge_scene' }]);
        const missing = await post('rule/add', { instanceId, ruleId: 999_999 });
        expect([missing.status, msg(missing)]).toEqual([404, '规则不存在']);
    });
});

describe('设置', () => {
    it('answers the defaults, refuses out-of-range values and saves the settings', async () => {
        const before = data(await call(s, 'GET', `/api/edge/instance/get?id=${instanceId}`));
        expect(before).toMatchObject({ logLevel: 'info', logUpload: true, heartbeatSeconds: 60 });
        const settings = { instanceId, logLevel: 'debug', logUpload: 'false', logRetentionDays: 14, cacheSizeMb: 128 };
        const bad = await post('settings/save', { ...settings, heartbeatSeconds: 5 });
        expect([bad.status, msg(bad)]).toEqual([400, '心跳间隔为10~600之间的整数（秒）']);
        const level = await post('settings/save', { ...settings, heartbeatSeconds: 30, logLevel: 'trace' });
        expect([level.status, msg(level)]).toEqual([400, '请选择日志级别']);
        expect((await post('settings/save', { ...settings, heartbeatSeconds: 30 })).status).toBe(200);
        expect(data(await call(s, 'GET', `/api/edge/instance/get?id=${instanceId}`))).toMatchObject({
            logLevel: 'debug',
            logUpload: false,
            logRetentionDays: 14,
            cacheSizeMb: 128,
            heartbeatSeconds: 30,
        });
    });
});

describe('监控 and the deployment document', () => {
    it('says nothing was reported before the gateway reports', async () => {
        const monitor = data(await call(s, 'GET', `/api/edge/instance/monitor?instanceId=${instanceId}`));
        expect(monitor).toMatchObject({ reported: false, series: [], lastReport: null });
        expect(monitor.latest.cpuUsage).toBeNull();
    });

    it('shows what the gateway reports over MQTT, latest and per minute', async () => {
        const client = await connect(url, alibabaCredentials(gateway));
        clients.push(client);
        const topic = `/sys/${gateway.productKey}/${gateway.deviceName}/thing/event/property/post`;
        await subscribe(client, `${topic}_reply`);
        for (const [i, cpu] of [20, 40].entries()) {
            const reply = nextMessage(client, `${topic}_reply`);
            await client.publishAsync(
                topic,
                JSON.stringify({
                    id: String(i + 1),
                    version: '1.0',
                    method: 'thing.event.property.post',
                    params: { cpuUsage: cpu, memUsage: 55.5, diskUsage: 70, msgUp: 120, msgDown: 8 },
                }),
                { qos: 1 },
            );
            expect(await reply).toMatchObject({ code: 200 });
        }
        const monitor = data(await call(s, 'GET', `/api/edge/instance/monitor?instanceId=${instanceId}`));
        expect(monitor.reported).toBe(true);
        expect(monitor.latest).toEqual({ cpuUsage: 40, memUsage: 55.5, diskUsage: 70, msgUp: 120, msgDown: 8 });
        const cpu = monitor.series.map((p: any) => p.cpuUsage);
        // Two reports in one minute average to 30; across a minute boundary each minute holds its own.
        expect(cpu.length === 1 ? cpu : [cpu.reduce((a: number, b: number) => a + b, 0) / 2]).toEqual([30]);
        expect(monitor.series[0].minute).toMatch(/^\d{2}:\d{2}$/);
    });

    it('offers the gateway and its sub-devices, and the instance’s functions, as route endpoints', async () => {
        const named = async (kind: string) =>
            data(await call(s, 'GET', `/api/edge/instance/endpoints?instanceId=${instanceId}&kind=${kind}`)).map(
                (o: any) => o.name,
            );
        expect(await named('device')).toEqual([gateway.deviceName, subName]);
        expect(await named('function')).toEqual(['filter']);
        const bad = await call(s, 'GET', `/api/edge/instance/endpoints?instanceId=${instanceId}&kind=x`);
        expect([bad.status, msg(bad)]).toEqual([400, 'kind只能是device、function或stream']);
    });

    it('deploys scenes, functions, streams, routes and settings in the document', async () => {
        const client = clients[0];
        const topic = `/${gateway.productKey}/${gateway.deviceName}/user/edge/deploy`;
        expect(await subscribe(client, topic)).toBe(1);
        const received: any[] = [];
        client.on('message', (t, payload) => {
            if (t !== topic) return;
            const doc = JSON.parse(payload.toString());
            received.push(doc);
            void client.publishAsync(`${topic}_reply`, JSON.stringify({ id: doc.id, code: 200, message: 'ok' }), {
                qos: 1,
            });
        });
        await until(
            async () => data(await call(s, 'GET', `/api/edge/instance/get?id=${instanceId}`)).status === 'ONLINE',
        );
        const answer = data(await call(s, 'POST', '/api/edge/instance/deploy', form({ id: instanceId })));
        expect(answer).toMatchObject({ status: 'success' });
        const doc = received[0].params;
        expect(doc.scenes).toMatchObject([{ name: 'edge_scene', productKey: gatewayProduct.productKey }]);
        expect(doc.functions).toMatchObject([
            { name: 'filter', runtime: 'python3', handler: 'main.handler', memoryMb: 256, env: { LOG_LEVEL: 'info' } },
        ]);
        expect(doc.streams).toMatchObject([{ name: 'avg_temp', windowType: 'tumbling', targetName: 'filter' }]);
        expect(doc.routes).toMatchObject([
            { sourceType: 'device', sourceName: subName, topicFilter: '+/+/user/data', targetName: 'filter', qos: 0 },
            { sourceType: 'function', sourceName: 'filter', topicFilter: '#', targetType: 'cloud', qos: 1 },
        ]);
        expect(doc.settings).toEqual({
            logLevel: 'debug',
            logUpload: false,
            logRetentionDays: 14,
            cacheSizeMb: 128,
            heartbeatSeconds: 30,
        });
        // The log tab keeps the same document.
        const log = data(await call(s, 'GET', `/api/edge/instance/deployments?instanceId=${instanceId}`));
        expect(JSON.parse(log.records[0].document)).toEqual(doc);
    });

    it('removes what the instance runs: a rule, a route, a function', async () => {
        const ruleId = data(await call(s, 'GET', `/api/edge/instance/rules?instanceId=${instanceId}`)).records[0]
            .ruleId;
        expect((await post('rule/remove', { instanceId, ruleId })).status).toBe(200);
        const again = await post('rule/remove', { instanceId, ruleId });
        expect([again.status, msg(again)]).toEqual([404, '该实例未使用此规则']);
        const fns = data(await call(s, 'GET', `/api/edge/instance/functions?instanceId=${instanceId}`)).records;
        // Named by routes and a job: it stays, under its name.
        const used = await post('function/delete', { instanceId, id: fns[0].id });
        expect([used.status, msg(used)]).toEqual([400, '该函数正被消息路由或流数据分析任务使用，不能删除']);
        const renamed = await post('function/save', fn({ id: fns[0].id, name: 'filter2' }));
        expect([renamed.status, msg(renamed)]).toEqual([400, '该函数正被消息路由或流数据分析任务使用，不能改名']);
        const routes = data(await call(s, 'GET', `/api/edge/instance/routes?instanceId=${instanceId}`)).records;
        for (const r of routes) expect((await post('route/delete', { instanceId, id: r.id })).status).toBe(200);
        const jobs = data(await call(s, 'GET', `/api/edge/instance/streams?instanceId=${instanceId}`)).records;
        for (const j of jobs) expect((await post('stream/delete', { instanceId, id: j.id })).status).toBe(200);
        expect((await post('function/delete', { instanceId, id: fns[0].id })).status).toBe(200);
        expect(data(await call(s, 'GET', `/api/edge/instance/functions?instanceId=${instanceId}`)).total).toBe(0);
    });
});
