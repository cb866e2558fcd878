/* eslint-disable @typescript-eslint/no-explicit-any -- the answers are checked by value (toMatchObject), not by type */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import mqtt, { type MqttClient } from 'mqtt';
import type { Browser, Page } from 'playwright-core';
import { alibabaCredentials } from '../../server/mqtt/signIn';
import { startRtspSource, type RtspSource } from '../server/rtspSource';
import { byText, haveChromium, launchBrowser, screenshot, signIn, startServer, type RunningServer } from './support';

/**
 * Video in Chromium against the real `npm start`: an rtsp camera added from /videoList points at a local RTSP test
 * camera (tests/server/rtspSource.ts, a generated moving picture); push on /videoInfo makes the server relay it and
 * the page plays it (the video element's time advances); stop push ends it. Screens are saved as
 * tests/e2e/output/video-*.png for review. Then an edge instance: created on a gateway device that signs in over the
 * platform's MQTT (an mqtt.js client playing the gateway and acknowledging deployments), a driver added, two of its
 * sub-devices assigned, deployed, and the gateway's acknowledgement seen in the log tab (edge-*.png).
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

    let gatewayClient: MqttClient | undefined;
    /** The edge gateway's product and the deployment documents it received. */
    const edge = { productKey: '', documents: [] as any[] };

    afterAll(async () => {
        gatewayClient?.end(true);
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
        // Chromium has Media Source Extensions: the low-latency path (fragmented MP4 over /live) plays.
        await expect(video.getAttribute('data-path')).resolves.toBe('live');
        await byText(page, '低延迟（MSE）').waitFor();
        // The camera is online while its stream plays (the page refreshes its record when playing starts).
        await byText(page.locator('section').first(), '在线').waitFor();
        await screenshot(page, 'video-playing');

        // A browser without MSE (MediaSource and ManagedMediaSource deleted before the console's code runs): the
        // player falls back to HLS (the browser's own, hls.js needing MSE too) and frames still advance.
        const noMseContext = await browser.newContext({
            viewport: { width: 1440, height: 900 },
            locale: 'zh-CN',
            storageState: await page.context().storageState(),
        });
        const noMse = await noMseContext.newPage();
        noMse.on('pageerror', (e) => errors.push(String(e)));
        await noMse.addInitScript(() => {
            const w = window as unknown as Record<string, unknown>;
            delete w.MediaSource;
            delete w.ManagedMediaSource;
            delete w.WebKitMediaSource;
        });
        await noMse.goto(page.url());
        const fallback = noMse.getByTestId('live-video');
        await fallback.waitFor({ state: 'visible', timeout: 30_000 });
        await expect(fallback.getAttribute('data-path')).resolves.toBe('hls');
        await expect(noMse.evaluate(() => typeof (window as { MediaSource?: unknown }).MediaSource)).resolves.toBe(
            'undefined',
        );
        const frames = () =>
            noMse.evaluate(() => {
                const v = document.querySelector<HTMLVideoElement>('[data-testid="live-video"]')!;
                return { t: v.currentTime, ready: v.readyState, size: [v.videoWidth, v.videoHeight] };
            });
        await noMse.waitForFunction(
            () => {
                const v = document.querySelector<HTMLVideoElement>('[data-testid="live-video"]');
                return !!v && v.readyState >= 2 && v.currentTime > 0.5;
            },
            undefined,
            { timeout: 45_000 },
        );
        const h1 = (await frames()).t;
        await noMse.waitForFunction(
            (start) => document.querySelector<HTMLVideoElement>('[data-testid="live-video"]')!.currentTime > start + 1,
            h1,
            { timeout: 30_000 },
        );
        expect((await frames()).size).toEqual([320, 240]);
        await byText(noMse, 'HLS').waitFor();
        await screenshot(noMse, 'video-playing-hls');
        await noMseContext.close();

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

    /** A platform call from the signed-in page (its session cookie). */
    const api = (path: string, body?: Record<string, string | string[]>) =>
        page.evaluate(
            async ([path, body]) => {
                const form = new URLSearchParams();
                for (const [k, v] of Object.entries(body ?? {})) for (const x of [v].flat()) form.append(k, x);
                const res = await fetch(path, body ? { method: 'POST', body: form } : {});
                return (await res.json()) as { data: any };
            },
            [path, body] as const,
        );

    it('creates an edge instance on a gateway signed in over MQTT, assigns a driver and two sub-devices, deploys', async () => {
        // A gateway with three sub-devices, and a driver (the driver screen is seen below).
        const products = (await api('/api/product/list-product')).data.list as Array<any>;
        // The demo's edge gateway product: its thing model has the figures the 监控 tab shows.
        const gwProduct =
            products.find((p) => p.productName === '边缘网关_G1') ?? products.find((p) => p.nodeType === 1);
        edge.productKey = gwProduct.productKey;
        const subProduct = products.find((p) => p.nodeType === 0);
        const gw = (await api('/api/device/save', { productKey: gwProduct.productKey, deviceName: 'edge_gw' })).data;
        const subs: string[] = [];
        for (const name of ['plc_1', 'plc_2', 'plc_3'])
            subs.push(
                String(
                    (await api('/api/device/save', { productKey: subProduct.productKey, deviceName: name })).data
                        .deviceId,
                ),
            );
        await api('/api/device/subDevice/add', { gwId: String(gw.deviceId), deviceId: subs });
        const secret = (await api(`/api/device/detail?deviceId=${gw.deviceId}`)).data.device.secret as string;

        await page.goto(`${server.url}/edge/driver`);
        await byText(page, '暂无驱动').waitFor();
        await page.getByRole('button', { name: '新建驱动' }).first().click();
        const driverForm = dialog('新建驱动');
        await driverForm.getByRole('textbox', { name: /驱动名称/ }).fill('modbus_tcp');
        await driverForm.getByRole('button', { name: '确定' }).click();
        await toast('创建成功').waitFor();
        await page.getByRole('row', { name: /modbus_tcp/ }).waitFor();
        await screenshot(page, 'edge-drivers');

        // The gateway signs in over MQTT and acknowledges each deployment.
        const port = /MQTT: mqtt:\/\/[^:]+:(\d+)/.exec(server.output())![1];
        gatewayClient = await mqtt.connectAsync(`mqtt://127.0.0.1:${port}`, {
            ...alibabaCredentials({ productKey: gwProduct.productKey, deviceName: 'edge_gw', secret }),
            reconnectPeriod: 0,
        });
        const topic = `/${gwProduct.productKey}/edge_gw/user/edge/deploy`;
        await gatewayClient.subscribeAsync(topic, { qos: 1 });
        const documents = edge.documents;
        gatewayClient.on('message', (t, payload) => {
            if (!t.endsWith('/user/edge/deploy')) return;
            const doc = JSON.parse(payload.toString());
            documents.push(doc.params);
            void gatewayClient!.publishAsync(
                `${t}_reply`,
                JSON.stringify({ id: doc.id, code: 200, message: `已应用 v${doc.params.version}` }),
            );
        });

        await page.goto(`${server.url}/edge/instance`);
        await byText(page, '暂无边缘实例').waitFor();
        await page.getByRole('button', { name: '新建实例' }).first().click();
        const form = dialog('新建实例');
        await form.getByRole('textbox', { name: /实例名称/ }).fill('workshop_edge');
        await form.getByRole('textbox', { name: /规格/ }).fill('2核4G');
        await form.getByRole('combobox', { name: /网关设备/ }).click();
        await page.getByRole('option', { name: /edge_gw/ }).click();
        await form.getByRole('button', { name: '确定' }).click();
        await toast('创建成功').waitFor();
        const row = page.getByRole('row', { name: /workshop_edge/ });
        await row.waitFor();
        await expect(row.textContent()).resolves.toContain('在线');
        await screenshot(page, 'edge-instances');

        await row.getByRole('link', { name: '查看' }).click();
        await page.getByRole('heading', { name: 'workshop_edge' }).waitFor();
        await page.getByRole('tab', { name: '驱动' }).click();
        await page.getByRole('button', { name: '添加驱动' }).first().click();
        const add = dialog('添加驱动');
        await add.getByRole('combobox', { name: /驱动/ }).click();
        await page.getByRole('option', { name: /modbus_tcp 1\.0\.0/ }).click();
        await add.getByRole('textbox', { name: /驱动配置/ }).fill('{"host":"192.168.1.10","port":502}');
        await add.getByRole('button', { name: '确定' }).click();
        await toast('添加成功').waitFor();

        await page.getByRole('tab', { name: '可分配子设备' }).click();
        for (const name of ['plc_1', 'plc_2'])
            await page
                .getByRole('row', { name: new RegExp(name) })
                .getByRole('checkbox')
                .check();
        await page.getByRole('button', { name: '分配到驱动' }).first().click();
        const assign = dialog('分配子设备');
        await assign.getByRole('combobox', { name: /驱动/ }).click();
        await page.getByRole('option', { name: /modbus_tcp/ }).click();
        await assign.getByRole('button', { name: '确定' }).click();
        await toast('分配成功').waitFor();
        await page.getByRole('tab', { name: '已分配子设备' }).click();
        await page.getByRole('row', { name: /plc_2/ }).waitFor();
        await screenshot(page, 'edge-driver-tab');

        await page.getByRole('button', { name: '部署' }).first().click();
        await page.getByRole('dialog').getByRole('button', { name: '确定' }).click();
        await toast('版本 1：部署成功（已应用 v1）').waitFor();
        expect(documents).toHaveLength(1);
        expect(documents[0].drivers[0].devices.map((d: any) => d.deviceName).sort()).toEqual(['plc_1', 'plc_2']);
        await page.getByRole('tab', { name: '部署日志' }).click();
        await page.getByRole('row', { name: /已应用 v1/ }).waitFor();
        await screenshot(page, 'edge-log');
    });

    it('adds a function and a route on the instance, deploys them, and shows what the gateway reports in 监控', async () => {
        await page.getByRole('tab', { name: '函数计算' }).click();
        await byText(page, '该实例暂无函数').waitFor();
        await page.getByRole('button', { name: '新建函数' }).first().click();
        const fnForm = dialog('新建函数');
        await fnForm.getByRole('textbox', { name: /函数名称/ }).fill('edge_fn');
        await fnForm.getByRole('button', { name: '添加环境变量' }).click();
        await fnForm.getByRole('textbox', { name: '变量名' }).fill('THRESHOLD');
        await fnForm.getByRole('textbox', { name: '值' }).fill('80');
        await fnForm.getByRole('button', { name: '确定' }).click();
        await toast('创建成功').waitFor();
        await page.getByRole('row', { name: /edge_fn/ }).waitFor();
        await screenshot(page, 'edge-func');

        await page.getByRole('tab', { name: '消息路由' }).click();
        await byText(page, '该实例暂无消息路由').waitFor();
        await page.getByRole('button', { name: '新建路由' }).first().click();
        const routeForm = dialog('新建路由');
        await routeForm.getByRole('textbox', { name: /Topic过滤器/ }).fill('/sys/+/+/thing/#/post');
        // 消息来源 first, then 消息目标: the second 函数计算 is the target.
        await routeForm.getByRole('radio', { name: '函数计算' }).nth(1).check();
        await routeForm.getByRole('combobox', { name: /目标/ }).click();
        await page.getByRole('option', { name: 'edge_fn' }).click();
        await routeForm.getByRole('button', { name: '确定' }).click();
        await byText(routeForm, 'Topic过滤器不是合法的MQTT主题过滤器').waitFor();
        await screenshot(page, 'edge-router-form');
        await routeForm.getByRole('textbox', { name: /Topic过滤器/ }).fill('/sys/+/+/thing/event/#');
        await routeForm.getByRole('button', { name: '确定' }).click();
        await toast('创建成功').waitFor();
        await page.getByRole('row', { name: /函数计算：edge_fn/ }).waitFor();
        await screenshot(page, 'edge-router');

        for (const [tab, text, name] of [
            ['场景联动', '该实例暂无在边缘运行的场景联动规则', 'edge-scene'],
            ['流数据分析', '该实例暂无流数据分析任务', 'edge-data'],
            ['设置', '设置、场景联动、函数、流数据分析任务与消息路由在下次', 'edge-setting'],
        ]) {
            await page.getByRole('tab', { name: tab }).click();
            await byText(page, text).waitFor();
            await screenshot(page, name);
        }
        // The stream job form: its output picked from the instance's functions.
        await page.getByRole('tab', { name: '流数据分析' }).click();
        await page.getByRole('button', { name: '新建任务' }).first().click();
        const jobForm = dialog('新建任务');
        await jobForm.getByRole('textbox', { name: /任务名称/ }).fill('avg_power');
        await jobForm.getByRole('textbox', { name: /数据源Topic/ }).fill('/sys/+/+/thing/event/property/post');
        await jobForm
            .getByRole('textbox', { name: /分析语句/ })
            .fill('SELECT deviceName, avg(ActivePower) FROM source GROUP BY deviceName');
        await jobForm.getByRole('radio', { name: '函数计算' }).check();
        await jobForm.getByRole('combobox', { name: /输出到/ }).click();
        await page.getByRole('option', { name: 'edge_fn' }).click();
        await screenshot(page, 'edge-data-form');
        await jobForm.getByRole('button', { name: '确定' }).click();
        await toast('创建成功').waitFor();
        await page.getByRole('row', { name: /avg_power/ }).waitFor();
        await screenshot(page, 'edge-data');

        await page.getByRole('button', { name: '部署' }).first().click();
        await page.getByRole('dialog').getByRole('button', { name: '确定' }).click();
        await toast('版本 2：部署成功（已应用 v2）').waitFor();
        expect(edge.documents[1]).toMatchObject({
            version: 2,
            functions: [{ name: 'edge_fn', runtime: 'nodejs20', env: { THRESHOLD: '80' } }],
            routes: [{ sourceType: 'allDevices', topicFilter: '/sys/+/+/thing/event/#', targetName: 'edge_fn' }],
            streams: [{ name: 'avg_power', windowType: 'tumbling', windowSeconds: 60, targetName: 'edge_fn' }],
            settings: { logLevel: 'info', heartbeatSeconds: 60 },
        });

        // The gateway reports its own figures as properties; 监控 shows the latest and the last hour.
        await page.getByRole('tab', { name: '监控' }).click();
        await byText(page, '网关最近一小时没有上报监控数据').first().waitFor();
        await screenshot(page, 'edge-monitor-empty');
        const post = `/sys/${edge.productKey}/edge_gw/thing/event/property/post`;
        for (const [i, cpu] of [31.5, 42.5].entries())
            await gatewayClient!.publishAsync(
                post,
                JSON.stringify({
                    id: String(100 + i),
                    version: '1.0',
                    method: 'thing.event.property.post',
                    params: { cpuUsage: cpu, memUsage: 61.2, diskUsage: 48.5, msgUp: 120, msgDown: 12 },
                }),
                { qos: 1 },
            );
        await page.reload();
        await page.getByTestId('count-latest.cpuUsage').filter({ hasText: '42.5' }).waitFor();
        await expect(page.getByTestId('count-latest.memUsage').textContent()).resolves.toContain('61.2');
        await page.locator('.MuiChartsSurface-root').first().waitFor();
        await screenshot(page, 'edge-monitor');
    });
});
