import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestServer, TEST_ADMIN_PASSWORD, type TestServer } from '../../server/testing';
import { call } from './support';

/** A clock the tests move: sessions and the sign-in slowdown read it. */
let clock = new Date('2026-01-01T00:00:00Z').getTime();
let s: TestServer;

beforeAll(async () => {
    s = await createTestServer({
        seed: false,
        now: () => new Date(clock),
        clientIp: (c) => c.req.header('x-test-ip') ?? '10.0.0.1',
    });
});
afterAll(() => s?.close());

function login(
    username: string,
    password: string,
    extra: Record<string, string> = {},
    ip = '10.0.0.1',
    headers: Record<string, string> = {},
) {
    return s.anonFetch('/sso/login', {
        method: 'POST',
        body: new URLSearchParams({ username, password, ...extra }),
        headers: { 'x-test-ip': ip, ...headers },
        redirect: 'manual',
    });
}

const tokenOf = (res: Response) => /^Authorization=([^;]+);/.exec(res.headers.get('set-cookie') ?? '')?.[1];

describe('the sign-on page', () => {
    it('is a self-contained Chinese page that keeps only a same-origin redirect', async () => {
        const res = await s.anonFetch('/sso/login?redirect=/productDetail/view%3FproductId%3D1');
        expect(res.status).toBe(200);
        expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
        const html = await res.text();
        expect(html).toContain('物联网设备接入管理平台');
        expect(html).toContain('name="redirect" value="/productDetail/view?productId=1"');
        expect(html).not.toMatch(/<script|https?:\/\//i);
        for (const bad of ['//evil.example', 'https://evil.example/', '/\\evil.example', 'javascript:alert(1)']) {
            const page = await (await s.anonFetch(`/sso/login?redirect=${encodeURIComponent(bad)}`)).text();
            expect(page, bad).toContain('name="redirect" value="/"');
        }
        const injected = await (await s.anonFetch(`/sso/login?redirect=${encodeURIComponent('/x"><script>')}`)).text();
        expect(injected).not.toContain('<script>');
    });
});

describe('signing in', () => {
    it('sets the session cookie and redirects to the given path', async () => {
        const res = await login('admin', TEST_ADMIN_PASSWORD, { redirect: '/product?x=1' });
        expect(res.status).toBe(302);
        expect(res.headers.get('location')).toBe('/product?x=1');
        const cookie = res.headers.get('set-cookie')!;
        expect(cookie).toMatch(/^Authorization=[A-Za-z0-9_-]{43}; HttpOnly; SameSite=Lax; Path=\/; Max-Age=86400$/);
        const token = tokenOf(res)!;
        for (const headers of <Array<Record<string, string>>>[
            { cookie: `Authorization=${token}` },
            { authorization: token },
            { authorization: `Bearer ${token}` },
        ]) {
            const me = await call(s, 'GET', '/api/sso/getUserInfo', { anonymous: true, headers });
            expect(me.body, JSON.stringify(headers)).toEqual({
                code: 200,
                msg: 'success',
                data: {
                    userInfo: { userId: expect.any(Number), userName: '管理员', loginName: 'admin' },
                    mobilePhone: '13800138000',
                    code: 'U000001',
                    role: { id: 1, name: '管理员', admin: true },
                    rights: expect.arrayContaining(['device.delete', 'project.create']),
                    projectIds: null,
                },
            });
        }
    });

    it('redirects only to a path on this origin', async () => {
        for (const redirect of [
            '//evil.example/x',
            'https://evil.example/',
            '/\\evil.example',
            '/\t/evil.example',
            'product',
        ]) {
            const res = await login('admin', TEST_ADMIN_PASSWORD, { redirect });
            expect(res.headers.get('location'), redirect).toBe('/');
        }
    });

    it('re-renders the page with 用户名或密码错误 (401) for a wrong password or an unknown user', async () => {
        for (const [u, p] of [
            ['admin', 'wrong-password'],
            ['nobody', TEST_ADMIN_PASSWORD],
        ]) {
            const res = await login(u, p, {}, `10.1.0.${u.length}`);
            expect(res.status).toBe(401);
            expect(res.headers.get('set-cookie')).toBeNull();
            const html = await res.text();
            expect(html).toContain('用户名或密码错误');
            expect(html).toContain(`value="${u}"`);
        }
        expect((await login('', '')).status).toBe(400);
    });

    it('a wrong token is refused', async () => {
        const answer = await call(s, 'GET', '/api/menu', {
            anonymous: true,
            headers: { authorization: 'Bearer nope' },
        });
        expect(answer.status).toBe(401);
    });
});

describe('slowing down repeated failures', () => {
    it('locks an account for the address that failed 5 times in 15 minutes, doubling the wait each further failure', async () => {
        const user = 'admin';
        // Earlier tests failed for admin once; let that fall out of the 15-minute window.
        clock += 16 * 60_000;
        const stranger = '10.2.0.9';
        for (let i = 0; i < 5; i++) expect((await login(user, 'bad', {}, stranger)).status).toBe(401);
        const locked = await login(user, TEST_ADMIN_PASSWORD, {}, stranger);
        expect(locked.status).toBe(429);
        expect(locked.headers.get('retry-after')).toBe('30');
        expect(await locked.text()).toContain('登录失败次数过多，请 30 秒后再试');

        // The account's owner, from an address with no failures, is not locked out by the stranger.
        expect((await login(user, TEST_ADMIN_PASSWORD, {}, '10.2.1.1')).status).toBe(302);

        clock += 10_000;
        expect(await (await login(user, TEST_ADMIN_PASSWORD, {}, stranger)).text()).toContain('请 20 秒后再试');
        clock += 21_000;
        expect((await login(user, 'bad', {}, stranger)).status).toBe(401);
        expect(await (await login(user, 'bad', {}, stranger)).text()).toContain('请 60 秒后再试');
        clock += 61_000;
        expect((await login(user, 'bad', {}, stranger)).status).toBe(401);
        expect(await (await login(user, 'bad', {}, stranger)).text()).toContain('请 120 秒后再试');

        clock += 121_000;
        const ok = await login(user, TEST_ADMIN_PASSWORD, {}, stranger);
        expect(ok.status).toBe(302);
        // Success clears that address's failures for the account.
        expect((await login(user, 'bad', {}, stranger)).status).toBe(401);
        expect((await login(user, TEST_ADMIN_PASSWORD, {}, stranger)).status).toBe(302);
    });

    it('failures spread over many addresses do not lock the account', async () => {
        clock += 16 * 60_000;
        for (let i = 0; i < 12; i++) expect((await login('admin', 'bad', {}, `10.4.0.${i}`)).status).toBe(401);
        expect((await login('admin', TEST_ADMIN_PASSWORD, {}, '10.4.1.1')).status).toBe(302);
    });

    it('locks an address after 20 failures, whatever the usernames', async () => {
        const ip = '10.3.0.1';
        for (let i = 0; i < 20; i++) expect((await login(`guess${i}`, 'bad', {}, ip)).status).toBe(401);
        const locked = await login('admin', TEST_ADMIN_PASSWORD, {}, ip);
        expect(locked.status).toBe(429);
        expect((await login('admin', TEST_ADMIN_PASSWORD, {}, '10.3.0.2')).status).toBe(302);
        clock += 15 * 60_000;
    });
});

describe('behind TLS', () => {
    it('marks the session cookie Secure, and clears it the same way, when the request came over HTTPS', async () => {
        const https = { 'x-forwarded-proto': 'https' };
        const res = await login('admin', TEST_ADMIN_PASSWORD, {}, '10.6.0.1', https);
        expect(res.headers.get('set-cookie')).toMatch(
            /^Authorization=[A-Za-z0-9_-]{43}; HttpOnly; SameSite=Lax; Path=\/; Secure; Max-Age=86400$/,
        );
        const headers = { authorization: tokenOf(res)!, ...https };
        const out = await call(s, 'GET', '/api/sso/logout', { anonymous: true, headers });
        expect(out.res.headers.get('set-cookie')).toBe(
            'Authorization=; HttpOnly; SameSite=Lax; Path=/; Secure; Max-Age=0',
        );
    });
});

describe('sessions', () => {
    it('ends with logout: the cookie is cleared and the token stops working', async () => {
        const token = tokenOf(await login('admin', TEST_ADMIN_PASSWORD, {}, '10.4.0.1'))!;
        const headers = { authorization: token };
        const out = await call(s, 'GET', '/api/sso/logout', { anonymous: true, headers });
        expect(out.body).toEqual({ code: 200, msg: 'success', data: { loginUrl: '/sso/login?redirect=%2F' } });
        expect(out.res.headers.get('set-cookie')).toBe('Authorization=; HttpOnly; SameSite=Lax; Path=/; Max-Age=0');
        expect((await call(s, 'GET', '/api/menu', { anonymous: true, headers })).status).toBe(401);
    });

    it('expires one day after sign-in', async () => {
        const token = tokenOf(await login('admin', TEST_ADMIN_PASSWORD, {}, '10.5.0.1'))!;
        const headers = { authorization: token };
        clock += 24 * 3600_000 - 1000;
        expect((await call(s, 'GET', '/api/menu', { anonymous: true, headers })).status).toBe(200);
        clock += 2000;
        expect((await call(s, 'GET', '/api/menu', { anonymous: true, headers })).status).toBe(401);
    });

    it('points the 401 login URL back at the calling page when it is on this origin', async () => {
        const referer = (value: string) =>
            call(s, 'GET', '/api/product', { anonymous: true, headers: { referer: value } }).then(
                (a) => (a.body.data as { loginUrl: string }).loginUrl,
            );
        expect(await referer('http://localhost/productDetail/view?productId=1')).toBe(
            '/sso/login?redirect=%2FproductDetail%2Fview%3FproductId%3D1',
        );
        expect(await referer('https://evil.example/phish')).toBe('/sso/login?redirect=%2F');
        expect(await referer('not a url')).toBe('/sso/login?redirect=%2F');
    });
});
