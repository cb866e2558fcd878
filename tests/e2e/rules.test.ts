import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { byText, haveChromium, launchBrowser, screenshot, signIn, startServer, type RunningServer } from './support';

/**
 * The rule engine in Chromium against the real `npm start`: a rule made in the console ("temperature above 30 raises
 * a 严重 alert and switches the fan on"), a simulated sensor reporting 35 °C through the platform's broker, the alert
 * on the dashboard, the fan property set on the device (the simulated device takes it and reports it), the firing in
 * the rule journal. Screens are saved as tests/e2e/output/rules-*.png.
 */

describe.skipIf(!haveChromium)('rules in Chromium', () => {
    let server: RunningServer;
    let browser: Browser;
    let page: Page;
    const errors: string[] = [];
    let product: { productId: number; productKey: string };

    const api = async <T>(method: 'GET' | 'POST', path: string, data?: unknown): Promise<T> => {
        const res =
            method === 'GET'
                ? await page.request.get(`${server.url}${path}`)
                : await page.request.post(`${server.url}${path}`, { data: data as Record<string, unknown> });
        const body = (await res.json()) as { code: number; msg: string; data: T };
        expect(body.code === 0 || body.code === 200, JSON.stringify(body)).toBe(true);
        return body.data;
    };

    beforeAll(async () => {
        server = await startServer();
        browser = await launchBrowser();
        page = await browser.newPage({ viewport: { width: 1440, height: 900 }, locale: 'zh-CN' });
        page.on('pageerror', (e) => errors.push(String(e)));
        await signIn(page, server.url, '/ruleEngine/Linkedge');
        // The demo temperature sensor gains a fan it can switch (the thing model editor's job, done here by its API).
        const list = await api<{ records: Array<{ productId: number; productKey: string }> }>(
            'GET',
            `/api/product?pageNumber=1&pageSize=1&productName=${encodeURIComponent('温湿度传感器')}`,
        );
        product = list.records[0];
        await api('POST', '/api/function/save', {
            productId: product.productId,
            type: 'property',
            identifier: 'FanSwitch',
            name: '风扇开关',
            accessMode: 'rw',
            dataType: { type: 'bool', specs: { '0': '关闭', '1': '开启' } },
        });
    }, 300_000);

    afterEach(async ({ task }) => {
        if (task.result?.state === 'fail' && page) await screenshot(page, `failed-rules-${task.name.slice(0, 40)}`);
    });

    afterAll(async () => {
        await browser?.close();
        await server?.stop();
    });

    const toast = (text: string) => byText(page.locator('.MuiSnackbar-root'), text);

    it('makes the rule in the console: trigger, condition and two actions chosen from the thing model', async () => {
        await page.goto(`${server.url}/ruleEngine/Linkedge`);
        await byText(page, '暂无场景联动规则').waitFor();
        await page.getByRole('button', { name: '新建规则' }).first().click();
        const form = page.getByRole('dialog');
        await form.getByLabel('规则名称').fill('温度过高开风扇');
        await form.getByRole('combobox', { name: /^产品/ }).click();
        await page.getByRole('option', { name: '温湿度传感器_T1' }).click();

        const trigger = form.getByRole('group', { name: '触发条件第1行' });
        await trigger.getByRole('combobox', { name: /^属性（/ }).click();
        await page.getByRole('option', { name: /温度（Temperature）/ }).click();

        await form.getByRole('button', { name: '添加过滤条件' }).click();
        const condition = form.getByRole('group', { name: '过滤条件第1行' });
        await condition.getByRole('combobox', { name: /^属性/ }).click();
        await page.getByRole('option', { name: /温度（Temperature）/ }).click();
        await condition.getByRole('textbox', { name: '值', exact: true }).fill('30');

        await form.getByRole('button', { name: '添加执行动作' }).click();
        await form.getByRole('button', { name: '添加执行动作' }).click();
        // A new action is a 严重 alert.
        const alert = form.getByRole('group', { name: '执行动作第1行' });
        await alert.getByRole('textbox', { name: '内容模板' }).fill('${deviceName} 温度 ${value}°C 过高');
        const fan = form.getByRole('group', { name: '执行动作第2行' });
        await fan.getByRole('combobox', { name: /^动作类型/ }).click();
        await page.getByRole('option', { name: '设置设备属性' }).click();
        await fan.getByRole('combobox', { name: /^属性/ }).click();
        await page.getByRole('option', { name: /风扇开关（FanSwitch）/ }).click();
        await fan.getByRole('textbox', { name: '设置为' }).fill('1');
        await screenshot(page, 'rules-editor');
        await form.getByRole('button', { name: '确定' }).click();
        await toast('保存成功').waitFor();
        await byText(page.getByRole('table'), '温度过高开风扇').waitFor();
        await screenshot(page, 'rules-list');
    });

    it('a simulated sensor past 30 °C raises the 严重 alert on the dashboard and switches its fan on', async () => {
        await api('POST', '/api/simulation/save', {
            productKey: product.productKey,
            amount: 1,
            intervalSeconds: 1,
            mode: 'fixed',
            fixedValues: { Temperature: 35 },
            start: 'true',
        });
        const sims = await api<{ records: Array<{ firstDeviceId: number; firstDeviceName: string }> }>(
            'GET',
            '/api/simulation/list?pageNumber=1&pageSize=10',
        );
        const { firstDeviceId: deviceId, firstDeviceName: deviceName } = sims.records[0];

        await page.goto(`${server.url}/introduce`);
        const text = `${deviceName} 温度 35°C 过高`;
        for (let i = 0; i < 20 && !(await byText(page, text).isVisible()); i++) {
            await page.waitForTimeout(1000);
            await page.reload();
        }
        await byText(page, text).waitFor();
        await screenshot(page, 'rules-dashboard');

        // The fan was set: the device took it and reports FanSwitch 1.
        let fanValue: unknown;
        for (let i = 0; i < 20 && fanValue !== 1; i++) {
            const { properties } = await api<{ properties: Array<{ identifier: string; value: unknown }> }>(
                'GET',
                `/api/device/properties?deviceId=${deviceId}`,
            );
            fanValue = properties.find((p) => p.identifier === 'FanSwitch')?.value;
            if (fanValue !== 1) await page.waitForTimeout(500);
        }
        expect(fanValue).toBe(1);

        // /monitor/deviceAlarm lists it as 严重, pending, raised by the rule.
        await page.goto(`${server.url}/monitor/deviceAlarm?alert_deviceName=${deviceName}`);
        const row = page.getByRole('row', { name: new RegExp(text) });
        await row.waitFor();
        await byText(row, '严重').waitFor();
        await byText(row, '温度过高开风扇').waitFor();
        await screenshot(page, 'rules-alarms');
    });

    it('shows the firing in the rule journal with each action’s result', async () => {
        await page.goto(`${server.url}/ruleEngine/RuleJournal`);
        const row = page.getByRole('row', { name: /温度过高开风扇/ }).first();
        await row.waitFor();
        await byText(row, '设置 FanSwitch=1').waitFor();
        await byText(row, '成功').waitFor();
        await screenshot(page, 'rules-journal');
        expect(errors).toEqual([]);
    });
});
