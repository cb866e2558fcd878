import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deviceLatest, deviceMessages, devices } from '../../server/db/schema';
import { PROPERTY_POST, recordMessage, recordPropertyPost } from '../../server/domain/telemetry';
import { formatTime } from '../../server/http/time';
import { DEMO_PRODUCTS } from '../../server/seed/demo';
import { DEMO_DEVICES } from '../../server/seed/devices';
import { createTestServer, type TestServer } from '../../server/testing';
import { call, form, rowCounts } from './support';
import {
    demoDevice,
    expectRefused,
    freshLamp,
    lampProduct,
    okData,
    qs,
    type HistoryPage,
    type MessageRow,
    type PropertyRow,
} from './telemetrySupport';

const MINUTE = 60 * 1000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
/** The test clock: 2025-03-10 12:00:00 in Shanghai. */
const NOW = new Date('2025-03-10T04:00:00Z');

let s: TestServer;
beforeAll(async () => {
    s = await createTestServer({ now: () => NOW });
});
afterAll(() => s?.close());

const time = (d: Date) => formatTime(d, s.config.timeZone)!;
const properties = (deviceId: number | string) => call(s, 'GET', `/api/device/properties?deviceId=${deviceId}`);
const history = (params: Record<string, string | number | undefined>) =>
    call(s, 'GET', `/api/device/propertyHistory?${qs(params)}`);

describe('GET /api/device/properties', () => {
    it('lists the thing model properties in model order with Chinese type names, units and empty values', async () => {
        const d = await freshLamp(s);
        const rows = okData<{ properties: PropertyRow[] }>(await properties(d.deviceId)).properties;
        expect(rows.map((r) => [r.identifier, r.functionName, r.dataTypeName, r.unit])).toEqual([
            ['LightSwitch', '主灯开关', '布尔型', null],
            ['Brightness', '亮度', '整数型', '%'],
            ['ActivePower', '有功功率', '单精度浮点型', 'W'],
            ['TotalEnergy', '累计电量', '双精度浮点型', 'kWh'],
            ['WorkMode', '工作模式', '枚举型', null],
            ['FirmwareVersion', '固件版本', '字符串', null],
        ]);
        expect(rows.every((r) => r.value === null && r.timestamp === null && r.desired === null)).toBe(true);
        const ids = rows.map((r) => r.functionId);
        expect([...ids].sort((a, b) => a - b)).toEqual(ids);
    });

    it('shows the latest reported values; an older late report leaves them', async () => {
        const d = await freshLamp(s);
        const t1 = new Date(NOW.getTime() - 10 * MINUTE);
        const t0 = new Date(NOW.getTime() - 20 * MINUTE);
        await recordPropertyPost(s.db, d.deviceId, t1, { Brightness: 80, FirmwareVersion: 'V1.0.2' });
        await recordPropertyPost(s.db, d.deviceId, t0, { Brightness: 30, LightSwitch: 1 });
        const rows = okData<{ properties: PropertyRow[] }>(await properties(d.deviceId)).properties;
        const by = new Map(rows.map((r) => [r.identifier, r]));
        expect(by.get('Brightness')).toMatchObject({ value: 80, timestamp: time(t1) });
        expect(by.get('FirmwareVersion')).toMatchObject({ value: 'V1.0.2', timestamp: time(t1) });
        expect(by.get('LightSwitch')).toMatchObject({ value: 1, timestamp: time(t0) });
        expect(by.get('ActivePower')).toMatchObject({ value: null, timestamp: null });
    });

    it('answers an empty list for a product without a thing model', async () => {
        const d = await demoDevice(s, 'HGW-0001');
        expect(okData(await properties(d.deviceId))).toEqual({ properties: [] });
    });

    it('refuses a missing or malformed deviceId and an unknown device', async () => {
        expectRefused(await call(s, 'GET', '/api/device/properties'), 400, '缺少设备ID');
        expectRefused(await properties('abc'), 400, '缺少设备ID');
        expectRefused(await properties(99999999), 404, '设备不存在');
    });
});

