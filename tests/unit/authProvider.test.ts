import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createAuthProvider } from '../../src/auth/authProvider';
import { createDataProvider } from '../../dataProvider';
import { fakeFetch } from './fakeFetch';
import { products } from './dataProvider.fixtures';

let store: Map<string, string>;

beforeEach(() => {
    store = new Map();
    vi.stubGlobal('localStorage', {
        getItem: (k: string) => store.get(k) ?? null,
        setItem: (k: string, v: string) => void store.set(k, String(v)),
        removeItem: (k: string) => void store.delete(k),
    });
    vi.stubGlobal('location', {
        origin: 'https://iot.example.com',
        pathname: '/console/',
        search: '?tab=1',
        hash: '#/product',
        assign: vi.fn(),
    });
});

afterEach(() => vi.unstubAllGlobals());

const expired = {
    status: 401,
    body: { code: 401, msg: '登录已过期，请重新登录', data: { loginUrl: '/sso/login?redirect=/api/product' } },
};

describe('checkError', () => {
    it('sends a 401 from the data provider to the absolute login URL, back to the current page', async () => {
        const f = fakeFetch(() => expired);
        const dp = createDataProvider([products], { prefix: '', fetch: f.fetch });
        const error = await dp
            .getList('products', {
                pagination: { page: 1, perPage: 10 },
                sort: { field: 'id', order: 'ASC' },
                filter: {},
            })
            .catch((e) => e);
        store.set('userId', 'u1');
        const auth = createAuthProvider({ prefix: '', fetch: f.fetch });
        const rejection = await auth.checkError(error).then(
            () => undefined,
            (e) => e,
        );
        expect(rejection).toBeDefined();
        expect(rejection.message).toBe(false);
        const target = new URL(rejection.redirectTo);
        expect(rejection.redirectTo.startsWith('https://iot.example.com/sso/login?')).toBe(true);
        expect(target.searchParams.get('redirect')).toBe('/console/?tab=1#/product');
        expect(store.has('userId')).toBe(false);
    });

    it('keeps an absolute login URL from the server and uses the default when none is given', async () => {
        const auth = createAuthProvider({ prefix: '/console', fetch: fakeFetch().fetch });
        const absolute = await auth
            .checkError({ status: 401, body: { data: { loginUrl: 'https://sso.example.com/login' } } })
            .catch((e) => e);
        expect(absolute.redirectTo).toBe(
            `https://sso.example.com/login?redirect=${encodeURIComponent('/console/?tab=1#/product')}`,
        );
        const fallback = await auth.checkError({ status: 401, body: 'not json' }).catch((e) => e);
        expect(new URL(fallback.redirectTo).pathname).toBe('/console/sso/login');
    });

    it('keeps the session on 403: a refused right is an error message, not a sign-out', async () => {
        const auth = createAuthProvider({ prefix: '', fetch: fakeFetch().fetch });
        await expect(auth.checkError({ status: 403, body: { code: 403, msg: '无权限' } })).resolves.toBeUndefined();
    });

    it('lets every other error through', async () => {
        const auth = createAuthProvider({ prefix: '', fetch: fakeFetch().fetch });
        for (const status of [0, 200, 400, 404, 408, 500])
            await expect(auth.checkError({ status })).resolves.toBeUndefined();
        await expect(auth.checkError(new Error('x'))).resolves.toBeUndefined();
    });
});

