import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Locator, Page } from 'playwright-core';
import { byText, haveChromium, launchBrowser, screenshot, signIn, startServer, type RunningServer } from './support';

interface Device {
    deviceId: number;
    deviceName: string;
    productId: number;
    productKey: string;
    username: string;
    clientId: string;
    secret: string;
    remark: string | null;
}
interface Product {
    productId: number;
    productKey: string;
    productName: string;
}

/**
 * A person's session with the device detail screens, in Chromium (WebGL through SwiftShader for the map picker)
 * against the real `npm start`: open a device from /deviceInstance and from /devices, read its credentials, edit its
 * remark, add tags and a location by clicking the real map, upload and download a file, switch topic views. Each tab
 * is saved as tests/e2e/output/deviceDetail-*.png.
 */
describe.skipIf(!haveChromium)('device detail screens in Chromium', () => {
    let server: RunningServer;
    let browser: Browser;
    let page: Page;
    const errors: string[] = [];
    const stamp = Date.now() % 100000;
    let plain: Product;
    let gateway: Product;
    let device: Device;
    let gw: Device;

    async function api<T>(path: string, form?: Record<string, string>): Promise<T> {
        const res = form
            ? await page.request.post(`${server.url}${path}`, { form })
            : await page.request.get(`${server.url}${path}`);
        const body = await res.json();
        expect([0, 200]).toContain(body.code);
        return body.data as T;
    }

    async function newProduct(nodeType: 0 | 1): Promise<Product> {
        const tree = await api<Array<{ id: number; children?: unknown[] }>>('/api/product/list-category');
        let node = tree[0] as { id: number; children?: Array<{ id: number; children?: unknown[] }> };
        while (node.children?.length) node = node.children[0] as typeof node;
        return api<Product>('/api/product/save', {
            productName: `端到端详情产品${nodeType}_${stamp}`,
            nodeType: String(nodeType),
            gatewayType: '0',
            categoryId: String(node.id),
            networkType: '5',
            dataType: '0',
        });
    }

    async function openPage(from: Browser): Promise<Page> {
        const opened = await from.newPage({
            viewport: { width: 1440, height: 900 },
            locale: 'zh-CN',
            acceptDownloads: true,
        });
        opened.on('pageerror', (e) => errors.push(String(e)));
        await signIn(opened, server.url, '/deviceInstance');
        return opened;
    }

    /**
     * Runs `steps` with `page` (and the helpers below) in a Chromium with WebGL (SwiftShader) for the map picker; the
     * other tests paint without, which costs Chromium a third less CPU.
     */
    async function withMapPage(steps: () => Promise<void>): Promise<void> {
        const plainPage = page;
        const mapBrowser = await launchBrowser({ webgl: true });
        try {
            page = await openPage(mapBrowser);
            await steps().catch(async (error: unknown) => {
                await screenshot(page, 'failed-deviceDetail-map-page');
                throw error;
            });
        } finally {
            page = plainPage;
            await mapBrowser.close();
        }
    }

    beforeAll(async () => {
        server = await startServer();
        browser = await launchBrowser();
        page = await openPage(browser);
        plain = await newProduct(0);
        gateway = await newProduct(1);
        device = await api<Device>('/api/device/save', {
            productKey: plain.productKey,
            deviceName: `e2e_detail_${stamp}`,
            remark: '端到端设备',
        });
        gw = await api<Device>('/api/device/save', {
            productKey: gateway.productKey,
            deviceName: `e2e_gw_${stamp}`,
            remark: '端到端网关',
        });
    }, 300_000);

    afterEach(async ({ task }) => {
        if (task.result?.state === 'fail' && page)
            await screenshot(
                page,
                `failed-deviceDetail-${task.name.slice(0, 40).replace(/[^\w\u4e00-\u9fa5]+/g, '-')}`,
            );
    });

    afterAll(async () => {
        await browser?.close();
        await server?.stop();
    });

    const dialog = (name: string) => page.locator('[role=dialog]', { has: page.locator(`h2:has-text("${name}")`) });
    const toast = (text: string) => byText(page.locator('.MuiSnackbar-root'), text);
    const tab = (name: string) => page.locator('[role=tab]', { hasText: name });
    const info = (label: string) => page.locator(`[role=tabpanel] dd[aria-label="${label}"]`);
    const title = () => page.locator('section h1').first();
    async function expectText(scope: Locator, text: string) {
        await expect.poll(async () => (await scope.textContent()) ?? '', { timeout: 15_000 }).toContain(text);
    }

    it('opens a device from /deviceInstance and reads its credentials', async () => {
        await page.goto(`${server.url}/deviceInstance/${plain.productId}`);
        const row = page.locator('tbody tr', { hasText: device.deviceName });
        await row.waitFor({ timeout: 60_000 });
        await row.locator('a:has-text("查看")').click();
        await page.waitForURL(`**/devInstanceDetail/${plain.productId}/${device.deviceId}`);
        await expectText(title(), device.deviceName);
        expect(await page.locator('a', { hasText: plain.productName }).first().getAttribute('href')).toBe(
            `/productDetail/${plain.productId}`,
        );
        expect(await page.locator('[role=tab]').allInnerTexts()).toEqual([
            '设备信息',
            'Topic列表',
            '运行状态',
            '事件管理',
            '服务调用',
            '固件升级',
            '设备影子',
        ]);
        await expectText(info('用户名'), device.username);
        await expectText(info('ClientId'), device.clientId);
        expect(await info('密码').innerText()).not.toContain(device.secret);
        await info('密码').locator('button:has-text("显示")').click();
        await expectText(info('密码'), device.secret);
        await page.click('button[aria-label="复制 ClientId"]');
        await toast('复制成功').waitFor();
        await screenshot(page, 'deviceDetail-info');

        for (const [name, path, file] of [
            ['Topic列表', 'topic', 'topic'],
            ['运行状态', 'runStatus', 'runStatus'],
            ['事件管理', 'event', 'event'],
            ['服务调用', 'service', 'service'],
        ] as const) {
            await tab(name).click();
            await page.waitForURL(`**/devInstanceDetail/${plain.productId}/${device.deviceId}/${path}`);
            await screenshot(page, `deviceDetail-instance-${file}`, { settleMs: 800 });
        }
        await page.reload();
        await expect.poll(() => tab('服务调用').getAttribute('aria-selected')).toBe('true');
    });

    it('edits the remark', async () => {
        await page.goto(`${server.url}/devInstanceDetail/${plain.productId}/${device.deviceId}`);
        await page.locator('button', { hasText: /^编辑$/ }).click();
        const edit = dialog('编辑设备');
        await edit.locator('[name=remark]').fill('');
        await edit.locator('button:has-text("确定")').click();
        await byText(edit, '备注名称不能为空').waitFor();
        await edit.locator('[name=remark]').fill('二号机房网关旁');
        await edit.locator('button:has-text("确定")').click();
        await toast('修改成功').waitFor();
        await expectText(info('备注名称'), '二号机房网关旁');
        const stored = await api<{ device: Device }>(`/api/device/detail?deviceId=${device.deviceId}`);
        expect(stored.device.remark).toBe('二号机房网关旁');
    });

    it('adds a location by clicking the real map, and key/value tags', () =>
        withMapPage(async () => {
            await page.goto(`${server.url}/devInstanceDetail/${plain.productId}/${device.deviceId}`);
            await page.click('button:has-text("编辑标签")');
            const tags = dialog('编辑标签');
            await tags.getByRole('switch', { name: '设置位置标签' }).click();
            await tags.locator('button:has-text("确定")').click();
            await byText(tags, '请先位置确定').waitFor();

            await tags.locator('button:has-text("选择位置")').click();
            const picker = dialog('选择位置');
            await picker.locator('.maplibregl-canvas').waitFor();
            const confirm = picker.locator('button:has-text("确认位置")');
            expect(await confirm.isDisabled()).toBe(true);
            // The picker listens for clicks once the map has loaded, and shows it with a crosshair cursor.
            await picker.locator('.maplibregl-canvas[style*="crosshair"]').waitFor({ timeout: 60_000 });
            await page.waitForTimeout(500);
            const box = (await picker.locator('[data-testid=map-picker-map]').boundingBox())!;
            // West of the centre (121.6, 31.2), across the river: 黄浦区.
            await page.mouse.click(box.x + box.width / 2 - 330, box.y + box.height / 2 - 40);
            const status = picker.locator('[data-testid=map-picker-status]');
            await expect.poll(() => status.innerText(), { timeout: 15_000 }).toMatch(/行政区划代码 31\d{4}/);
            await screenshot(page, 'deviceDetail-map-picker');
            await confirm.click();
            await picker.waitFor({ state: 'detached' });
            expect(await tags.getByLabel('位置', { exact: true }).inputValue()).toMatch(
                /^上海市.*（121\.\d+, 31\.\d+）$/,
            );

            const key = (n: number) =>
                tags
                    .locator('[data-testid=items-row]')
                    .nth(n - 1)
                    .locator('input')
                    .nth(0);
            const value = (n: number) =>
                tags
                    .locator('[data-testid=items-row]')
                    .nth(n - 1)
                    .locator('input')
                    .nth(1);
            await tags.locator('button:has-text("添加标签")').click();
            await key(1).fill('floor');
            await value(1).fill('3F');
            await tags.locator('button:has-text("添加标签")').click();
            await key(2).fill('floor');
            await value(2).fill('4F');
            await tags.locator('button:has-text("确定")').click();
            await byText(tags, 'Key值不能重复,请重新定义Key值').waitFor();
            await key(2).fill('room');
            await screenshot(page, 'deviceDetail-tags-modal');
            await tags.locator('button:has-text("确定")').click();
            await toast('保存成功').waitFor();
            await tags.waitFor({ state: 'detached' });

            const section = page.locator('section[aria-label=标签信息]');
            await expectText(section.locator('tr', { hasText: 'floor' }), '3F');
            await expectText(section.locator('tr', { hasText: 'room' }), '4F');
            await expectText(section, '纬度 31.');
            await expectText(info('物理位置'), '上海市');
            const list = await api<{ list: Array<{ key: string; value: string }> }>(
                `/api/tag/get?type=2&objectId=${device.deviceId}`,
            );
            expect(list.list.map((t) => t.key).sort()).toEqual(['coordinate', 'floor', 'room']);
            expect(list.list.find((t) => t.key === 'coordinate')!.value).toMatch(/^31\.\d+,121\.\d+$/);
            await screenshot(page, 'deviceDetail-tags');
        }));

    it('opens the device from /devices, switches topic views, uploads and downloads a file', async () => {
        await page.goto(`${server.url}/devices?pk=${plain.productKey}`);
        await page.locator('tbody tr', { hasText: device.deviceName }).locator('a:has-text("查看")').click();
        await page.waitForURL(/\/devices\/[^/]+\/[^/?]+\?devicesId=\d+/);
        await expectText(title(), device.deviceName);
        expect(await page.locator('[role=tab]').allInnerTexts()).toEqual([
            '设备信息',
            'Topic列表',
            '物模型数据',
            '文件管理',
            '数据订阅',
            '固件升级',
            '设备影子',
        ]);

        await tab('Topic列表').click();
        await page.waitForURL(/checkIdx=2/);
        const base = `/sys/${plain.productKey}/${device.deviceName}/thing`;
        await byText(page, `${base}/config/push`).waitFor();
        await screenshot(page, 'deviceDetail-topic-basic');
        await page.locator('label:has-text("物模型通信Topic")').click();
        await byText(page, `${base}/event/property/post`).waitFor();
        await screenshot(page, 'deviceDetail-topic-thingModel');

        await tab('物模型数据').click();
        await page.waitForURL(/checkIdx=3/);
        await screenshot(page, 'deviceDetail-thingModelData', { settleMs: 1000 });

        await tab('文件管理').click();
        await page.waitForURL(/checkIdx=4/);
        await byText(page, '暂无文件').waitFor();
        await page.click('button:has-text("上传文件")');
        const upload = dialog('上传文件');
        await upload.locator('input[type=file]').setInputFiles({
            name: 'setup.exe',
            mimeType: 'application/octet-stream',
            buffer: Buffer.from('MZ'),
        });
        await byText(upload, '只支持以下类型的文件').waitFor();
        await screenshot(page, 'deviceDetail-upload-refused');
        const bytes = randomBytes(3 * 1024 * 1024 + 17);
        await upload.locator('input[type=file]').setInputFiles({
            name: '固件 v1.2.bin',
            mimeType: 'application/octet-stream',
            buffer: bytes,
        });
        await upload.locator('button:has-text("上传")').last().click();
        await toast('文件上传成功!').waitFor();
        await upload.waitFor({ state: 'hidden' });
        const row = page.locator('tbody tr', { hasText: '固件 v1.2.bin' });
        await expectText(row, '3.0 MB');
        await screenshot(page, 'deviceDetail-files');

        const [download] = await Promise.all([
            page.waitForEvent('download'),
            row.locator('button:has-text("下载")').click(),
        ]);
        expect(download.suggestedFilename()).toBe('固件 v1.2.bin');
        expect(readFileSync(await download.path()).equals(bytes)).toBe(true);

        await row.locator('button:has-text("删除")').click();
        const ask = dialog('提示');
        await byText(ask, '是否删除此文件?').waitFor();
        await ask.locator('button:has-text("确定")').click();
        await toast('删除成功').waitFor();
        await byText(page, '暂无文件').waitFor();

        await tab('数据订阅').click();
        await page.waitForURL(/checkIdx=6/);
        await byText(page, '暂无数据订阅').waitFor();
        await screenshot(page, 'deviceDetail-subscription');
    });

    it('a gateway has 子设备管理 (checkIdx=5) and the sub-device screens open', async () => {
        await page.goto(
            `${server.url}/devices/${gateway.productKey}/${gw.deviceName}?devicesId=${gw.deviceId}&checkIdx=5`,
        );
        await expect.poll(() => tab('子设备管理').getAttribute('aria-selected'), { timeout: 15_000 }).toBe('true');
        await screenshot(page, 'deviceDetail-subDevices', { settleMs: 1000 });

        await page.goto(`${server.url}/devInstanceDetail/${gateway.productId}/${gw.deviceId}?child=true`);
        await expect.poll(() => tab('子设备管理').getAttribute('aria-selected'), { timeout: 15_000 }).toBe('true');
        await screenshot(page, 'deviceDetail-instance-childDevice');

        await page.goto(`${server.url}/childDeviceDetail/${plain.productId}/${device.deviceId}`);
        await expectText(title(), device.deviceName);
        expect(await page.locator('[role=tab]').allInnerTexts()).toEqual([
            '设备信息',
            'Topic列表',
            '运行状态',
            '设备影子',
        ]);
        await tab('Topic列表').click();
        await page.waitForURL(`**/childDeviceDetail/${plain.productId}/${device.deviceId}/childDeviceTopic`);
        await screenshot(page, 'deviceDetail-child-topic');

        await page.goto(`${server.url}/devInstanceDetail/${plain.productId}/99999999`);
        await byText(page, '设备不存在').waitFor();
        await screenshot(page, 'deviceDetail-notFound');
        expect(errors).toEqual([]);
    });
});
