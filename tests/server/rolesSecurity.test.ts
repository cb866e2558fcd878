// @vitest-environment node
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_ROLE_ID, READONLY_ROLE_ID } from '../../schemas/rights';
import { createTestServer, type TestServer } from '../../server/testing';
import { call, form } from './support';
import { as, json, makeUser, signIn } from './rolesSupport';

let s: TestServer;

beforeAll(async () => {
    s = await createTestServer({
        seed: false,
        clientIp: (c) => c.req.header('x-test-ip') ?? 'unknown',
    });
});
afterAll(() => s?.close());

type History = {
    data: { records: Array<{ username: string; address: string; success: boolean; result: string; time: string }> };
};

describe('people', () => {
    it('creates a user who signs in, with the shared rules on mobile and password', async () => {
        const bad = await call(
            s,
            'POST',
            '/api/users/save',
            form({
                displayName: '甲',
                username: 'user_a',
                mobile: '12345678901',
                password: 'Passw0rd',
                roleId: READONLY_ROLE_ID,
            }),
        );
        expect(bad.status).toBe(400);
        expect(bad.body).toMatchObject({ msg: '请输入正确的手机号' });
        const short = await call(
            s,
            'POST',
            '/api/users/save',
            form({
                displayName: '甲',
                username: 'user_a',
                mobile: '13912345678',
                password: '12345',
                roleId: READONLY_ROLE_ID,
            }),
        );
        expect(short.body).toMatchObject({ msg: '密码长度不能少于6位' });
        const user = await makeUser(s, { username: 'user_a', roleId: READONLY_ROLE_ID });
        expect((await as(s, user.token)('/api/sso/getUserInfo')).status).toBe(200);
        const again = await call(
            s,
            'POST',
            '/api/users/save',
            form({
                displayName: '乙',
                username: 'user_a',
                mobile: '13912345678',
                password: 'Passw0rd',
                roleId: READONLY_ROLE_ID,
            }),
        );
        expect(again.status).toBe(409);
        // Staff candidates of projects are these users.
        const candidates = await json<{ data: { list: Array<{ loginName: string }> } }>(s.fetch('/api/user/listAll'));
        expect(candidates.data.list.map((u) => u.loginName)).toContain('user_a');
    });

    it('resets a password: the new one is answered once, works, and ends the old sessions', async () => {
        const user = await makeUser(s, { username: 'user_b', roleId: READONLY_ROLE_ID });
        const reset = await call<{ data: { password: string } }>(
            s,
            'POST',
            '/api/users/resetPassword',
            form({ id: user.id }),
        );
        expect(reset.status).toBe(200);
        expect(reset.body.data.password.length).toBeGreaterThanOrEqual(6);
        expect((await as(s, user.token)('/api/sso/getUserInfo')).status).toBe(401);
        expect((await signIn(s, 'user_b', user.password)).status).toBe(401);
        expect((await signIn(s, 'user_b', reset.body.data.password)).token).toBeTruthy();
    });

    it('disables a user: their sessions end and they cannot sign in until enabled again', async () => {
        const user = await makeUser(s, { username: 'user_c', roleId: READONLY_ROLE_ID });
        expect((await call(s, 'POST', '/api/users/enable', form({ id: user.id, enabled: 0 }))).status).toBe(200);
        expect((await as(s, user.token)('/api/menu')).status).toBe(401);
        const refused = await signIn(s, 'user_c', user.password);
        expect(refused.status).toBe(401);
        expect(refused.text).toContain('账号已停用，请联系管理员');
        expect((await call(s, 'POST', '/api/users/enable', form({ id: user.id, enabled: 1 }))).status).toBe(200);
        expect((await signIn(s, 'user_c', user.password)).token).toBeTruthy();
    });
});

