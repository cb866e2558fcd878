import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { startRtspSource, type RtspSource } from '../server/rtspSource';
import { byText, haveChromium, launchBrowser, screenshot, signIn, startServer, type RunningServer } from './support';

/**
 * Video in Chromium against the real `npm start`: an rtsp camera added from /videoList points at a local RTSP test
 * camera (tests/server/rtspSource.ts, a generated moving picture); push on /videoInfo makes the server relay it and
 * the page plays it (the video element's time advances); stop push ends it. Screens are saved as
 * tests/e2e/output/video-*.png for review.
 */

describe.skipIf(!haveChromium)('video devices in Chromium', () => {
    let server: RunningServer;
    let source: RtspSource;
    let browser: Browser;
    let page: Page;
    const errors: string[] = [];

    beforeAll(async () => {
        [server, source] = await Promise.all([
            startServer(),
            startRtspSource({ username: 'admin', password: 'cam_pass1', path: '/h264/ch1/sub/av_stream' }),
        ]);
        browser = await launchBrowser();
        page = await browser.newPage({ viewport: { width: 1440, height: 900 }, locale: 'zh-CN' });
        page.on('pageerror', (e) => errors.push(String(e)));
        await signIn(page, server.url, '/videoList');
    }, 300_000);

    afterEach(async ({ task }) => {
        if (task.result?.state === 'fail' && page)
            await screenshot(page, `failed-video-${task.name.slice(0, 40).replace(/\W+/g, '-')}`);
    });

    afterAll(async () => {
        await browser?.close();
        await server?.stop();
        await source?.close();
    });

    const toast = (text: string) => byText(page.locator('.MuiSnackbar-root'), text);
    const dialog = (name: string) => page.getByRole('dialog', { name });

    it('adds an rtsp camera from /videoList', async () => {
        await byText(page, '暂无视频设备').waitFor();
        await page.getByRole('button', { name: '添加RTSP设备' }).first().click();
        const form = dialog('添加RTSP设备');
        await form.getByRole('button', { name: '确定' }).click();
        await byText(form, '请选择产品！').waitFor();
        await form.getByRole('combobox', { name: /所属产品/ }).click();
        await page.getByRole('option').first().click();
        await form.getByRole('textbox', { name: /设备名称/ }).fill('gate_cam');
        await form.getByRole('textbox', { name: /设备IP/ }).fill('127.0.0.1');
        await form.getByRole('spinbutton', { name: /端口/ }).fill(String(source.port));
        await form.getByRole('textbox', { name: /用户名/ }).fill('admin');
        await form.locator('input[name="password"]').fill('cam_pass1');
        await expect(form.getByRole('textbox', { name: /取流地址/ }).inputValue()).resolves.toBe(
            '/h264/ch1/sub/av_stream',
        );
        await screenshot(page, 'video-add');
        await form.getByRole('button', { name: '确定' }).click();
        await toast('添加成功').waitFor();
        const row = page.getByRole('row', { name: /gate_cam/ });
        await row.waitFor();
        await expect(row.textContent()).resolves.toContain('已停止');
        await screenshot(page, 'video-list');
    });

    it('pushes from /videoInfo and plays moving frames in the page, then stops', async () => {
        await page
            .getByRole('row', { name: /gate_cam/ })
            .getByRole('link', { name: '查看' })
            .click();
        await page.waitForURL(/\/videoInfo\/gate_cam\?deviceId=\d+/);
        await page.getByRole('heading', { name: 'gate_cam' }).waitFor();
        await byText(page, '设备未推流，点击“推流”后在此观看实时画面').waitFor();
        await page.getByRole('button', { name: '推流' }).click();
        await toast('操作成功').waitFor();
        await page.getByRole('button', { name: '停止推流' }).waitFor();

        const video = page.getByTestId('live-video');
        await video.waitFor({ state: 'visible', timeout: 30_000 });
        // Frames decoded and time advancing: the relayed H.264 plays in Chromium.
        await page.waitForFunction(
            () => {
                const v = document.querySelector<HTMLVideoElement>('[data-testid="live-video"]');
                return !!v && v.readyState >= 2 && v.currentTime > 0.5;
            },
            undefined,
            { timeout: 45_000 },
        );
        const t1 = await video.evaluate((v: HTMLVideoElement) => v.currentTime);
        await page.waitForFunction(
            (start) => document.querySelector<HTMLVideoElement>('[data-testid="live-video"]')!.currentTime > start + 1,
            t1,
            { timeout: 30_000 },
        );
        const size = await video.evaluate((v: HTMLVideoElement) => [v.videoWidth, v.videoHeight]);
        expect(size).toEqual([320, 240]);
        await byText(page, '直播中').waitFor();
        await byText(page, 'H.264 直通').waitFor();
        await screenshot(page, 'video-playing');

        await page.getByRole('button', { name: '停止推流' }).click();
        await page.getByRole('dialog').getByRole('button', { name: '确定' }).click();
        await page.getByRole('button', { name: '推流' }).waitFor();
        await byText(page, '设备未推流，点击“推流”后在此观看实时画面').waitFor();
        expect(errors).toEqual([]);
    });

    it("shows the camera in /devices' video tab and on /videoData", async () => {
        await page.goto(`${server.url}/devices?tab=video`);
        await page.getByRole('row', { name: /gate_cam/ }).waitFor();
        await screenshot(page, 'video-devices-tab');
        await page.goto(`${server.url}/videoData`);
        await page.getByRole('row', { name: /gate_cam/ }).waitFor();
        await byText(page, '推流中').waitFor();
        await screenshot(page, 'video-data');
    });
});
