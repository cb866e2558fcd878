import type { MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { alibabaCredentials } from '../../server/mqtt/signIn';
import { connect, subscribe, until } from './mqttSupport';
import { createCluster, PG_URL, postgresReachable, type ServerProcess } from './spawnServer';
import { takeTurnOnRedis } from './redisTurn';

/**
 * Two server processes on one PostgreSQL and one Redis act as one platform (docs/deployment.md): a device connected
 * to the first receives a property set sent through the second's API, takeovers and disables cross processes
 * (a disabled device's kept sign-in is forgotten in every process).
 * Needs PostgreSQL and Redis (this machine kind runs both); required in CI (E2E_REQUIRED) and with DATABASE_URL.
 */

const REDIS_URL = process.env.CLUSTER_REDIS_URL || 'redis://127.0.0.1:6379/7';
const REQUIRED = Boolean(process.env.E2E_REQUIRED || process.env.DATABASE_URL);

async function reachable(): Promise<boolean> {
    if (!(await postgresReachable())) return false;
    const net = await import('node:net');
    const u = new URL(REDIS_URL);
    return new Promise((resolve) => {
        const socket = net.connect(Number(u.port || 6379), u.hostname, () => (socket.end(), resolve(true)));
        socket.once('error', () => resolve(false));
    });
}

const available = await reachable();
if (!available && REQUIRED) throw new Error(`PostgreSQL (${PG_URL}) or Redis (${REDIS_URL}) is not reachable`);

type Proc = ServerProcess;
const cluster = createCluster('iot_cluster');
const clients: MqttClient[] = [];
const start = (waitForSeed: boolean) => cluster.start({ waitForSeed, env: { REDIS_URL } });
const api = (p: Proc, method: string, target: string, body?: Record<string, string | number>) =>
    p.api(method, target, body);

describe.skipIf(!available)('two server processes, one platform', () => {
    let first: Proc;
    let second: Proc;

    takeTurnOnRedis();
    beforeAll(async () => {
        first = await start(true);
        second = await start(false);
    }, 200_000);

    afterAll(async () => {
        for (const c of clients) c.end(true);
        await cluster.close();
    });

    async function lamp() {
        const products = await api(
            first,
            'GET',
            `/api/product?pageNumber=1&pageSize=1&productName=${encodeURIComponent('智能路灯')}`,
        );
        const productKey = (products.data.records as Array<{ productKey: string }>)[0].productKey;
        const saved = await api(first, 'POST', '/api/device/save', { productKey, deviceName: `c${Date.now()}` });
        expect(saved.code, saved.msg).toBe(0);
        const deviceId = Number(saved.data.deviceId);
        const detail = await api(first, 'GET', `/api/device/detail?deviceId=${deviceId}`);
        const device = detail.data.device as { productKey: string; deviceName: string; secret: string };
        return { deviceId, productKey: device.productKey, deviceName: device.deviceName, secret: device.secret };
    }

    const statusOn = async (p: Proc, deviceId: number) =>
        ((await api(p, 'GET', `/api/device/detail?deviceId=${deviceId}`)).data.device as { status: string }).status;

    it('a device on the first process answers a property set sent through the second', async () => {
        const device = await lamp();
        const client = await connect(`mqtt://127.0.0.1:${first.mqttPort}`, alibabaCredentials(device));
        clients.push(client);
        await subscribe(client, `/sys/${device.productKey}/${device.deviceName}/thing/service/#`);
        client.on('message', (topic, payload) => {
            if (topic.endsWith('_reply')) return;
            const req = JSON.parse(payload.toString()) as { id: string; params: unknown };
            client.publish(`${topic}_reply`, JSON.stringify({ id: req.id, code: 200, data: req.params }));
        });
        await until(async () => (await statusOn(second, device.deviceId)) === 'ONLINE', 10_000);
        const answer = await api(second, 'POST', '/api/device/propertyTestSet', {
            deviceId: device.deviceId,
            params: '{"Brightness":66}',
        });
        expect(answer).toMatchObject({ code: 0, data: { state: 'replied', code: 200, data: { Brightness: 66 } } });
    });

    it('connecting to the second process takes the device over from the first; it stays ONLINE', async () => {
        const device = await lamp();
        const old = await connect(`mqtt://127.0.0.1:${first.mqttPort}`, alibabaCredentials(device, { id: 'old' }));
        const closed = new Promise<void>((r) => old.once('close', () => r()));
        const fresh = await connect(`mqtt://127.0.0.1:${second.mqttPort}`, alibabaCredentials(device, { id: 'new' }));
        clients.push(old, fresh);
        await closed;
        await new Promise((r) => setTimeout(r, 300));
        expect(await statusOn(first, device.deviceId)).toBe('ONLINE');
        expect(fresh.connected).toBe(true);
    });

    it('disabling through the first process disconnects the device held by the second', async () => {
        const device = await lamp();
        const client = await connect(`mqtt://127.0.0.1:${second.mqttPort}`, alibabaCredentials(device));
        clients.push(client);
        const closed = new Promise<void>((r) => client.once('close', () => r()));
        await until(async () => (await statusOn(first, device.deviceId)) === 'ONLINE', 10_000);
        await api(first, 'PUT', `/api/device/update?deviceId=${device.deviceId}&action=disable`);
        await closed;
        expect(await statusOn(second, device.deviceId)).toBe('DISABLE');
        // The second process had kept the device's sign-in: it forgot it with the close, so it refuses at once.
        await expect(
            connect(`mqtt://127.0.0.1:${second.mqttPort}`, alibabaCredentials(device, { id: 'again' })),
        ).rejects.toMatchObject({ code: 5 });
    });
});