describe('GET /api/device/propertyHistory', () => {
    let deviceId: number;
    /** 30 reports of Brightness, one a minute, the newest at NOW − 1 minute (values 1..30, oldest first). */
    const at = (i: number) => new Date(NOW.getTime() - (30 - i) * MINUTE);
    beforeAll(async () => {
        deviceId = (await freshLamp(s)).deviceId;
        for (let i = 1; i <= 30; i++) await recordPropertyPost(s.db, deviceId, at(i), { Brightness: i });
        // Another property and another device in the same range must not show up.
        await recordPropertyPost(s.db, deviceId, at(5), { ActivePower: 12.5 });
        await recordPropertyPost(s.db, (await freshLamp(s)).deviceId, at(6), { Brightness: 99 });
    });

    it('defaults to the last hour, newest first, ten a page, with the range total', async () => {
        const page = okData<HistoryPage>(await history({ deviceId, identifier: 'Brightness' }));
        expect(page.total).toBe(30);
        expect(page.list.map((r) => r.value)).toEqual([30, 29, 28, 27, 26, 25, 24, 23, 22, 21]);
        expect(page.list[0].timestamp).toBe(time(at(30)));
    });

    it('pages forwards and backwards in time', async () => {
        const range = { deviceId, identifier: 'Brightness', startTime: time(at(1)), endTime: time(at(30)) };
        const page3 = okData<HistoryPage>(await history({ ...range, pageNumber: 3, pageSize: 10 }));
        expect(page3.list.map((r) => r.value)).toEqual([10, 9, 8, 7, 6, 5, 4, 3, 2, 1]);
        const asc2 = okData<HistoryPage>(await history({ ...range, asc: 'true', pageNumber: 2, pageSize: 20 }));
        expect(asc2).toEqual({
            list: Array.from({ length: 10 }, (_, k) => ({ timestamp: time(at(21 + k)), value: 21 + k })),
            total: 30,
        });
        const beyond = okData<HistoryPage>(await history({ ...range, pageNumber: 4, pageSize: 10 }));
        expect(beyond).toEqual({ list: [], total: 30 });
    });

    it('includes both ends of the range, given as times or as epoch milliseconds', async () => {
        const asText = okData<HistoryPage>(
            await history({
                deviceId,
                identifier: 'Brightness',
                startTime: time(at(11)),
                endTime: time(at(20)),
                pageSize: 50,
            }),
        );
        expect(asText.total).toBe(10);
        expect(asText.list.map((r) => r.value)).toEqual([20, 19, 18, 17, 16, 15, 14, 13, 12, 11]);
        const asMs = okData<HistoryPage>(
            await history({
                deviceId,
                identifier: 'Brightness',
                startTime: at(11).getTime(),
                endTime: at(20).getTime(),
                pageSize: 50,
            }),
        );
        expect(asMs).toEqual(asText);
        const one = okData<HistoryPage>(
            await history({ deviceId, identifier: 'ActivePower', startTime: time(at(5)), endTime: time(at(5)) }),
        );
        expect(one).toEqual({ list: [{ timestamp: time(at(5)), value: 12.5 }], total: 1 });
    });

    it('answers an empty page for an identifier never reported', async () => {
        expect(okData(await history({ deviceId, identifier: 'NoSuchProperty' }))).toEqual({ list: [], total: 0 });
    });

    it('accepts page sizes 1 to 100 and ranges up to 31 days', async () => {
        const base = { deviceId, identifier: 'Brightness' };
        expect(okData<HistoryPage>(await history({ ...base, pageSize: 1 })).list).toHaveLength(1);
        expect(okData<HistoryPage>(await history({ ...base, pageSize: 100 })).list).toHaveLength(30);
        const start = NOW.getTime() - 31 * DAY;
        expect(okData<HistoryPage>(await history({ ...base, startTime: start, endTime: NOW.getTime() })).total).toBe(
            30,
        );
    });

    it.each([
        [{ deviceId: undefined, identifier: 'Brightness' }, '缺少设备ID'],
        [{ deviceId: 0, identifier: 'Brightness' }, '缺少设备ID'],
        [{ identifier: '' }, '缺少属性标识符'],
        [{ identifier: 'Brightness', pageSize: 0 }, '每页条数须为1~100的整数'],
        [{ identifier: 'Brightness', pageSize: 101 }, '每页条数须为1~100的整数'],
        [{ identifier: 'Brightness', pageSize: 'ten' }, '每页条数须为1~100的整数'],
        [{ identifier: 'Brightness', pageNumber: 0 }, '页码必须是正整数'],
        [{ identifier: 'Brightness', asc: 'yes' }, '排序参数 asc 只能是 true 或 false'],
        [
            { identifier: 'Brightness', startTime: '2025-03-10 10:00' },
            '开始时间格式不正确，应为 YYYY-MM-DD HH:mm:ss 或毫秒时间戳',
        ],
        [
            { identifier: 'Brightness', startTime: '2025-13-01 00:00:00' },
            '开始时间格式不正确，应为 YYYY-MM-DD HH:mm:ss 或毫秒时间戳',
        ],
        [
            { identifier: 'Brightness', endTime: '2025-03-10T12:00:00Z' },
            '结束时间格式不正确，应为 YYYY-MM-DD HH:mm:ss 或毫秒时间戳',
        ],
        [
            { identifier: 'Brightness', startTime: '2025-03-10 12:00:00', endTime: '2025-03-10 11:59:59' },
            '结束时间不能早于开始时间',
        ],
        [
            { identifier: 'Brightness', startTime: '2025-02-07 11:59:59', endTime: '2025-03-10 12:00:00' },
            '时间范围不能超过31天',
        ],
    ])('refuses %j with %s', async (params, message) => {
        const query: Record<string, string | number | undefined> = { deviceId, ...params };
        expectRefused(await history(query), 400, message);
    });

    it('answers 404 设备不存在 for an unknown device', async () => {
        expectRefused(await history({ deviceId: 99999999, identifier: 'Brightness' }), 404, '设备不存在');
    });
});

