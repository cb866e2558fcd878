import { eq } from 'drizzle-orm';
import { devices, rules } from '../../server/db/schema';
import type { TestServer } from '../../server/testing';
import { createDevice, createProduct, listForm } from './devicesSupport';
import { call, form, type Answer } from './support';

type Cases = Record<string, () => Promise<Answer<unknown>>>;

/** One successful call per /api/edge operation of openapi.yaml, for contract.test.ts (the gateway stays offline). */
export function edgeHappyCases(server: () => TestServer): Cases {
    const s = () => server();
    let n = 0;
    const driver = async () => {
        const answer = await call(
            s(),
            'POST',
            '/api/edge/driver/save',
            form({ name: `contract_driver${++n}`, version: '1.0.0', protocol: 'modbus_tcp' }),
        );
        return (answer.body as { data: { id: number } }).data.id;
    };
    /** A driver version uploaded with its package. */
    const upload = (name: string) => {
        const body = new FormData();
        for (const [k, v] of Object.entries({ name, version: '1.0.0', protocol: 'modbus_tcp', configSchema: '{}' }))
            body.set(k, v);
        body.set('file', new File([new Uint8Array([1, 2, 3, 4])], 'driver.zip', { type: 'application/zip' }));
        return call(s(), 'POST', '/api/edge/driver/upload', { body });
    };
    /** An instance on a new gateway with one sub-device, running one driver. */
    const instance = async () => {
        const gwProduct = await createProduct(s(), { nodeType: 1 });
        const subProduct = await createProduct(s(), { nodeType: 0 });
        const gw = await createDevice(s(), gwProduct.productKey);
        const sub = await createDevice(s(), subProduct.productKey);
        await call(s(), 'POST', '/api/device/subDevice/add', listForm({ gwId: gw.deviceId, deviceId: [sub.deviceId] }));
        const saved = await call(
            s(),
            'POST',
            '/api/edge/instance/save',
            form({ name: `contract_edge${++n}`, gatewayId: gw.deviceId }),
        );
        const id = (saved.body as { data: { id: number } }).data.id;
        const driverId = await driver();
        await call(s(), 'POST', '/api/edge/instance/driver/save', form({ instanceId: id, driverId, config: '{}' }));
        return { id, driverId, subId: Number(sub.deviceId), gatewayId: Number(gw.deviceId) };
    };
    return {
        'GET /api/edge/driver/list': () => call(s(), 'GET', '/api/edge/driver/list?pageNumber=1&pageSize=10'),
        'GET /api/edge/driver/options': () => call(s(), 'GET', '/api/edge/driver/options'),
        'POST /api/edge/driver/save': () =>
            call(
                s(),
                'POST',
                '/api/edge/driver/save',
                form({ name: 'contract_save', version: '2.0.0', protocol: 'opc_ua' }),
            ),
        'POST /api/edge/driver/upload': () => upload('contract_upload'),
        'GET /api/edge/driver/versions': async () => {
            await upload('contract_versions');
            return call(s(), 'GET', '/api/edge/driver/versions?name=contract_versions');
        },
        'GET /api/edge/driver/download': async () => {
            const up = await upload(`contract_download${++n}`);
            return call(s(), 'GET', `/api/edge/driver/download?id=${(up.body as { data: { id: number } }).data.id}`);
        },
        'DELETE /api/edge/driver/delete': async () =>
            call(s(), 'DELETE', `/api/edge/driver/delete?id=${await driver()}`),
        'GET /api/edge/instance/list': () => call(s(), 'GET', '/api/edge/instance/list?pageNumber=1&pageSize=10'),
        'GET /api/edge/instance/get': async () =>
            call(s(), 'GET', `/api/edge/instance/get?id=${(await instance()).id}`),
        'GET /api/edge/instance/gateways': () => call(s(), 'GET', '/api/edge/instance/gateways'),
        'POST /api/edge/instance/save': async () => {
            const gw = await createDevice(s(), (await createProduct(s(), { nodeType: 1 })).productKey);
            return call(s(), 'POST', '/api/edge/instance/save', form({ name: 'contract_new', gatewayId: gw.deviceId }));
        },
        'DELETE /api/edge/instance/delete': async () =>
            call(s(), 'DELETE', `/api/edge/instance/delete?id=${(await instance()).id}`),
        'GET /api/edge/instance/drivers': async () =>
            call(s(), 'GET', `/api/edge/instance/drivers?instanceId=${(await instance()).id}`),
        'POST /api/edge/instance/driver/save': async () => {
            const { id, driverId } = await instance();
            return call(
                s(),
                'POST',
                '/api/edge/instance/driver/save',
                form({ instanceId: id, driverId, config: '{"a":1}' }),
            );
        },
        'POST /api/edge/instance/driver/remove': async () => {
            const { id, driverId } = await instance();
            return call(s(), 'POST', '/api/edge/instance/driver/remove', form({ instanceId: id, driverId }));
        },
        'GET /api/edge/instance/devices': async () =>
            call(s(), 'GET', `/api/edge/instance/devices?instanceId=${(await instance()).id}`),
        'GET /api/edge/instance/candidates': async () =>
            call(s(), 'GET', `/api/edge/instance/candidates?instanceId=${(await instance()).id}`),
        'POST /api/edge/instance/device/assign': async () => {
            const { id, driverId, subId } = await instance();
            return call(
                s(),
                'POST',
                '/api/edge/instance/device/assign',
                listForm({ instanceId: id, driverId, deviceId: [subId] }),
            );
        },
        'POST /api/edge/instance/device/remove': async () => {
            const { id, driverId, subId } = await instance();
            await call(
                s(),
                'POST',
                '/api/edge/instance/device/assign',
                listForm({ instanceId: id, driverId, deviceId: [subId] }),
            );
            return call(s(), 'POST', '/api/edge/instance/device/remove', form({ instanceId: id, deviceId: subId }));
        },
        'POST /api/edge/instance/deploy': async () =>
            call(s(), 'POST', '/api/edge/instance/deploy', form({ id: (await instance()).id })),
        'GET /api/edge/instance/deployments': async () => {
            const { id } = await instance();
            await call(s(), 'POST', '/api/edge/instance/deploy', form({ id }));
            return call(s(), 'GET', `/api/edge/instance/deployments?instanceId=${id}`);
        },
        ...edgeTabCases(s, instance),
    };
}

