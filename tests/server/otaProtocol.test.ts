/* eslint-disable @typescript-eslint/no-explicit-any -- the answers are checked by value, not by type */
import { and, eq, like, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { alertEvents, deviceMessages, ruleLogs } from '../../server/db/schema';
import { createTestServer, type TestServer } from '../../server/testing';
import { createDevice, createProduct } from './devicesSupport';
import { secretOf, startBroker, until, type Broker } from './mqttSupport';
import { firmware, otaDevice, uploadFirmware, type DeviceBehaviour } from './otaSupport';
import { call, json } from './support';

/**
 * The OTA protocol against simulated devices speaking Alibaba's topics over MQTT: push, signed download, progress and
 * the version inform completing the upgrade (MD5 and SHA256); a signature mismatch (-3) counted 失败; a timeout with
 * and without a retry; cancel; a dynamic batch reaching a device that connects later; the rate limit; firmware/get.
 * The scheduler runs on demand (s.ota.tick()) and its clock is the test's.
 */

let s: TestServer;
let broker: Broker;
let url: string;
let clock = Date.now();
const devices: Array<Awaited<ReturnType<typeof otaDevice>>> = [];
let product: { productId: number; productKey: string };
let versions = 0;

beforeAll(async () => {
    s = await createTestServer({ seed: false, now: () => new Date(clock) });
    ({ broker, url } = await startBroker(s));
    product = (await createProduct(s)) as any;
});
afterAll(async () => {
    for (const d of devices) await d.end();
    await broker?.close();
    await s?.close();
});

const data = (a: { body: unknown }) => (a.body as any).data;

async function newDevice(behaviour: DeviceBehaviour = 'upgrade', version = '1.0.0') {
    const row = await createDevice(s, product.productKey);
    const creds = {
        productKey: product.productKey,
        deviceName: row.deviceName,
        secret: await secretOf(s, row.deviceId),
    };
    const d = await otaDevice(
        url,
        creds,
        (path, range) => s.anonFetch(path, range ? { headers: { range } } : {}),
        behaviour,
    );
    devices.push(d);
    await d.inform(version);
    await until(async () => (await moduleVersion(row.deviceId)) === version);
    return { ...d, deviceId: Number(row.deviceId), deviceName: row.deviceName };
}

async function moduleVersion(deviceId: number, module = 'default') {
    const ota = data(await call(s, 'GET', `/api/ota/device?deviceId=${deviceId}`));
    return ota.modules.find((m: any) => m.module === module)?.version as string | undefined;
}

async function newPackage(signMethod: 'MD5' | 'SHA256' = 'MD5', extra: Record<string, unknown> = {}) {
    const version = `2.0.${++versions}`;
    const a = await uploadFirmware(
        s,
        { name: `固件${versions}`, productId: product.productId, version, signMethod, ...extra },
        'fw.bin',
        firmware(20_000, versions),
    );
    expect(a.status, JSON.stringify(a.body)).toBe(200);
    return data(a) as { id: number; version: string };
}

async function batch(body: Record<string, unknown>) {
    const a = await call(s, 'POST', '/api/ota/batch', json(body));
    expect(a.status, JSON.stringify(a.body)).toBe(200);
    return data(a).id as number;
}

const detail = async (id: number) => data(await call(s, 'GET', `/api/ota/batch/detail?id=${id}`));
const tasks = async (id: number) =>
    data(await call(s, 'GET', `/api/ota/batch/devices?batchId=${id}&pageSize=100`)).records as any[];

async function countsReach(id: number, want: Record<string, number>) {
    await until(async () => {
        await s.ota.tick();
        const c = (await detail(id)).counts;
        return Object.entries(want).every(([k, n]) => c[k] === n);
    }, 10_000);
    return detail(id);
}

describe('an upgrade over the devices own topics', () => {
    it.each(['MD5', 'SHA256'] as const)('%s: push, signed download, progress, inform completes', async (method) => {
        const a = await newDevice();
        const b = await newDevice();
        const pkg = await newPackage(method);
        const id = await batch({ packageId: pkg.id, scope: 'devices', deviceIds: `${a.deviceId},${b.deviceId}` });
        await countsReach(id, { succeeded: 2 });
        // The batch closes at the scheduler's next run after its last device.
        await until(async () => {
            await s.ota.tick();
            return (await detail(id)).status === 'done';
        });
        const done = await detail(id);
        expect(done.summary).toBe('待推送 0 / 已推送 0 / 升级中 0 / 成功 2 / 失败 0 / 已取消 0');
        const push = a.pushes[0];
        expect(push).toMatchObject({
            code: '1000',
            message: 'success',
            data: { version: pkg.version, signMethod: method },
        });
        expect('md5' in push.data).toBe(method === 'MD5');
        expect(await moduleVersion(a.deviceId)).toBe(pkg.version);
        // The push, the progress, the inform and the result are in the device's message log.
        const logged = await s.db
            .select({ method: deviceMessages.method })
            .from(deviceMessages)
            .where(and(eq(deviceMessages.deviceId, a.deviceId), like(deviceMessages.method, 'ota.%')));
        expect(new Set(logged.map((r) => r.method))).toEqual(
            new Set(['ota.inform', 'ota.upgrade', 'ota.progress', 'ota.result']),
        );
        const history = data(await call(s, 'GET', `/api/ota/device?deviceId=${a.deviceId}`)).history;
        expect(history[0]).toMatchObject({
            batchId: id,
            version: pkg.version,
            fromVersion: '1.0.0',
            stateName: '成功',
        });
    });

    it('counts a signature mismatch (-3) as 失败 with its reason', async () => {
        const d = await newDevice('corrupt');
        const pkg = await newPackage('SHA256');
        const id = await batch({ packageId: pkg.id, scope: 'devices', deviceIds: String(d.deviceId) });
        await countsReach(id, { failed: 1 });
        const [t] = await tasks(id);
        expect(t).toMatchObject({ state: 'failed', stateName: '失败', reason: '校验失败：固件签名不一致' });
        expect(await moduleVersion(d.deviceId)).toBe('1.0.0');
    });

    it('fails a silent device at its timeout, after its retry', async () => {
        const d = await newDevice('silent');
        const pkg = await newPackage();
        const id = await batch({
            packageId: pkg.id,
            scope: 'devices',
            deviceIds: String(d.deviceId),
            timeoutMinutes: 5,
            retries: 1,
        });
        await countsReach(id, { pushed: 1 });
        await until(() => d.pushes.length === 1);
        clock += 4 * 60_000;
        await s.ota.tick();
        expect((await detail(id)).counts.pushed).toBe(1);
        clock += 2 * 60_000; // past 5 minutes: retried (pushed again)
        await until(async () => {
            await s.ota.tick();
            return d.pushes.length === 2;
        });
        expect((await tasks(id))[0]).toMatchObject({ state: 'pushed', attempts: 2 });
        clock += 6 * 60_000; // the retry times out too: failed for good
        await countsReach(id, { failed: 1 });
        // The batch closes in the scheduler's run that failed it, or the next (a run may be under way meanwhile).
        await until(async () => {
            await s.ota.tick();
            return (await detail(id)).status === 'done';
        });
        expect((await tasks(id))[0].reason).toBe('升级超时');
    });

    it('cancels one device, then the batch; later reports change nothing', async () => {
        const [a, b, c] = [await newDevice('silent'), await newDevice('silent'), await newDevice('silent')];
        const pkg = await newPackage();
        const id = await batch({
            packageId: pkg.id,
            scope: 'devices',
            deviceIds: [a, b, c].map((d) => d.deviceId).join(','),
        });
        await countsReach(id, { pushed: 3 });
        const first = (await tasks(id)).find((t) => t.deviceId === a.deviceId);
        expect((await call(s, 'POST', '/api/ota/task/cancel', json({ id: first.id }))).status).toBe(200);
        expect((await detail(id)).counts).toMatchObject({ pushed: 2, cancelled: 1 });
        // Deleting the package is refused while its batch runs.
        const del = await call(s, 'POST', '/api/ota/package/delete', json({ id: pkg.id }));
        expect([del.status, (del.body as any).msg]).toEqual([409, '该固件有进行中的升级批次，请先取消批次再删除']);
        expect((await call(s, 'POST', '/api/ota/batch/cancel', json({ id }))).status).toBe(200);
        const after = await detail(id);
        expect([after.status, after.counts.cancelled]).toEqual(['cancelled', 3]);
        await b.progress(50);
        await b.inform(pkg.version);
        await until(async () => (await moduleVersion(b.deviceId)) === pkg.version);
        expect((await tasks(id)).find((t) => t.deviceId === b.deviceId)).toMatchObject({
            state: 'cancelled',
            reason: '批次已取消',
        });
        const again = await call(s, 'POST', '/api/ota/batch/cancel', json({ id }));
        expect(again.status).toBe(409);
    });

    it('a dynamic batch reaches a device that connects later', async () => {
        const pkg = await newPackage('MD5', { sourceVersions: '1.5.0' });
        const id = await batch({ packageId: pkg.id, scope: 'product', dynamic: true });
        expect((await detail(id)).total).toBe(0);
        // A device on another version is not reached; one informing the source version is, and upgrades.
        await newDevice('upgrade', '1.4.0');
        const later = await newDevice('upgrade', '1.5.0');
        const done = await countsReach(id, { succeeded: 1 });
        expect(done.total).toBe(1);
        expect(done.status).toBe('running');
        expect(await moduleVersion(later.deviceId)).toBe(pkg.version);
    });

    it('honours the rate limit: at most N pushes per minute', async () => {
        const ds = [
            await newDevice('silent'),
            await newDevice('silent'),
            await newDevice('silent'),
            await newDevice('silent'),
        ];
        const pkg = await newPackage();
        const id = await batch({
            packageId: pkg.id,
            scope: 'devices',
            deviceIds: ds.map((d) => d.deviceId).join(','),
            ratePerMinute: 2,
        });
        await s.ota.tick();
        await s.ota.tick();
        expect((await detail(id)).counts).toMatchObject({ pushed: 2, pending: 2 });
        clock += 30_000;
        await s.ota.tick();
        expect((await detail(id)).counts).toMatchObject({ pushed: 2, pending: 2 });
        clock += 31_000;
        await countsReach(id, { pushed: 4, pending: 0 });
        await until(() => ds.every((d) => d.pushes.length === 1));
    });

    it('answers firmware/get with the pending task; a start time holds pushes back', async () => {
        const d = await newDevice('silent');
        const pkg = await newPackage('SHA256');
        const start = new Date(clock + 3_600_000).toISOString();
        const id = await batch({
            packageId: pkg.id,
            scope: 'devices',
            deviceIds: String(d.deviceId),
            startTime: start,
        });
        await s.ota.tick();
        expect((await detail(id)).counts.pending).toBe(1);
        expect(d.pushes).toHaveLength(0);
        const reply = await d.firmwareGet();
        expect(reply).toMatchObject({ id: '77', code: 200, data: { version: pkg.version, signMethod: 'SHA256' } });
        expect((await detail(id)).counts.pushed).toBe(1);
        const none = await (await newDevice('silent')).firmwareGet();
        expect(none).toMatchObject({ code: 200, data: {} });
    });

    it('verifies on at most 10 devices and marks the package verified', async () => {
        const pkg = await newPackage();
        const eleven = Array.from({ length: 11 }, (_, i) => i + 1).join(',');
        const refused = await call(
            s,
            'POST',
            '/api/ota/batch',
            json({ packageId: pkg.id, kind: 'verify', scope: 'devices', deviceIds: eleven }),
        );
        expect([refused.status, (refused.body as any).msg]).toEqual([400, '验证固件最多选择10台设备']);
        const d = await newDevice();
        const id = await batch({ packageId: pkg.id, kind: 'verify', scope: 'devices', deviceIds: String(d.deviceId) });
        await countsReach(id, { succeeded: 1 });
        await until(async () => data(await call(s, 'GET', `/api/ota/package/detail?id=${pkg.id}`)).verified === true);
        // A static batch that reaches nobody (every device is on the target or elsewhere) is refused.
        const none = await call(
            s,
            'POST',
            '/api/ota/batch',
            json({ packageId: pkg.id, scope: 'devices', deviceIds: String(d.deviceId) }),
        );
        expect([none.status, (none.body as any).msg]).toEqual([400, '没有符合条件的设备']);
        const [n] = await s.db.select({ n: sql<number>`count(*)::int` }).from(deviceMessages);
        expect(Number(n.n)).toBeGreaterThan(0);
    });
});

describe('a rule on an upgrade failing (trigger otaFailed, 固件升级失败)', () => {
    it('a device reporting -3 fires the rule: an alert 严重 naming package, version, step and reason, a journal row', async () => {
        const d = await newDevice('corrupt');
        const pkg = await newPackage('SHA256');
        const ruleOf = async (module: string, content: string) => {
            const a = await call(
                s,
                'POST',
                '/api/rule/save',
                json({
                    name: `升级失败告警_${module}`,
                    productKey: product.productKey,
                    deviceName: d.deviceName,
                    triggers: [{ type: 'otaFailed', module }],
                    actions: [{ type: 'alert', level: 2, content }],
                }),
            );
            expect(a.status, JSON.stringify(a.body)).toBe(200);
            return data(a).id as number;
        };
        const fires = await ruleOf(
            'default',
            '${deviceName} 升级 ${packageName} ${version} 失败（步骤 ${step}）：${reason}',
        );
        // A rule on another module stays quiet.
        const quiet = await ruleOf('mcu', '不应出现');
        const bad = await call(
            s,
            'POST',
            '/api/rule/save',
            json({
                name: '模块不对',
                productKey: product.productKey,
                triggers: [{ type: 'otaFailed', module: '模块' }],
                actions: [{ type: 'alert', level: 2, content: 'x' }],
            }),
        );
        expect([bad.status, (bad.body as any).msg]).toEqual([
            400,
            '触发条件第 1 行：模块名只能包含字母、数字、下划线、中划线和点号，不超过64个字符',
        ]);

        const id = await batch({ packageId: pkg.id, scope: 'devices', deviceIds: String(d.deviceId) });
        await countsReach(id, { failed: 1 });
        await s.rules.drain();
        const alerts = await s.db.select().from(alertEvents).where(eq(alertEvents.deviceId, d.deviceId));
        expect(alerts).toHaveLength(1);
        expect(alerts[0]).toMatchObject({
            ruleId: fires,
            type: 2, // 严重
            params: `${d.deviceName} 升级 固件${versions} ${pkg.version} 失败（步骤 -3）：校验失败：固件签名不一致`,
        });
        const journal = await s.db.select().from(ruleLogs).where(eq(ruleLogs.deviceId, d.deviceId));
        expect(journal.map((j) => [j.ruleId, j.triggerType, j.success])).toEqual([[fires, 'otaFailed', true]]);
        expect(journal[0].input).toMatchObject({
            kind: 'otaFailed',
            values: { packageName: `固件${versions}`, version: pkg.version, module: 'default', step: -3 },
        });
        expect(journal.some((j) => j.ruleId === quiet)).toBe(false);
    });
});
