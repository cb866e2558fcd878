import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { consume, type Consumer } from '../server/amqpSupport';
import { byText, haveChromium, launchBrowser, screenshot, signIn, startServer, type RunningServer } from './support';

/**
 * Server-side subscription in Chromium against the real `npm start`: an AccessKey created on /usercenter (its secret
 * shown once), a consumer group and a subscription of the demo lamps made on /subscription, a simulated lamp
 * reporting, an AMQP 1.0 consumer (rhea, signing in as Alibaba's samples do) receiving its property posts, and the
 * group's detail page counting the consumer and its messages. Screens: tests/e2e/output/subscription-*.png.
 */

describe.skipIf(!haveChromium)('server-side subscription in Chromium', () => {
    let server: RunningServer;
    let browser: Browser;
    let page: Page;
    let consumer: Consumer | undefined;
    let simulationId = 0;
    const errors: string[] = [];

    beforeAll(async () => {
        server = await startServer();
        browser = await launchBrowser();
        page = await browser.newPage({ viewport: { width: 1440, height: 900 }, locale: 'zh-CN' });
        page.on('pageerror', (e) => errors.push(String(e)));
        await signIn(page, server.url, '/usercenter/accessKey');
    }, 300_000);

    afterEach(async ({ task }) => {
        if (task.result?.state === 'fail' && page)
            await screenshot(page, `failed-subscription-${task.name.slice(0, 40)}`);
    });

    afterAll(async () => {
        await consumer?.close().catch(() => undefined);
        if (simulationId) await page?.request.delete(`${server.url}/api/simulation/delete?id=${simulationId}`);
        await browser?.close();
        await server?.stop();
    });

    const toast = (text: string) => byText(page.locator('.MuiSnackbar-root'), text);
    const dialog = (name: string) => page.getByRole('dialog', { name });
    const amqpPort = () => Number(/AMQP: amqp:\/\/[^:]+:(\d+)/.exec(server.output())?.[1] ?? 0);

    let key = { accessKey: '', accessSecret: '' };
    let groupId = 0;

    it('creates an AccessKey on /usercenter and shows its secret once', async () => {
        await byText(page, '暂无 AccessKey').waitFor();
        await page.getByRole('button', { name: '创建访问密钥' }).first().click();
        const shown = dialog('AccessKey 创建成功');
        await shown.waitFor();
        key = {
            accessKey: (await shown.getByLabel('AccessKey ID', { exact: true }).textContent()) ?? '',
            accessSecret: (await shown.getByLabel('AccessKey Secret', { exact: true }).textContent()) ?? '',
        };
        expect(key.accessKey).toMatch(/^LTAI/);
        expect(key.accessSecret).toHaveLength(30);
        await screenshot(page, 'subscription-accesskey-secret');
        await shown.getByRole('button', { name: '我已保存' }).click();
        await page.getByRole('cell', { name: key.accessKey }).first().waitFor();
        expect(await page.content()).not.toContain(key.accessSecret);
    });

    it('creates a consumer group, refusing a name not starting with a letter', async () => {
        await page.goto(`${server.url}/subscription?tab=groups`);
        await page.getByRole('cell', { name: 'default' }).first().waitFor();
        await page.getByRole('button', { name: '新建消费者组' }).first().click();
        const form = dialog('新建消费者组');
        await form.getByRole('combobox', { name: /所属项目/ }).click();
        await page.getByRole('option', { name: '城市照明改造项目' }).click();
        await form.getByRole('textbox', { name: /消费者组名称/ }).fill('9lamps');
        await form.getByRole('button', { name: '确定' }).click();
        await byText(form, '须以英文字母开头').waitFor();
        await form.getByRole('textbox', { name: /消费者组名称/ }).fill('lampsConsumer');
        await form.getByRole('button', { name: '确定' }).click();
        await toast('创建成功').waitFor();
        const row = page.getByRole('row', { name: /lampsConsumer/ });
        await row.waitFor();
        groupId = Number(await row.getByRole('cell').nth(1).textContent());
        expect(groupId).toBeGreaterThan(0);
        await screenshot(page, 'subscription-groups');
    });

    it('subscribes the lamps to the group, picking it in the dialog', async () => {
        await page.goto(`${server.url}/subscription`);
        await byText(page, '暂无订阅').waitFor();
        await page.getByRole('button', { name: '新建订阅' }).first().click();
        const form = dialog('新建订阅');
        await form.getByRole('button', { name: '确定' }).click();
        await byText(form, '请选择项目').waitFor();
        await form.getByRole('combobox', { name: /所属项目/ }).click();
        await page.getByRole('option', { name: '城市照明改造项目' }).click();
        await form.getByRole('combobox', { name: /产品/ }).click();
        await page.getByRole('option', { name: '智能路灯_L1' }).click();
        await form.getByRole('button', { name: '确定' }).click();
        await byText(form, '请选择消费者组').waitFor();
        await form.getByRole('checkbox', { name: 'lampsConsumer' }).check();
        await byText(form, '已选择 1 个消费者组').waitFor();
        await screenshot(page, 'subscription-create');
        await form.getByRole('button', { name: '确定' }).click();
        await toast('添加成功').waitFor();
        const row = page.getByRole('row', { name: /智能路灯_L1/ });
        await row.waitFor();
        await expect.poll(async () => row.textContent()).toContain('lampsConsumer');
        await screenshot(page, 'subscription-list');
    });

    it("delivers a simulated lamp's property posts to an AMQP consumer, and the group's page counts them", async () => {
        consumer = await consume(amqpPort(), { ...key, groupId, clientId: 'e2e-consumer' });
        const products = (await (await page.request.get(`${server.url}/api/subscription/products`)).json()) as {
            data: Array<{ productKey: string; productName: string }>;
        };
        const lamp = products.data.find((p) => p.productName === '智能路灯_L1')!;
        const saved = await page.request.post(`${server.url}/api/simulation/save`, {
            form: { productKey: lamp.productKey, amount: '1', intervalSeconds: '1', mode: 'random' },
        });
        const body = (await saved.json()) as { code: number; data: { id: number } };
        expect(body.code).toBe(200);
        simulationId = body.data.id;
        const got = await consumer.next(2, 30_000);
        for (const m of got) {
            expect(String(m.properties.topic)).toMatch(
                new RegExp(`^/sys/${lamp.productKey}/[^/]+/thing/event/property/post$`),
            );
            expect(JSON.parse(m.body)).toMatchObject({ method: 'thing.event.property.post' });
            expect(String(m.properties.messageId)).toMatch(/^\d+$/);
        }

        await page.goto(`${server.url}/consumerGroup/detail?id=${groupId}`);
        await page.getByRole('cell', { name: 'e2e-consumer' }).waitFor();
        await page.getByRole('cell', { name: '智能路灯_L1' }).waitFor();
        // The page asks again every few seconds: the acknowledged count grows with the lamp's reports.
        const row = page.getByRole('row', { name: /e2e-consumer/ });
        await expect
            .poll(async () => Number((await row.getByRole('cell').nth(4).textContent()) ?? 0), { timeout: 20_000 })
            .toBeGreaterThanOrEqual(3);
        await screenshot(page, 'subscription-group-detail');
        expect(errors).toEqual([]);
    });
});