/** The detail's 监控 / 场景联动 / 函数计算 / 流数据分析 / 消息路由 / 设置 calls, each on an instance of its own. */
function edgeTabCases(s: () => TestServer, instance: () => Promise<{ id: number; gatewayId: number }>): Cases {
    const fn = (instanceId: number, name = 'contract_fn') =>
        call(
            s(),
            'POST',
            '/api/edge/instance/function/save',
            form({
                instanceId,
                name,
                runtime: 'nodejs20',
                handler: 'index.handler',
                memoryMb: 128,
                timeoutSeconds: 3,
                mode: 'trigger',
                env: '{"A":"1"}',
            }),
        );
    const job = (instanceId: number) =>
        call(
            s(),
            'POST',
            '/api/edge/instance/stream/save',
            form({
                instanceId,
                name: 'contract_job',
                sourceTopic: '#',
                windowType: 'none',
                statement: 'SELECT * FROM source',
                targetType: 'cloud',
            }),
        );
    const route = (instanceId: number) =>
        call(
            s(),
            'POST',
            '/api/edge/instance/route/save',
            form({
                instanceId,
                sourceType: 'allDevices',
                topicFilter: '/sys/+/+/thing/#',
                targetType: 'cloud',
                qos: 1,
            }),
        );
    const idOf = (a: Answer<unknown>) => (a.body as { data: { id: number } }).data.id;
    /** A scene linkage rule of the gateway's project, added to the instance. */
    const rule = async () => {
        const { id, gatewayId } = await instance();
        const [device] = await s()
            .db.select({ productId: devices.productId, projectId: devices.projectId })
            .from(devices)
            .where(eq(devices.id, gatewayId));
        const [created] = await s()
            .db.insert(rules)
            .values({ name: 'contract_edge_rule', type: 1, productId: device.productId, projectId: device.projectId })
            .returning({ id: rules.id });
        return { id, ruleId: created.id };
    };
    return {
        'GET /api/edge/instance/monitor': async () =>
            call(s(), 'GET', `/api/edge/instance/monitor?instanceId=${(await instance()).id}`),
        'GET /api/edge/instance/endpoints': async () =>
            call(s(), 'GET', `/api/edge/instance/endpoints?instanceId=${(await instance()).id}&kind=device`),
        'GET /api/edge/instance/functions': async () => {
            const { id } = await instance();
            await fn(id);
            return call(s(), 'GET', `/api/edge/instance/functions?instanceId=${id}`);
        },
        'POST /api/edge/instance/function/save': async () => fn((await instance()).id),
        'POST /api/edge/instance/function/delete': async () => {
            const { id } = await instance();
            return call(
                s(),
                'POST',
                '/api/edge/instance/function/delete',
                form({ instanceId: id, id: idOf(await fn(id)) }),
            );
        },
        'GET /api/edge/instance/streams': async () => {
            const { id } = await instance();
            await job(id);
            return call(s(), 'GET', `/api/edge/instance/streams?instanceId=${id}`);
        },
        'POST /api/edge/instance/stream/save': async () => job((await instance()).id),
        'POST /api/edge/instance/stream/delete': async () => {
            const { id } = await instance();
            return call(
                s(),
                'POST',
                '/api/edge/instance/stream/delete',
                form({ instanceId: id, id: idOf(await job(id)) }),
            );
        },
        'GET /api/edge/instance/routes': async () => {
            const { id } = await instance();
            await route(id);
            return call(s(), 'GET', `/api/edge/instance/routes?instanceId=${id}`);
        },
        'POST /api/edge/instance/route/save': async () => route((await instance()).id),
        'POST /api/edge/instance/route/delete': async () => {
            const { id } = await instance();
            return call(
                s(),
                'POST',
                '/api/edge/instance/route/delete',
                form({ instanceId: id, id: idOf(await route(id)) }),
            );
        },
        'GET /api/edge/instance/rules': async () => {
            const { id, ruleId } = await rule();
            await call(s(), 'POST', '/api/edge/instance/rule/add', form({ instanceId: id, ruleId }));
            return call(s(), 'GET', `/api/edge/instance/rules?instanceId=${id}`);
        },
        'GET /api/edge/instance/ruleOptions': async () => {
            const { id } = await rule();
            return call(s(), 'GET', `/api/edge/instance/ruleOptions?instanceId=${id}`);
        },
        'POST /api/edge/instance/rule/add': async () => {
            const { id, ruleId } = await rule();
            return call(s(), 'POST', '/api/edge/instance/rule/add', form({ instanceId: id, ruleId }));
        },
        'POST /api/edge/instance/rule/remove': async () => {
            const { id, ruleId } = await rule();
            await call(s(), 'POST', '/api/edge/instance/rule/add', form({ instanceId: id, ruleId }));
            return call(s(), 'POST', '/api/edge/instance/rule/remove', form({ instanceId: id, ruleId }));
        },
        'POST /api/edge/instance/settings/save': async () =>
            call(
                s(),
                'POST',
                '/api/edge/instance/settings/save',
                form({
                    instanceId: (await instance()).id,
                    logLevel: 'warn',
                    logUpload: 'true',
                    logRetentionDays: 3,
                    cacheSizeMb: 32,
                    heartbeatSeconds: 120,
                }),
            ),
    };
}
