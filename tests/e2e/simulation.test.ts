import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { byText, haveChromium, launchBrowser, screenshot, signIn, startServer, type RunningServer } from './support';

/**
 * Device simulation in Chromium against the real `npm start`: a simulation started from /monitor/imitate brings
 * two new simulated lamps online through the platform's own broker; the first one's detail page shows it online
 * and its property posts arriving, and stopping the simulation takes it offline. Screens are saved as
 * tests/e2e/output/simulation-*.png for review.
 */

describe.skipIf(!haveChromium)('device simulation in Chromium', () => {
    let server: RunningServer;
    let browser: Browser;
    let page: Page;
    const errors: string[] = [];

    beforeAll(async () => {
        server = await startServer();
        browser = await launchBrowser();
        page = await browser.newPage({ viewport: { width: 1440, height: 900 }, locale: 'zh-CN' });
        page.on('pageerror', (e) => errors.push(String(e)));
        await signIn(page, server.url, '/monitor/imitate');
    }, 300_000);

    afterEach(async ({ task }) => {
        if (task.result?.state === 'fail' && page)
            await screenshot(page, `failed-simulation-${task.name.slice(0, 40)}`);
    });

    afterAll(async () => {
        await browser?.close();
        await server?.stop();
    });

    const toast = (text: string) => byText(page.locator('.MuiSnackbar-root'), text);
    const dialog = (name: string) => page.getByRole('dialog', { name });
    const table = () => page.getByRole('table').first();
    const ours = () => table().locator('tbody tr', { hasText: '智能路灯_L1' }).first();
    const headerStatus = () => page.locator('main .MuiChip-root').first();

    let detailUrl = '';

    it('starts a simulation of two new lamps from /monitor/imitate; the list counts them online and their messages', async () => {
        // The shared console may already hold other files' simulations (of other products): ours is the street lamps'.
        await page.locator('table tbody tr, :text("暂无模拟")').first().waitFor();
        if (await byText(page, '暂无模拟').isVisible()) await screenshot(page, 'simulation-empty');
        await page.getByRole('button', { name: '新建模拟' }).first().click();
        const form = dialog('新建模拟');
        await form.getByRole('button', { name: '确定' }).click();
        await byText(form, '请选择产品').waitFor();
        await form.getByRole('combobox', { name: /产品/ }).click();
        await page.getByRole('option', { name: '智能路灯_L1' }).click();
        // The product's devices to choose from appear once the product is chosen.
        await form.getByRole('table', { name: '选择已有设备' }).waitFor();
        await form.getByRole('spinbutton', { name: /新建模拟设备数量/ }).fill('2');
        await form.getByRole('spinbutton', { name: /上报间隔/ }).fill('1');
        await byText(form, '同时上报事件（每个间隔随机一个）').click();
        await screenshot(page, 'simulation-create');
        await form.getByRole('button', { name: '确定' }).click();
        await toast('模拟已创建').waitFor();

        const row = ours();
        await expect.poll(async () => (await row.textContent()) ?? '', { timeout: 20_000 }).toContain('运行中');
        // The list refreshes itself: both devices online, messages counting up.
        await expect.poll(async () => (await row.textContent()) ?? '', { timeout: 20_000 }).toContain('2 / 2');
        const sent = async () => Number((await row.locator('td').nth(7).textContent())?.replace(/\D/g, '') || 0);
        await expect.poll(sent, { timeout: 20_000 }).toBeGreaterThan(4);
        const before = await sent();
        await expect.poll(sent, { timeout: 20_000 }).toBeGreaterThan(before);
        await screenshot(page, 'simulation-running');

        const link = row.getByRole('link').first();
        expect(await link.textContent()).toMatch(/^sim_[A-Z0-9]{4}$/);
        await link.click();
        await page.waitForURL(/\/devInstanceDetail\/\d+\/\d+/);
        detailUrl = page.url().replace(/\/(info|list)$/, '');
    });

    it("the first device's detail page shows it online and its properties changing", async () => {
        await expect.poll(async () => (await headerStatus().textContent()) ?? '', { timeout: 20_000 }).toBe('在线');
        await screenshot(page, 'simulation-device-online');
        await page.goto(`${detailUrl}/runStatus`);
        const rows = page.locator('table[aria-label="运行状态"] tbody tr');
        await expect.poll(() => rows.count(), { timeout: 20_000 }).toBeGreaterThan(1);
        await expect.poll(async () => (await rows.first().textContent()) ?? '').toContain('thing.event.property.post');
        const first = (await rows.first().textContent()) ?? '';
        // A report a second later: the newest row changes.
        await expect
            .poll(
                async () => {
                    await page.getByRole('button', { name: '刷新运行状态' }).click();
                    await page.waitForTimeout(300);
                    return (await rows.first().textContent()) ?? '';
                },
                { timeout: 20_000, interval: 1_200 },
            )
            .not.toBe(first);
        await screenshot(page, 'simulation-device-runStatus');
    });

    it('stop (after its confirmation) takes the devices offline', async () => {
        await page.goto(`${server.url}/monitor/imitate`);
        const row = ours();
        await expect.poll(async () => (await row.textContent()) ?? '', { timeout: 20_000 }).toContain('运行中');
        await row.getByRole('button', { name: '停止' }).click();
        const confirm = page.getByRole('dialog').filter({ hasText: '确定停止该模拟吗？' });
        await confirm.getByRole('button', { name: '确定' }).click();
        await toast('模拟已停止').waitFor();
        await expect.poll(async () => (await row.textContent()) ?? '', { timeout: 20_000 }).toContain('已停止');
        expect(await row.textContent()).toContain('0 / 2');
        // The chip's colour fades from 运行中 to 已停止.
        await screenshot(page, 'simulation-stopped', { settleMs: 500 });

        await page.goto(detailUrl);
        await expect
            .poll(
                async () => {
                    await page.reload();
                    return (await headerStatus().textContent()) ?? '';
                },
                { timeout: 20_000, interval: 1_000 },
            )
            .toBe('离线');
        expect(errors).toEqual([]);
    });
});