describe('identity', () => {
    const userInfo = {
        code: 200,
        msg: 'success',
        data: {
            userInfo: { userId: 'u-7', userName: '张三', loginName: 'zhangsan' },
            mobilePhone: '13800000000',
            code: 'C1',
        },
    };

    it('reads getUserInfo once per session and keeps userId, userName and mobilePhone locally', async () => {
        store.set('Authorization', 'tok');
        const f = fakeFetch(() => ({ body: userInfo }));
        const auth = createAuthProvider({ prefix: '/console', fetch: f.fetch });
        const identity = await auth.getIdentity!();
        expect(identity).toMatchObject({ id: 'u-7', fullName: '张三' });
        await auth.getIdentity!();
        expect(f.calls).toHaveLength(1);
        expect(f.calls[0].url).toBe('/console/api/sso/getUserInfo');
        expect(f.calls[0].headers.get('Authorization')).toBe('tok');
        expect(Object.fromEntries(['userId', 'userName', 'mobilePhone'].map((k) => [k, store.get(k)]))).toEqual({
            userId: 'u-7',
            userName: '张三',
            mobilePhone: '13800000000',
        });
    });

    it("answers the role's rights as permissions (none from a server without roles)", async () => {
        const withRights = { ...userInfo, data: { ...userInfo.data, rights: ['device.create'] } };
        const auth = createAuthProvider({ prefix: '', fetch: fakeFetch(() => ({ body: withRights })).fetch });
        await expect(auth.getPermissions!({})).resolves.toEqual(['device.create']);
        const old = createAuthProvider({ prefix: '', fetch: fakeFetch(() => ({ body: userInfo })).fetch });
        await expect(old.getPermissions!({})).resolves.toBeUndefined();
    });

    it('answers no permissions when the user cannot be read, so the screens still mount and tell an expired session', async () => {
        const expired = {
            status: 401,
            body: { code: 401, msg: '登录已过期，请重新登录', data: { loginUrl: '/sso/login' } },
        };
        const auth = createAuthProvider({ prefix: '', fetch: fakeFetch(() => expired).fetch });
        await expect(auth.getPermissions!({})).resolves.toBeUndefined();
        await expect(auth.getIdentity!()).rejects.toMatchObject({ status: 401 });
    });

    it('asks a visitor without a session for no rights: one /sso/session, no failing getUserInfo', async () => {
        const f = fakeFetch(() => ({
            body: { code: 200, msg: 'success', data: { signedIn: false, loginUrl: '/sso/login' } },
        }));
        const auth = createAuthProvider({ prefix: '', fetch: f.fetch, redirect: () => undefined });
        await expect(auth.getPermissions!({})).resolves.toBeUndefined();
        expect(f.calls.map((c) => new URL(c.url, 'http://x').pathname)).toEqual(['/sso/session']);
    });

    it('does not cache a failure', async () => {
        let n = 0;
        const f = fakeFetch(() => (n++ === 0 ? { body: { code: 500, msg: '系统错误' } } : { body: userInfo }));
        const auth = createAuthProvider({ prefix: '', fetch: f.fetch });
        await expect(auth.getIdentity!()).rejects.toMatchObject({ message: '系统错误' });
        await expect(auth.getIdentity!()).resolves.toMatchObject({ id: 'u-7' });
    });

    it('checkAuth asks /sso/session once a minute while signed in, with no request that fails', async () => {
        const f = fakeFetch(() => ({ body: { code: 200, msg: 'success', data: { signedIn: true } } }));
        const auth = createAuthProvider({ prefix: '/console', fetch: f.fetch });
        await expect(auth.checkAuth({})).resolves.toBeUndefined();
        await expect(auth.checkAuth({})).resolves.toBeUndefined();
        expect(f.calls).toHaveLength(1);
        const sent = new URL(f.calls[0].url, 'https://iot.example.com');
        expect(sent.pathname).toBe('/console/sso/session');
        expect(sent.searchParams.get('redirect')).toBe('/console/?tab=1#/product');
        // A 401 later forgets the confirmation: the next check asks again.
        await auth.checkError(expired).catch(() => undefined);
        await auth.checkAuth({});
        expect(f.calls).toHaveLength(2);
    });

    it('checkAuth sends a visitor without a session to the sign-on page the server names', async () => {
        store.set('userId', 'u1');
        const f = fakeFetch(() => ({
            body: { code: 200, msg: 'success', data: { signedIn: false, loginUrl: '/sso/login?redirect=/' } },
        }));
        const rejection = await createAuthProvider({ prefix: '', fetch: f.fetch })
            .checkAuth({})
            .then(
                () => undefined,
                (e) => e,
            );
        expect(rejection.message).toBe(false);
        const target = new URL(rejection.redirectTo);
        expect(target.origin + target.pathname).toBe('https://iot.example.com/sso/login');
        expect(target.searchParams.get('redirect')).toBe('/console/?tab=1#/product');
        expect(store.has('userId')).toBe(false);
        // react-admin then calls logout: nothing to end on the server, and the way back is kept.
        const auth = createAuthProvider({ prefix: '', fetch: f.fetch });
        const out = await auth.checkAuth({}).catch((e) => e);
        await expect(auth.logout({})).resolves.toBe(out.redirectTo);
        expect(f.calls.filter((c) => c.url.includes('/api/sso/logout'))).toHaveLength(0);
    });

    it('checkAuth lets the console start when /sso/session cannot be asked (the first 401 decides then)', async () => {
        const f = fakeFetch(() => ({ status: 404, text: 'Not Found' }));
        await expect(createAuthProvider({ prefix: '', fetch: f.fetch }).checkAuth({})).resolves.toBeUndefined();
        expect(f.calls).toHaveLength(1);
    });
});