describe('recordPropertyPost and recordMessage', () => {
    it('writes the latest values (one row per device) and one message, the history, together', async () => {
        const d = await freshLamp(s);
        const ts = new Date(NOW.getTime() - 5 * MINUTE);
        const id = await recordPropertyPost(s.db, d.deviceId, ts, { Brightness: 55, WorkMode: 2 });
        const latest = await s.db.select().from(deviceLatest).where(eq(deviceLatest.deviceId, d.deviceId));
        expect(latest).toEqual([
            {
                deviceId: d.deviceId,
                props: { Brightness: { v: 55, t: ts.getTime() }, WorkMode: { v: 2, t: ts.getTime() } },
                desired: {},
                ts,
            },
        ]);
        const messages = await s.db.select().from(deviceMessages).where(eq(deviceMessages.deviceId, d.deviceId));
        expect(messages).toEqual([
            {
                id,
                deviceId: d.deviceId,
                ts,
                method: PROPERTY_POST,
                identifier: null,
                data: { Brightness: 55, WorkMode: 2 },
                // The log query pages a product's messages on it (0011_message_log).
                productId: (await lampProduct(s)).productId,
                // Written by the platform, not a device's QoS 1 publish: no resend key.
                resendKey: null,
            },
        ]);
    });

    it('replaces the history value of a second report of the same instant', async () => {
        const d = await freshLamp(s);
        const ts = new Date(NOW.getTime() - 5 * MINUTE);
        await recordPropertyPost(s.db, d.deviceId, ts, { Brightness: 10 });
        await recordPropertyPost(s.db, d.deviceId, ts, { Brightness: 11 });
        const page = okData<HistoryPage>(await history({ deviceId: d.deviceId, identifier: 'Brightness' }));
        expect(page).toEqual({ list: [{ timestamp: time(ts), value: 11 }], total: 1 });
    });

    it('refuses an empty report, a malformed identifier and an unknown device, writing nothing', async () => {
        const d = await freshLamp(s);
        const before = await rowCounts(s.db);
        await expect(recordPropertyPost(s.db, d.deviceId, NOW, {})).rejects.toThrow('属性上报不能为空');
        await expect(recordPropertyPost(s.db, d.deviceId, NOW, { Brightness: 1, 'bad-id': 2 })).rejects.toThrow(
            '标识符格式不正确：bad-id',
        );
        await expect(recordPropertyPost(s.db, 99999999, NOW, { Brightness: 1 })).rejects.toThrow('设备不存在');
        await expect(recordMessage(s.db, 99999999, NOW, 'thing.event.LampFault.post', 'LampFault', {})).rejects.toThrow(
            '设备不存在',
        );
        await expect(recordMessage(s.db, d.deviceId, NOW, PROPERTY_POST, null, {})).rejects.toThrow(
            '属性上报请使用 recordPropertyPost',
        );
        await expect(recordMessage(s.db, d.deviceId, NOW, 'thing event', null, {})).rejects.toThrow('方法名格式不正确');
        expect(await rowCounts(s.db)).toEqual(before);
    });

    it('leaves no rows behind when the device is deleted', async () => {
        const d = await freshLamp(s);
        await recordPropertyPost(s.db, d.deviceId, NOW, { Brightness: 1 });
        await recordMessage(s.db, d.deviceId, NOW, 'thing.event.LampFault.post', 'LampFault', { FaultCode: 1 });
        await s.db.delete(devices).where(eq(devices.id, d.deviceId));
        expect(await s.db.select().from(deviceMessages).where(eq(deviceMessages.deviceId, d.deviceId))).toEqual([]);
        expect(await s.db.select().from(deviceLatest).where(eq(deviceLatest.deviceId, d.deviceId))).toEqual([]);
    });
});

