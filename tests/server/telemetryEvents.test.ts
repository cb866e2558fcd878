import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROPERTY_POST, recordMessage, recordPropertyPost } from '../../server/domain/telemetry';
import { formatTime } from '../../server/http/time';
import { createTestServer, type TestServer } from '../../server/testing';
import { call, form, json } from './support';
import {
    expectRefused,
    freshLamp,
    lampProduct,
    okData,
    qs,
    type EventsPage,
    type MessageRow,
} from './telemetrySupport';

const MINUTE = 60 * 1000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
/** The test clock: 2025-03-10 12:00:00 in Shanghai. */
const NOW = new Date('2025-03-10T04:00:00Z');
const ago = (ms: number) => new Date(NOW.getTime() - ms);

let s: TestServer;
let productKey: string;
/** A lamp with property reports, events and service calls at known times before NOW. */
let lamp: { deviceId: number; deviceName: string };

beforeAll(async () => {
    // 60 days kept: the message from 40 days back is within the log (with the default 30 it would be swept).
    s = await createTestServer({ now: () => NOW, config: { logRetentionDays: 60 } });
    productKey = (await lampProduct(s)).productKey;
    lamp = await freshLamp(s);
    const id = lamp.deviceId;
    for (let i = 0; i < 12; i++) await recordPropertyPost(s.db, id, ago((i + 1) * 4 * MINUTE), { Brightness: i });
    const fault = (code: number) => ({ FaultCode: code });
    await recordMessage(s.db, id, ago(30 * MINUTE), 'thing.event.LampFault.post', 'LampFault', fault(1));
    await recordMessage(s.db, id, ago(5 * HOUR), 'thing.event.LampFault.post', 'LampFault', fault(2));
    await recordMessage(s.db, id, ago(3 * DAY), 'thing.service.SetSchedule', 'SetSchedule', {
        input: { OnTime: '18:30', OffTime: '06:00' },
        output: { Result: 1 },
    });
    await recordMessage(s.db, id, ago(20 * DAY), 'thing.event.LampFault.post', 'LampFault', fault(3));
    await recordMessage(s.db, id, ago(40 * DAY), 'thing.event.LampFault.post', 'LampFault', fault(4));
    // A clock running ahead: not part of "the last hour" yet.
    await recordMessage(
        s.db,
        id,
        new Date(NOW.getTime() + 10 * MINUTE),
        'thing.event.LampFault.post',
        'LampFault',
        fault(5),
    );
    // `_` must not act as a LIKE wildcard in a prefix.
    await recordMessage(s.db, id, ago(10 * MINUTE), 'thingXevent.other', null, { x: 1 });
});
afterAll(() => s?.close());

const time = (d: Date) => formatTime(d, s.config.timeZone)!;
const events = (params: Record<string, string | number | undefined>) =>
    call(s, 'GET', `/api/device/events?${qs({ deviceId: lamp.deviceId, ...params })}`);
const listProperty = (values: Record<string, string | number>) =>
    call(s, 'POST', '/api/function/ListProperty', form({ productKey, deviceName: lamp.deviceName, ...values }));
const faultCodes = (rows: MessageRow[]) =>
    rows.map((r) => (r.method === PROPERTY_POST ? 'P' : (r.data.FaultCode ?? r.method)));

