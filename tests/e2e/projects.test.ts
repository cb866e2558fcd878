import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Locator, Page } from 'playwright-core';
import { byText, haveChromium, launchBrowser, screenshot, signIn, startServer, type RunningServer } from './support';

/**
 * A person's session with the project screens, in Chromium against the real `npm start`: add a scene and a project in
 * it, add staff on its overview, bind two devices to it from /devices (关联项目), see them on the overview, remove
 * one, add another from the overview (it joins the project), and delete the project after being told how many
 * devices it still has.
 */
describe.skipIf(!haveChromium)('project screens in Chromium', () => {
    let server: RunningServer;
    let browser: Browser;
    let page: Page;
    const errors: string[] = [];
    const stamp = Date.now() % 100000;
    const sceneName = `端到端场景${stamp}`;
    const projectName = `端到端项目_${stamp}`;
    const deviceNames = [`e2e_prj_${stamp}_a`, `e2e_prj_${stamp}_b`];
    const addedName = `e2e_prj_${stamp}_c`;
    const productName = `端到端项目产品_${stamp}`;
    let productKey = '';
    let overviewUrl = '';

    beforeAll(async () => {
        server = await startServer();
        browser = await launchBrowser();
        page = await browser.newPage({ viewport: { width: 1440, height: 900 }, locale: 'zh-CN' });
        page.on('pageerror', (e) => errors.push(String(e)));
        await signIn(page, server.url, '/programList');

        // A product and two devices without a project, through the platform's API with the browser's session.
        const tree = await (await page.request.get(`${server.url}/api/product/list-category`)).json();
        let node = tree.data[0];
        while (node.children?.length) node = node.children[0];
        const product = await (
            await page.request.post(`${server.url}/api/product/save`, {
                form: {
                    productName,
                    nodeType: '0',
                    gatewayType: '0',
                    categoryId: String(node.id),
                    networkType: '5',
                    dataType: '0',
                },
            })
        ).json();
        expect(product.code).toBe(200);
        productKey = product.data.productKey;
        for (const deviceName of deviceNames) {
            const saved = await (
                await page.request.post(`${server.url}/api/device/save`, { form: { productKey, deviceName } })
            ).json();
            expect(saved.code).toBe(0);
        }
    }, 300_000);

    afterEach(async ({ task }) => {
        if (task.result?.state === 'fail' && page) await screenshot(page, `failed-projects-${task.name.slice(0, 40)}`);
    });

    afterAll(async () => {
        await browser?.close();
        await server?.stop();
    });

    const dialog = (name: string) => page.locator('[role=dialog]', { has: page.locator(`h2:has-text("${name}")`) });
    const toast = (text: string) => byText(page.locator('.MuiSnackbar-root'), text);
    const region = (name: string) => page.locator(`section[aria-label="${name}"]`);
    async function expectText(scope: Locator, text: string) {
        await expect.poll(async () => (await scope.textContent()) ?? '', { timeout: 15_000 }).toContain(text);
    }

    it('adds a scene, then a project in it, and finds it by scene and by name', async () => {
        await byText(page, '城市照明改造项目').waitFor();
        await page.click('button:has-text("场景管理")');
        const scenes = dialog('场景管理');
        await scenes.locator('button:has-text("添加")').click();
        const add = dialog('添加场景');
        await add.locator('button:has-text("确定")').click();
        await byText(add, '请输入场景名称').waitFor();
        await add.getByLabel('场景名称').fill(sceneName);
        await add.locator('button:has-text("确定")').click();
        await toast('添加成功').waitFor();
        await add.waitFor({ state: 'detached' });
        await byText(scenes, sceneName).waitFor();
        await screenshot(page, 'projects-01-scenes');
        await scenes.locator('button:has-text("关闭")').click();
        await scenes.waitFor({ state: 'detached' });

        await page.click('button:has-text("新建项目")');
        const create = dialog('新建项目');
        await create.locator('button:has-text("确定")').click();
        await byText(create, '请输入项目名称').waitFor();
        await byText(create, '请选择项目分类').waitFor();
        await create.getByLabel('项目名称').fill(projectName);
        await create.getByRole('combobox', { name: '项目分类' }).click();
        await page.locator(`[role=listbox] [role=option]:has-text("${sceneName}")`).click();
        await create.getByLabel('备注').fill('端到端测试创建');
        await create.locator('button:has-text("确定")').click();
        await toast('添加成功').waitFor();
        await create.waitFor({ state: 'detached' });

        await page.locator(`[aria-label="项目分类"] button:has-text("${sceneName}")`).click();
        await expect.poll(() => page.locator('tbody tr').count(), { timeout: 15_000 }).toBe(1);
        await expectText(page.locator('tbody tr').first(), projectName);
        expect(new URL(page.url()).searchParams.get('classId')).toMatch(/^\d+$/);
        await screenshot(page, 'projects-02-list');
    });

    it('adds staff on the overview', async () => {
        await page.locator(`tbody tr a:has-text("${projectName}")`).click();
        await page.waitForURL(/\/programOverview\/\d+/);
        overviewUrl = page.url();
        await page.locator(`h1:has-text("${projectName}")`).waitFor();
        const staff = region('项目人员');
        await byText(staff, '暂无项目人员').waitFor();
        await staff.locator('button:has-text("添加人员")').click();
        const add = dialog('添加人员');
        await add.getByRole('textbox', { name: '手机号码' }).fill('138');
        await add.getByRole('textbox', { name: '手机号码' }).press('Enter');
        const admin = add.locator('tbody tr', { hasText: '13800138000' });
        await admin.click();
        await add.locator('button:has-text("确定")').click();
        await toast('添加成功').waitFor();
        await expectText(staff.locator('tbody'), '13800138000');
    });

    it('binds two devices to the project from /devices and sees them on its overview', async () => {
        await page.goto(`${server.url}/devices?pk=${productKey}`);
        for (const name of deviceNames) {
            await page
                .locator('tbody tr', { hasText: name })
                .locator('td')
                .first()
                .locator('input[type=checkbox]')
                .check();
        }
        await page.click('button:has-text("关联项目")');
        const bind = dialog('关联项目');
        await bind.locator(`label:has-text("${projectName}")`).click();
        await bind.locator('button:has-text("确定")').click();
        await toast('关联成功').waitFor();
        await expectText(page.locator('tbody tr', { hasText: deviceNames[0] }), projectName);

        await page.goto(overviewUrl);
        const devices = region('项目设备');
        await expect.poll(() => devices.locator('tbody tr').count(), { timeout: 15_000 }).toBe(2);
        for (const name of deviceNames) await expectText(devices.locator('tbody'), name);
        await expectText(page.locator('[data-testid=count-deviceCount]'), '2');
        await expectText(page.locator('h2', { hasText: '设备状态' }), '共 2');
        await page.locator('[data-testid=chart-summary]').waitFor();
        // The charts animate in; the screenshot is for a person to look at, so let them finish.
        await screenshot(page, 'projects-03-overview', { settleMs: 1500 });

        await devices.locator('tbody tr', { hasText: deviceNames[1] }).locator('button:has-text("移出项目")').click();
        await page.locator('[role=dialog] button:has-text("确定")').click();
        await toast('操作成功').waitFor();
        await expect.poll(() => devices.locator('tbody tr').count(), { timeout: 15_000 }).toBe(1);
        await expectText(page.locator('[data-testid=count-deviceCount]'), '1');

        // 添加设备 on the overview: the new device joins this project.
        await devices.locator('button:has-text("添加设备")').click();
        const add = dialog('添加设备');
        await byText(add, '添加的设备将关联到本项目').waitFor();
        await add.getByRole('combobox', { name: '所属产品' }).click();
        await page.locator(`[role=listbox] [role=option]:has-text("${productName}")`).click();
        await add.getByLabel('DeviceName').fill(addedName);
        await add.locator('button:has-text("确定")').click();
        await toast('添加成功').waitFor();
        await add.waitFor({ state: 'detached' });
        await expect.poll(() => devices.locator('tbody tr').count(), { timeout: 15_000 }).toBe(2);
        await expectText(devices.locator('tbody'), addedName);
        await expectText(page.locator('[data-testid=count-deviceCount]'), '2');
    });

    it('says how many devices lose their project, then deletes it', async () => {
        await page.goto(`${server.url}/programList?name=${encodeURIComponent(projectName)}`);
        const row = page.locator('tbody tr', { hasText: projectName });
        await row.waitFor();
        await row.locator('button:has-text("删除")').click();
        const confirm = dialog('提示');
        await byText(confirm, '该项目下有2个设备，删除后这些设备将解除关联').waitFor();
        await screenshot(page, 'projects-04-delete');
        await confirm.locator('button:has-text("确定")').click();
        await toast('删除成功').waitFor();
        await byText(page, '没有符合条件的项目').waitFor();

        const listed = await (
            await page.request.get(`${server.url}/api/device/list?productKey=${productKey}&pageNumber=1&pageSize=10`)
        ).json();
        expect(listed.data.records.map((d: { projectId: number | null }) => d.projectId)).toEqual([null, null, null]);
        expect(errors).toEqual([]);
    });

    it('says 项目不存在 for a project that is gone', async () => {
        await page.goto(overviewUrl);
        await byText(page, '项目不存在').waitFor();
        await screenshot(page, 'projects-05-missing');
        await page.locator('a:has-text("返回项目列表")').first().click();
        await page.waitForURL(/\/programList/);
    });

    it('shows a demo project with its alerts, times trimmed to the second', async () => {
        await page.locator('tbody tr a:has-text("智慧园区示范项目")').click();
        await page.locator('h1:has-text("智慧园区示范项目")').waitFor();
        const alerts = region('告警事件');
        await expect.poll(() => alerts.locator('tbody tr').count(), { timeout: 15_000 }).toBeGreaterThan(0);
        const time = (await alerts.locator('tbody tr').first().locator('td').last().textContent()) ?? '';
        expect(time).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
        await screenshot(page, 'projects-06-demo-overview', { settleMs: 1500 });
        expect(errors).toEqual([]);
    });
});
