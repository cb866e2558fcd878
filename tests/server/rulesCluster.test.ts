import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from './mqttSupport';
import { online, type Device, type JournalRow } from './rulesSupport';
import { createCluster, PG_URL, postgresReachable, type ServerProcess } from './spawnServer';

/**
 * Two server processes on one PostgreSQL run the rules as one platform (docs/rules.md "Several processes"): a rule
 * created, edited or disabled through the first takes effect at once in the second (NOTIFY; nothing polls), and a
 * schedule rule fires once per tick, not once per process; a duration keeps counting when a process restarts. Needs the machine's PostgreSQL; required in CI
 * (E2E_REQUIRED) and with DATABASE_URL.
 */

const REQUIRED = Boolean(process.env.E2E_REQUIRED || process.env.DATABASE_URL);
const available = await postgresReachable();
if (!available && REQUIRED) throw new Error(`PostgreSQL (${PG_URL}) is not reachable`);

const cluster = createCluster('iot_rules');
const devices: Device[] = [];

describe.skipIf(!available)('rules on two server processes', () => {
    let first: ServerProcess;
    let second: ServerProcess;
    let productKey: string;

    beforeAll(async () => {
        first = await cluster.start({ waitForSeed: true });
        second = await cluster.start();
        const products = await first.api(
            'GET',
            `/api/product?pageNumber=1&pageSize=1&productName=${encodeURIComponent('智能路灯')}`,
        );
        productKey = (products.data.records as Array<{ productKey: string }>)[0].productKey;
    }, 200_000);

    afterAll(async () => {
        for (const d of devices) d.client.end(true);
        await cluster.close();
    });

    /** A new lamp signed in to the second process. */
    async function deviceOnSecond() {
        const saved = await first.api('POST', '/api/device/save', { productKey, deviceName: `r${Date.now()}` });
        expect(saved.code, saved.msg).toBe(0);
        const deviceId = Number(saved.data.deviceId);
        const detail = await first.api('GET', `/api/device/detail?deviceId=${deviceId}`);
        const d = detail.data.device as { deviceName: string; secret: string };
        const device = await online(`mqtt://127.0.0.1:${second.mqttPort}`, { deviceId, productKey, ...d });
        devices.push(device);
        return device;
    }

    async function save(body: Record<string, unknown>) {
        const r = await first.api('POST', '/api/rule/save', { productKey, ...body }, true);
        expect(r.code, r.msg).toBe(200);
        return Number(r.data.id ?? body.id);
    }

    const journal = async (p: ServerProcess, ruleId: number) =>
        ((await p.api('GET', `/api/rule/log/list?ruleId=${ruleId}&pageSize=100`)).data.records as JournalRow[]) ?? [];

    /** When each rule's firings were decided (the journal's ts, to the millisecond), from the database itself. */
    async function firingTimes(ruleIds: number[]): Promise<Map<number, number[]>> {
        const db = new pg.Client({ connectionString: cluster.databaseUrl() });
        await db.connect();
        try {
            const { rows } = await db.query<{ rule_id: number; ts: Date }>(
                'SELECT rule_id, ts FROM rule_logs WHERE rule_id = ANY($1::int[])',
                [ruleIds],
            );
            const times = new Map<number, number[]>();
            for (const r of rows) times.set(r.rule_id, [...(times.get(r.rule_id) ?? []), r.ts.getTime()]);
            return times;
        } finally {
            await db.end();
        }
    }

    const alertTexts = async (ruleId: number) =>
        (
            (await first.api('GET', `/api/alert-log/list?ruleId=${ruleId}&pageSize=100`)).data.records as Array<{
                params: string;
            }>
        ).map((a) => a.params);

    /** Power high then low on the device, until `done` (each high post may fire a rule on the second process). */
    async function pulseUntil(d: Device, done: () => Promise<boolean>) {
        await until(async () => {
            await d.post({ ActivePower: 500 });
            await d.post({ ActivePower: 5 });
            return done();
        }, 15_000);
    }

    it('a rule created, edited and disabled through the first process acts at once in the second', async () => {
        const d = await deviceOnSecond();
        const rule = (content: string, enabled = true) => ({
            name: `跨进程${Math.random().toString(36).slice(2, 6)}`,
            enabled,
            triggers: [{ type: 'property', identifier: 'ActivePower' }],
            conditions: [{ source: 'property', identifier: 'ActivePower', operator: '>', value: 100 }],
            actions: [{ type: 'alert', level: 3, content }],
        });
        // Created (enabled) through the first: the second, where the device is, fires it.
        const t0 = Date.now();
        const id = await save(rule('${deviceName} 第一版'));
        await pulseUntil(d, async () => (await alertTexts(id)).includes(`${d.deviceName} 第一版`));
        expect(Date.now() - t0).toBeLessThan(15_000);
        // Edited through the first: the second raises the new content.
        await save({ ...rule('${deviceName} 第二版'), id });
        await pulseUntil(d, async () => (await alertTexts(id)).includes(`${d.deviceName} 第二版`));
        // Disabled through the first; a second rule created after it proves the second process has read both.
        expect((await first.api('POST', '/api/rule/enable', { id, enabled: false }, true)).code).toBe(200);
        const witness = await save(rule('${deviceName} 见证'));
        const journalled = async (ruleId: number) => (await firingTimes([ruleId])).get(ruleId)?.length ?? 0;
        await pulseUntil(d, async () => (await journalled(witness)) > 3);
        // The second process read the disable before it read the witness: no firing of the disabled rule was decided
        // after the witness's first. (Firings decided before may still be journalling: each (rule, device) runs its
        // firings in order, and pulses can queue several; the journal dates each when it was decided.)
        const decided = await firingTimes([id, witness]);
        expect(decided.get(witness)?.length).toBeGreaterThan(3);
        const lastDisabled = Math.max(...(decided.get(id) ?? []));
        expect(lastDisabled).toBeLessThan(Math.min(...decided.get(witness)!));
    });

    it('a schedule rule fires once per tick across the processes', async () => {
        const id = await save({
            name: '每秒一次',
            enabled: true,
            triggers: [{ type: 'schedule', cron: '* * * * * *' }],
            actions: [{ type: 'alert', level: 3, content: '定时' }],
        });
        const t0 = Date.now();
        await until(async () => (await journal(second, id)).length >= 4, 15_000);
        expect((await first.api('POST', '/api/rule/enable', { id, enabled: false }, true)).code).toBe(200);
        const seconds = (Date.now() - t0) / 1000;
        await new Promise((r) => setTimeout(r, 1500));
        const ticks = (await journal(first, id)).map((j) => Math.round(Date.parse(j.input.time as string) / 1000));
        // One firing per tick: no second repeats (two processes each firing would write each tick twice).
        expect(new Set(ticks).size).toBe(ticks.length);
        expect(ticks.length).toBeLessThanOrEqual(Math.ceil(seconds) + 2);
    });
    it('a duration keeps counting over a restart: the device goes quiet, the restarted process fires on time', async () => {
        const d = await deviceOnSecond();
        const r = await second.api(
            'POST',
            '/api/rule/save',
            {
                productKey,
                name: '持续高功率',
                enabled: true,
                triggers: [{ type: 'property', identifier: 'ActivePower' }],
                conditions: [{ source: 'property', identifier: 'ActivePower', operator: '>', value: 100 }],
                durationSeconds: 15,
                actions: [{ type: 'alert', level: 2, content: '${deviceName} 持续高功率' }],
            },
            true,
        );
        expect(r.code, r.msg).toBe(200);
        const id = Number(r.data.id);
        const t0 = Date.now();
        await d.post({ ActivePower: 800 });
        await new Promise((resolve) => setTimeout(resolve, 2000));
        expect(await alertTexts(id)).toEqual([]);
        // The process that counts stops; another starts on the same database. The device says nothing more.
        const stopped = second;
        await second.stop();
        second = await cluster.start();
        await until(async () => (await alertTexts(id)).length > 0, 40_000);
        // Not before the 15 s since the first post (restored, not restarted from zero and not fired at once).
        expect(Date.now() - t0).toBeGreaterThanOrEqual(14_000);
        // One alert: the rows, both processes' journals and all three processes' output say which fired when, if not.
        const alerts = (await first.api('GET', `/api/alert-log/list?ruleId=${id}&pageSize=100`)).data.records as Array<{
            params: string;
        }>;
        const why = async () =>
            JSON.stringify({ alerts, journal: [await journal(first, id), await journal(second, id)] }, null, 1) +
            [
                `\n--- first:\n${first.output()}`,
                `\n--- stopped:\n${stopped.output()}`,
                `\n--- restarted:\n${second.output()}`,
            ].join('');
        expect(
            alerts.map((a) => a.params),
            alerts.length === 1 ? '' : await why(),
        ).toEqual([`${d.deviceName} 持续高功率`]);
        await until(async () => (await journal(first, id)).length > 0, 10_000);
        const [entry] = await journal(first, id);
        expect(entry).toMatchObject({ triggerType: 'property', deviceName: d.deviceName, success: true });
        expect(entry.input).toMatchObject({ kind: 'property', restored: true });
    }, 120_000);
});
