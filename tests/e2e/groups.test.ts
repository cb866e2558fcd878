import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Locator, Page } from 'playwright-core';
import { byText, haveChromium, launchBrowser, screenshot, signIn, startServer, type RunningServer } from './support';

/**
 * A person builds a three-level group tree in Chromium against the real `npm start`, sees that a level-3 group cannot
 * be a parent (disabled in the tree select, and refused by the server when forced), adds devices to a group and
 * removes one. Screenshots: tests/e2e/output/groups-*.png.
 */
describe.skipIf(!haveChromium)('group screens in Chromium', () => {
    let server: RunningServer;
    let browser: Browser;
    let page: Page;
    const errors: string[] = [];
    const stamp = Date.now() % 100000;
    const names = { l1: `端到端一级_${stamp}`, l2: `端到端二级_${stamp}`, l3: `端到端三级_${stamp}` };
    const PROJECT = '工厂能耗监测项目';
    const ids: Record<string, number> = {};

    beforeAll(async () => {
        server = await startServer();
        browser = await launchBrowser();
        page = await browser.newPage({ viewport: { width: 1440, height: 900 }, locale: 'zh-CN' });
        page.on('pageerror', (e) => errors.push(String(e)));
        await signIn(page, server.url, '/groups');
    });

    afterEach(async ({ task }) => {
        if (task.result?.state === 'fail' && page) await screenshot(page, `failed-groups-${task.name.slice(0, 40)}`);
    });

    afterAll(async () => {
        await browser?.close();
        await server?.stop();
    });

    const dialog = (name: string) => page.locator('[role=dialog]', { has: page.locator(`h2:has-text("${name}")`) });
    const toast = (text: string) => byText(page.locator('.MuiSnackbar-root'), text);
    const tree = () => page.locator('[role=tree]');
    const node = (name: string) => tree().locator(`[role=treeitem][aria-label="${name}"]`);

    async function groupIdOf(name: string): Promise<number> {
        const res = await page.request.get(
            `${server.url}/api/group/list?pageSize=100&groupName=${encodeURIComponent(name)}`,
        );
        const body = await res.json();
        const found = body.data.records.find((g: { groupName: string }) => g.groupName === name);
        expect(found, name).toBeTruthy();
        return found.groupId;
    }

    async function openNewGroup(): Promise<Locator> {
        await page.click('button:has-text("新建分组")');
        const form = dialog('新建分组');
        await form.waitFor();
        await form.getByRole('combobox', { name: /所属项目/ }).click();
        await page.getByRole('option', { name: PROJECT }).click();
        await form.getByRole('textbox', { name: /父级分组/ }).click();
        await tree().waitFor();
        return form;
    }

    it('builds three levels: a root through 无（作为一级分组）, then children picked in the lazy tree', async () => {
        await page.goto(`${server.url}/groups`);
        // The demo tree's newest group heads the list.
        await byText(page.locator('table'), 'A座_三层').waitFor();

        let form = await openNewGroup();
        // Save with nothing chosen says what is missing.
        await page.keyboard.press('Escape');
        await form.getByRole('button', { name: '确定' }).click();
        await byText(form, '请选择父组!').waitFor();
        await byText(form, '请输入分组名称!').waitFor();
        await form.getByRole('textbox', { name: /父级分组/ }).click();
        await node('无（作为一级分组）').click();
        await form.getByRole('textbox', { name: /分组名称/ }).fill(names.l1);
        await form.getByRole('textbox', { name: /描述/ }).fill('端到端测试的一级分组');
        await screenshot(page, 'groups-new-dialog');
        await form.getByRole('button', { name: '确定' }).click();
        await toast('创建分组成功').waitFor();
        await byText(page.locator('table'), names.l1).waitFor();
        ids.l1 = await groupIdOf(names.l1);

        form = await openNewGroup();
        await node(names.l1).click();
        await form.getByRole('textbox', { name: /分组名称/ }).fill(names.l2);
        await form.getByRole('button', { name: '确定' }).click();
        await toast('创建分组成功').waitFor();
        ids.l2 = await groupIdOf(names.l2);

        form = await openNewGroup();
        await tree()
            .getByRole('button', { name: `展开 ${names.l1}` })
            .click();
        await node(names.l2).click();
        expect(await form.getByRole('textbox', { name: /父级分组/ }).inputValue()).toBe(names.l2);
        await form.getByRole('textbox', { name: /分组名称/ }).fill(names.l3);
        await form.getByRole('button', { name: '确定' }).click();
        await toast('创建分组成功').waitFor();
        ids.l3 = await groupIdOf(names.l3);

        const detail = await (await page.request.get(`${server.url}/api/group/detail?groupId=${ids.l3}`)).json();
        expect(detail.data).toMatchObject({ level: 3, hierarchy: [names.l1, names.l2, names.l3] });
    });

    it('shows the level-3 group disabled as a parent, and the server refuses it when forced', async () => {
        await page.goto(`${server.url}/groups`);
        await byText(page.locator('table'), names.l3).waitFor();
        const form = await openNewGroup();
        await tree()
            .getByRole('button', { name: `展开 ${names.l1}` })
            .click();
        await node(names.l2).waitFor();
        await tree()
            .getByRole('button', { name: `展开 ${names.l2}` })
            .click();
        const leaf = node(names.l3);
        await leaf.waitFor();
        expect(await leaf.getAttribute('aria-disabled')).toBe('true');
        expect(await leaf.locator('.Mui-disabled').count()).toBeGreaterThan(0);
        await screenshot(page, 'groups-tree-select');
        // A click on it chooses nothing: the tree stays open and the field empty.
        await leaf.locator('.MuiListItemButton-root').click({ force: true });
        expect(await tree().isVisible()).toBe(true);
        await page.keyboard.press('Escape');
        expect(await form.getByRole('textbox', { name: /父级分组/ }).inputValue()).toBe('');
        await form.getByRole('button', { name: '取消' }).click();

        const forced = await page.request.post(`${server.url}/api/group/save`, {
            form: { projectCode: 'P2024004', pid: String(ids.l3), name: `第四级_${stamp}` },
        });
        expect(forced.status()).toBe(400);
        expect(await forced.json()).toEqual({ returnCode: '9999', returnMessage: '第三级分组不能作为父组' });
    });

    it('opens the level-3 detail without 子分组, adds two devices and removes one', async () => {
        await page.goto(`${server.url}/groupDetail/${ids.l3}`);
        await page.getByRole('heading', { name: names.l3 }).waitFor();
        const tabs = await page.getByRole('tab').allTextContents();
        expect(tabs).toEqual(['分组信息', '设备列表']);
        await page.getByRole('tab', { name: '设备列表' }).click();
        await byText(page, '该分组暂无设备').waitFor();

        await page.getByRole('button', { name: '添加设备' }).first().click();
        const add = dialog('添加设备');
        await add.getByRole('combobox', { name: /产品/ }).click();
        await page.getByRole('option', { name: '智能路灯_L1' }).click();
        await add.getByRole('checkbox', { name: '选择 SL-BJ-0001' }).check();
        await add.getByRole('checkbox', { name: '选择 SL-BJ-0002' }).check();
        await byText(add, '已选择 2 个设备').waitFor();
        await screenshot(page, 'groups-add-devices');
        await add.getByRole('button', { name: '确定' }).click();
        await toast('添加成功').waitFor();
        const table = page.getByRole('table', { name: '分组设备' });
        await table.getByText('SL-BJ-0002').waitFor();
        expect(await table.locator('tbody tr').count()).toBe(2);
        await byText(page, '设备总数：2').waitFor();
        await screenshot(page, 'groups-devices');

        await table.locator('tbody tr', { hasText: 'SL-BJ-0001' }).getByRole('button', { name: '移除' }).click();
        const confirm = page.locator('[role=dialog]');
        await byText(confirm, `确定将设备 SL-BJ-0001 移出分组「${names.l3}」吗？`).waitFor();
        await confirm.getByRole('button', { name: '确定' }).click();
        await toast('操作成功').waitFor();
        await expect.poll(() => table.locator('tbody tr').count(), { timeout: 15_000 }).toBe(1);
        expect(await table.locator('tbody tr').first().textContent()).toContain('SL-BJ-0002');

        await page.getByRole('link', { name: '分组管理' }).last().click();
        await page.waitForURL(/\/groups$/);
        await byText(page.locator('table'), names.l1).waitFor();
        await screenshot(page, 'groups-list');
        expect(errors).toEqual([]);
    });
});
