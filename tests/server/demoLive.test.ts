import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import { eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
    alertEvents,
    deviceMessages,
    devices,
    edgeInstances,
    notifyChannels,
    otaPackages,
    ruleLogs,
    rules,
    simulations,
} from '../../server/db/schema';
import { DEMO_DEVICES } from '../../server/seed/devices';
import {
    DEMO_ALERT_RULE,
    DEMO_CHANNEL,
    DEMO_EDGE_INSTANCE,
    DEMO_SCENE_RULE,
    startLiveDemo,
} from '../../server/seed/live';
import { DEMO_FIRMWARE, demoFirmwareBytes } from '../../server/seed/ota';
import { demoWebhookUrl } from '../../server/seed/webhook';
import { DEMO_CURVES, illuminance, temperature, DARK_LUX } from '../../server/simulation/curves';
import { createTestServer, type TestServer } from '../../server/testing';
import { startBroker, until, type Broker } from './mqttSupport';
import { call, form } from './support';

/**
 * The live demo (server/seed/live.ts): the demo's live devices are connected by ordinary simulations through the
 * broker, the scene rule and the alert rule fire on the first reports, a demo simulation stops and starts like any
 * other, and a demo without DEMO_LIVE has none of it (and no device 在线).
 */
let s: TestServer;
let broker: Broker;
let quiet: TestServer;
/** The live server's HTTP port (its demo webhook channel is addressed to it), served by app.fetch. */
let http: Server;
let port = 0;
const live = DEMO_DEVICES.filter((d) => d.live).map((d) => d.deviceName);

const statuses = async (server: TestServer) =>
    new Map(
        (await server.db.select({ name: devices.deviceName, status: devices.status }).from(devices)).map((r) => [
            r.name,
            r.status,
        ]),
    );
const onlineNames = async (server: TestServer) =>
    [...(await statuses(server))]
        .filter(([, status]) => status === 'ONLINE')
        .map(([name]) => name)
        .sort();

beforeAll(async () => {
    // The platform's HTTP port first (the seed addresses the demo channel to it), answering once the server exists.
    http = createServer(getRequestListener((request) => s.app.fetch(request)));
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    port = (http.address() as AddressInfo).port;
    [s, quiet] = await Promise.all([
        createTestServer({ live: true, config: { port } }),
        // The quiet demo also stands for a machine without ffmpeg (its program does not exist).
        createTestServer({ config: { ffmpegPath: '/nonexistent/ffmpeg' } }),
    ]);
    // Nothing connects before the broker runs: the seed leaves every device as not connected.
    expect(await onlineNames(s)).toEqual([]);
    broker = (await startBroker(s)).broker;
    await startLiveDemo(s);
    // Two demo servers at once take over a minute on a loaded machine (65 s seen at load average 24).
}, 180_000);

afterAll(async () => {
    await s?.simulator.close();
    await broker?.close();
    await s?.close();
    await quiet?.close();
    await new Promise((r) => http?.close(r));
});

