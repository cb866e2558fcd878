import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestServer, type TestServer } from '../../server/testing';
import { startBroker, until, type Broker } from './mqttSupport';
import { alertsOf, api, journalOf, lamp, ok, online, type Device } from './rulesSupport';

let s: TestServer;
let broker: Broker;
let url: string;
const devices: Device[] = [];

/** A local webhook receiver: answers 500 to the first `failFirst` posts, then `answer`. */
let http: Server;
let hookUrl: string;
const received: Array<{ path: string; body: string }> = [];
let failuresLeft = 0;
const answer = '{"errcode":0,"errmsg":"ok"}';

let smtp: SMTPServer;
let smtpPort: number;
const mails: string[] = [];

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
            res.writeHead(200, { 'content-type': 'application/json' }).end(answer);
        });
    });
    await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
    hookUrl = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
    smtp = new SMTPServer({
        authOptional: true,
        disabledCommands: ['STARTTLS'],
        onData(stream, _session, cb) {
            let text = '';
            stream.on('data', (c: Buffer) => (text += c.toString()));
            stream.on('end', () => {
                mails.push(text);
                cb();
            });
        },
    });
    await new Promise<void>((r) => smtp.listen(0, '127.0.0.1', r));
    smtpPort = (smtp.server.address() as AddressInfo).port;
});