describe("the page's session state (index.html, src/auth/bootState.ts)", () => {
    const user = {
        userInfo: { userId: 'u-9', userName: '张三', loginName: 'zhangsan' },
        mobilePhone: '13800000000',
        code: 'C9',
        rights: ['device:read'],
        role: { id: 2, name: '只读', admin: false },
    };

    it('signed in: the first screen asks neither /sso/session nor getUserInfo; later checks ask the server', async () => {
        const f = fakeFetch(() => ({ body: { code: 200, msg: 'success', data: { signedIn: true } } }));
        const auth = createAuthProvider({ prefix: '', fetch: f.fetch, boot: { signedIn: true, user } });
        await expect(auth.checkAuth({})).resolves.toBeUndefined();
        await expect(auth.getPermissions!({})).resolves.toEqual(['device:read']);
        await expect(auth.checkAuth({})).resolves.toBeUndefined();
        await expect(auth.getIdentity!()).resolves.toMatchObject({
            id: 'u-9',
            fullName: '张三',
            rights: ['device:read'],
            role: { name: '只读' },
        });
        expect(store.get('userName')).toBe('张三');
        expect(f.calls).toHaveLength(0);
        // Taken once: after a 401 the next check and identity are the server's again.
        await auth.checkError(expired).catch(() => undefined);
        await auth.checkAuth({});
        await auth.getIdentity!().catch(() => undefined);
        expect(f.calls.map((c) => new URL(c.url, 'https://x').pathname)).toEqual([
            '/sso/session',
            '/api/sso/getUserInfo',
        ]);
    });

    it('signed out: straight to the sign-on page the page names, no request, however often asked', async () => {
        const f = fakeFetch();
        const auth = createAuthProvider({
            prefix: '',
            fetch: f.fetch,
            boot: { signedIn: false, loginUrl: '/sso/login?redirect=/product' },
        });
        const rejection = await auth.checkAuth({}).catch((e) => e);
        const target = new URL(rejection.redirectTo);
        expect(target.origin + target.pathname).toBe('https://iot.example.com/sso/login');
        expect(target.searchParams.get('redirect')).toBe('/console/?tab=1#/product');
        // react-admin asks again (rights, the next check) as the page leaves: still the page's answer.
        await expect(auth.getPermissions!({})).resolves.toBeUndefined();
        await expect(auth.checkAuth({})).rejects.toMatchObject({ message: false });
        expect(f.calls).toHaveLength(0);
    });
});

describe('login and logout', () => {
    it('logout ends the session, clears the user keys and returns the absolute login URL', async () => {
        for (const k of ['userId', 'userName', 'mobilePhone']) store.set(k, 'x');
        const f = fakeFetch(() => ({ body: { code: 200, data: { loginUrl: '/sso/login?redirect=/' } } }));
        const url = await createAuthProvider({ prefix: '', fetch: f.fetch }).logout({});
        expect(f.last().url).toBe('/api/sso/logout');
        expect(url).toBe('https://iot.example.com/sso/login?redirect=/');
        expect([...store.keys()]).toEqual([]);
    });

    it('logout still leads to the sign-on page when the session is already gone', async () => {
        const f = fakeFetch(() => expired);
        const url = await createAuthProvider({ prefix: '', fetch: f.fetch }).logout({});
        expect(url).toBe('https://iot.example.com/sso/login');
    });

    it('login redirects to the sign-on page and never settles', async () => {
        const redirect = vi.fn();
        const auth = createAuthProvider({ prefix: '', fetch: fakeFetch().fetch, redirect });
        let settled = false;
        auth.login({}).finally(() => (settled = true));
        await new Promise((r) => setTimeout(r, 10));
        expect(redirect).toHaveBeenCalledWith('https://iot.example.com/sso/login?redirect=/');
        expect(settled).toBe(false);
    });

    it('login uses window.location.assign by default', async () => {
        const auth = createAuthProvider({ prefix: '', fetch: fakeFetch().fetch });
        void auth.login({});
        await Promise.resolve();
        expect(globalThis.location.assign).toHaveBeenCalledWith('https://iot.example.com/sso/login?redirect=/');
    });
});
