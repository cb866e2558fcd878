import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { byText, haveChromium, launchBrowser, screenshot, signIn, startServer, type RunningServer } from './support';

/**
 * People and rights in Chromium (issue 14): the administrator creates an operator with the role 只读 on
 * /personnelManage and puts them on one project's staff; the operator signs in on the sign-on page, sees only that
 * project's devices and no delete buttons, and the server refuses a delete they force (403).
 */
describe.skipIf(!haveChromium)('people and rights', () => {
    let server: RunningServer;
    let browser: Browser;
    let admin: Page;
    let operator: Page;
    const errors: string[] = [];

    beforeAll(async () => {
        server = await startServer();
        browser = await launchBrowser();
        admin = await browser.newPage({ viewport: { width: 1440, height: 900 }, locale: 'zh-CN' });
        admin.on('pageerror', (e) => errors.push(String(e)));
        await signIn(admin, server.url, '/personnelManage');
    });

    afterEach(async ({ task }) => {
        if (task.result?.state === 'fail') {
            if (admin) await screenshot(admin, `failed-people-admin-${task.name.slice(0, 30)}`);
            if (operator) await screenshot(operator, `failed-people-operator-${task.name.slice(0, 30)}`);
        }
    });

    afterAll(async () => {
        await browser?.close();
        await server?.stop();
    });

    const dialog = (page: Page, name: string) =>
        page.locator('[role=dialog]', { has: page.locator(`h2:has-text("${name}")`) });

    it('creates an operator with 只读 on /personnelManage and puts them on one project', async () => {
        await admin.click('button:has-text("新增人员")');
        const form = dialog(admin, '新增人员');
        await form.getByLabel('姓名').fill('值班员甲');
        await form.getByLabel('登录名').fill('operator_ro');
        await form.getByLabel('手机号').fill('13912340099');
        await form.getByLabel('初始密码').fill('Readonly_1');
        await form.getByLabel('角色').click();
        await admin.locator('[role=option]', { hasText: '只读' }).click();
        await form.locator('button:has-text("确定")').click();
        await expect
            .poll(async () => (await admin.locator('tbody tr', { hasText: 'operator_ro' }).textContent()) ?? '', {
                timeout: 15_000,
            })
            .toContain('只读');

        // Staff of 智慧园区示范项目 (P2024001), through the platform's API with the administrator's session.
        const users = await (await admin.request.get(`${server.url}/api/users/list?keyword=operator_ro`)).json();
        const userId = users.data.records[0].id as number;
        const added = await admin.request.post(`${server.url}/api/project-user/addUser`, {
            form: { list: JSON.stringify([{ projectCode: 'P2024001', userId }]) },
        });
        expect((await added.json()).code).toBe(200);
    });

    it("signs the operator in: only that project's devices, no delete buttons, no 系统管理", async () => {
        operator = await (
            await browser.newContext({ locale: 'zh-CN', viewport: { width: 1440, height: 900 } })
        ).newPage();
        operator.on('pageerror', (e) => errors.push(String(e)));
        await operator.goto(`${server.url}/deviceInstance`);
        await operator.waitForURL(/\/sso\/login/);
        await operator.fill('input[name="username"]', 'operator_ro');
        await operator.fill('input[name="password"]', 'Readonly_1');
        await operator.click('button[type="submit"]');
        await operator.waitForURL((u) => u.pathname === '/deviceInstance');

        const rows = operator.locator('tbody tr');
        await expect.poll(async () => rows.count(), { timeout: 20_000 }).toBeGreaterThan(0);
        const texts = await rows.allTextContents();
        for (const text of texts) expect(text).toContain('智慧园区示范项目');
        const answer = await (
            await operator.request.get(`${server.url}/api/device/list?pageNumber=1&pageSize=100`)
        ).json();
        const projects = new Set(answer.data.records.map((d: { projectName: string }) => d.projectName));
        expect([...projects]).toEqual(['智慧园区示范项目']);

        expect(await rows.first().locator(':is(a, button):has-text("查看")').count()).toBe(1);
        expect(await operator.locator('tbody button:has-text("删除")').count()).toBe(0);
        expect(await operator.locator('button:has-text("添加设备")').count()).toBe(0);
        expect(await byText(operator.locator('nav'), '设备管理').count()).toBeGreaterThan(0);
        expect(await operator.locator('nav a:has-text("人员管理")').count()).toBe(0);
        await screenshot(operator, 'people-readonly-devices');
    });

    it('is refused by the server when forcing a delete: 403 with a Chinese message', async () => {
        const answer = await (
            await operator.request.get(`${server.url}/api/device/list?pageNumber=1&pageSize=1`)
        ).json();
        const deviceId = answer.data.records[0].deviceId as number;
        const refused = await operator.request.delete(`${server.url}/api/device?id=${deviceId}`);
        expect(refused.status()).toBe(403);
        expect((await refused.json()).msg).toBe('无权限：当前角色没有「删除设备」权限，请联系管理员');
        // Still there, for the administrator too.
        const detail = await (await admin.request.get(`${server.url}/api/device/detail?deviceId=${deviceId}`)).json();
        expect(detail.code).toBe(0);
        expect(errors).toEqual([]);
    });
});
