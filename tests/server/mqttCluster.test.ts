import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import type { MqttClient } from 'mqtt';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { alibabaCredentials } from '../../server/mqtt/signIn';
import { connect, subscribe, until } from './mqttSupport';

/**
 * Two server processes on one PostgreSQL and one Redis act as one platform (docs/deployment.md): a device connected
 * to the first receives a property set sent through the second's API, takeovers and disables cross processes.
 * Needs PostgreSQL and Redis (this machine kind runs both); required in CI (E2E_REQUIRED) and with DATABASE_URL.
 */

const PG_URL = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
const REDIS_URL = process.env.CLUSTER_REDIS_URL || 'redis://127.0.0.1:6379/7';
const REQUIRED = Boolean(process.env.E2E_REQUIRED || process.env.DATABASE_URL);
const ROOT = path.resolve(import.meta.dirname, '../..');
const PASSWORD = 'Cluster_Pass1';

async function reachable(): Promise<boolean> {
    const client = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 2000 });
    try {
        await client.connect();
        await client.end();
    } catch {
        return false;
    }
    const net = await import('node:net');
    const u = new URL(REDIS_URL);
    return new Promise((resolve) => {
        const socket = net.connect(Number(u.port || 6379), u.hostname, () => (socket.end(), resolve(true)));
        socket.once('error', () => resolve(false));
    });
}

const available = await reachable();
if (!available && REQUIRED) throw new Error(`PostgreSQL (${PG_URL}) or Redis (${REDIS_URL}) is not reachable`);

interface Proc {
    child: ChildProcess;
    url: string;
    mqttPort: number;
    cookie: string;
}

let database: string;
const procs: Proc[] = [];
const dirs: string[] = [];
const clients: MqttClient[] = [];

function databaseUrl(name: string) {
    const u = new URL(PG_URL);
    u.pathname = `/${name}`;
    return u.toString();
}

async function start(waitForSeed: boolean): Promise<Proc> {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'iot-cluster-'));
    dirs.push(dataDir);
    const child = spawn(process.execPath, ['--import', 'tsx', 'server/index.ts'], {
        cwd: ROOT,
        env: {
            ...process.env,
            PORT: '0',
            HOST: '127.0.0.1',
            MQTT_PORT: '0',
            SIP_PORT: '0',
            DATA_DIR: dataDir,
            DATABASE_URL: databaseUrl(database),
            REDIS_URL,
            ADMIN_PASSWORD: PASSWORD,
            SEED_DEMO: '1',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
    });
    let url = '';
    let mqttPort = 0;
    let output = '';
    child.stderr!.on('data', (d) => (output += String(d)));
    await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`server did not start:\n${output}`)), 90_000);
        createInterface({ input: child.stdout! }).on('line', (line) => {
            output += line + '\n';
            url ||= /控制台: (http:\/\/\S+?)\/?$/.exec(line)?.[1] ?? '';
            mqttPort ||= Number(/MQTT: mqtt:\/\/[^:]+:(\d+)/.exec(line)?.[1] ?? 0);
            const seeded = !waitForSeed || line.includes('已写入演示数据');
            if (url && mqttPort && seeded) {
                clearTimeout(timer);
                resolve();
            }
        });
        child.once('exit', (code) => reject(new Error(`server exited (${code}):\n${output}`)));
    });
    const login = await fetch(`${url}/sso/login`, {
        method: 'POST',
        body: new URLSearchParams({ username: 'admin', password: PASSWORD }),
        redirect: 'manual',
    });
    const cookie = login.headers.get('set-cookie')!.split(';')[0];
    const proc = { child, url, mqttPort, cookie };
    procs.push(proc);
    return proc;
}

async function api(p: Proc, method: string, target: string, body?: Record<string, string | number>) {
    const res = await fetch(`${p.url}${target}`, {
        method,
        headers: { cookie: p.cookie },
        body: body ? new URLSearchParams(Object.entries(body).map(([k, v]) => [k, String(v)])) : undefined,
    });
    return (await res.json()) as { code: number; msg?: string; data: Record<string, unknown> };
}

describe.skipIf(!available)('two server processes, one platform', () => {
    let first: Proc;
    let second: Proc;

    beforeAll(async () => {
        database = `iot_cluster_${Math.random().toString(36).slice(2, 10)}`;
        const admin = new pg.Client({ connectionString: PG_URL });
        await admin.connect();
        await admin.query(`CREATE DATABASE ${database}`);
        await admin.end();
        first = await start(true);
        second = await start(false);
    }, 200_000);

    afterAll(async () => {
        for (const c of clients) c.end(true);
        for (const p of procs) p.child.kill('SIGTERM');
        await Promise.all(
            procs.map((p) => new Promise((r) => (p.child.exitCode !== null ? r(null) : p.child.once('exit', r)))),
        );
        for (const d of dirs) rmSync(d, { recursive: true, force: true });
        if (database) {
            const admin = new pg.Client({ connectionString: PG_URL });
            await admin.connect();
            await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
            await admin.end();
        }
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
    });
});
