import type { MqttClient } from 'mqtt';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { alibabaCredentials } from '../../server/mqtt/signIn';
import { connect, until } from './mqttSupport';
import { createCluster, PG_URL, postgresReachable, type ServerProcess } from './spawnServer';
import { takeTurnOnRedis } from './redisTurn';

/**
 * Two server processes on the machine's PostgreSQL and Redis: any process answers the cluster's live figures (the
 * members with host:pid, heartbeat, state and share; /monitor/real's counts and per-second series summed over both),
 * and a simulation run by a process killed with SIGKILL is taken over by the survivor, whose devices go on posting.
 * Then a simulation stopped through another process stops on the process running it.
 */

const REDIS_URL = process.env.FIGURES_REDIS_URL || 'redis://127.0.0.1:6379/12';
const REQUIRED = Boolean(process.env.E2E_REQUIRED || process.env.DATABASE_URL);
const NODE_TIMEOUT_S = 4;

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

interface NodeRow {
    nodeId: string;
    address: string;
    pid: number;
    self: boolean;
    startedAt: string;
    heartbeatAt: string | null;
    state: string;
    connected: number;
    upPerSecond: number;
    connectedShare: number;
}

describe.skipIf(!available)('the cluster’s figures and simulations across processes', () => {
    const cluster = createCluster('iot_figures');
    const clients: MqttClient[] = [];
    let a: ServerProcess;
    let b: ServerProcess;
    let db: pg.Client;
    const start = (waitForSeed: boolean) =>
        cluster.start({
            waitForSeed,
            env: { REDIS_URL, NODE_TIMEOUT: String(NODE_TIMEOUT_S), DEMO_LIVE: '0' },
        });
    const q = async <T>(text: string, values: unknown[] = []) => (await db.query(text, values)).rows as T[];

    takeTurnOnRedis();
    beforeAll(async () => {
        a = await start(true);
        b = await start(false);
        const u = new URL(PG_URL);
        u.pathname = `/${cluster.database}`;
        db = new pg.Client({ connectionString: u.toString() });
        await db.connect();
    }, 200_000);

    afterAll(async () => {
        for (const c of clients) c.end(true);
        await db?.end();
        await cluster.close();
    });

    const nodes = async (p: ServerProcess, path = '/api/platform/info') =>
        (await p.api('GET', path)).data.nodes as NodeRow[];

    let productKey = '';
    async function device(on: ServerProcess) {
        if (!productKey) {
            const products = await a.api(
                'GET',
                `/api/product?pageNumber=1&pageSize=1&productName=${encodeURIComponent('智能路灯')}`,
            );
            productKey = (products.data.records as Array<{ productKey: string }>)[0].productKey;
        }
        const saved = await a.api('POST', '/api/device/save', {
            productKey,
            deviceName: `f${Date.now()}${clients.length}`,
        });
        expect(saved.code, saved.msg).toBe(0);
        const detail = await a.api('GET', `/api/device/detail?deviceId=${Number(saved.data.deviceId)}`);
        const d = detail.data.device as { productKey: string; deviceName: string; secret: string };
        const client = await connect(`mqtt://127.0.0.1:${on.mqttPort}`, alibabaCredentials(d));
        clients.push(client);
        const topic = `/sys/${d.productKey}/${d.deviceName}/thing/event/property/post`;
        return (v: number) =>
            client.publishAsync(topic, JSON.stringify({ id: String(v), params: { Brightness: v } }), { qos: 1 });
    }

    it('each process lists both members: host:pid, started, heartbeat, ready', async () => {
        await until(async () => {
            const list = await nodes(b);
            return list.length === 2 && list.every((n) => n.state === 'ready');
        }, 20_000);
        for (const p of [a, b]) {
            const list = await nodes(p);
            // Oldest first; the answering process is flagged as itself.
            expect(list.map((n) => n.pid)).toEqual([a.child.pid, b.child.pid]);
            expect(list.map((n) => n.self)).toEqual([p === a, p === b]);
            for (const n of list) {
                expect(n.address).toBe(`${n.address.split(':')[0]}:${n.pid}`);
                expect(n.startedAt).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
                expect(n.heartbeatAt).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
            }
        }
        const rows = await q<{ n: number }>('SELECT count(*)::int AS n FROM cluster_nodes');
        expect(rows[0].n).toBe(2);
    }, 60_000);

    it('/monitor/real on either process counts both processes’ devices and messages, per second and in shares', async () => {
        const onA = [await device(a), await device(a), await device(a)];
        const onB = [await device(b), await device(b)];
        // 12 posts through A, 8 through B, each acknowledged (PUBACK) before the figures are read.
        for (let i = 1; i <= 4; i++) await Promise.all([...onA, ...onB].map((post) => post(i)));
        for (const p of [a, b]) {
            let last: Record<string, unknown> = {};
            await until(async () => {
                last = (await p.api('GET', '/api/monitor/real')).data;
                const series = last.series as Array<{ up: number }>;
                const inSeries = series.reduce((s, x) => s + x.up, 0);
                return last.connected === 5 && inSeries === 20 && (last.totals as { up: number }).up === 20;
            }, 15_000).catch(() => {
                throw new Error(`figures on ${p === a ? 'A' : 'B'}: ${JSON.stringify(last)}`);
            });
            const list = last.nodes as NodeRow[];
            expect(list.map((n) => [n.pid, n.connected, n.connectedShare])).toEqual([
                [a.child.pid, 3, 60],
                [b.child.pid, 2, 40],
            ]);
        }
    }, 90_000);

    it('a simulation of a process killed with SIGKILL runs on the survivor, its devices posting again', async () => {
        const saved = await b.api('POST', '/api/simulation/save', {
            productKey,
            amount: 2,
            intervalSeconds: 1,
            mode: 'random',
            start: 'true',
        });
        expect(saved.code, saved.msg).toBe(200);
        const id = Number(saved.data.id);
        const [bNode, aNode] = [(await nodes(b)).find((n) => n.self)!, (await nodes(a)).find((n) => n.self)!];
        const owner = async () =>
            (await q<{ node_id: string }>('SELECT node_id FROM simulations WHERE id = $1', [id]))[0];
        expect((await owner()).node_id).toBe(bNode.nodeId);
        const devicesOf = async () =>
            q<{ id: string; status: string; node_id: string | null }>(
                `SELECT d.id, d.status, d.node_id FROM devices d JOIN simulation_devices s ON s.device_id = d.id
                 WHERE s.simulation_id = $1`,
                [id],
            );
        await until(
            async () => (await devicesOf()).every((d) => d.status === 'ONLINE' && d.node_id === bNode.nodeId),
            15_000,
        );

        b.child.kill('SIGKILL');
        const killedAt = Date.now();
        // The survivor sweeps B after NODE_TIMEOUT and takes its simulation at that heartbeat.
        await until(async () => (await owner()).node_id === aNode.nodeId, NODE_TIMEOUT_S * 1000 + 15_000);
        const tookMs = Date.now() - killedAt;
        await until(
            async () => (await devicesOf()).every((d) => d.status === 'ONLINE' && d.node_id === aNode.nodeId),
            15_000,
        );
        const since = new Date();
        const posted = async () =>
            (
                await q<{ n: number }>(
                    `SELECT count(*)::int AS n FROM device_messages m JOIN simulation_devices s ON s.device_id = m.device_id
                     WHERE s.simulation_id = $1 AND m.ts > $2 AND m.method = 'thing.event.property.post'`,
                    [id, since],
                )
            )[0].n;
        await until(async () => (await posted()) >= 4, 20_000);
        // The console of the survivor says it runs here, and lists one member.
        const list = (await a.api('GET', '/api/simulation/list?pageNumber=1&pageSize=50')).data.records as Array<{
            id: number;
            active: boolean;
            connected: number;
        }>;
        expect(list.find((s) => Number(s.id) === id)).toMatchObject({ active: true, connected: 2 });
        await until(async () => (await nodes(a)).length === 1, 10_000);
        console.log(`simulation ${id} taken over ${tookMs} ms after the SIGKILL (NODE_TIMEOUT ${NODE_TIMEOUT_S} s)`);

        // A third process stops it: the survivor running it stops it at its next heartbeat (its devices go OFFLINE).
        const c = await start(false);
        const stopped = await c.api('POST', '/api/simulation/stop', { id });
        expect(stopped.code, stopped.msg).toBe(200);
        await until(async () => (await devicesOf()).every((d) => d.status === 'OFFLINE'), 15_000);
        const active = (await a.api('GET', '/api/simulation/list?pageNumber=1&pageSize=50')).data.records as Array<{
            id: number;
            active: boolean;
        }>;
        expect(active.find((s) => Number(s.id) === id)?.active).toBe(false);
    }, 150_000);
});
