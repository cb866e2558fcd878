import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { byText, haveChromium, launchBrowser, screenshot, signIn, startServer, type RunningServer } from './support';

/**
 * A person's first session with the product family, in Chromium against the real `npm start`:
 * sign in through the SSO page, create a product (first with a bad name), find it, define its thing model,
 * delete it.
 */
describe.skipIf(!haveChromium)('product family in Chromium', () => {
    let server: RunningServer;
    let browser: Browser;
    let page: Page;
    const errors: string[] = [];
    const name = `端到端产品_${Date.now() % 100000}`;

    beforeAll(async () => {
        server = await startServer();
        browser = await launchBrowser();
        page = await browser.newPage({ viewport: { width: 1400, height: 900 }, locale: 'zh-CN' });
        page.on('pageerror', (e) => errors.push(String(e)));
    });

    afterEach(async ({ task }) => {
        if (task.result?.state === 'fail' && page) await screenshot(page, `failed-${task.name.slice(0, 40)}`);
    });

    afterAll(async () => {
        await browser?.close();
        await server?.stop();
    });

    it('sends an unsigned visitor to the SSO page and lands on the console after sign-in', async () => {
        await signIn(page, server.url, '/introduce');
        expect(new URL(page.url()).pathname).toBe('/introduce');
        await byText(page, '产品管理').waitFor();
        await screenshot(page, 'products-01-introduce');
    });

    it('refuses a bad product name with the platform message, then creates a good one', async () => {
        await page.goto(`${server.url}/product`);
        await page.locator('tbody tr').first().waitFor();
        await page.click('button:has-text("创建产品")');
        const dialog = page.locator('[role=dialog]');
        await dialog.locator('input[name=productName]').fill('灯');
        await dialog.locator('button:has-text("确定")').click();
        await byText(dialog, '长度限制4~30，中文算2位').waitFor();
        await screenshot(page, 'products-02-bad-name');

        await dialog.locator('input[name=productName]').fill(name);
        const cascader = page.locator('[data-testid=cascader-categoryId] [role=combobox]');
        for (const [level, option] of ['智慧城市', '公共服务', '路灯照明'].entries()) {
            await cascader.nth(level).click();
            await page.click(`[role=option]:has-text("${option}")`);
        }
        await dialog.locator('button:has-text("确定")').click();
        await byText(page, '添加成功').waitFor();
        await dialog.waitFor({ state: 'detached' });
    });

    it('finds the new product by search', async () => {
        await page.fill('input[placeholder="请输入产品名称"]', name);
        await page.waitForFunction(
            (n) => {
                const rows = [...document.querySelectorAll('tbody tr')];
                return rows.length === 1 && rows[0].textContent?.includes(n);
            },
            name,
            { timeout: 15_000 },
        );
        expect(decodeURIComponent(new URL(page.url()).search)).toContain(name);
        await screenshot(page, 'products-03-search');
    });

    it('opens the detail and adds a property to the thing model', async () => {
        await page.click('tbody tr:first-child a:has-text("查看")');
        await page.waitForURL(/\/productDetail\/view\?productId=\d+/);
        await byText(page, name).waitFor();
        await page.click('[role=tab]:has-text("功能定义")');
        await page.waitForURL(/\/productDetail\/function/);
        await page.click('button:has-text("添加自定义功能")');
        const dialog = page.locator('[role=dialog]');
        await dialog.getByLabel('功能名称').fill('环境温度');
        await dialog.getByLabel('标识符').fill('Temperature');
        await dialog.getByLabel('最小值').fill('-40');
        await dialog.getByLabel('最大值').fill('120');
        await dialog.locator('button:has-text("确定")').click();
        await dialog.waitFor({ state: 'detached' });
        const row = page.locator('tbody tr', { hasText: 'Temperature' });
        await row.waitFor();
        expect(await row.textContent()).toContain('取值范围: -40 ~ 120');
        await screenshot(page, 'products-04-thing-model');
    });

    it('deletes the product after confirmation and it is gone', async () => {
        await page.goto(`${server.url}/product`);
        await page.fill('input[placeholder="请输入产品名称"]', name);
        const row = page.locator('tbody tr', { hasText: name });
        await row.waitFor();
        await row.locator('button:has-text("删除"), a:has-text("删除")').first().click();
        await byText(page.locator('[role=dialog]'), '提示').waitFor();
        await screenshot(page, 'products-05-delete-confirm');
        await page
            .locator('[role=dialog] button:has-text("确定"), [role=dialog] button:has-text("确认")')
            .first()
            .click();
        await byText(page, '删除成功').waitFor();
        await row.waitFor({ state: 'detached' });
        expect(errors).toEqual([]);
    });
});
