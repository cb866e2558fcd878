import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { haveChromium, launchBrowser, screenshot, signIn, startServer, type RunningServer } from './support';

/**
 * The help pages and the report in Chromium against the real `npm start`: 平台手册 from the header, its table of
 * contents and search; /report's charts and its CSV export. Screenshots: tests/e2e/output/help-*.png.
 */
describe.skipIf(!haveChromium)('help pages and report in Chromium', () => {
    let server: RunningServer;
    let browser: Browser;
    let page: Page;
    const errors: string[] = [];

    beforeAll(async () => {
        server = await startServer();
        browser = await launchBrowser();
        page = await browser.newPage({
            viewport: { width: 1440, height: 900 },
            locale: 'zh-CN',
            acceptDownloads: true,
        });
        page.on('pageerror', (e) => errors.push(String(e)));
        page.on('response', (r) => {
            if (r.status() >= 400) errors.push(`${r.status()} ${r.url()}`);
        });
        await signIn(page, server.url, '/introduce');
    }, 300_000);

    afterAll(async () => {
        await browser?.close();
        await server?.stop();
    });

    it('opens 平台手册 from the header, jumps by the table of contents and finds a word', async () => {
        await page.getByRole('link', { name: '平台手册' }).click();
        await page.waitForURL(/\/usermanual$/);
        const toc = page.getByRole('navigation', { name: '目录' });
        await toc.getByRole('button', { name: '连接被拒绝时' }).click();
        await page.waitForURL(/#h-\d+$/);
        const heading = page.getByRole('heading', { name: '连接被拒绝时' });
        // A smooth scroll of some 8,000 px: it takes more than expect.poll's default second on a busy machine.
        await expect.poll(async () => (await heading.boundingBox())?.y ?? -1, { timeout: 10_000 }).toBeLessThan(300);
        await screenshot(page, 'help-toc');
        await page.getByRole('textbox', { name: '搜索文档' }).fill('AccessSecret');
        await page.waitForURL(/q=AccessSecret/);
        const results = page.getByRole('region', { name: '搜索结果' });
        await results.getByRole('button', { name: /用 AMQP 1\.0 接收设备消息/ }).click();
        await expect
            .poll(
                async () =>
                    (await page.getByRole('heading', { name: '用 AMQP 1.0 接收设备消息' }).boundingBox())?.y ?? -1,
                { timeout: 10_000 },
            )
            .toBeLessThan(300);
        await screenshot(page, 'help-search');
        expect(errors).toEqual([]);
    });

    it('shows /report and exports its CSV', async () => {
        await page.goto(`${server.url}/report`);
        await page.getByRole('table', { name: '各产品每日统计' }).locator('tbody tr').first().waitFor();
        await screenshot(page, 'help-report');
        const [download] = await Promise.all([
            page.waitForEvent('download'),
            page.getByRole('button', { name: '导出 CSV' }).click(),
        ]);
        expect(download.suggestedFilename()).toMatch(/^统计报表_\d{4}-\d\d-\d\d_\d{4}-\d\d-\d\d\.csv$/);
        const text = readFileSync((await download.path())!, 'utf8');
        expect(text.split('\r\n')[0]).toBe(
            '\uFEFF日期,产品名称,ProductKey,上行消息数,下行消息数,活跃设备数,设备总数,紧急告警,严重告警,一般告警',
        );
        expect(text).toContain('智能路灯_L1');
        expect(errors).toEqual([]);
    });
});
