import { readFileSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Locator, Page } from 'playwright-core';
import { IMPORT_COLUMNS, IMPORT_DEVICE_EXISTS, IMPORT_DUPLICATE_IN_FILE } from '../../schemas/device';
import { byText, haveChromium, launchBrowser, screenshot, signIn, startServer, type RunningServer } from './support';

/**
 * A person's session with the device screens, in Chromium against the real `npm start`: add a device, batch-add 50,
 * import a CSV with good and bad rows, bind to projects (and the refused combinations), export, disable, delete.
 * The screens work in a product created for this run, so the demo devices do not disturb the counts.
 */
describe.skipIf(!haveChromium)('device screens in Chromium', () => {
    let server: RunningServer;
    let browser: Browser;
    let page: Page;
    const errors: string[] = [];
    const stamp = Date.now() % 100000;
    const productName = `端到端设备产品_${stamp}`;
    let product: { productId: number; productKey: string };
    /** A batch-added device on the first page of /devices (its name is the platform's). */
    let other = '';

    beforeAll(async () => {
        server = await startServer();
        browser = await launchBrowser();
        page = await browser.newPage({
            viewport: { width: 1440, height: 900 },
            locale: 'zh-CN',
            acceptDownloads: true,
        });
        page.on('pageerror', (e) => errors.push(String(e)));
        await signIn(page, server.url, '/deviceInstance');

        // The product comes through the platform's own API, with the browser's session.
        const tree = await (await page.request.get(`${server.url}/api/product/list-category`)).json();
        let node = tree.data[0];
        while (node.children?.length) node = node.children[0];
        const saved = await page.request.post(`${server.url}/api/product/save`, {
            form: {
                productName,
                nodeType: '0',
                gatewayType: '0',
                categoryId: String(node.id),
                networkType: '5',
                dataType: '0',
            },
        });
        const body = await saved.json();
        expect(body.code).toBe(200);
        product = body.data;
    });

    afterEach(async ({ task }) => {
        if (task.result?.state === 'fail' && page) await screenshot(page, `failed-devices-${task.name.slice(0, 40)}`);
    });

    afterAll(async () => {
        await browser?.close();
        await server?.stop();
    });

    const dialog = (name: string) => page.locator('[role=dialog]', { has: page.locator(`h2:has-text("${name}")`) });
    const row = (deviceName: string) => page.locator('tbody tr', { hasText: deviceName });
    const count = (name: 'total' | 'online' | 'inactive') => page.locator(`[data-testid=count-${name}]`);
    const toast = (text: string) => byText(page.locator('.MuiSnackbar-root'), text);
    async function select(deviceName: string, on = true) {
        // The row's selection box, not its enable switch (also a checkbox input).
        const box = row(deviceName).locator('td').first().locator('input[type=checkbox]');
        if (on) await box.check();
        else await box.uncheck();
    }
    async function expectText(scope: Locator, text: string) {
        await expect.poll(async () => (await scope.textContent()) ?? '', { timeout: 15_000 }).toContain(text);
    }

    it('adds a device on /deviceInstance with the product locked to the filter', async () => {
        await page.goto(`${server.url}/deviceInstance/${product.productId}`);
        await byText(page, '暂无设备').waitFor();
        await page.click('button:has-text("添加设备")');
        const add = dialog('添加设备');
        await expectText(add.locator('[role=combobox]').first(), productName);
        await add.locator('button:has-text("确定")').click();
        await byText(add, '请输入deviceName!').waitFor();
        await add.locator('input[name=deviceName]').fill('e2e_lamp_0001');
        await add.locator('input[name=remark]').fill('东门一号路灯');
        await screenshot(page, 'devices-01-add-dialog');
        await add.locator('button:has-text("确定")').click();
        await toast('添加成功').waitFor();
        await add.waitFor({ state: 'detached' });
        await row('e2e_lamp_0001').waitFor();
        expect(await row('e2e_lamp_0001').textContent()).toContain('未激活');
        await expectText(count('total'), '1');
    });

    it('batch-adds 50 devices and counts them', async () => {
        await page.click('button:has-text("批量添加")');
        const batch = dialog('批量添加');
        await batch.locator('input[name=amount]').fill('50');
        await batch.locator('button:has-text("确定")').click();
        await toast('批量添加成功，共添加50个设备').waitFor();
        await expectText(count('total'), '51');
        await expect.poll(() => page.locator('tbody tr').count()).toBe(10);
        await screenshot(page, 'devices-02-batch-added');
    });

    it('downloads the template and imports a CSV with good and bad rows, reading both lists', async () => {
        await page.goto(`${server.url}/devices?pk=${product.productKey}&perPage=20`);
        await page.locator('tbody tr').first().waitFor();
        await page.click('button:has-text("批量导入")');
        const importer = dialog('批量导入');
        await expectText(importer.locator('[role=combobox]').first(), productName);

        const [template] = await Promise.all([
            page.waitForEvent('download'),
            importer.locator('button:has-text("下载模板")').click(),
        ]);
        const templateText = readFileSync((await template.path())!, 'utf8');
        expect(templateText.charCodeAt(0)).toBe(0xfeff);
        expect(templateText.slice(1).split(/\r?\n/)[0]).toBe(IMPORT_COLUMNS.join(','));

        const csv = [
            IMPORT_COLUMNS.join(','),
            'e2e_imp_0001,导入一号,121.47,31.23,上海',
            'e2e_imp_0002,导入二号,,,',
            'e2e_imp_0003,,,,',
            'e2e_imp_0001,重复的一行,,,',
            'bad/name,斜杠不允许,,,',
            'ab,太短,,,',
            'e2e_lamp_0001,已存在,,,',
        ].join('\r\n');
        await importer
            .locator('input[type=file]')
            .setInputFiles({ name: 'devices.csv', mimeType: 'text/csv', buffer: Buffer.from(`\uFEFF${csv}\r\n`) });
        await expectText(importer.locator('[data-testid=upload-file-name]'), 'devices.csv');
        await importer.locator('button:has-text("上传")').click();
        await toast('文件上传成功!').waitFor();
        await byText(importer, '导入成功 3 个，失败 4 个').waitFor();

        const written = importer.locator('section[aria-label="导入成功的设备"]');
        for (const name of ['e2e_imp_0001', 'e2e_imp_0002', 'e2e_imp_0003']) await byText(written, name).waitFor();
        const failures = await importer.locator('table[aria-label="导入失败列表"] tbody tr').allTextContents();
        expect(failures).toHaveLength(4);
        // Line numbers count the header as line 1.
        expect(failures[0]).toBe(`5e2e_imp_0001${IMPORT_DUPLICATE_IN_FILE}`);
        expect(failures[1]).toMatch(/^6bad\/name设备名称只能包含/);
        expect(failures[2]).toMatch(/^7ab设备名称长度须为/);
        expect(failures[3]).toBe(`8e2e_lamp_0001${IMPORT_DEVICE_EXISTS}`);
        await screenshot(page, 'devices-03-import-result');

        await importer.locator('button:has-text("完成")').click();
        await importer.waitFor({ state: 'detached' });
        await expectText(count('total'), '54');
        await row('e2e_imp_0003').waitFor();
    });

    it('refuses a file that is not a device CSV with the server message', async () => {
        await page.click('button:has-text("批量导入")');
        const importer = dialog('批量导入');
        await importer
            .locator('input[type=file]')
            .setInputFiles({ name: 'wrong.csv', mimeType: 'text/csv', buffer: Buffer.from('name,color\nx,red\n') });
        await importer.locator('button:has-text("上传")').click();
        await byText(importer, '未知的列').waitFor();
        await screenshot(page, 'devices-04-import-refused');
        await importer.locator('button:has-text("取消")').click();
        await importer.waitFor({ state: 'detached' });
        await expectText(count('total'), '54');
    });

    it('binds devices to a project and says why the wrong selections are refused', async () => {
        // react-admin shows one notification at a time, so each message is waited for in turn.
        const warn = (text: string) => toast(text).waitFor();
        // Newest first: the three imported devices, then batch-added ones.
        other = ((await page.locator('tbody tr').nth(3).locator('td').nth(1).textContent()) ?? '').trim();
        expect(other).toMatch(/^[A-Za-z0-9]{16}$/);
        await page.click('button:has-text("关联项目")');
        await warn('请选择需要关联项目的设备');
        await page.click('button:has-text("解绑项目")');
        await warn('请选择需要批量解绑的设备');

        await select('e2e_imp_0001');
        await select('e2e_imp_0002');
        await page.click('button:has-text("关联项目")');
        const bind = dialog('关联项目');
        await bind.locator('button:has-text("确定")').click();
        await warn('请选择要关联的场景');
        await bind.locator('button:has-text("智慧城市")').click();
        await bind.locator('label:has-text("城市照明改造项目")').click();
        await screenshot(page, 'devices-05-bind-dialog');
        await bind.locator('button:has-text("确定")').click();
        await toast('关联成功').waitFor();
        await expectText(row('e2e_imp_0001'), '城市照明改造项目');
        // The second bind says 关联成功 too: the first one has to be gone before it counts.
        await toast('关联成功').waitFor({ state: 'detached', timeout: 15_000 });
        await expectText(row('e2e_imp_0002'), '城市照明改造项目');

        await select('e2e_imp_0003');
        await page.click('button:has-text("关联项目")');
        await bind.locator('button:has-text("工业互联网")').click();
        await bind.locator('label:has-text("工厂能耗监测项目")').click();
        await bind.locator('button:has-text("确定")').click();
        await toast('关联成功').waitFor();
        await expectText(row('e2e_imp_0003'), '工厂能耗监测项目');

        await select('e2e_imp_0001');
        await select(other);
        await page.click('button:has-text("关联项目")');
        await warn('请选择未关联项目的设备进行关联');
        await page.click('button:has-text("解绑项目")');
        await warn('请选择已关联项目的设备进行解绑');
        await select(other, false);
        await select('e2e_imp_0003');
        await page.click('button:has-text("解绑项目")');
        await warn('请选择关联同一项目的设备进行解绑');
        await select('e2e_imp_0001', false);
        await select('e2e_imp_0003', false);
        await row(other).locator('button:has-text("移出项目")').click();
        await warn('未关联项目');

        // One project's devices unbind together.
        await select('e2e_imp_0003');
        await page.click('button:has-text("解绑项目")');
        await page.locator('[role=dialog] button:has-text("确定")').click();
        await toast('解绑成功').waitFor();
        await expect
            .poll(async () => (await row('e2e_imp_0003').textContent()) ?? '')
            .not.toContain('工厂能耗监测项目');
        await screenshot(page, 'devices-06-bound');
    });

    it('exports every device of the product as CSV with a BOM', async () => {
        const [download] = await Promise.all([page.waitForEvent('download'), page.click('button:has-text("导出")')]);
        const text = readFileSync((await download.path())!, 'utf8');
        expect(text.charCodeAt(0)).toBe(0xfeff);
        const lines = text.slice(1).split('\r\n').filter(Boolean);
        const header = lines[0].split(',');
        expect(header[0]).toBe('设备名称');
        expect(header).toContain('ProductKey');
        expect(lines).toHaveLength(1 + 54);
        const names = lines.slice(1).map((l) => l.split(',')[0]);
        expect(names).toContain('e2e_lamp_0001');
        expect(names).toContain('e2e_imp_0003');
        expect(lines.find((l) => l.startsWith('e2e_imp_0001,'))).toContain('城市照明改造项目');
        expect(new Set(lines.slice(1).map((l) => l.split(',')[header.indexOf('ProductKey')]))).toEqual(
            new Set([product.productKey]),
        );
    });

    it('disables one device and it shows 已禁用', async () => {
        await page.locator(`[role=switch][aria-label="禁用设备 ${other}"]`).click();
        const confirm = page.locator('[role=dialog]', { hasText: `确定禁用设备 ${other}` });
        await confirm.locator('button:has-text("确定")').click();
        await toast('操作成功').waitFor();
        await expectText(row(other), '已禁用');
        expect(await page.locator(`[role=switch][aria-label="启用设备 ${other}"]`).isChecked()).toBe(false);
        await screenshot(page, 'devices-07-disabled');
    });

    it('deletes one device after confirmation', async () => {
        await row('e2e_imp_0002').locator('button:has-text("删除")').click();
        const confirm = page.locator('[role=dialog]', { hasText: '是否删除此设备?' });
        await byText(confirm, '提示').waitFor();
        await screenshot(page, 'devices-08-delete-confirm');
        await confirm.locator('button:has-text("确定")').click();
        await toast('设备删除成功').waitFor();
        await row('e2e_imp_0002').waitFor({ state: 'detached' });
        await expectText(count('total'), '53');
        await page.click('[role=tab]:has-text("视频流列表")');
        // The video list with its status tabs; empty or not depends on the files before this one on the shared server
        // (video.test.ts adds cameras), so either its rows or its empty state.
        await page.locator('[role=tab]:has-text("已停止")').waitFor();
        await byText(page, '暂无视频设备')
            .or(page.locator('th:has-text("推流状态"), [role=columnheader]:has-text("推流状态")').first())
            .first()
            .waitFor();
        await screenshot(page, 'devices-09-video-tab');
        expect(errors).toEqual([]);
    });
});
