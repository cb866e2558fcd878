import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { DEMO_DEVICES } from '../../server/seed/devices';
import { DEMO_ALERT_RULE, DEMO_CAMERA, DEMO_EDGE_INSTANCE, DEMO_SCENE_RULE } from '../../server/seed/live';
import { DEMO_FIRMWARE } from '../../server/seed/ota';
import {
    byText,
    haveChromium,
    launchBrowser,
    screenshot,
    signIn,
    startPrivateServer,
    type RunningServer,
} from './support';

interface Envelope<T> {
    code: number | string;
    msg: string;
    data: T;
}

/**
 * The live first start (issue 31) on a fresh data directory with the demo (SEED_DEMO=1, DEMO_LIVE on by default), a
 * server of its own (not the shared one, which runs with DEMO_LIVE=0): within 60 s of its first answer the broker
 * has the demo's devices connected and messages flowing, the dashboard's online count is the broker's connected
 * devices, the scene rule and the alert rule have fired (journal rows), the alert is on the dashboard, the demo
 * edge instance's 监控 tab shows figures and the demo camera plays ffmpeg's test pattern on /videoInfo (ffmpeg is
 * installed here and in CI). Screens a minute after the first answer: tests/e2e/output/demo-live-*.png.
 */
describe.skipIf(!haveChromium)('a live first start', () => {
    let server: RunningServer;
    let browser: Browser;
    let page: Page;
    let firstAnswer = 0;
    const errors: string[] = [];
    const live = DEMO_DEVICES.filter((d) => d.live);

    const api = async <T>(path: string): Promise<T> => {
        const body = (await (await page.request.get(`${server.url}${path}`)).json()) as Envelope<T>;
        expect([0, 200], JSON.stringify(body)).toContain(Number(body.code));
        return body.data;
    };
    /** Polls `fn` until it answers true, failing once 60 s have passed since the server's first answer. */
    const withinAMinute = async (what: string, fn: () => Promise<boolean>) => {
        for (;;) {
            if (await fn()) return;
            if (Date.now() - firstAnswer > 60_000) throw new Error(`${what}: not within 60 s of the first answer`);
            await new Promise((r) => setTimeout(r, 500));
        }
    };

    beforeAll(async () => {
        server = await startPrivateServer();
        firstAnswer = Date.now();
        browser = await launchBrowser();
        page = await browser.newPage({ viewport: { width: 1440, height: 1000 }, locale: 'zh-CN' });
        page.on('pageerror', (e) => errors.push(String(e)));
        await signIn(page, server.url, '/introduce');
    }, 300_000);

    afterEach(async ({ task }) => {
        if (task.result?.state === 'fail' && page) await screenshot(page, `failed-demo-live-${task.name.slice(0, 40)}`);
    });

    afterAll(async () => {
        await browser?.close();
        await server?.stop();
    });

    it('has the demo devices connected through the broker and messages flowing (/monitor/real)', async () => {
        let real = { connected: 0, upPerSecond: 0 };
        await withinAMinute('connections and messages', async () => {
            real = await api<typeof real>('/api/monitor/real');
            return real.connected === live.length && real.upPerSecond > 0;
        });
        // 在线 means connected: the dashboard's online count is the broker's connections (all of them the demo's),
        // and the demo camera once its stream plays (a camera is online while it plays, not through the broker).
        // Read together until they settle: the camera turns 在线 when its stream starts, which can fall between two
        // of these calls on a loaded machine (CI read one more online device than connections + playing cameras).
        const onlineAndConnected = async () => {
            const cameras = await api<{ records: Array<{ deviceName: string; status: string }> }>(
                '/api/video-device/list?pageNumber=1&pageSize=10',
            );
            const counts = await api<{ onlineTotal: number }>('/api/device/total');
            const now = await api<typeof real>('/api/monitor/real');
            const playing = cameras.records.filter((r) => r.status === 'ONLINE').length;
            return { online: counts.onlineTotal, connectedAndPlaying: now.connected + playing };
        };
        await expect
            .poll(
                async () => {
                    const { online, connectedAndPlaying } = await onlineAndConnected();
                    return online - connectedAndPlaying;
                },
                { timeout: 20_000, interval: 500 },
            )
            .toBe(0);
        const simulations = await api<{ records: Array<{ running: boolean; deviceNames: string[] }> }>(
            '/api/simulation/list?pageNumber=1&pageSize=20',
        );
        expect(simulations.records.every((s) => s.running)).toBe(true);
        expect(simulations.records.flatMap((s) => s.deviceNames).sort()).toEqual(live.map((d) => d.deviceName).sort());
    });

    it('fires the scene rule and the alert rule: journal rows, and the alert on the dashboard', async () => {
        type Journal = { records: Array<{ ruleName: string; success: boolean }> };
        await withinAMinute('rule journal', async () => {
            const names = (await api<Journal>('/api/rule/log/list?pageNumber=1&pageSize=50')).records
                .filter((r) => r.success)
                .map((r) => r.ruleName);
            return names.includes(DEMO_SCENE_RULE) && names.includes(DEMO_ALERT_RULE);
        });
        const events = await api<{ records: Array<{ deviceName: string; params: string }> }>(
            '/api/event/list?pageNumber=1&pageSize=10',
        );
        expect(events.records[0].deviceName).toBe('TH-OFFICE-01');
        await page.goto(`${server.url}/introduce`);
        await page.locator('table[aria-label="告警事件"] tbody tr', { hasText: 'TH-OFFICE-01' }).first().waitFor();
        await page.goto(`${server.url}/ruleEngine/RuleJournal`);
        await page.locator('table tbody tr', { hasText: DEMO_ALERT_RULE }).first().waitFor();
    });

    it("notifies the alert: the log query's 告警消息 tab lists it, sent through the demo's webhook channel", async () => {
        type Notices = { records: Array<{ appName: string; messageType: string; status: string }> };
        await withinAMinute('alert notification sent', async () =>
            (await api<Notices>('/api/log/alerts?pageNumber=1&pageSize=10')).records.some(
                (n) => n.appName === DEMO_ALERT_RULE && n.messageType === '告警通知' && n.status === 'sent',
            ),
        );
        await page.goto(`${server.url}/log?tab=alert`);
        // The newest row may be the 恢复通知 already (the room cools down after 40 s): the 告警通知 row of the rule.
        const row = page
            .locator('table tbody tr', { hasText: '告警通知' })
            .filter({ hasText: DEMO_ALERT_RULE })
            .first();
        await row.waitFor();
        await byText(row, 'Webhook').waitFor();
        expect(await row.textContent()).toContain('/demo/webhook');
        await screenshot(page, 'demo-live-alert-messages');
    });

    it('shows the demo firmware and its finished batch on the OTA screens', async () => {
        await page.goto(`${server.url}/ota`);
        const pkgRow = page.locator('table tbody tr', { hasText: DEMO_FIRMWARE.name }).first();
        await pkgRow.waitFor();
        expect(await pkgRow.textContent()).toContain(DEMO_FIRMWARE.version);
        const packages = await api<{ records: Array<{ id: number; name: string }> }>(
            '/api/ota/package?pageNumber=1&pageSize=10',
        );
        const pkg = packages.records.find((r) => r.name === DEMO_FIRMWARE.name)!;
        const batches = await api<{ records: Array<{ id: number; status: string }> }>(
            `/api/ota/batch?packageId=${pkg.id}&pageNumber=1&pageSize=10`,
        );
        expect(batches.records.map((b) => b.status)).toEqual(['done']);
        await page.goto(`${server.url}/ota/batch/${batches.records[0].id}`);
        for (const name of DEMO_FIRMWARE.devices) {
            const row = page.locator('table tbody tr', { hasText: name }).first();
            await row.waitFor();
            await byText(row, '成功').waitFor();
        }
        await screenshot(page, 'demo-live-ota-batch', { settleMs: 1000 });
    });

    it("shows the demo edge instance's monitor figures", async () => {
        const instances = await api<{ records: Array<{ id: number; name: string }> }>(
            '/api/edge/instance/list?pageNumber=1&pageSize=10',
        );
        const instance = instances.records.find((r) => r.name === DEMO_EDGE_INSTANCE);
        expect(instance).toBeDefined();
        await withinAMinute('edge monitor figures', async () => {
            const figures = await api<{ latest: Record<string, number | null> }>(
                `/api/edge/instance/monitor?instanceId=${instance!.id}`,
            );
            return typeof figures.latest.cpuUsage === 'number' && typeof figures.latest.msgUp === 'number';
        });
        await page.goto(`${server.url}/edge/instance/detail/${instance!.id}/monitor`);
        await page.getByText('CPU使用率（%）').first().waitFor();
    });

    const cameraId = async () => {
        const cameras = await api<{ records: Array<{ deviceId: number; deviceName: string; pushing: number }> }>(
            '/api/video-device/list?pageNumber=1&pageSize=10',
        );
        const camera = cameras.records.find((r) => r.deviceName === DEMO_CAMERA);
        expect(camera?.pushing).toBe(1);
        return camera!.deviceId;
    };
    const playing = (seconds: number) =>
        page.waitForFunction(
            (t) => {
                const v = document.querySelector<HTMLVideoElement>('[data-testid="live-video"]');
                return !!v && v.readyState >= 2 && v.currentTime > t;
            },
            seconds,
            { timeout: 45_000 },
        );

    it('plays the demo camera, a generated test pattern, on /videoInfo', async () => {
        await page.goto(`${server.url}/videoInfo/${DEMO_CAMERA}?deviceId=${await cameraId()}`);
        await page.getByTestId('live-video').waitFor({ state: 'visible', timeout: 30_000 });
        // Frames decoded and time advancing: the looped clip plays, 320×240 as generated.
        await playing(1.5);
        const video = page.getByTestId('live-video');
        expect(await video.evaluate((v: HTMLVideoElement) => [v.videoWidth, v.videoHeight])).toEqual([320, 240]);
        // The camera is online while its stream plays.
        await byText(page.locator('section').first(), '在线').waitFor();
    });

    it('looks alive a minute after the first start (screens for review)', async () => {
        const left = 60_000 - (Date.now() - firstAnswer);
        // The minute passes on a blank page: the camera page the last test left would decode its video all along.
        await page.goto('about:blank');
        if (left > 0) await page.waitForTimeout(left);
        const shots: Array<[string, string, () => Promise<unknown>]> = [
            ['introduce', 'demo-live-dashboard', () => page.locator('ul[aria-label="待处理告警分布"]').waitFor()],
            ['monitor/real', 'demo-live-monitor-real', () => page.getByText('最近一分钟的消息数（每秒）').waitFor()],
            [
                'ruleEngine/RuleJournal',
                'demo-live-rule-journal',
                () => page.locator('table tbody tr', { hasText: DEMO_SCENE_RULE }).first().waitFor(),
            ],
            ['monitor/imitate', 'demo-live-simulations', () => page.locator('table tbody tr').first().waitFor()],
        ];
        for (const [target, name, ready] of shots) {
            await page.goto(`${server.url}/${target}`);
            await ready();
            await screenshot(page, name, { settleMs: 1500 });
        }
        await page.goto(`${server.url}/videoInfo/${DEMO_CAMERA}?deviceId=${await cameraId()}`);
        await playing(2);
        await screenshot(page, 'demo-live-camera');
        const instance = (
            await api<{ records: Array<{ id: number; name: string }> }>(
                '/api/edge/instance/list?pageNumber=1&pageSize=10',
            )
        ).records.find((r) => r.name === DEMO_EDGE_INSTANCE)!;
        await page.goto(`${server.url}/edge/instance/detail/${instance.id}/monitor`);
        await page.getByText('CPU使用率（%）').first().waitFor();
        await screenshot(page, 'demo-live-edge-monitor', { settleMs: 1500 });
        expect(errors).toEqual([]);
    });
});
