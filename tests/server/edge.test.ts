/* eslint-disable @typescript-eslint/no-explicit-any -- the answers are checked by value (toMatchObject), not by type */
import type { MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { alibabaCredentials } from '../../server/mqtt/signIn';
import { createTestServer, type TestServer } from '../../server/testing';
import { createDevice, createProduct, listForm, type TestProduct } from './devicesSupport';
import { connect, secretOf, startBroker, subscribe, until, type Broker } from './mqttSupport';
import { call, form } from './support';

/**
 * /api/edge: drivers, an edge instance on a gateway device, its drivers and sub-devices, and deployment: the gateway
 * (played here by an MQTT client signed in with its own secret) receives the versioned document on its custom topic
 * and its answer is recorded with the version.
 */

let s: TestServer;
let broker: Broker;
let url: string;
let gatewayProduct: TestProduct;
let subProduct: TestProduct;
let gateway: { deviceId: number; productKey: string; deviceName: string; secret: string };
let subs: number[];
let driverId: number;
let instanceId: number;
const clients: MqttClient[] = [];

const data = <T = any>(a: { body: unknown }) => (a.body as { data: T }).data;
const msg = (a: { body: unknown }) => (a.body as { msg: string }).msg;

beforeAll(async () => {
    s = await createTestServer();
    ({ broker, url } = await startBroker(s));
    gatewayProduct = await createProduct(s, { nodeType: 1 });
    subProduct = await createProduct(s, { nodeType: 0 });
    const gw = await createDevice(s, gatewayProduct.productKey);
    gateway = {
        deviceId: Number(gw.deviceId),
        productKey: gw.productKey,
        deviceName: gw.deviceName,
        secret: await secretOf(s, Number(gw.deviceId)),
    };
    subs = [];
    for (let i = 0; i < 3; i++) subs.push(Number((await createDevice(s, subProduct.productKey)).deviceId));
    const added = await call(
        s,
        'POST',
        '/api/device/subDevice/add',
        listForm({ gwId: gateway.deviceId, deviceId: subs }),
    );
    expect(added.status).toBe(200);
});

afterAll(async () => {
    for (const c of clients) c.end(true);
    await broker?.close();
    await s?.close();
});

describe('drivers', () => {
    it('saves a driver with its configuration schema, refusing bad input with its message', async () => {
        expect(
            msg(await call(s, 'POST', '/api/edge/driver/save', form({ version: '1.0.0', protocol: 'modbus_tcp' }))),
        ).toBe('请输入驱动名称');
        expect(
            msg(
                await call(
                    s,
                    'POST',
                    '/api/edge/driver/save',
                    form({ name: 'modbus', version: 'v1', protocol: 'modbus_tcp' }),
                ),
            ),
        ).toBe('版本号格式为x.y.z，例如1.0.0');
        expect(
            msg(
                await call(
                    s,
                    'POST',
                    '/api/edge/driver/save',
                    form({ name: 'modbus', version: '1.0.0', protocol: 'modbus_tcp', configSchema: '[1]' }),
                ),
            ),
        ).toBe('配置模板必须是JSON对象');
        const saved = await call(
            s,
            'POST',
            '/api/edge/driver/save',
            form({
                name: 'modbus',
                version: '1.0.0',
                protocol: 'modbus_tcp',
                description: '<b>Modbus</b> 采集',
                configSchema: JSON.stringify({ type: 'object', properties: { host: { type: 'string' } } }),
            }),
        );
        expect(saved.status).toBe(200);
        driverId = data(saved).id;
        expect(data(saved)).toMatchObject({ name: 'modbus', version: '1.0.0', description: '<b>Modbus</b> 采集' });
        const again = await call(
            s,
            'POST',
            '/api/edge/driver/save',
            form({ name: 'modbus', version: '1.0.0', protocol: 'modbus_tcp' }),
        );
        expect([again.status, msg(again)]).toEqual([409, '该驱动的此版本已存在']);
        const list = data(await call(s, 'GET', '/api/edge/driver/list?pageNumber=1&pageSize=10'));
        expect(list.total).toBe(1);
    });
});

describe('an edge instance', () => {
    it('binds one gateway; a plain device or a taken gateway is refused', async () => {
        const plain = Number((await createDevice(s, subProduct.productKey)).deviceId);
        expect(msg(await call(s, 'POST', '/api/edge/instance/save', form({ name: 'edge1', gatewayId: plain })))).toBe(
            '所选设备不是网关设备',
        );
        expect(msg(await call(s, 'POST', '/api/edge/instance/save', form({ name: 'edge1' })))).toBe('请选择网关设备');
        const gateways = data<Array<{ deviceId: number }>>(await call(s, 'GET', '/api/edge/instance/gateways'));
        expect(gateways.map((g) => g.deviceId)).toContain(gateway.deviceId);
        const saved = await call(
            s,
            'POST',
            '/api/edge/instance/save',
            form({ name: 'edge1', spec: '2核4G', gatewayId: gateway.deviceId }),
        );
        instanceId = data(saved).id;
        expect(data(saved)).toMatchObject({
            name: 'edge1',
            spec: '2核4G',
            gatewayName: gateway.deviceName,
            status: 'INACTIVE',
            version: 0,
        });
        const taken = await call(
            s,
            'POST',
            '/api/edge/instance/save',
            form({ name: 'edge2', gatewayId: gateway.deviceId }),
        );
        expect([taken.status, msg(taken)]).toEqual([409, '该网关已绑定其他边缘实例']);
    });

    it('runs a driver with its configuration over two of the gateway’s sub-devices', async () => {
        expect(
            msg(
                await call(
                    s,
                    'POST',
                    '/api/edge/instance/device/assign',
                    listForm({ instanceId, driverId, deviceId: [subs[0]] }),
                ),
            ),
        ).toBe('请先为实例添加该驱动');
        await call(
            s,
            'POST',
            '/api/edge/instance/driver/save',
            form({ instanceId, driverId, config: JSON.stringify({ host: '192.168.1.10', port: 502 }) }),
        );
        const candidates = data(await call(s, 'GET', `/api/edge/instance/candidates?instanceId=${instanceId}`));
        expect(candidates.total).toBe(3);
        const assigned = await call(
            s,
            'POST',
            '/api/edge/instance/device/assign',
            listForm({ instanceId, driverId, deviceId: [subs[0], subs[1]] }),
        );
        expect(assigned.status).toBe(200);
        const list1 = data(await call(s, 'GET', `/api/edge/instance/devices?instanceId=${instanceId}`));
        expect(list1.records.map((r: any) => r.deviceId).sort()).toEqual([subs[0], subs[1]].sort());
        expect(data(await call(s, 'GET', `/api/edge/instance/candidates?instanceId=${instanceId}`)).total).toBe(1);
        const drivers = data(await call(s, 'GET', `/api/edge/instance/drivers?instanceId=${instanceId}`));
        expect(drivers.records[0]).toMatchObject({ name: 'modbus', deviceCount: 2 });
        // A driver in use stays.
        const refused = await call(s, 'DELETE', `/api/edge/driver/delete?id=${driverId}`);
        expect(msg(refused)).toBe('该驱动正被1个边缘实例使用，不能删除');
    });

    it('records an offline deployment when the gateway is not connected', async () => {
        const answer = data(await call(s, 'POST', '/api/edge/instance/deploy', form({ id: instanceId })));
        expect(answer).toMatchObject({ version: 1, status: 'offline', message: '网关设备不在线，配置未下发' });
    });

    it('deploys to the gateway signed in over MQTT and records its acknowledgement with the version', async () => {
        const client = await connect(url, alibabaCredentials(gateway));
        clients.push(client);
        const topic = `/${gateway.productKey}/${gateway.deviceName}/user/edge/deploy`;
        expect(await subscribe(client, topic)).toBe(1);
        const received: any[] = [];
        client.on('message', (t, payload) => {
            if (t !== topic) return;
            const doc = JSON.parse(payload.toString());
            received.push(doc);
            void client.publishAsync(
                `${topic}_reply`,
                JSON.stringify({ id: doc.id, code: 200, message: `已应用版本${doc.params.version}` }),
                { qos: 1 },
            );
        });
        await until(
            async () => data(await call(s, 'GET', `/api/edge/instance/get?id=${instanceId}`)).status === 'ONLINE',
        );

        const answer = data(await call(s, 'POST', '/api/edge/instance/deploy', form({ id: instanceId })));
        expect(answer).toMatchObject({ version: 2, status: 'success', message: '已应用版本2' });
        expect(received).toHaveLength(1);
        expect(received[0]).toMatchObject({
            method: 'edge.deploy',
            params: {
                version: 2,
                instance: { name: 'edge1', spec: '2核4G' },
                drivers: [
                    {
                        name: 'modbus',
                        version: '1.0.0',
                        protocol: 'modbus_tcp',
                        config: { host: '192.168.1.10', port: 502 },
                    },
                ],
            },
        });
        expect(received[0].params.drivers[0].devices).toHaveLength(2);

        const log = data(await call(s, 'GET', `/api/edge/instance/deployments?instanceId=${instanceId}`));
        expect(log.records.map((r: any) => [r.version, r.status])).toEqual([
            [2, 'success'],
            [1, 'offline'],
        ]);
        const list = data(await call(s, 'GET', '/api/edge/instance/list?pageNumber=1&pageSize=10'));
        expect(list.records[0]).toMatchObject({
            name: 'edge1',
            status: 'ONLINE',
            deployStatus: 'success',
            deviceCount: 2,
        });
    });

    it('records a failure the gateway reports', async () => {
        const client = clients[0];
        client.removeAllListeners('message');
        const topic = `/${gateway.productKey}/${gateway.deviceName}/user/edge/deploy`;
        client.on('message', (t, payload) => {
            if (t !== topic) return;
            const doc = JSON.parse(payload.toString());
            void client.publishAsync(
                `${topic}_reply`,
                JSON.stringify({ id: doc.id, code: 500, message: '驱动启动失败' }),
                {
                    qos: 1,
                },
            );
        });
        const answer = data(await call(s, 'POST', '/api/edge/instance/deploy', form({ id: instanceId })));
        expect(answer).toMatchObject({ version: 3, status: 'failed', message: '驱动启动失败' });
    });

    it('removes a sub-device and the driver, then the instance', async () => {
        expect(
            (await call(s, 'POST', '/api/edge/instance/device/remove', form({ instanceId, deviceId: subs[0] }))).status,
        ).toBe(200);
        expect((await call(s, 'POST', '/api/edge/instance/driver/remove', form({ instanceId, driverId }))).status).toBe(
            200,
        );
        expect(data(await call(s, 'GET', `/api/edge/instance/devices?instanceId=${instanceId}`)).total).toBe(0);
        expect((await call(s, 'DELETE', `/api/edge/driver/delete?id=${driverId}`)).status).toBe(200);
        expect((await call(s, 'DELETE', `/api/edge/instance/delete?id=${instanceId}`)).status).toBe(200);
        expect(msg(await call(s, 'GET', `/api/edge/instance/get?id=${instanceId}`))).toBe('边缘实例不存在');
    });
});