afterAll(async () => {
    for (const d of devices) d.client.end(true);
    await broker?.close();
    await s?.close();
    http?.close();
    await new Promise<void>((r) => (smtp ? smtp.close(() => r()) : r()));
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

async function notifications(): Promise<NotificationRow[]> {
    const res = await s.fetch('/api/log/alerts?pageSize=50');
    return ((await res.json()) as { data: { records: NotificationRow[] } }).data.records;
}

async function channel(body: Record<string, unknown>) {
    return (await ok<{ id: number }>(s, 'POST', '/api/alert-rule/channel/save', body)).id;
}

async function alertRule(
    productKey: string,
    deviceName: string,
    channelIds: number[],
    extra: Record<string, unknown> = {},
) {
    return (
        await ok<{ id: number }>(s, 'POST', '/api/alert-rule/save', {
            name: `告警${Math.random().toString(36).slice(2, 7)}`,
            productKey,
            deviceName,
            level: 2,
            content: '${deviceName} 功率 ${ActivePower} W 超限',
            conditions: [{ source: 'property', identifier: 'ActivePower', operator: '>=', value: 1000 }],
            channelIds,
            ...extra,
        })
    ).id;
}

describe('alert rules and notifications', () => {
    it('refuses a channel without a proper URL or mail settings', async () => {
        const bad = await api(s, 'POST', '/api/alert-rule/channel/save', {
            name: '钉钉',
            type: 'dingtalk',
            url: 'ftp://x',
        });
        expect([bad.status, bad.body.msg]).toEqual([400, '请输入以 http:// 或 https:// 开头的 Webhook 地址']);
        const mail = await api(s, 'POST', '/api/alert-rule/channel/save', {
            name: '邮件',
            type: 'email',
            host: 'h',
            to: 'nobody',
        });
        expect([mail.status, mail.body.msg]).toEqual([400, '请输入收件人邮箱']);
    });

    it('a webhook that fails twice is retried with back-off and succeeds; every attempt is recorded', async () => {
        const ding = await channel({
            name: '运维钉钉群',
            type: 'dingtalk',
            url: `${hookUrl}/robot/send?access_token=abc`,
        });
        const d = await online(url, await lamp(s));
        devices.push(d);
        const id = await alertRule(d.productKey, d.deviceName, [ding]);
        const detail = await ok<{ level: number; channelIds: number[]; content: string }>(
            s,
            'GET',
            `/api/alert-rule/detail?id=${id}`,
        );
        expect(detail).toMatchObject({ level: 2, channelIds: [ding] });
        failuresLeft = 2;
        received.length = 0;
        await d.post({ ActivePower: 1200 });
        await until(async () => (await notifications()).some((n) => n.status === 'sent'), 5_000);
        const [n] = await notifications();
        expect(n).toMatchObject({
            noticeType: '钉钉机器人',
            messageType: '告警通知',
            recipient: `${hookUrl}/robot/send`,
            content: `${d.deviceName} 功率 1200 W 超限`,
        });
        expect(n.attempts.map((a) => a.ok)).toEqual([false, false, true]);
        expect(n.attempts[0].status).toBe(500);
        expect(received).toHaveLength(3);
        expect(JSON.parse(received[2].body)).toEqual({
            msgtype: 'text',
            text: { content: `${d.deviceName} 功率 1200 W 超限` },
        });
        expect((await alertsOf(s, id))[0]).toMatchObject({ level: 2, status: 0 });
    });

    it('gives up after the last attempt and says so', async () => {
        const hook = await channel({
            name: '工单系统',
            type: 'webhook',
            url: `${hookUrl}/hook`,
            bodyTemplate: '{"title":"${ruleName}","text":"${content}","device":"${deviceName}"}',
        });
        const d = await online(url, await lamp(s));
        devices.push(d);
        await alertRule(d.productKey, d.deviceName, [hook]);
        failuresLeft = 3;
        received.length = 0;
        await d.post({ ActivePower: 1500 });
        await until(async () => (await notifications()).some((n) => n.status === 'failed'), 5_000);
        const failed = (await notifications()).find((n) => n.status === 'failed')!;
        expect(failed.attempts).toHaveLength(3);
        expect(failed.attempts.every((a) => !a.ok)).toBe(true);
        expect(JSON.parse(received[0].body)).toMatchObject({
            text: `${d.deviceName} 功率 1500 W 超限`,
            device: d.deviceName,
        });
    });

    it('sends e-mail over SMTP', async () => {
        const mail = await channel({
            name: '值班邮箱',
            type: 'email',
            host: '127.0.0.1',
            port: smtpPort,
            from: 'iot@example.com',
            to: 'duty@example.com',
        });
        const list = await ok<{ records: Array<{ id: number; pass?: string }> }>(
            s,
            'GET',
            '/api/alert-rule/channel/list',
        );
        expect(list.records.find((c) => c.id === mail)).toBeTruthy();
        const d = await online(url, await lamp(s));
        devices.push(d);
        const id = await alertRule(d.productKey, d.deviceName, [mail]);
        await d.post({ ActivePower: 1800 });
        await until(async () => mails.length === 1, 5_000);
        expect(mails[0]).toContain('duty@example.com');
        expect(mails[0]).toContain('1800');
        await until(async () => (await notifications()).some((n) => n.noticeType === '邮件' && n.status === 'sent'));
        const [entry] = await journalOf(s, id);
        expect(entry.results.map((r) => r.type)).toEqual(['alert', 'notify']);
    });
    it('恢复时通知: an alert rule that asks for it notifies again when its alert recovers; the record is in the alert tab', async () => {
        const hook = await channel({ name: '恢复钩子', type: 'webhook', url: `${hookUrl}/recover` });
        const d = await online(url, await lamp(s));
        devices.push(d);
        const id = await alertRule(d.productKey, d.deviceName, [hook], { notifyOnRecover: true });
        expect(await ok(s, 'GET', `/api/alert-rule/detail?id=${id}`)).toMatchObject({ notifyOnRecover: true });
        const mine = async () => (await notifications()).filter((n) => n.recipient.endsWith('/recover'));
        await d.post({ ActivePower: 1300 });
        await until(async () => (await mine()).some((n) => n.status === 'sent'), 10_000);
        await d.post({ ActivePower: 10 });
        await until(async () => (await mine()).filter((n) => n.status === 'sent').length === 2, 10_000);
        const [recovered, fired] = await mine();
        expect(fired).toMatchObject({ messageType: '告警通知', content: `${d.deviceName} 功率 1300 W 超限` });
        expect(recovered).toMatchObject({
            messageType: '恢复通知',
            noticeType: 'Webhook',
            content: `设备 ${d.deviceName} 已恢复正常（规则「${fired.appName}」）`,
        });
        const bodies = received
            .filter((r) => r.path === '/recover')
            .map((r) => JSON.parse(r.body) as { content: string });
        expect(bodies.map((b) => b.content)).toEqual([fired.content, recovered.content]);
        expect((await alertsOf(s, id))[0]).toMatchObject({ open: false });
    });

    it('a scene rule notifies on recovery only through the notify actions that ask for it, with their template', async () => {
        const yes = await channel({ name: '恢复要', type: 'webhook', url: `${hookUrl}/yes` });
        const no = await channel({ name: '恢复不要', type: 'webhook', url: `${hookUrl}/no` });
        const d = await online(url, await lamp(s));
        devices.push(d);
        const { id } = await ok<{ id: number }>(s, 'POST', '/api/rule/save', {
            name: '功率恢复通知',
            productKey: d.productKey,
            deviceName: d.deviceName,
            triggers: [{ type: 'property' }],
            conditions: [{ source: 'property', identifier: 'ActivePower', operator: '>', value: 100 }],
            actions: [
                {
                    type: 'notify',
                    channelId: yes,
                    onRecover: true,
                    recoverContent: '${deviceName} 功率回落到 ${ActivePower}',
                },
                { type: 'notify', channelId: no },
            ],
        });
        const bad = await api(s, 'POST', '/api/rule/save', {
            name: '坏',
            productKey: d.productKey,
            triggers: [{ type: 'property' }],
            actions: [{ type: 'notify', channelId: yes, onRecover: 'sometimes' }],
        });
        expect([bad.status, bad.body.msg]).toEqual([400, '执行动作第 1 行：恢复时通知应为 true 或 false']);
        await d.post({ ActivePower: 150 });
        await until(async () => received.filter((r) => r.path === '/no').length === 1, 10_000);
        await d.post({ ActivePower: 40 });
        await until(async () => received.filter((r) => r.path === '/yes').length === 2, 10_000);
        await s.rules.drain();
        expect(received.filter((r) => r.path === '/no')).toHaveLength(1);
        const recovered = (await notifications()).find(
            (n) => n.messageType === '恢复通知' && n.recipient.endsWith('/yes'),
        );
        expect(recovered).toMatchObject({ appName: '功率恢复通知', content: `${d.deviceName} 功率回落到 40` });
        expect(await journalOf(s, id)).toHaveLength(1);
    });
});