describe('GET /api/device/events', () => {
    it('defaults to the last hour without property reports, newest first', async () => {
        const page = okData<EventsPage>(await events({}));
        expect(page).toEqual({
            resultList: [
                {
                    id: expect.any(Number),
                    time: time(ago(10 * MINUTE)),
                    method: 'thingXevent.other',
                    identifier: null,
                    data: { x: 1 },
                },
                {
                    id: expect.any(Number),
                    time: time(ago(30 * MINUTE)),
                    method: 'thing.event.LampFault.post',
                    identifier: 'LampFault',
                    data: { FaultCode: 1 },
                },
            ],
            currentPage: 1,
            totalCount: 2,
            totalPage: 1,
        });
    });

    it.each([
        ['hour', [1]],
        ['day', [1, 2]],
        ['week', [1, 2, 'thing.service.SetSchedule']],
        ['month', [1, 2, 'thing.service.SetSchedule', 3]],
    ])('timeType %s reaches back that far', async (timeType, expected) => {
        const page = okData<EventsPage>(await events({ timeType, method: 'thing.*' }));
        expect(faultCodes(page.resultList)).toEqual(expected);
        expect(page.totalCount).toBe(expected.length);
    });

    it('filters by an exact method, property reports included when asked for by name', async () => {
        const reports = okData<EventsPage>(await events({ method: PROPERTY_POST }));
        expect(reports.totalCount).toBe(12);
        expect(reports.resultList.map((r) => r.data.Brightness)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
        const services = okData<EventsPage>(await events({ method: 'thing.service.SetSchedule', timeType: 'week' }));
        expect(services.resultList.map((r) => r.data)).toEqual([
            { input: { OnTime: '18:30', OffTime: '06:00' }, output: { Result: 1 } },
        ]);
    });

    it('filters by a prefix, which never matches property reports', async () => {
        const all = okData<EventsPage>(await events({ method: 'thing.event.*', timeType: 'month' }));
        expect(faultCodes(all.resultList)).toEqual([1, 2, 3]);
        const underscore = okData<EventsPage>(await events({ method: 'thing_event.*' }));
        expect(underscore.resultList).toEqual([]);
        const other = okData<EventsPage>(await events({ method: 'thingXevent.*' }));
        expect(other.resultList.map((r) => r.method)).toEqual(['thingXevent.other']);
    });

    it('pages with nextPage and pageSize and says how many pages there are', async () => {
        const query = { method: PROPERTY_POST, pageSize: 5 };
        const first = okData<EventsPage>(await events({ ...query, nextPage: 1 }));
        const third = okData<EventsPage>(await events({ ...query, nextPage: 3 }));
        expect(first).toMatchObject({ currentPage: 1, totalCount: 12, totalPage: 3 });
        expect(first.resultList.map((r) => r.data.Brightness)).toEqual([0, 1, 2, 3, 4]);
        expect(third).toMatchObject({ currentPage: 3, totalCount: 12, totalPage: 3 });
        expect(third.resultList.map((r) => r.data.Brightness)).toEqual([10, 11]);
        const defaults = okData<EventsPage>(await events({ method: PROPERTY_POST }));
        expect(defaults.resultList).toHaveLength(12);
        const empty = okData<EventsPage>(await events({ timeType: 'hour', method: 'thing.service.*' }));
        expect(empty).toEqual({ resultList: [], currentPage: 1, totalCount: 0, totalPage: 0 });
    });

    it.each([
        [{ deviceId: undefined }, 400, '缺少设备ID'],
        [{ deviceId: 99999999 }, 404, '设备不存在'],
        [{ timeType: 'year' }, 400, '时间类型须为 hour、day、week 或 month'],
        [{ pageSize: 101 }, 400, '每页条数须为1~100的整数'],
        [{ pageSize: 0 }, 400, '每页条数须为1~100的整数'],
        [{ nextPage: 'x' }, 400, '页码必须是正整数'],
        [{ method: 'thing.%' }, 400, '方法名格式不正确'],
        [{ method: 'thing..event' }, 400, '方法名格式不正确'],
        [{ method: '*' }, 400, '方法名格式不正确'],
    ])('refuses %j', async (params, status, message) => {
        expectRefused(await events(params), status, message);
    });
});

describe('POST /api/function/ListProperty', () => {
    it('answers the latest ten property reports by default, newest first', async () => {
        const { list } = okData<{ list: MessageRow[] }>(await listProperty({ method: PROPERTY_POST }));
        expect(list.map((r) => r.data)).toEqual(Array.from({ length: 10 }, (_, i) => ({ Brightness: i })));
        expect(list[0]).toEqual({
            id: expect.any(Number),
            time: time(ago(4 * MINUTE)),
            method: PROPERTY_POST,
            identifier: null,
            data: { Brightness: 0 },
        });
    });

    it('answers `size` messages, at most 100, and every method without one', async () => {
        expect(
            okData<{ list: MessageRow[] }>(await listProperty({ method: PROPERTY_POST, size: 3 })).list,
        ).toHaveLength(3);
        const all = okData<{ list: MessageRow[] }>(await listProperty({ size: 100 })).list;
        // 12 reports and 7 other messages, the one from the future first: ListProperty reads the whole kept log.
        expect(all).toHaveLength(19);
        expect(all[0].data).toEqual({ FaultCode: 5 });
    });

    it('reads a prefix ending in .* without the property reports (the device event list)', async () => {
        const { list } = okData<{ list: MessageRow[] }>(await listProperty({ method: 'thing.event.*' }));
        expect(faultCodes(list)).toEqual([5, 1, 2, 3, 4]);
        const services = okData<{ list: MessageRow[] }>(await listProperty({ method: 'thing.service.*' })).list;
        expect(services.map((r) => r.identifier)).toEqual(['SetSchedule']);
    });

    it('takes a JSON body too', async () => {
        const answer = await call(
            s,
            'POST',
            '/api/function/ListProperty',
            json({ productKey, deviceName: lamp.deviceName, size: 2, method: PROPERTY_POST }),
        );
        expect(okData<{ list: MessageRow[] }>(answer).list.map((r) => r.data)).toEqual([
            { Brightness: 0 },
            { Brightness: 1 },
        ]);
    });

    it('answers an empty list for a device that never reported', async () => {
        const d = await freshLamp(s);
        const answer = await call(
            s,
            'POST',
            '/api/function/ListProperty',
            form({ productKey, deviceName: d.deviceName, method: PROPERTY_POST }),
        );
        expect(okData(answer)).toEqual({ list: [] });
    });

    it('refuses bad input in the device envelope (code 1)', async () => {
        const post = (values: Record<string, string | number>) =>
            call(s, 'POST', '/api/function/ListProperty', form(values));
        expectRefused(await post({ deviceName: lamp.deviceName }), 400, '请选择产品');
        expectRefused(await post({ productKey }), 400, '请输入deviceName!');
        expectRefused(await listProperty({ size: 0 }), 400, '条数须为1~100的整数');
        expectRefused(await listProperty({ size: 101 }), 400, '条数须为1~100的整数');
        expectRefused(await listProperty({ method: 'thing.event.%' }), 400, '方法名格式不正确');
        expectRefused(await post({ productKey: 'NoSuchKey', deviceName: 'x' }), 404, '产品不存在');
        expectRefused(await post({ productKey, deviceName: 'no_such_device' }), 404, '设备不存在');
    });
});
