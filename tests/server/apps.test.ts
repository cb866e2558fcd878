import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestServer, type TestServer } from '../../server/testing';
import { call, form, rowCounts } from './support';

/** Apps: /appconfig publishes (上架), lists and deletes; /applymanage activates, uses, adds alarms; the dashboard counts them. */
let s: TestServer;
beforeAll(async () => {
    s = await createTestServer();
});
afterAll(() => s?.close());

type Json = Record<string, unknown>;
const data = (answer: { body: unknown }) => (answer.body as { data: Json }).data;
const counts = async () => data(await call(s, 'GET', '/api/dashboard/count'));

describe('apps', () => {
    it('publishes an app that is then listed, found by name, and counted once activated and used', async () => {
        const before = await counts();
        const saved = await call(
            s,
            'POST',
            '/api/app/save',
            form({ name: '<b>巡检</b>助手', domain: '智慧城市', description: '巡检工单' }),
        );
        expect(saved.status).toBe(200);
        const app = data(saved);
        expect(app).toMatchObject({ name: '<b>巡检</b>助手', domain: '智慧城市', publishStatus: 1, activeStatus: 0 });

        const found = data(await call(s, 'GET', `/api/app/list?name=${encodeURIComponent('巡检')}`));
        expect((found.records as Json[]).map((r) => r.name)).toEqual(['<b>巡检</b>助手']);

        // Not activated: cannot be used, and counts as neither used nor to use.
        const refused = await call(s, 'POST', '/api/app/use', form({ id: Number(app.id), useStatus: 1 }));
        expect(refused.status).toBe(400);
        expect(refused.body).toMatchObject({ msg: '应用未激活，不能启用' });
        expect(await counts()).toMatchObject({
            appUsedCount: before.appUsedCount,
            appToUseCount: before.appToUseCount,
        });

        await call(s, 'POST', '/api/app/activate', form({ id: Number(app.id), activeStatus: 1 }));
        expect(await counts()).toMatchObject({ appToUseCount: Number(before.appToUseCount) + 1 });
        const used = data(await call(s, 'POST', '/api/app/use', form({ id: Number(app.id), useStatus: 1 })));
        expect(used.recentTime).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
        expect(await counts()).toMatchObject({
            appUsedCount: Number(before.appUsedCount) + 1,
            appToUseCount: before.appToUseCount,
        });

        // Withdrawn (下架): out of use and out of the counts.
        await call(s, 'POST', '/api/app/publish', form({ id: Number(app.id), publishStatus: 0 }));
        expect(await counts()).toMatchObject({
            appUsedCount: before.appUsedCount,
            appToUseCount: before.appToUseCount,
        });
        const published = data(await call(s, 'GET', '/api/app/list?publishStatus=1&pageSize=100'));
        expect((published.records as Json[]).some((r) => r.id === app.id)).toBe(false);
    });

    it('adds an alarm notification to an app, checking the receiver by the way it is sent', async () => {
        const app = data(await call(s, 'POST', '/api/app/save', form({ name: '告警测试', domain: '工业互联网' })));
        const bad = await call(
            s,
            'POST',
            '/api/app/alarm/save',
            form({ appId: Number(app.id), name: '高温', level: 1, notifyType: 'email', receiver: '12345' }),
        );
        expect(bad.status).toBe(400);
        expect(bad.body).toMatchObject({ msg: '请输入正确的邮箱地址' });
        const notUrl = await call(
            s,
            'POST',
            '/api/app/alarm/save',
            form({ appId: Number(app.id), name: '高温', level: 1, notifyType: 'dingtalk', receiver: 'ftp://x' }),
        );
        expect(notUrl.body).toMatchObject({ msg: '请输入以 http:// 或 https:// 开头的地址' });
        // 短信 is no longer offered: the platform has no SMS gateway to send it through.
        const sms = await call(
            s,
            'POST',
            '/api/app/alarm/save',
            form({ appId: Number(app.id), name: '高温', level: 1, notifyType: 'sms', receiver: '13912345678' }),
        );
        expect(sms.body).toMatchObject({ msg: '请选择通知方式' });
        const okAnswer = await call(
            s,
            'POST',
            '/api/app/alarm/save',
            form({ appId: Number(app.id), name: '高温', level: 1, notifyType: 'email', receiver: 'ops@example.com' }),
        );
        expect(okAnswer.status).toBe(200);
        const alarms = (await call(s, 'GET', `/api/app/alarm/list?appId=${String(app.id)}`)).body as { data: Json[] };
        expect(alarms.data).toMatchObject([
            { name: '高温', level: 1, notifyType: 'email', receiver: 'ops@example.com' },
        ]);
        const listed = data(await call(s, 'GET', `/api/app/list?name=${encodeURIComponent('告警测试')}`));
        expect((listed.records as Json[])[0].alarmCount).toBe(1);
        // Deleting the app removes its alarms.
        expect((await call(s, 'DELETE', `/api/app/delete?id=${String(app.id)}`)).status).toBe(200);
        expect((await call(s, 'DELETE', `/api/app/delete?id=${String(app.id)}`)).status).toBe(404);
    });

    it.each([
        [{ name: '', domain: '智慧城市' }, '请输入应用名称'],
        [{ name: '应用', domain: '火星' }, '请选择应用领域'],
        [{ name: 'x'.repeat(31), domain: '智慧城市' }, '应用名称不得超过30个字符'],
    ])('refuses %j with its message and writes nothing', async (body, msg) => {
        const before = await rowCounts(s.db);
        const answer = await call(s, 'POST', '/api/app/save', form(body));
        expect(answer.status).toBe(400);
        expect(answer.body).toMatchObject({ msg });
        expect(await rowCounts(s.db)).toEqual(before);
    });
});
