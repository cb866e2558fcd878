import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestServer, type TestServer } from '../../server/testing';
import { currentLocation, dismissNotification, mswServer, platformHandler, renderApp, searchParam } from './helpers';

/**
 * The device detail's telemetry tabs (resources/deviceDetail.tsx) on the demo devices of the reference platform
 * in-process: thing-model data (properties, history, events, services), run status, event manage, service calls,
 * sub-devices. Failures the demo cannot produce (a code 1 answer, many events) are answered by msw per test.
 */

interface DeviceRow {
    deviceId: number;
    deviceName: string;
    productId: number;
    productKey: string;
}

/** Requests the console made, as URLs (GET) or URLs plus form bodies (POST). */
const requests: Array<{ method: string; url: URL; body: string }> = [];
const requested = (path: string) => requests.filter((r) => r.url.pathname.endsWith(path));

const table = (name: string) => screen.queryByRole('table', { name });
/** The rows of a table; a list with no rows shows its empty state instead of a table. */
const rowsOf = (name: string) => {
    const found = table(name);
    return found ? within(found).queryAllByRole('row').slice(1) : [];
};
const firstCells = (name: string) => rowsOf(name).map((r) => within(r).getAllByRole('cell')[0].textContent ?? '');

describe('device telemetry tabs against the platform', () => {
    let platform: TestServer;
    const devices = new Map<string, DeviceRow>();

    async function device(name: string): Promise<DeviceRow> {
        const known = devices.get(name);
        if (known) return known;
        const res = await platform.fetch(`/api/device/list?deviceName=${name}&pageNumber=1&pageSize=10`);
        const body = (await res.json()) as { data: { records: DeviceRow[] } };
        const row = body.data.records.find((r) => r.deviceName === name);
        if (!row) throw new Error(`demo device ${name} missing`);
        devices.set(name, row);
        return row;
    }

    /** The platform's own answer to a request the console made (the oracle for what the screen must show). */
    async function answer<T>(request: { method: string; url: URL; body: string }): Promise<T> {
        const init: RequestInit =
            request.method === 'GET'
                ? {}
                : {
                      method: request.method,
                      body: request.body,
                      headers: { 'content-type': 'application/x-www-form-urlencoded' },
                  };
        const res = await platform.fetch(`${request.url.pathname}${request.url.search}`, init);
        return ((await res.json()) as { data: T }).data;
    }

    beforeAll(async () => {
        platform = await createTestServer({ seed: true });
        mswServer.events.on('request:start', async ({ request }) => {
            const body = ['GET', 'HEAD'].includes(request.method) ? '' : await request.clone().text();
            requests.push({ method: request.method, url: new URL(request.url), body });
        });
    });
    afterAll(async () => {
        mswServer.events.removeAllListeners();
        await platform.close();
    });
    beforeEach(() => {
        requests.length = 0;
        mswServer.use(platformHandler(platform));
    });

    it('lists the properties with latest value, unit and time, and reads a history by range and page size', async () => {
        const lamp = await device('SL-BJ-0001');
        renderApp(`/devices/${lamp.productKey}/${lamp.deviceName}?devicesId=${lamp.deviceId}&checkIdx=3`);

        await waitFor(() => expect(rowsOf('属性')).toHaveLength(6), { timeout: 15_000 });
        const power = rowsOf('属性').find((r) => within(r).queryByText('ActivePower'))!;
        expect(within(power).getByText('有功功率')).toBeInTheDocument();
        expect(within(power).getByText('单精度浮点型')).toBeInTheDocument();
        expect(within(power).getByText(/^\d+(\.\d+)?W$/)).toBeInTheDocument();
        expect(within(power).getAllByRole('cell')[4].textContent).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);

        fireEvent.click(within(power).getByRole('button', { name: /查看数据/ }));
        const dialog = await screen.findByRole('dialog', { name: /有功功率/ });
        expect(
            await within(dialog).findByTestId('property-history-chart', {}, { timeout: 15_000 }),
        ).toBeInTheDocument();
        // The last hour, 10 on the first page, newest first: the rows the platform answers for that request.
        await waitFor(() => expect(requested('/api/device/propertyHistory').length).toBeGreaterThan(0), {
            timeout: 15_000,
        });
        const hour = requested('/api/device/propertyHistory').find((r) => r.url.searchParams.get('pageSize') === '10')!;
        const hourAnswer = await answer<{ list: Array<{ timestamp: string }>; total: number }>(hour);
        expect(hourAnswer.total).toBeGreaterThan(0);
        await waitFor(() => expect(rowsOf('历史数据')).toHaveLength(Math.min(10, hourAnswer.total)), {
            timeout: 15_000,
        });
        expect(within(dialog).getByText(new RegExp(`共 ${hourAnswer.total} 条`))).toBeInTheDocument();
        const newestFirst = firstCells('历史数据');
        expect(newestFirst).toEqual(hourAnswer.list.map((p) => p.timestamp));
        expect([...newestFirst].sort().reverse()).toEqual(newestFirst);
        expect(hour.url.searchParams.get('identifier')).toBe('ActivePower');
        expect(hour.url.searchParams.get('asc')).toBe('false');
        const span = (r: (typeof requests)[number]) =>
            Number(r.url.searchParams.get('endTime')) - Number(r.url.searchParams.get('startTime'));
        expect(span(hour)).toBe(60 * 60 * 1000);

        // 24 hours, 50 a page.
        requests.length = 0;
        fireEvent.click(within(dialog).getByRole('tab', { name: '24小时' }));
        await waitFor(() => expect(requested('/api/device/propertyHistory').length).toBeGreaterThan(0), {
            timeout: 15_000,
        });
        const dayAnswer = await answer<{ total: number }>(
            requested('/api/device/propertyHistory').find((r) => r.url.searchParams.get('pageSize') === '10')!,
        );
        expect(dayAnswer.total).toBeGreaterThan(hourAnswer.total);
        await waitFor(
            () => expect(within(dialog).getByText(new RegExp(`共 ${dayAnswer.total} 条`))).toBeInTheDocument(),
            { timeout: 15_000 },
        );
        const sizes = within(dialog).getByRole('combobox', { name: /每页条数/ });
        fireEvent.mouseDown(sizes);
        const listbox = await screen.findByRole('listbox');
        expect(
            within(listbox)
                .getAllByRole('option')
                .map((o) => o.textContent),
        ).toEqual(['10 条/页', '20 条/页', '50 条/页']);
        fireEvent.click(within(listbox).getByRole('option', { name: '50 条/页' }));
        await waitFor(() => expect(rowsOf('历史数据')).toHaveLength(Math.min(50, dayAnswer.total)), {
            timeout: 15_000,
        });
        const day = requested('/api/device/propertyHistory').filter((r) => r.url.searchParams.get('asc') === 'false');
        expect(day.every((r) => span(r) === 24 * 60 * 60 * 1000)).toBe(true);
        expect(day.some((r) => r.url.searchParams.get('pageSize') === '50')).toBe(true);

        // Oldest first.
        fireEvent.click(within(dialog).getByRole('tab', { name: '时间升序' }));
        await waitFor(
            () => {
                const cells = firstCells('历史数据');
                expect(cells).toHaveLength(Math.min(50, dayAnswer.total));
                expect([...cells].sort()).toEqual(cells);
                expect(cells[0] < newestFirst[newestFirst.length - 1]).toBe(true);
            },
            { timeout: 15_000 },
        );
        expect(requested('/api/device/propertyHistory').some((r) => r.url.searchParams.get('asc') === 'true')).toBe(
            true,
        );

        // Back to the hour; the next page holds the rest.
        fireEvent.click(within(dialog).getByRole('tab', { name: '1小时' }));
        await waitFor(() => expect(within(dialog).getByText(/共 \d+ 条/)).toBeInTheDocument(), { timeout: 15_000 });
        expect(span(requested('/api/device/propertyHistory').at(-1)!)).toBe(60 * 60 * 1000);
        fireEvent.click(within(dialog).getByRole('button', { name: '关闭' }));
        await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument(), { timeout: 15_000 });

        // A text property has a table and no chart.
        const firmware = rowsOf('属性').find((r) => within(r).queryByText('FirmwareVersion'))!;
        expect(within(firmware).getByText('V2.3.1')).toBeInTheDocument();
        fireEvent.click(within(firmware).getByRole('button', { name: /查看数据/ }));
        const text = await screen.findByRole('dialog', { name: /固件版本/ });
        await waitFor(() => expect(rowsOf('历史数据').length).toBeGreaterThan(0), { timeout: 15_000 });
        expect(within(text).queryByTestId('property-history-chart')).not.toBeInTheDocument();
        expect(within(text).getAllByText('V2.3.1').length).toBeGreaterThan(0);
    }, 60_000);

    it('shows a device that never reported as 未上报 with an empty history', async () => {
        const spare = await device('SL-BJ-0005');
        renderApp(`/devices/${spare.productKey}/${spare.deviceName}?devicesId=${spare.deviceId}&checkIdx=3`);
        await waitFor(() => expect(rowsOf('属性')).toHaveLength(6), { timeout: 15_000 });
        expect(screen.getAllByText('未上报')).toHaveLength(6);
        const brightness = rowsOf('属性').find((r) => within(r).queryByText('亮度'))!;
        fireEvent.click(within(brightness).getByRole('button', { name: '查看数据' }));
        const dialog = await screen.findByRole('dialog', { name: /亮度/ });
        expect(await within(dialog).findByText('所选时间范围内暂无数据，无法绘制曲线')).toBeInTheDocument();
        expect(await within(dialog).findByText('最近1小时内该属性没有上报记录')).toBeInTheDocument();
    }, 30_000);

    it('switches the events time range between hour, day, week and month, and keeps the sub-tab in the URL', async () => {
        const lamp = await device('SL-BJ-0001');
        renderApp(`/devices/${lamp.productKey}/${lamp.deviceName}?devicesId=${lamp.deviceId}&checkIdx=3`);
        fireEvent.click(await screen.findByRole('tab', { name: '事件' }, { timeout: 15_000 }));
        expect(searchParam('dataTab')).toBe('event');
        expect(searchParam('checkIdx')).toBe('3');

        // Demo: a fault 35 minutes ago, and older faults and schedule calls within the day, week and month.
        await waitFor(() => expect(requested('/api/device/events')).toHaveLength(1));
        const counts: number[] = [];
        const first = await answer<{ resultList: unknown[] }>(requested('/api/device/events')[0]);
        await waitFor(() => expect(rowsOf('事件')).toHaveLength(first.resultList.length));
        counts.push(first.resultList.length);
        expect(within(rowsOf('事件')[0]).getByText('thing.event.LampFault.post')).toBeInTheDocument();
        expect(within(rowsOf('事件')[0]).getByText('{"FaultCode":2}')).toBeInTheDocument();
        for (const [label, timeType] of [
            ['1天', 'day'],
            ['1周', 'week'],
            ['1个月', 'month'],
        ] as const) {
            fireEvent.click(screen.getByRole('tab', { name: label }));
            await waitFor(() =>
                expect(requested('/api/device/events').at(-1)!.url.searchParams.get('timeType')).toBe(timeType),
            );
            const last = requested('/api/device/events').at(-1)!;
            expect(last.url.searchParams.get('pageSize')).toBe('50');
            expect(last.url.searchParams.get('nextPage')).toBe('1');
            const expected = (await answer<{ resultList: unknown[] }>(last)).resultList.length;
            await waitFor(() => expect(rowsOf('事件')).toHaveLength(expected));
            counts.push(expected);
        }
        // Each longer range holds more of the demo's events.
        expect(counts[3]).toBeGreaterThan(counts[1]);
        expect(counts[1]).toBeGreaterThan(counts[0]);
        expect(rowsOf('事件').some((r) => within(r).queryByText('thing.service.SetSchedule'))).toBe(true);
        expect(requested('/api/device/events')[0].url.searchParams.get('timeType')).toBe('hour');

        fireEvent.click(screen.getByRole('tab', { name: '服务' }));
        expect(searchParam('dataTab')).toBe('service');
        await waitFor(() => expect(rowsOf('服务列表')).toHaveLength(1));
        expect(within(rowsOf('服务列表')[0]).getByText('SetSchedule')).toBeInTheDocument();
        expect(within(rowsOf('服务列表')[0]).getByText('异步')).toBeInTheDocument();
        await waitFor(() => expect(rowsOf('服务调用记录').length).toBeGreaterThan(0));
        expect(rowsOf('服务调用记录').every((r) => within(r).queryByText('thing.service.SetSchedule'))).toBe(true);
        const calls = requested('/api/function/ListProperty');
        expect(new URLSearchParams(calls.at(-1)!.body).get('method')).toBe('thing.service.*');
    }, 60_000);

    it('pages events 50 at a time with nextPage, and renders their data as text', async () => {
        const lamp = await device('SL-BJ-0001');
        const all = Array.from({ length: 70 }, (_, i) => ({
            id: i + 1,
            time: `2026-01-01 10:${String(59 - (i % 60)).padStart(2, '0')}:00`,
            method: 'thing.event.Alarm.post',
            identifier: 'Alarm',
            data: { note: i === 0 ? '<img src=x onerror=alert(1)>' : `n${i}` },
        }));
        mswServer.use(
            http.get('*/api/device/events', ({ request }) => {
                const url = new URL(request.url);
                const page = Number(url.searchParams.get('nextPage'));
                const size = Number(url.searchParams.get('pageSize'));
                return HttpResponse.json({
                    code: 0,
                    msg: 'success',
                    data: {
                        resultList: all.slice((page - 1) * size, page * size),
                        currentPage: page,
                        totalCount: all.length,
                        totalPage: Math.ceil(all.length / size),
                    },
                });
            }),
        );
        renderApp(`/devices/${lamp.productKey}/${lamp.deviceName}?devicesId=${lamp.deviceId}&checkIdx=3&dataTab=event`);
        await waitFor(() => expect(rowsOf('事件')).toHaveLength(50), { timeout: 15_000 });
        expect(screen.getByText('{"note":"<img src=x onerror=alert(1)>"}')).toBeInTheDocument();
        expect(document.querySelector('img[src="x"]')).toBeNull();
        expect(screen.getByText('共 70 条')).toBeInTheDocument();
        fireEvent.click(screen.getByRole('button', { name: '下一页' }));
        await waitFor(() => expect(rowsOf('事件')).toHaveLength(20));
        expect(requested('/api/device/events').at(-1)!.url.searchParams.get('nextPage')).toBe('2');
    }, 30_000);

    it('shows run status: the latest 10 property reports, refreshed on demand', async () => {
        const lamp = await device('SL-BJ-0001');
        renderApp(`/devInstanceDetail/${lamp.productId}/${lamp.deviceId}/runStatus`);
        await waitFor(() => expect(rowsOf('运行状态')).toHaveLength(10), { timeout: 15_000 });
        for (const row of rowsOf('运行状态')) {
            expect(within(row).getByText('thing.event.property.post')).toBeInTheDocument();
        }
        expect(within(rowsOf('运行状态')[0]).getByText(/"Brightness":/)).toBeInTheDocument();
        const form = new URLSearchParams(requested('/api/function/ListProperty')[0].body);
        expect(Object.fromEntries(form)).toEqual({
            productKey: lamp.productKey,
            deviceName: 'SL-BJ-0001',
            size: '10',
            method: 'thing.event.property.post',
        });

        fireEvent.click(screen.getByRole('button', { name: '刷新运行状态' }));
        await waitFor(() => expect(requested('/api/function/ListProperty')).toHaveLength(2));
        await waitFor(() => expect(rowsOf('运行状态')).toHaveLength(10));
    }, 30_000);

    it("toasts '未上报属性数据' when ListProperty answers a code other than 0", async () => {
        const lamp = await device('SL-BJ-0001');
        mswServer.use(
            http.post('*/api/function/ListProperty', () =>
                HttpResponse.json({ code: 1, msg: '设备不存在' }, { status: 404 }),
            ),
        );
        renderApp(`/devInstanceDetail/${lamp.productId}/${lamp.deviceId}/runStatus`);
        await waitFor(
            () => expect(document.querySelector('.MuiSnackbar-root')?.textContent).toContain('未上报属性数据'),
            { timeout: 15_000 },
        );
        // The table under the toolbar says it too, instead of rows.
        expect(screen.getAllByText('未上报属性数据').length).toBeGreaterThanOrEqual(2);
        expect(screen.queryByText('设备不存在')).not.toBeInTheDocument();
        expect(rowsOf('运行状态')).toHaveLength(0);
    }, 30_000);

    it('lists the events of event manage (thing.event.*) with their data', async () => {
        const lamp = await device('SL-BJ-0001');
        renderApp(`/devInstanceDetail/${lamp.productId}/${lamp.deviceId}/event`);
        await waitFor(() => expect(requested('/api/function/ListProperty')).toHaveLength(1), { timeout: 15_000 });
        const expected = await answer<{ list: unknown[] }>(requested('/api/function/ListProperty')[0]);
        expect(expected.list.length).toBeGreaterThan(0);
        await waitFor(() => expect(rowsOf('事件管理')).toHaveLength(expected.list.length));
        const methods = rowsOf('事件管理').map((r) => within(r).getAllByRole('cell')[1].textContent ?? '');
        expect(methods.every((m) => m.startsWith('thing.event.') && m !== 'thing.event.property.post')).toBe(true);
        const fault = rowsOf('事件管理').find((r) => within(r).queryByText('thing.event.LampFault.post'))!;
        expect(within(fault).getByText('{"FaultCode":2}')).toBeInTheDocument();
        expect(new URLSearchParams(requested('/api/function/ListProperty')[0].body).get('method')).toBe(
            'thing.event.*',
        );
    }, 30_000);

    it('lists the services and service calls on the service call tab', async () => {
        const lamp = await device('SL-BJ-0001');
        renderApp(`/devInstanceDetail/${lamp.productId}/${lamp.deviceId}/service`);
        await waitFor(() => expect(rowsOf('服务列表')).toHaveLength(1), { timeout: 15_000 });
        expect(within(rowsOf('服务列表')[0]).getByText('设置定时策略')).toBeInTheDocument();
        await waitFor(() => expect(rowsOf('服务调用记录').length).toBeGreaterThan(0));
        expect(within(rowsOf('服务调用记录')[0]).getByText(/"OnTime":"18:30"/)).toBeInTheDocument();
        const services = requested('/api/function/list')[0].url.searchParams;
        expect(services.get('type')).toBe('service');
        expect(services.get('productId')).toBe(String(lamp.productId));
    }, 30_000);

    it("lists a gateway's sub-devices, searches them with the name in the URL, adds one and removes it", async () => {
        const gateway = await device('GW-FAC-01');
        const spare = await device('TH-OFFICE-02');
        renderApp(`/devices/${gateway.productKey}/${gateway.deviceName}?devicesId=${gateway.deviceId}&checkIdx=5`);
        await waitFor(() => expect(rowsOf('子设备')).toHaveLength(2), { timeout: 15_000 });
        expect(firstCells('子设备').sort()).toEqual(['EM-FAC-01-01', 'EM-FAC-01-02']);
        const meter = await device('EM-FAC-01-02');
        expect(screen.getByRole('link', { name: 'EM-FAC-01-02' })).toHaveAttribute(
            'href',
            `/childDeviceDetail/${meter.productId}/${meter.deviceId}`,
        );
        expect(requested('/api/device/subDevice/list')[0].url.searchParams.get('gwId')).toBe(String(gateway.deviceId));

        await userEvent.type(screen.getByRole('textbox', { name: '设备名称' }), '01-02{Enter}');
        await waitFor(() => expect(rowsOf('子设备')).toHaveLength(1));
        expect(searchParam('subName')).toBe('01-02');
        expect(searchParam('checkIdx')).toBe('5');
        await userEvent.clear(screen.getByRole('textbox', { name: '设备名称' }));
        await userEvent.type(screen.getByRole('textbox', { name: '设备名称' }), '{Enter}');
        await waitFor(() => expect(rowsOf('子设备')).toHaveLength(2));
        expect(searchParam('subName')).toBeNull();

        // Add: nothing chosen is refused in the dialog; then pick TH-OFFICE-02 from the candidates.
        fireEvent.click(screen.getByRole('button', { name: '添加子设备' }));
        const dialog = await screen.findByRole('dialog', { name: '添加子设备' });
        fireEvent.click(within(dialog).getByRole('button', { name: '确定' }));
        expect(await within(dialog).findByText('请选择要添加的子设备')).toBeInTheDocument();
        expect(requested('/api/device/subDevice/add')).toHaveLength(0);
        await userEvent.type(within(dialog).getByRole('textbox', { name: '搜索可添加的设备' }), 'TH-OFFICE{Enter}');
        await waitFor(() =>
            expect(
                requested('/api/device/subDevice/candidates').some(
                    (r) => r.url.searchParams.get('deviceName') === 'TH-OFFICE',
                ),
            ).toBe(true),
        );
        // TH-OFFICE-01 already hangs on HGW-0001, so it is no candidate.
        const pick = await within(dialog).findByRole('checkbox', { name: `选择 ${spare.deviceId}` });
        expect(within(pick.closest('tr')!).getByText('TH-OFFICE-02')).toBeInTheDocument();
        expect(within(dialog).queryByText('TH-OFFICE-01')).not.toBeInTheDocument();
        fireEvent.click(pick);
        expect(within(dialog).getByText('已选 1 个')).toBeInTheDocument();
        await userEvent.type(within(dialog).getByRole('textbox', { name: '备注' }), '会议室新增');
        fireEvent.click(within(dialog).getByRole('button', { name: '确定' }));
        expect(await screen.findByText('添加成功')).toBeInTheDocument();
        await dismissNotification('添加成功');
        await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
        const add = new URLSearchParams(requested('/api/device/subDevice/add')[0].body);
        expect(add.get('deviceId')).toBe(String(spare.deviceId));
        expect(add.get('gwId')).toBe(String(gateway.deviceId));
        expect(add.get('remark')).toBe('会议室新增');
        await waitFor(() => expect(rowsOf('子设备')).toHaveLength(3));
        const added = rowsOf('子设备').find((r) => within(r).queryByText('TH-OFFICE-02'))!;
        expect(within(added).getByText('会议室新增')).toBeInTheDocument();

        // Remove asks first; 取消 keeps it.
        fireEvent.click(within(added).getByRole('button', { name: '移除' }));
        const confirm = await screen.findByRole('dialog');
        expect(within(confirm).getByText(/确定将子设备“TH-OFFICE-02”从网关“GW-FAC-01”移除吗/)).toBeInTheDocument();
        fireEvent.click(within(confirm).getByRole('button', { name: '取消' }));
        await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
        expect(requested('/api/device/subDevice/remove')).toHaveLength(0);

        fireEvent.click(within(added).getByRole('button', { name: '移除' }));
        fireEvent.click(within(await screen.findByRole('dialog')).getByRole('button', { name: '确定' }));
        expect(await screen.findByText('操作成功')).toBeInTheDocument();
        await waitFor(() => expect(rowsOf('子设备')).toHaveLength(2));
        const remove = new URLSearchParams(requested('/api/device/subDevice/remove')[0].body);
        expect(remove.get('deviceId')).toBe(String(spare.deviceId));
        expect(remove.get('gwId')).toBe(String(gateway.deviceId));
        expect(currentLocation.pathname).toBe(`/devices/${gateway.productKey}/${gateway.deviceName}`);
    }, 90_000);

    it("shows the server's refusal when adding a sub-device fails, and keeps the dialog open", async () => {
        const gateway = await device('HGW-0001');
        mswServer.use(
            http.post('*/api/device/subDevice/add', () =>
                HttpResponse.json({ code: 1, msg: '设备已挂载到其他网关' }, { status: 409 }),
            ),
        );
        renderApp(`/devInstanceDetail/${gateway.productId}/${gateway.deviceId}/childDevice`);
        await waitFor(() => expect(rowsOf('子设备')).toHaveLength(1), { timeout: 15_000 });
        fireEvent.click(screen.getByRole('button', { name: '添加子设备' }));
        const dialog = await screen.findByRole('dialog', { name: '添加子设备' });
        const boxes = await within(dialog).findAllByRole('checkbox');
        fireEvent.click(boxes[0]);
        fireEvent.click(within(dialog).getByRole('button', { name: '确定' }));
        expect(await screen.findByText('设备已挂载到其他网关')).toBeInTheDocument();
        expect(screen.getByRole('dialog', { name: '添加子设备' })).toBeInTheDocument();
        expect(within(dialog).getByRole('button', { name: '确定' })).toBeEnabled();
    }, 30_000);
});