describe('the security centre', () => {
    it('locks an account out on one address after 5 wrong passwords, and says so in the history', async () => {
        const user = await makeUser(s, { username: 'user_lock', roleId: READONLY_ROLE_ID });
        for (let i = 0; i < 5; i++) expect((await signIn(s, 'user_lock', 'wrong-pass', '10.9.9.9')).status).toBe(401);
        const locked = await signIn(s, 'user_lock', user.password, '10.9.9.9');
        expect(locked.status).toBe(429);
        expect(locked.text).toMatch(/登录失败次数过多，请 \d+ 秒后再试/);
        // The owner elsewhere is not locked out.
        expect((await signIn(s, 'user_lock', user.password, '10.1.1.1')).token).toBeTruthy();

        const history = await json<History>(s.fetch('/api/security/loginHistory?username=user_lock&pageSize=20'));
        const results = history.data.records.map((r) => `${r.address} ${r.result}`);
        expect(results.slice(0, 2)).toEqual(['10.1.1.1 登录成功', '10.9.9.9 登录失败次数过多']);
        expect(results.filter((r) => r === '10.9.9.9 用户名或密码错误')).toHaveLength(5);
        expect(history.data.records[0].time).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);

        const settings = await json<{ data: { lockout: { threshold: number }; password: { minLength: number } } }>(
            as(s, user.token)('/api/security/settings'),
        );
        expect(settings.data).toMatchObject({ lockout: { threshold: 5 }, password: { minLength: 6 } });
    });

    it('lists active sessions and revokes one: its next call answers 401', async () => {
        const user = await makeUser(s, { username: 'user_rev', roleId: READONLY_ROLE_ID });
        const list = await json<{
            data: { records: Array<{ id: number; username: string; current: boolean; address: string }> };
        }>(s.fetch('/api/security/sessions?pageSize=100'));
        const theirs = list.data.records.find((r) => r.username === 'user_rev')!;
        expect(theirs).toMatchObject({ current: false, address: '10.0.0.1' });
        expect(list.data.records.some((r) => r.current && r.username === 'admin')).toBe(true);
        expect((await call(s, 'POST', '/api/security/revokeSession', form({ id: theirs.id }))).status).toBe(200);
        expect((await as(s, user.token)('/api/menu')).status).toBe(401);
        expect((await call(s, 'POST', '/api/security/revokeSession', form({ id: theirs.id }))).status).toBe(404);
    });

    it('changes the own password: the other sessions end, this one stays', async () => {
        const user = await makeUser(s, { username: 'user_pw', roleId: READONLY_ROLE_ID });
        const other = (await signIn(s, 'user_pw', user.password)).token!;
        const mine = as(s, user.token);
        const wrong = await mine('/api/sso/changePassword', {
            method: 'POST',
            body: new URLSearchParams({
                oldPassword: 'nope-nope',
                newPassword: 'NewPass_2',
                confirmPassword: 'NewPass_2',
            }),
        });
        expect(await json(wrong)).toMatchObject({ code: 400, msg: '原密码错误' });
        const mismatch = await mine('/api/sso/changePassword', {
            method: 'POST',
            body: new URLSearchParams({
                oldPassword: user.password,
                newPassword: 'NewPass_2',
                confirmPassword: 'NewPass_3',
            }),
        });
        expect(await json(mismatch)).toMatchObject({ msg: '两次输入的密码不一致，请重新输入！' });
        const changed = await mine('/api/sso/changePassword', {
            method: 'POST',
            body: new URLSearchParams({
                oldPassword: user.password,
                newPassword: 'NewPass_2',
                confirmPassword: 'NewPass_2',
            }),
        });
        expect(await json(changed)).toMatchObject({ code: 200, data: { endedSessions: 1 } });
        expect((await as(s, other)('/api/menu')).status).toBe(401);
        expect((await mine('/api/menu')).status).toBe(200);
        expect((await signIn(s, 'user_pw', 'NewPass_2')).token).toBeTruthy();

        const profile = await mine('/api/sso/updateProfile', {
            method: 'POST',
            body: new URLSearchParams({ displayName: '新名字', mobile: '13700001234' }),
        });
        expect(await json(profile)).toMatchObject({ data: { userName: '新名字', mobile: '13700001234' } });
        const me = await json<{ data: { userInfo: { userName: string }; mobilePhone: string } }>(
            mine('/api/sso/getUserInfo'),
        );
        expect(me.data).toMatchObject({ userInfo: { userName: '新名字' }, mobilePhone: '13700001234' });
    });

    it('signs out on the server: the token stops working', async () => {
        const user = await makeUser(s, { username: 'user_out', roleId: READONLY_ROLE_ID });
        expect((await as(s, user.token)('/api/sso/logout')).status).toBe(200);
        expect((await as(s, user.token)('/api/menu')).status).toBe(401);
    });
});

// Last: the original administrator is deleted here, and with it the session s.fetch uses.
describe('administrators', () => {
    it('keeps one enabled administrator: the last cannot be demoted, disabled or deleted', async () => {
        const me = await json<{ data: { userInfo: { userId: number } } }>(s.fetch('/api/sso/getUserInfo'));
        const adminId = me.data.userInfo.userId;
        const demote = await call(
            s,
            'POST',
            '/api/users/update',
            form({ id: adminId, displayName: '管理员', mobile: '13800138000', roleId: READONLY_ROLE_ID }),
        );
        expect(demote.body).toMatchObject({ msg: '至少需要保留一名启用的管理员' });
        // A second administrator may delete the first while both exist; then the second is the last one.
        const second = await makeUser(s, { username: 'admin_two', roleId: ADMIN_ROLE_ID });
        const third = await makeUser(s, { username: 'admin_three', roleId: ADMIN_ROLE_ID });
        expect((await call(s, 'POST', '/api/users/enable', form({ id: third.id, enabled: 0 }))).status).toBe(200);
        const bySecond = as(s, second.token);
        const removed = await bySecond(`/api/users/delete?id=${adminId}`, { method: 'DELETE' });
        expect(removed.status).toBe(200);
        const last = await bySecond(`/api/users/update`, {
            method: 'POST',
            body: new URLSearchParams({
                id: String(second.id),
                displayName: '二号',
                mobile: '13800138001',
                roleId: String(READONLY_ROLE_ID),
            }),
        });
        expect(await json(last)).toMatchObject({ msg: '至少需要保留一名启用的管理员' });
        const self = await bySecond(`/api/users/delete?id=${second.id}`, { method: 'DELETE' });
        expect(await json(self)).toMatchObject({ msg: '不能删除当前登录的账号' });
    });
});
