import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NO_SMTP } from '../../server/rules/appAlarms';
import { createTestServer, type TestServer } from '../../server/testing';
import { startBroker, until, type Broker } from './mqttSupport';
import { alertsOf, lamp, ok, online, type Device } from './rulesSupport';
import { call, form } from './support';

/**
 * App alarms (/applymanage 添加告警) are sent when an alert rule raises an alert of their level while the app is in
 * use: through the rules' notifier, to a local HTTP server here, with retries and every attempt in /log's 告警消息.
 */
let s: TestServer;
let broker: Broker;
let url: string;
const devices: Device[] = [];
let http: Server;
let hookUrl: string;
const received: Array<{ path: string; body: string }> = [];
let failuresLeft = 0;

beforeAll(async () => {
    s = await createTestServer({ rules: { notify: { attempts: 3, backoffMs: 20, timeoutMs: 2_000 } } });
    ({ broker, url } = await startBroker(s));
    http = createServer((req, res) => {
        let body = '';
        req.on('data', (c) => (body += c));
        req.on('end', () => {
            received.push({ path: req.url ?? '', body });
            if (failuresLeft > 0) {
                failuresLeft--;
                res.writeHead(500).end('busy');
                return;
            }
            res.writeHead(200, { 'content-type': 'application/json' }).end('{"errcode":0,"errmsg":"ok"}');
        });
    });
    await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
    hookUrl = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
});

afterAll(async () => {
    for (const d of devices) d.client.end(true);
    await broker?.close();
    await s?.close();
    http?.close();
});

interface NotificationRow {
    appName: string;
    noticeType: string;
    messageType: string;
    recipient: string;
    content: string;
    status: string;
    attempts: Array<{ ok: boolean; status?: number; error?: string }>;
}

async function notificationsOf(appName: string): Promise<NotificationRow[]> {
    const res = await s.fetch('/api/log/alerts?pageSize=100');
    return ((await res.json()) as { data: { records: NotificationRow[] } }).data.records.filter(
        (n) => n.appName === appName,
    );
}

/** A published app with one alarm; in use when `use`. */
async function appWithAlarm(name: string, alarm: Record<string, string | number>, use = true) {
    const app = (await call<{ data: { id: number } }>(s, 'POST', '/api/app/save', form({ name, domain: '智慧城市' })))
        .body.data;
    expect((await call(s, 'POST', '/api/app/activate', form({ id: app.id, activeStatus: 1 }))).status).toBe(200);
    if (use) expect((await call(s, 'POST', '/api/app/use', form({ id: app.id, useStatus: 1 }))).status).toBe(200);
    const saved = await call(s, 'POST', '/api/app/alarm/save', form({ appId: app.id, name: `${name}告警`, ...alarm }));
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    return app.id;
}

async function alertRule(d: Device, level: number) {
    return (
        await ok<{ id: number }>(s, 'POST', '/api/alert-rule/save', {
            name: `告警${Math.random().toString(36).slice(2, 7)}`,
            productKey: d.productKey,
            deviceName: d.deviceName,
            level,
            content: '${deviceName} 功率 ${ActivePower} W 超限',
            conditions: [{ source: 'property', identifier: 'ActivePower', operator: '>=', value: 1000 }],
            channelIds: [],
        })
    ).id;
}

describe('app alarms are sent when an alert of their level is raised while the app is in use', () => {
    it('sends the in-use app a DingTalk robot text with retries; an app not in use and another level get nothing', async () => {
        await appWithAlarm('园区照明', {
            level: 2,
            notifyType: 'dingtalk',
            receiver: `${hookUrl}/robot/send?access_token=app`,
            content: '${appName}：${content}',
        });
        await appWithAlarm('停用的应用', { level: 2, notifyType: 'webhook', receiver: `${hookUrl}/idle` }, false);
        await appWithAlarm('只管紧急', { level: 1, notifyType: 'webhook', receiver: `${hookUrl}/urgent` });
        const d = await online(url, await lamp(s));
        devices.push(d);
        const ruleId = await alertRule(d, 2);
        failuresLeft = 1;
        received.length = 0;
        await d.post({ ActivePower: 1300 });
        await until(async () => (await notificationsOf('园区照明')).some((n) => n.status === 'sent'), 10_000);
        const [n] = await notificationsOf('园区照明');
        const text = `园区照明：${d.deviceName} 功率 1300 W 超限`;
        expect(n).toMatchObject({
            noticeType: '钉钉机器人',
            messageType: '告警通知',
            recipient: `${hookUrl}/robot/send`,
            content: text,
        });
        expect(n.attempts.map((a) => a.ok)).toEqual([false, true]);
        expect(received.map((r) => r.path)).toEqual(['/robot/send?access_token=app', '/robot/send?access_token=app']);
        expect(JSON.parse(received[1].body)).toEqual({ msgtype: 'text', text: { content: text } });
        expect(await notificationsOf('停用的应用')).toEqual([]);
        expect(await notificationsOf('只管紧急')).toEqual([]);
        expect((await alertsOf(s, ruleId))[0]).toMatchObject({ level: 2 });
    });

    it('records an e-mail alarm as failed, saying why, when no SMTP server is configured', async () => {
        await appWithAlarm('邮件应用', { level: 3, notifyType: 'email', receiver: 'duty@example.com' });
        const d = await online(url, await lamp(s));
        devices.push(d);
        await alertRule(d, 3);
        await d.post({ ActivePower: 1500 });
        await until(async () => (await notificationsOf('邮件应用')).length > 0, 10_000);
        const [n] = await notificationsOf('邮件应用');
        expect(n).toMatchObject({ noticeType: '邮件', recipient: 'duty@example.com', status: 'failed' });
        expect(n.attempts[0]).toMatchObject({ ok: false, error: NO_SMTP });
    });

    it("sends an e-mail alarm to its own address through the alert rules' SMTP server", async () => {
        const mails: string[] = [];
        const smtp = new SMTPServer({
            authOptional: true,
            disabledCommands: ['STARTTLS'],
            onData(stream, session, cb) {
                let text = '';
                stream.on('data', (c: Buffer) => (text += c.toString()));
                stream.on('end', () => {
                    mails.push(`${session.envelope.rcptTo.map((r) => r.address).join(',')}\n${text}`);
                    cb();
                });
            },
        });
        await new Promise<void>((r) => smtp.listen(0, '127.0.0.1', r));
        try {
            await ok(s, 'POST', '/api/alert-rule/channel/save', {
                name: '值班邮箱',
                type: 'email',
                host: '127.0.0.1',
                port: (smtp.server.address() as AddressInfo).port,
                from: 'iot@example.com',
                to: 'rules@example.com',
            });
            await appWithAlarm('邮件应用二', { level: 3, notifyType: 'email', receiver: 'app-duty@example.com' });
            const d = await online(url, await lamp(s));
            devices.push(d);
            await alertRule(d, 3);
            await d.post({ ActivePower: 1700 });
            await until(async () => (await notificationsOf('邮件应用二')).some((n) => n.status === 'sent'), 10_000);
            // Each in-use app with a level-3 e-mail alarm is told (邮件应用 above too, now that SMTP exists).
            const mine = mails.filter((m) => m.split('\n')[0] === 'app-duty@example.com');
            expect(mine).toHaveLength(1);
            const [n] = await notificationsOf('邮件应用二');
            expect(n).toMatchObject({ noticeType: '邮件', recipient: 'app-duty@example.com' });
            expect(n.content).toBe(`【邮件应用二】${d.deviceName} 功率 1700 W 超限`);
        } finally {
            await new Promise<void>((r) => smtp.close(() => r()));
        }
    });
});