describe('the live demo', () => {
    it('connects exactly the live devices through the broker, by simulations that report on their curves', async () => {
        await until(async () => (await onlineNames(s)).length === live.length, 10_000);
        expect(await onlineNames(s)).toEqual([...live].sort());
        const listed = await call(s, 'GET', '/api/simulation/list?pageNumber=1&pageSize=20');
        const records = (listed.body.data as { records: Array<{ running: boolean; deviceNames: string[] }> }).records;
        expect(records.every((r) => r.running)).toBe(true);
        expect(records.flatMap((r) => r.deviceNames).sort()).toEqual([...live].sort());
        // Every curve names only properties of its product's thing model and gives values in range.
        const now = Date.now();
        for (const [productKey, curve] of Object.entries(DEMO_CURVES)) {
            const values = curve.values({ now, startedAt: now, index: 0 });
            expect(Object.keys(values).length, productKey).toBeGreaterThan(0);
        }
    });

    it('fires the scene rule and the alert rule on the first reports (their excursions open each cycle)', async () => {
        const now = Date.now();
        expect(illuminance({ now, startedAt: now, index: 0 })).toBeLessThan(DARK_LUX);
        expect(temperature({ now, startedAt: now, index: 0 })).toBeGreaterThan(30);
        // Out of the excursion, by day: light; any time: below the alert's threshold.
        const later = now + 5 * 60_000;
        expect(temperature({ now: later, startedAt: now, index: 0 })).toBeLessThan(30);
        await until(async () => (await s.db.select().from(ruleLogs)).length >= 2, 10_000);
        await s.rules.drain();
        const fired = await s.db
            .select({ name: rules.name, success: ruleLogs.success })
            .from(ruleLogs)
            .innerJoin(rules, eq(rules.id, ruleLogs.ruleId));
        expect(fired.filter((r) => r.success).map((r) => r.name)).toEqual(
            expect.arrayContaining([DEMO_SCENE_RULE, DEMO_ALERT_RULE]),
        );
        const [alert] = await s.db
            .select()
            .from(alertEvents)
            .innerJoin(rules, eq(rules.id, alertEvents.ruleId))
            .where(eq(rules.name, DEMO_ALERT_RULE));
        expect(alert.alert_events).toMatchObject({ type: 2, status: 0, deviceName: 'TH-OFFICE-01' });
    });

    it("notifies the alert through the demo's webhook channel, answered by the platform itself: /log's 告警消息", async () => {
        const [channel] = await s.db.select().from(notifyChannels);
        expect(channel).toMatchObject({ name: DEMO_CHANNEL, type: 'webhook', config: { url: demoWebhookUrl(port) } });
        type Notices = {
            records: Array<{
                appName: string;
                noticeType: string;
                messageType: string;
                recipient: string;
                content: string;
                status: string;
                deviceName: string;
                attempts: Array<{ ok: boolean; status?: number }>;
            }>;
            total: number;
        };
        const notices = async () =>
            ((await call(s, 'GET', '/api/log/alerts?pageNumber=1&pageSize=20')).body.data as Notices).records;
        await until(async () => (await notices()).some((n) => n.status === 'sent'), 10_000);
        const sent = (await notices()).find((n) => n.status === 'sent')!;
        expect(sent).toMatchObject({
            appName: DEMO_ALERT_RULE,
            noticeType: 'Webhook',
            messageType: '告警通知',
            recipient: demoWebhookUrl(port),
            deviceName: 'TH-OFFICE-01',
            attempts: [{ ok: true, status: 200 }],
        });
        expect(sent.content).toMatch(/^TH-OFFICE-01 温度 [\d.]+°C，超过 30°C$/);
        // Only on the receiver: an anonymous POST elsewhere is still refused without a session.
        const elsewhere = await fetch(`http://127.0.0.1:${port}/api/log/alerts`, { method: 'POST', body: '{}' });
        expect((await elsewhere.json()) as { code: number }).toMatchObject({ code: 401 });
    });

    it('has a demo firmware, stored and signed as OTA does, and one finished batch: both lamps 成功 on V2.3.1', async () => {
        type Page<T> = { records: T[]; total: number };
        const packages = (await call(s, 'GET', '/api/ota/package?pageNumber=1&pageSize=10')).body.data as Page<{
            id: number;
            name: string;
            productKey: string;
            version: string;
            sourceVersions: string[];
            signMethod: string;
            fileName: string;
            size: number;
            sha256: string;
        }>;
        expect(packages.total).toBe(1);
        const pkg = packages.records[0];
        const bytes = demoFirmwareBytes();
        const sha256 = createHash('sha256').update(bytes).digest('hex');
        expect(pkg).toMatchObject({
            name: DEMO_FIRMWARE.name,
            productKey: 'a1LampDemo7',
            version: 'V2.3.1',
            sourceVersions: ['V2.1.0'],
            signMethod: 'SHA256',
            fileName: DEMO_FIRMWARE.fileName,
            size: bytes.length,
            sha256,
        });
        // The file is in FILES_DIR and a device downloads it through a signed URL, as any package.
        const url = await s.ota.signer.sign(pkg.id, Date.now() + 60_000);
        const download = await s.anonFetch(url);
        expect(download.status).toBe(200);
        expect(
            createHash('sha256')
                .update(Buffer.from(await download.arrayBuffer()))
                .digest('hex'),
        ).toBe(sha256);

        const batches = (await call(s, 'GET', `/api/ota/batch?packageId=${pkg.id}&pageNumber=1&pageSize=10`)).body
            .data as Page<{ id: number; status: string; total: number; counts: Record<string, number> }>;
        expect(batches.records).toHaveLength(1);
        const batch = batches.records[0];
        expect(batch).toMatchObject({ status: 'done', total: 2, counts: { succeeded: 2, failed: 0, pending: 0 } });
        const tasks = (await call(s, 'GET', `/api/ota/batch/devices?batchId=${batch.id}&pageNumber=1&pageSize=10`)).body
            .data as Page<{ deviceId: number; deviceName: string; stateName: string; fromVersion: string }>;
        expect(tasks.records.map((t) => [t.deviceName, t.stateName, t.fromVersion])).toEqual(
            DEMO_FIRMWARE.devices.map((name) => [name, '成功', 'V2.1.0']),
        );
        for (const t of tasks.records) {
            const ota = (await call(s, 'GET', `/api/ota/device?deviceId=${t.deviceId}`)).body.data as {
                modules: Array<{ module: string; version: string }>;
            };
            expect(ota.modules).toEqual([expect.objectContaining({ module: 'default', version: 'V2.3.1' })]);
        }
        // The upgrade is in the lamps' message log as it happened: the push carrying the signed URL and the file's
        // SHA-256, the progress steps, the informs and the result.
        const log = await s.db
            .select({ method: deviceMessages.method, data: deviceMessages.data })
            .from(deviceMessages)
            .where(eq(deviceMessages.deviceId, tasks.records[0].deviceId))
            // The final inform and the result it completes share their second: the log's own order breaks the tie.
            .orderBy(deviceMessages.ts, deviceMessages.id);
        const ota = log.filter((m) => m.method.startsWith('ota.'));
        expect(ota.map((m) => m.method)).toEqual([
            'ota.inform',
            'ota.upgrade',
            'ota.progress',
            'ota.progress',
            'ota.progress',
            'ota.inform',
            'ota.result',
        ]);
        const push = ota[1].data as { payload: { data: { url: string; sign: string; signMethod: string } } };
        expect(push.payload.data).toMatchObject({ sign: sha256, signMethod: 'SHA256' });
        expect(push.payload.data.url).toContain(`/api/ota/download?packageId=${pkg.id}&expires=`);
    });

    it('runs an edge instance on the demo gateway', async () => {
        const [instance] = await s.db.select().from(edgeInstances).where(eq(edgeInstances.name, DEMO_EDGE_INSTANCE));
        const [gateway] = await s.db.select().from(devices).where(eq(devices.id, instance.gatewayId));
        expect(gateway.deviceName).toBe('GW-FAC-01');
    });

    it('stops and starts a demo simulation from the console like any other', async () => {
        const [sim] = await s.db
            .select({ id: simulations.id })
            .from(simulations)
            .innerJoin(devices, eq(devices.productId, simulations.productId))
            .where(eq(devices.deviceName, 'TH-OFFICE-01'));
        expect((await call(s, 'POST', '/api/simulation/stop', form({ id: sim.id }))).body.code).toBe(200);
        await until(async () => (await statuses(s)).get('TH-OFFICE-01') === 'OFFLINE');
        expect((await s.db.select().from(simulations).where(eq(simulations.id, sim.id)))[0].running).toBe(false);
        expect((await call(s, 'POST', '/api/simulation/start', form({ id: sim.id }))).body.code).toBe(200);
        await until(async () => (await statuses(s)).get('TH-OFFICE-01') === 'ONLINE');
    });

    it('without DEMO_LIVE: the demo has no simulations, rules, edge instance, channel or firmware, and no device 在线', async () => {
        expect(await quiet.db.select().from(simulations)).toEqual([]);
        expect(await quiet.db.select().from(rules)).toEqual([]);
        expect(await quiet.db.select().from(edgeInstances)).toEqual([]);
        expect(await quiet.db.select().from(otaPackages)).toEqual([]);
        expect(await quiet.db.select().from(notifyChannels)).toEqual([]);
        expect(await onlineNames(quiet)).toEqual([]);
        const liveRows = await quiet.db
            .select({ status: devices.status })
            .from(devices)
            .where(inArray(devices.deviceName, live));
        expect(liveRows.map((r) => r.status)).toEqual(live.map(() => 'OFFLINE'));
    });
});

describe('a machine without ffmpeg', () => {
    it('says on /vaServices (platform info) why video cannot run and how to install ffmpeg', async () => {
        const info = await call(quiet, 'GET', '/api/platform/info');
        expect((info.body.data as { videoToolMissing: string }).videoToolMissing).toContain(
            'apt-get install -y ffmpeg',
        );
        const here = await call(s, 'GET', '/api/platform/info');
        expect((here.body.data as { videoToolMissing: string | null }).videoToolMissing).toBeNull();
    });
});
