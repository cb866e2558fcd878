import { readFileSync } from 'node:fs';
import mqtt from 'mqtt';
import rhea from 'rhea';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { amqpCredentials } from '../../server/amqp/signIn';
import { alibabaCredentials } from '../../server/mqtt/signIn';
import { haveChromium, launchBrowser, screenshot, signIn, startServer, type RunningServer } from './support';

/**
 * Everything over TLS against the real `npm start` (TLS on by default, the CA made in DATA_DIR/tls/): the console over
 * HTTPS in Chromium (certificate errors ignored: Chromium has no way to take a CA file on the command line), a lamp
 * posting over mqtts with securemode=2 and the CA, its live messages (在线调试) showing the post as it arrives and the device page holding the value, and an amqps consumer
 * receiving the same message. tests/e2e/output/tls-live.png and tls-device.png are the pages for review.
 */

interface DeviceRow {
    deviceId: number;
    deviceName: string;
    productKey: string;
}

describe.skipIf(!haveChromium)('TLS end to end', () => {
    let server: RunningServer;
    let browser: Browser;
    let page: Page;
    let https: string;
    let ca: Buffer;
    const port = (name: string) => Number(new RegExp(`${name}: \\w+://[^:]+:(\\d+)`).exec(server.output())?.[1]);

    beforeAll(async () => {
        // A server of its own: the lamps' subscription and the AccessKey this file makes would be another file's
        // starting state on the shared one (subscription.test creates the lamps' subscription from 暂无订阅). No live
        // demo: its simulation signs in as SL-BJ-0002, the lamp this file posts as, and fills its live messages first.
        server = await startServer({ SEED_DEMO: '1', DEMO_LIVE: '0' });
        const caFile = /TLS CA: (\S+?)（SHA-256/.exec(server.output())?.[1];
        expect(caFile, server.output()).toBeTruthy();
        ca = readFileSync(caFile!);
        https = `https://localhost:${port('HTTPS')}`;
        browser = await launchBrowser();
        page = await browser.newPage({
            viewport: { width: 1440, height: 900 },
            locale: 'zh-CN',
            ignoreHTTPSErrors: true,
        });
        await signIn(page, https, '/deviceInstance');
    });
    afterEach(async ({ task }) => {
        if (task.result?.state === 'fail' && page) await screenshot(page, `failed-tls-${task.name.slice(0, 40)}`);
    });
    afterAll(async () => {
        await browser?.close();
        await server?.stop();
    });

    async function api(method: 'GET' | 'POST', target: string, form?: Record<string, string>) {
        const res =
            method === 'GET'
                ? await page.request.get(`${https}${target}`)
                : await page.request.post(`${https}${target}`, { form });
        const body = (await res.json()) as { code: number; msg?: string; data: Record<string, unknown> };
        expect([0, 200], `${target}: ${JSON.stringify(body)}`).toContain(body.code);
        return body.data;
    }

    /** A consumer group subscribed to the lamp product, and an AccessKey, through the API over HTTPS. */
    async function consumerSetup(lamp: DeviceRow & { projectCode: string }) {
        const group = await api('POST', '/api/consumerGroup/save', {
            projectCode: lamp.projectCode,
            id: '',
            name: `tls_e2e_${Date.now() % 100000}`,
        });
        const subs = (await api('GET', '/api/subscription/list?pageNumber=1&pageSize=100')) as {
            records?: Array<{ id: number; productKey: string }>;
        };
        const sub = subs.records?.find((r) => r.productKey === lamp.productKey);
        if (sub) {
            const detail = await api('GET', `/api/subscription/detail?id=${sub.id}`);
            const groups = (detail.consumerGroup as { list: Array<{ queueId: number }> }).list.map((g) => g.queueId);
            await api('POST', '/api/subscription/edit', {
                id: String(sub.id),
                productKey: lamp.productKey,
                group: [...groups, Number(group.id)].join(','),
                message: 'post',
            });
        } else {
            await api('POST', '/api/subscription/save', {
                productKey: lamp.productKey,
                group: String(group.id),
                message: 'post',
            });
        }
        const key = await api('POST', '/api/accessKey/create');
        return { groupId: String(group.id), accessKey: String(key.accessKey), accessSecret: String(key.accessSecret) };
    }

    it('serves the console over HTTPS, takes a post over mqtts live to the device page and to an amqps consumer', async () => {
        const list = (await api('GET', '/api/device/list?deviceName=SL-BJ-0002&pageNumber=1&pageSize=10')) as {
            records: Array<DeviceRow & { projectCode?: string }>;
        };
        const lamp = list.records.find((r) => r.deviceName === 'SL-BJ-0002')!;
        const products = (await api('GET', '/api/subscription/products')) as unknown as Array<{
            productKey: string;
            projectCode: string;
        }>;
        const projectCode = products.find((p) => p.productKey === lamp.productKey)!.projectCode;
        const detail = await api('GET', `/api/device/detail?deviceId=${lamp.deviceId}`);
        const secret = (detail.device as { secret: string }).secret;
        const creds = await consumerSetup({ ...lamp, projectCode });

        // The amqps consumer, as Alibaba's samples connect: SASL PLAIN with the aksign username, the platform's CA.
        const amqp = amqpCredentials({
            clientId: 'tls-e2e',
            accessKey: creds.accessKey,
            accessSecret: creds.accessSecret,
            consumerGroupId: creds.groupId,
        });
        const received: string[] = [];
        const connection = rhea.create_container().connect({
            transport: 'tls',
            host: 'localhost',
            port: port('AMQPS'),
            ca,
            username: amqp.username,
            password: amqp.password,
            reconnect: false,
        } as rhea.ConnectionOptions);
        const opened = new Promise<void>((resolve, reject) => {
            connection.on('receiver_open', () => resolve());
            connection.on('connection_error', (c) => reject(c.error ?? new Error('amqps refused')));
            connection.on('disconnected', (c) => reject(c.error ?? new Error('amqps disconnected')));
        });
        connection.on('message', (context) => {
            const body = context.message?.body as { content?: Buffer } | string;
            received.push(typeof body === 'string' ? body : Buffer.from(body.content ?? '').toString());
        });
        connection.open_receiver({ source: { address: 'default' } });
        await opened;

        // The device's live messages (在线调试 › 实时消息: server-sent events over HTTPS).
        await page.goto(`${https}/monitor/debug?productKey=${lamp.productKey}&deviceId=${lamp.deviceId}`);
        await page.getByText('等待设备的消息…').first().waitFor({ timeout: 30_000 });

        const brightness = 11 + Math.floor(Math.random() * 80);
        const client = await mqtt.connectAsync(`mqtts://localhost:${port('MQTTS')}`, {
            ...alibabaCredentials(
                { productKey: lamp.productKey, deviceName: lamp.deviceName, secret },
                { securemode: 2 },
            ),
            ca,
            reconnectPeriod: 0,
        });
        try {
            await client.publishAsync(
                `/sys/${lamp.productKey}/${lamp.deviceName}/thing/event/property/post`,
                JSON.stringify({ id: '1', version: '1.0', params: { Brightness: brightness } }),
                { qos: 1 },
            );
            // Live: the page is not reloaded.
            await expect
                .poll(async () => (await page.locator('main').textContent()) ?? '', { timeout: 20_000 })
                .toContain(`"Brightness":${brightness}`);
            await screenshot(page, 'tls-live');
            // Stored: the device page's latest values hold it.
            await page.goto(
                `${https}/devices/${lamp.productKey}/${lamp.deviceName}?devicesId=${lamp.deviceId}&checkIdx=3`,
            );
            const row = page.locator('table[aria-label="属性"] tbody tr').filter({ hasText: 'Brightness' });
            await expect
                .poll(async () => (await row.textContent()) ?? '', { timeout: 20_000 })
                .toContain(`${brightness}%`);
            await screenshot(page, 'tls-device');
            await expect
                .poll(() => received.some((m) => m.includes(`"Brightness":${brightness}`)), { timeout: 20_000 })
                .toBe(true);
        } finally {
            await client.endAsync();
            connection.close();
        }
        // /platform over HTTPS: the TLS endpoints, the CA's fingerprint (as start-up printed it) and its download.
        await page.goto(`${https}/platform`);
        await page.getByText('TLS 加密接入').waitFor({ timeout: 20_000 });
        const fingerprint = /SHA-256 ([0-9A-F:]+)）/.exec(server.output())![1];
        await page.getByText(fingerprint).waitFor();
        await page.getByText(`mqtts://localhost:${port('MQTTS')}`).waitFor();
        const download = page.waitForEvent('download');
        await page.getByText(/下载 CA 证书/).click();
        const pem = readFileSync((await (await download).path())!, 'utf8');
        expect(pem).toBe(ca.toString());
        await screenshot(page, 'tls-platform');
    }, 120_000);
});
