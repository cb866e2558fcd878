/* eslint-disable @typescript-eslint/no-explicit-any -- the answers are checked by value, not by type */
import { readFile, writeFile } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import path from 'node:path';
import { createAdaptorServer } from '@hono/node-server';
import { and, asc, eq, gte } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deviceMessages, otaPackages } from '../../server/db/schema';
import { otaDir } from '../../server/ota/packages';
import { createSimulator, type Simulator } from '../../server/simulation/simulator';
import { createTestServer, type TestServer } from '../../server/testing';
import { startBroker, until, type Broker } from './mqttSupport';
import { firmware, uploadFirmware } from './otaSupport';
import { call, form, json } from './support';
import { lampProduct } from './telemetrySupport';

/**
 * The platform's own device simulation plays OTA as an Alibaba-SDK device does: its devices inform 1.0.0 on
 * connecting, a batch over them pushes a package, each downloads the signed URL over real HTTP (the test server's app
 * on a port, as `npm start` serves it), reports progress, checks the sign and informs the target version; the batch
 * counts 成功 and the versions are stored, and kept across a restart of the simulator. A package whose stored file was
 * corrupted fails the check: -3 with its desc, counted 失败.
 */

let s: TestServer;
let broker: Broker;
let http: ReturnType<typeof createAdaptorServer>;
let sim: Simulator;
const logs: string[] = [];
let product: { productId: number; productKey: string };
let simulationId: number;
let ids: number[] = [];

const data = (a: { status: number; body: unknown }) => {
    expect(a.status, JSON.stringify(a.body)).toBe(200);
    return (a.body as any).data;
};

function freePort(): Promise<number> {
    return new Promise((resolve, reject) => {
        const srv = createServer();
        srv.once('error', reject);
        srv.listen(0, '127.0.0.1', () => {
            const { port } = srv.address() as AddressInfo;
            srv.close(() => resolve(port));
        });
    });
}

const simulator = () =>
    createSimulator({ db: s.db, access: s.access, log: (m) => logs.push(m), ota: { bytesPerSecond: 0, flashMs: 30 } });

beforeAll(async () => {
    // The pushed URL is http://127.0.0.1:PORT/api/ota/download…: the app listens there, as the real server does.
    const port = await freePort();
    s = await createTestServer({ config: { port } });
    ({ broker } = await startBroker(s));
    http = createAdaptorServer({ fetch: s.app.fetch });
    await new Promise<void>((resolve) => http.listen(port, '127.0.0.1', resolve));
    expect((http.address() as AddressInfo).port).toBe(port);
    product = await lampProduct(s);
    sim = simulator();
});

afterAll(async () => {
    await sim?.close();
    await new Promise((r) => http?.close(r));
    await broker?.close();
    await s?.close();
});

async function moduleVersion(deviceId: number) {
    const ota = data(await call(s, 'GET', `/api/ota/device?deviceId=${deviceId}`));
    return ota.modules.find((m: any) => m.module === 'default')?.version as string | undefined;
}

const versions = () => Promise.all(ids.map(moduleVersion));

async function newPackage(version: string, signMethod: 'MD5' | 'SHA256', size: number) {
    const a = await uploadFirmware(
        s,
        { name: `模拟固件${version}`, productId: product.productId, version, signMethod },
        'fw.bin',
        firmware(size, 11),
    );
    return data(a) as { id: number; version: string };
}

async function batchOver(packageId: number) {
    return data(
        await call(s, 'POST', '/api/ota/batch', json({ packageId, scope: 'devices', deviceIds: ids.join(',') })),
    ).id as number;
}

const detail = async (id: number) => data(await call(s, 'GET', `/api/ota/batch/detail?id=${id}`));

async function countsReach(id: number, want: Record<string, number>) {
    await until(async () => {
        const c = (await detail(id)).counts;
        return Object.entries(want).every(([k, n]) => c[k] === n);
    }, 15_000);
    return detail(id);
}

/** The device's OTA messages of a method since a time, oldest first. */
async function logged(deviceId: number, method: string, since = new Date(0)) {
    const rows = await s.db
        .select({ data: deviceMessages.data })
        .from(deviceMessages)
        .where(
            and(
                eq(deviceMessages.deviceId, deviceId),
                eq(deviceMessages.method, method),
                gte(deviceMessages.ts, since),
            ),
        )
        .orderBy(asc(deviceMessages.ts), asc(deviceMessages.id));
    return rows.map((r) => r.data as any);
}

