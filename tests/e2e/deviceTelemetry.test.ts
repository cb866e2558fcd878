import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import mqtt from 'mqtt';
import type { Browser, Locator, Page } from 'playwright-core';
import { alibabaCredentials } from '../../server/mqtt/signIn';
import { byText, haveChromium, launchBrowser, screenshot, signIn, startServer, type RunningServer } from './support';

/**
 * The device detail's telemetry tabs in Chromium against the real `npm start` with the demo data: a property's history
 * (chart and table) on an online street lamp, its events and services, run status, event manage and service calls on
 * the instance detail, and adding then removing a sub-device on the demo gateways. Each tab is saved as
 * tests/e2e/output/deviceTelemetry-*.png for review.
 */

interface DeviceRow {
    deviceId: number;
    deviceName: string;
    productId: number;
    productKey: string;
}

describe.skipIf(!haveChromium)('device telemetry tabs in Chromium', () => {
    let server: RunningServer;
    let browser: Browser;
    let page: Page;
    const errors: string[] = [];

    beforeAll(async () => {
        server = await startServer();
        browser = await launchBrowser();
        page = await browser.newPage({ viewport: { width: 1440, height: 900 }, locale: 'zh-CN' });
        page.on('pageerror', (e) => errors.push(String(e)));
        await signIn(page, server.url, '/deviceInstance');
    });

    afterEach(async ({ task }) => {
        if (task.result?.state === 'fail' && page) await screenshot(page, `failed-telemetry-${task.name.slice(0, 40)}`);
    });

    afterAll(async () => {
        await browser?.close();
        await server?.stop();
    });

    async function device(name: string): Promise<DeviceRow> {
        const res = await page.request.get(`${server.url}/api/device/list?deviceName=${name}&pageNumber=1&pageSize=10`);
        const body = (await res.json()) as { data: { records: DeviceRow[] } };
        const row = body.data.records.find((r) => r.deviceName === name);
        expect(row, `demo device ${name}`).toBeTruthy();
        return row!;
    }

    /** The device signs in over MQTT as a real lamp would, posts its power and a LampFault event, waits for the replies. */
    async function reportNow(lamp: DeviceRow) {
        const detail = await page.request.get(`${server.url}/api/device/detail?deviceId=${lamp.deviceId}`);
        const secret = ((await detail.json()) as { data: { device: { secret: string } } }).data.device.secret;
        const port = /MQTT: mqtt:\/\/[^:]+:(\d+)/.exec(server.output())![1];
        const client = await mqtt.connectAsync(`mqtt://127.0.0.1:${port}`, {
            ...alibabaCredentials({ productKey: lamp.productKey, deviceName: lamp.deviceName, secret }),
            reconnectPeriod: 0,
        });
        try {
            const sys = `/sys/${lamp.productKey}/${lamp.deviceName}/thing/event`;
            const replies: Array<Record<string, unknown>> = [];
            client.on('message', (_t, payload) => replies.push(JSON.parse(String(payload)) as Record<string, unknown>));
            await client.subscribeAsync(`${sys}/+/post_reply`, { qos: 1 });
            const now = Date.now();
            await client.publishAsync(
                `${sys}/property/post`,
                JSON.stringify({ id: '1', version: '1.0', params: { ActivePower: { value: 88.5, time: now } } }),
                { qos: 1 },
            );
            await client.publishAsync(
                `${sys}/LampFault/post`,
                JSON.stringify({ id: '2', version: '1.0', params: { value: { FaultCode: 2 }, time: now } }),
                { qos: 1 },
            );
            await expect.poll(() => replies.length, { timeout: 10_000 }).toBe(2);
            expect(replies.map((r) => r.code)).toEqual([200, 200]);
        } finally {
            await client.endAsync();
        }
    }

    const tableRows = (scope: Page | Locator, name: string) => scope.locator(`table[aria-label="${name}"] tbody tr`);
    const toast = (text: string) => byText(page.locator('.MuiSnackbar-root'), text);
    async function rowCount(scope: Page | Locator, name: string, atLeast = 1) {
        await expect.poll(() => tableRows(scope, name).count(), { timeout: 20_000 }).toBeGreaterThanOrEqual(atLeast);
        return tableRows(scope, name).count();
    }

    it('reads a property history on an online lamp as a chart and a table, then its events and services', async () => {
        const lamp = await device('SL-BJ-0001');
        // The console is shared by the e2e files and its demo seed ages with the run: the lamp reports its power and a
        // fault now, through the platform's own broker, so the last hour holds a property report and an event.
        await reportNow(lamp);
        await page.goto(
            `${server.url}/devices/${lamp.productKey}/${lamp.deviceName}?devicesId=${lamp.deviceId}&checkIdx=3`,
        );
        expect(await rowCount(page, '属性', 6)).toBe(6);
        const power = tableRows(page, '属性').filter({ hasText: 'ActivePower' });
        await expect.poll(async () => (await power.textContent()) ?? '').toMatch(/\d+(\.\d+)?W/);
        await screenshot(page, 'deviceTelemetry-properties');

        await power.getByRole('button', { name: /查看数据/ }).click();
        const dialog = page.locator('[role=dialog]', { hasText: '属性历史' });
        await dialog.waitFor();
        await rowCount(dialog, '历史数据');
        // The chart draws a line through the points (an SVG path in the chart's figure).
        const line = dialog.locator(
            '[data-testid=property-history-chart] svg path.MuiLineChart-line, [data-testid=property-history-chart] svg .MuiLineElement-root',
        );
        await expect.poll(() => line.count(), { timeout: 20_000 }).toBeGreaterThan(0);
        // The time axis is labelled (with the CJK font the default axis height once dropped every label).
        const timeLabels = dialog.locator('.MuiChartsAxis-directionX .MuiChartsAxis-tickLabel', {
            hasText: /^\d{2}:\d{2}$/,
        });
        await expect.poll(() => timeLabels.count()).toBeGreaterThan(1);
        const hourTotal = Number((await byText(dialog, '共').textContent())?.match(/共 (\d+) 条/)?.[1]);
        expect(hourTotal).toBeGreaterThan(0);

        await dialog.getByRole('tab', { name: '24小时' }).click();
        await expect
            .poll(async () => Number((await byText(dialog, '共').textContent())?.match(/共 (\d+) 条/)?.[1]), {
                timeout: 20_000,
            })
            .toBeGreaterThan(hourTotal);
        await dialog.getByRole('combobox').click();
        await page.getByRole('option', { name: '50 条/页' }).click();
        await expect.poll(() => tableRows(dialog, '历史数据').count(), { timeout: 20_000 }).toBe(50);
        // The chart's entry animation.
        await screenshot(page, 'deviceTelemetry-history', { settleMs: 500 });
        await dialog.getByRole('button', { name: '关闭' }).click();
        await dialog.waitFor({ state: 'detached' });

        await page.getByRole('tab', { name: '事件' }).click();
        expect(new URL(page.url()).searchParams.get('dataTab')).toBe('event');
        await rowCount(page, '事件');
        const hourEvents = await tableRows(page, '事件').count();
        await page.getByRole('tab', { name: '1个月' }).click();
        await expect.poll(() => tableRows(page, '事件').count(), { timeout: 20_000 }).toBeGreaterThan(hourEvents);
        await screenshot(page, 'deviceTelemetry-events');

        await page.getByRole('tab', { name: '服务' }).click();
        await rowCount(page, '服务列表');
        await rowCount(page, '服务调用记录');
        await expect
            .poll(async () => (await tableRows(page, '服务调用记录').first().textContent()) ?? '')
            .toContain('thing.service.');
        await screenshot(page, 'deviceTelemetry-services');
        expect(errors).toEqual([]);
    });

    it('shows run status, event manage and service calls on the instance detail', async () => {
        const lamp = await device('SL-BJ-0001');
        const base = `${server.url}/devInstanceDetail/${lamp.productId}/${lamp.deviceId}`;
        await page.goto(`${base}/runStatus`);
        expect(await rowCount(page, '运行状态', 10)).toBe(10);
        await expect
            .poll(async () => (await tableRows(page, '运行状态').first().textContent()) ?? '')
            .toContain('thing.event.property.post');
        await page.getByRole('button', { name: '刷新运行状态' }).click();
        await expect.poll(() => tableRows(page, '运行状态').count()).toBe(10);
        await screenshot(page, 'deviceTelemetry-runStatus');

        await page.getByRole('tab', { name: '事件管理' }).click();
        await page.waitForURL(/\/event$/);
        await rowCount(page, '事件管理');
        await expect
            .poll(async () => (await tableRows(page, '事件管理').first().textContent()) ?? '')
            .toContain('thing.event.');
        await screenshot(page, 'deviceTelemetry-eventManage');

        await page.getByRole('tab', { name: '服务调用' }).click();
        await page.waitForURL(/\/service$/);
        await rowCount(page, '服务列表');
        await screenshot(page, 'deviceTelemetry-serviceCall');

        // A device that never connected has nothing to show, and says so.
        const spare = await device('SL-BJ-0005');
        await page.goto(`${server.url}/devInstanceDetail/${spare.productId}/${spare.deviceId}/runStatus`);
        await byText(page, '设备上报后点击“刷新”查看最新记录').waitFor();
        expect(await tableRows(page, '运行状态').count()).toBe(0);
        expect(errors).toEqual([]);
    });

    it('adds a sub-device to GW-FAC-01 and removes it again, and lists HGW-0001 on the instance detail', async () => {
        const gateway = await device('GW-FAC-01');
        await page.goto(
            `${server.url}/devices/${gateway.productKey}/${gateway.deviceName}?devicesId=${gateway.deviceId}&checkIdx=5`,
        );
        expect(await rowCount(page, '子设备', 2)).toBe(2);

        await page.getByRole('button', { name: '添加子设备' }).click();
        const dialog = page.locator('[role=dialog]', { hasText: '添加子设备' });
        await dialog.waitFor();
        await dialog.getByRole('textbox', { name: '搜索可添加的设备' }).fill('TH-OFFICE');
        await dialog.getByRole('textbox', { name: '搜索可添加的设备' }).press('Enter');
        const pick = dialog.locator('tr', { hasText: 'TH-OFFICE-02' }).getByRole('checkbox');
        await pick.waitFor({ timeout: 20_000 });
        await pick.click();
        await dialog.getByRole('textbox', { name: '备注' }).fill('端到端新增');
        await byText(dialog, '已选 1 个').waitFor();
        await screenshot(page, 'deviceTelemetry-subDevicesAdd');
        await dialog.getByRole('button', { name: '确定' }).click();
        await toast('添加成功').waitFor();
        await dialog.waitFor({ state: 'detached' });
        await expect.poll(() => tableRows(page, '子设备').count(), { timeout: 20_000 }).toBe(3);
        const added = tableRows(page, '子设备').filter({ hasText: 'TH-OFFICE-02' });
        await expect.poll(async () => (await added.textContent()) ?? '').toContain('端到端新增');
        await screenshot(page, 'deviceTelemetry-subDevices');

        await added.getByRole('button', { name: '移除' }).click();
        const confirm = page.locator('[role=dialog]', { hasText: '确定将子设备' });
        await confirm.waitFor();
        // The dialog's entry transition.
        await screenshot(page, 'deviceTelemetry-subDevicesRemove', { settleMs: 400 });
        await confirm.getByRole('button', { name: '确定' }).click();
        await toast('操作成功').waitFor();
        await expect.poll(() => tableRows(page, '子设备').count(), { timeout: 20_000 }).toBe(2);

        // The link opens the sub-device's own detail.
        await tableRows(page, '子设备').first().getByRole('link').first().click();
        await page.waitForURL(/\/childDeviceDetail\/\d+\/\d+/);

        const home = await device('HGW-0001');
        await page.goto(`${server.url}/devInstanceDetail/${home.productId}/${home.deviceId}/childDevice`);
        expect(await rowCount(page, '子设备', 1)).toBe(1);
        await expect
            .poll(async () => (await tableRows(page, '子设备').first().textContent()) ?? '')
            .toContain('TH-OFFICE-01');
        await screenshot(page, 'deviceTelemetry-childDevice');
        expect(errors).toEqual([]);
    });
});
