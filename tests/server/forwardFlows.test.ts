import { createServer, type IncomingMessage, type Server } from 'node:http';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../../server/db/rows';
import { createTestServer, type TestServer } from '../../server/testing';
import { randomName, serviceReachable, tcpProxy } from './forwardSupport';
import { startBroker, until } from './mqttSupport';
import { lamp, ok, online, api, type Device } from './rulesSupport';

/**
 * Data forwarding end to end: a lamp posts through the broker, a flow's SQL selects and shapes what it posted, and
 * the rows arrive in the machine's PostgreSQL table and at an HTTP server of the test's own, in order, values and
 * types as selected; a flow of another project sees nothing of this device; a stopped flow sends nothing.
 */

const PG_URL = process.env.FORWARD_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const available = await serviceReachable('PostgreSQL', 5432);

describe.skipIf(!available)('a flow from devices posting through the broker', () => {
    let s: TestServer;
    let device: Device;
    let projectId: number;
    let table: string;
    let admin: pg.Client;
    let http: Server;
    const received: Array<Record<string, unknown>> = [];
    let httpUrl = '';
    const stop: Array<() => Promise<unknown>> = [];

    beforeAll(async () => {
        s = await createTestServer({ forward: { route: { idleMs: 50 } } });
        const { url, broker } = await startBroker(s);
        stop.push(() => broker.close());
        const l = await lamp(s);
        const [row] = rowsOf<{ project_id: number | null }>(
            await s.db.execute(sql`SELECT project_id FROM devices WHERE id = ${l.deviceId}`),
        );
        projectId =
            row.project_id ??
            Number(rowsOf<{ id: number }>(await s.db.execute(sql`SELECT min(id) AS id FROM projects`))[0].id);
        await s.db.execute(sql`UPDATE devices SET project_id = ${projectId} WHERE id = ${l.deviceId}`);
        device = await online(url, l);
        admin = new pg.Client({ connectionString: PG_URL });
        await admin.connect();
        table = randomName('fwd');
        await admin.query(`CREATE TABLE ${table} (dn text, power double precision, high boolean, at bigint)`);
        http = createServer((req, res) => void body(req).then((b) => (received.push(JSON.parse(b)), res.end('ok'))));
        await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
        httpUrl = `http://127.0.0.1:${(http.address() as { port: number }).port}/hook`;
    }, 120_000);

    afterAll(async () => {
        device?.client.end(true);
        http?.close();
        for (const f of stop) await f();
        await admin?.query(`DROP TABLE IF EXISTS ${table}`).catch(() => undefined);
        await admin?.end();
        await s?.close();
    });

    async function destination(name: string, kind: string, config: Record<string, unknown>, project = projectId) {
        return (
            await ok<{ id: number }>(s, 'POST', '/api/forward/destination/save', {
                projectId: project,
                name,
                kind,
                config,
            })
        ).id;
    }

    it('sends what the SQL selects to PostgreSQL and to an HTTP endpoint, in order, typed as selected', async () => {
        const pgId = await destination('库表', 'postgres', {
            host: '127.0.0.1',
            port: 5432,
            user: 'postgres',
            password: '',
            database: 'test',
            table,
        });
        const httpId = await destination('推送', 'http', { url: httpUrl, method: 'POST' });
        const flow = await ok<{ id: number }>(s, 'POST', '/api/forward/flow/save', {
            projectId,
            name: '高功率',
            sql: `SELECT deviceName() AS dn, items.ActivePower.value AS power, items.ActivePower.value > 500 AS high, timestamp() AS at
                  FROM "/sys/${device.productKey}/+/thing/event/property/post" WHERE items.ActivePower.value > 100`,
            destinationIds: [pgId, httpId],
        });
        await ok(s, 'POST', '/api/forward/flow/enable', { id: flow.id, enabled: true });
        for (const power of [150, 50, 800, 120.5]) await device.post({ ActivePower: power });
        await until(async () => (await admin.query(`SELECT count(*)::int AS n FROM ${table}`)).rows[0].n === 3, 15_000);
        const rows = (await admin.query(`SELECT dn, power, high, at FROM ${table}`)).rows;
        expect(rows.map((r) => [r.dn, r.power, r.high])).toEqual([
            [device.deviceName, 150, false],
            [device.deviceName, 800, true],
            [device.deviceName, 120.5, false],
        ]);
        expect(Number(rows[0].at)).toBeGreaterThan(Date.now() - 60_000);
        await until(() => received.length === 3, 15_000);
        expect(received.map((b) => (b.row as { power: number }).power)).toEqual([150, 800, 120.5]);
        expect(received[0]).toMatchObject({
            flowName: '高功率',
            productKey: device.productKey,
            deviceName: device.deviceName,
        });
        // A route counts what it sent once it has moved its position on, just after the destination acknowledged.
        const figures = async () =>
            (
                await ok<{ records: Array<{ id: number; figures: { sent: number; dead: number } }> }>(
                    s,
                    'GET',
                    '/api/forward/flow/list?pageSize=100',
                )
            ).records.find((f) => f.id === flow.id)?.figures;
        await until(async () => (await figures())?.sent === 6, 15_000);
        expect(await figures()).toMatchObject({ sent: 6, dead: 0 });
        // Stopped: what the device posts now stays where it is.
        await ok(s, 'POST', '/api/forward/flow/enable', { id: flow.id, enabled: false });
        await device.post({ ActivePower: 999 });
        await new Promise((r) => setTimeout(r, 1500));
        expect(received).toHaveLength(3);
        // The figures are the routes' own (kept with their positions), not the running workers': a stopped flow (or
        // one whose routes another process sends) still says what it selected and sent.
        const stopped = await ok<{ records: Array<{ id: number; figures: { selected: number; sent: number } }> }>(
            s,
            'GET',
            '/api/forward/flow/list?pageSize=100',
        );
        expect(stopped.records.find((f) => f.id === flow.id)?.figures).toMatchObject({ selected: 3, sent: 6 });
    });

    it('keeps what a cut PostgreSQL missed and delivers all of it, in order, when the connection comes back', async () => {
        const proxy = await tcpProxy(5432);
        stop.push(() => proxy.close());
        const cutTable = randomName('fwdcut');
        await admin.query(`CREATE TABLE ${cutTable} (power double precision)`);
        stop.push(() => admin.query(`DROP TABLE IF EXISTS ${cutTable}`));
        const id = await destination('断线库表', 'postgres', {
            host: '127.0.0.1',
            port: proxy.port,
            user: 'postgres',
            password: '',
            database: 'test',
            table: cutTable,
        });
        const flow = await ok<{ id: number }>(s, 'POST', '/api/forward/flow/save', {
            projectId,
            name: '断线',
            sql: `SELECT items.ActivePower.value AS power FROM "/sys/${device.productKey}/${device.deviceName}/thing/event/property/post"`,
            destinationIds: [id],
        });
        await ok(s, 'POST', '/api/forward/flow/enable', { id: flow.id, enabled: true });
        await device.post({ ActivePower: 1 });
        await until(
            async () => (await admin.query(`SELECT count(*)::int AS n FROM ${cutTable}`)).rows[0].n === 1,
            15_000,
        );
        proxy.cut();
        for (let i = 2; i <= 30; i++) await device.post({ ActivePower: i });
        const failing = async () =>
            (
                await ok<{ figures: { failed: number; lastError: string | null } }>(
                    s,
                    'GET',
                    `/api/forward/flow/detail?id=${flow.id}`,
                )
            ).figures;
        await until(async () => (await failing()).failed > 0, 15_000);
        expect((await failing()).lastError).toMatch(/PostgreSQL|连接/);
        proxy.restore();
        await until(
            async () => (await admin.query(`SELECT count(DISTINCT power)::int AS n FROM ${cutTable}`)).rows[0].n === 30,
            30_000,
        );
        const powers = (await admin.query(`SELECT power FROM ${cutTable} ORDER BY ctid`)).rows.map((r) =>
            Number(r.power),
        );
        // At least once: a batch whose commit was cut may arrive twice, never out of order.
        const firsts = powers.filter((p, i) => powers.indexOf(p) === i);
        expect(firsts).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
        expect(powers.length - 30).toBeLessThanOrEqual(29);
    });

    it("forwards nothing of a device outside the flow's project", async () => {
        const [other] = rowsOf<{ id: number }>(
            await s.db.execute(
                sql`INSERT INTO projects (code, name, class_id) SELECT 'fwd' || floor(random() * 1e6)::int, '别的项目', min(id) FROM scenes RETURNING id`,
            ),
        );
        const before = received.length;
        const hook = await destination('别处推送', 'http', { url: httpUrl, method: 'POST' }, Number(other.id));
        const flow = await ok<{ id: number }>(s, 'POST', '/api/forward/flow/save', {
            projectId: Number(other.id),
            name: '全部',
            sql: 'SELECT * FROM "/sys/+/+/thing/event/property/post"',
            destinationIds: [hook],
        });
        await ok(s, 'POST', '/api/forward/flow/enable', { id: flow.id, enabled: true });
        await device.post({ ActivePower: 700 });
        await new Promise((r) => setTimeout(r, 1500));
        expect(received.length).toBe(before);
    });

    it('refuses a flow whose SQL does not parse, with its position, and stores nothing', async () => {
        const r = await api(s, 'POST', '/api/forward/flow/save', {
            projectId,
            name: '坏的',
            sql: 'SELEC x FROM "/a"',
            destinationIds: [],
        });
        expect(r.status).toBe(400);
        expect(r.body.msg).toMatch(/第1行第\d+列/);
        const [{ n }] = rowsOf<{ n: string }>(
            await s.db.execute(sql`SELECT count(*) AS n FROM forward_flows WHERE name = '坏的'`),
        );
        expect(Number(n)).toBe(0);
    });
});

function body(req: IncomingMessage): Promise<string> {
    return new Promise((resolve) => {
        let text = '';
        req.on('data', (d) => (text += d));
        req.on('end', () => resolve(text));
    });
}