describe('the device simulation plays OTA', () => {
    it('its devices inform their version (1.0.0 at first) when they connect', async () => {
        const made = data(
            await call(
                s,
                'POST',
                '/api/simulation/save',
                form({ productId: product.productId, amount: 3, intervalSeconds: 60, mode: 'random', start: 'false' }),
            ),
        );
        simulationId = made.id;
        await sim.start(simulationId);
        const rows = (await s.db.execute(
            `SELECT device_id FROM simulation_devices WHERE simulation_id = ${simulationId} ORDER BY position` as never,
        )) as unknown as { rows: Array<{ device_id: string | number }> };
        ids = rows.rows.map((r) => Number(r.device_id));
        expect(ids).toHaveLength(3);
        await until(async () => (await versions()).every((v) => v === '1.0.0'), 10_000);
        // The inform's row in the message log goes through the batch writer after the version is kept (OtaService's
        // log is not awaited): on PostgreSQL CI read the log before the batch landed.
        await until(async () => (await logged(ids[0], 'ota.inform')).length > 0, 10_000);
        expect((await logged(ids[0], 'ota.inform'))[0]).toMatchObject({ version: '1.0.0', module: 'default' });
    });

    it('a batch upgrades all three to 成功 over real HTTP downloads, with progress, and stores their versions', async () => {
        const pkg = await newPackage('2.0.0', 'SHA256', 600_000);
        const started = new Date();
        const id = await batchOver(pkg.id);
        const done = await countsReach(id, { succeeded: 3 });
        expect(done.summary).toMatch(/成功 3 \/ 失败 0/);
        expect(await versions()).toEqual(['2.0.0', '2.0.0', '2.0.0']);
        // Progress went up in steps, from the start of the download to 100, before the inform of the new version.
        const steps = (await logged(ids[0], 'ota.progress', started)).map((d) => Number(d.step));
        expect(steps[0]).toBe(1);
        expect(steps.at(-1)).toBe(100);
        expect(steps.filter((n) => n > 1 && n < 100).length).toBeGreaterThanOrEqual(5);
        expect([...steps].sort((a, b) => a - b)).toEqual(steps);
        const informs = await logged(ids[0], 'ota.inform', started);
        expect(informs.at(-1)).toMatchObject({ version: '2.0.0', module: 'default' });
        // Each download went through the signed URL (the log holds the push with its URL).
        const push = (await logged(ids[0], 'ota.upgrade', started))[0];
        expect(push.payload.data.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/ota\/download\?packageId=/);
        expect(logs).toEqual([]);
    });

    it('keeps an upgraded version across a restart of the simulator', async () => {
        await sim.close();
        await until(async () => !s.access.isOnline(ids[0]));
        const restarted = new Date();
        sim = simulator();
        await sim.start(simulationId);
        await until(async () => (await logged(ids[0], 'ota.inform', restarted)).length > 0, 10_000);
        expect((await logged(ids[0], 'ota.inform', restarted))[0]).toMatchObject({ version: '2.0.0' });
        expect(await versions()).toEqual(['2.0.0', '2.0.0', '2.0.0']);
    });

    it('a corrupted package fails the check: -3 with its desc, counted 失败, the version unchanged', async () => {
        const pkg = await newPackage('2.1.0', 'MD5', 300_000);
        // The stored file changes after its MD5 was taken (a disk fault): the devices download what no longer matches.
        const [row] = await s.db
            .select({ storedName: otaPackages.storedName })
            .from(otaPackages)
            .where(eq(otaPackages.id, pkg.id));
        const file = path.join(otaDir(s.config.filesDir), row.storedName);
        const bytes = await readFile(file);
        bytes[1000] ^= 0xff;
        await writeFile(file, bytes);
        const started = new Date();
        const id = await batchOver(pkg.id);
        const done = await countsReach(id, { failed: 3 });
        expect(done.counts.succeeded).toBe(0);
        const tasks = data(await call(s, 'GET', `/api/ota/batch/devices?batchId=${id}&pageSize=10`)).records as any[];
        for (const t of tasks) {
            expect(t).toMatchObject({ stateName: '失败', reason: '校验失败：固件签名不一致（MD5）' });
        }
        const last = (await logged(ids[1], 'ota.progress', started)).at(-1);
        expect(last).toMatchObject({ step: -3, desc: '固件签名不一致（MD5）' });
        expect(await versions()).toEqual(['2.0.0', '2.0.0', '2.0.0']);
    });
});