describe('demo telemetry (server/seed/telemetry.ts)', () => {
    const modelled = DEMO_DEVICES.filter((d) => DEMO_PRODUCTS.find((p) => p.productName === d.productName)?.functions);

    it('gives every connected demo device values that fit its thing model, and none to never-connected ones', async () => {
        expect(modelled.length).toBeGreaterThanOrEqual(8);
        for (const demo of modelled) {
            const d = await demoDevice(s, demo.deviceName);
            const rows = okData<{ properties: PropertyRow[] }>(await properties(d.deviceId)).properties;
            const model = DEMO_PRODUCTS.find((p) => p.productName === demo.productName)!.functions!;
            expect(rows.map((r) => r.identifier)).toEqual(
                model.filter((f) => f.type === 'property').map((f) => f.identifier),
            );
            for (const row of rows) {
                const where = `${demo.deviceName}.${row.identifier} = ${JSON.stringify(row.value)}`;
                if (demo.status === 'INACTIVE') {
                    expect(row.value, where).toBeNull();
                    continue;
                }
                expect(row.timestamp, where).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
                const fn = model.find((f) => f.identifier === row.identifier);
                const { type, specs } = (fn as { dataType: { type: string; specs: Record<string, string> } }).dataType;
                if (type === 'int' || type === 'float' || type === 'double') {
                    expect(typeof row.value, where).toBe('number');
                    expect(row.value as number, where).toBeGreaterThanOrEqual(Number(specs.min));
                    expect(row.value as number, where).toBeLessThanOrEqual(Number(specs.max));
                    if (type === 'int') expect(Number.isInteger(row.value), where).toBe(true);
                } else if (type === 'bool' || type === 'enum') {
                    expect(Object.keys(specs), where).toContain(String(row.value));
                } else {
                    expect(typeof row.value, where).toBe('string');
                    expect((row.value as string).length, where).toBeLessThanOrEqual(Number(specs.length));
                }
            }
        }
    });

    // The live demo's devices (SL-BJ-0002) last reported minutes before the seed (their simulation goes on from
    // there); the others when they last went offline, days ago.
    it('keeps two days of history: up to minutes ago for live devices, up to the last connection for the others', async () => {
        const now = Date.now();
        const lastDay = (deviceId: number, identifier: string, end = now) =>
            history({ deviceId, identifier, startTime: end - DAY, endTime: end, pageSize: 1 });
        const online = await demoDevice(s, 'SL-BJ-0002');
        const onlineDay = okData<HistoryPage>(await lastDay(online.deviceId, 'ActivePower'));
        expect(onlineDay.total).toBeGreaterThanOrEqual(100);
        const [newest] = onlineDay.list;
        expect(newest.timestamp > time(new Date(now - HOUR))).toBe(true);
        const twoDays = okData<HistoryPage>(
            await history({
                deviceId: online.deviceId,
                identifier: 'ActivePower',
                startTime: now - 3 * DAY,
                endTime: now,
            }),
        );
        expect(twoDays.total).toBeGreaterThanOrEqual(2 * onlineDay.total - 2);
        expect(twoDays.total).toBeLessThanOrEqual(2 * onlineDay.total + 2);

        const offline = await demoDevice(s, 'SL-BJ-0003');
        expect(okData<HistoryPage>(await lastDay(offline.deviceId, 'ActivePower')).total).toBe(0);
        const [row] = await s.db.select().from(devices).where(eq(devices.id, offline.deviceId));
        const beforeOffline = await lastDay(offline.deviceId, 'ActivePower', row.lastTime!.getTime());
        expect(Math.abs(okData<HistoryPage>(beforeOffline).total - onlineDay.total)).toBeLessThanOrEqual(1);
    });

    it('has alarms and service calls for the run status and event screens', async () => {
        const d = await demoDevice(s, 'SL-BJ-0001');
        const list = async (method: string) => {
            const answer = await call(
                s,
                'POST',
                '/api/function/ListProperty',
                form({ productKey: d.productKey, deviceName: d.deviceName, method, size: 100 }),
            );
            return okData<{ list: MessageRow[] }>(answer).list;
        };
        const faults = await list('thing.event.*');
        expect(faults.length).toBeGreaterThanOrEqual(3);
        expect(
            faults.every((m) => m.identifier === 'LampFault' && ['1', '2', '3'].includes(String(m.data.FaultCode))),
        ).toBe(true);
        const calls = await list('thing.service.*');
        expect(calls.length).toBeGreaterThanOrEqual(1);
        expect(calls[0].data).toMatchObject({ input: { OnTime: expect.any(String) }, output: { Result: 1 } });
        const reports = await list(PROPERTY_POST);
        expect(reports).toHaveLength(100);
        expect(Object.keys(reports[0].data).sort()).toEqual([
            'ActivePower',
            'Brightness',
            'FirmwareVersion',
            'LightSwitch',
            'TotalEnergy',
            'WorkMode',
        ]);
    });
});
