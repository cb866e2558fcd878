import { expect } from 'vitest';
import type { TestServer } from '../../server/testing';
import { call, form } from './support';

export const tokenOf = (res: Response) => /^Authorization=([^;]+);/.exec(res.headers.get('set-cookie') ?? '')?.[1];

/** Signs in on the sign-on page; answers the session token, or undefined with the page's status. */
export async function signIn(s: TestServer, username: string, password: string, ip = '10.0.0.1') {
    const res = await s.anonFetch('/sso/login', {
        method: 'POST',
        headers: { 'x-test-ip': ip, 'user-agent': 'roles-test' },
        body: new URLSearchParams({ username, password, redirect: '/' }),
    });
    return { status: res.status, token: tokenOf(res), text: await res.text() };
}

/** A user made by the administrator through /api/users/save, signed in. */
export async function makeUser(
    s: TestServer,
    opts: { username: string; roleId: number; password?: string; projectCodes?: string[] },
) {
    const password = opts.password ?? 'Passw0rd_1';
    const saved = await call<{ data: { id: number } }>(
        s,
        'POST',
        '/api/users/save',
        form({
            displayName: `测试${opts.username}`,
            username: opts.username,
            mobile: '13900001111',
            password,
            roleId: opts.roleId,
        }),
    );
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    const id = saved.body.data.id;
    if (opts.projectCodes?.length) {
        const added = await call(
            s,
            'POST',
            '/api/project-user/addUser',
            form({ list: JSON.stringify(opts.projectCodes.map((projectCode) => ({ projectCode, userId: id }))) }),
        );
        expect(added.status).toBe(200);
    }
    const { token } = await signIn(s, opts.username, password);
    expect(token).toBeTruthy();
    return { id, password, token: token! };
}

/** app.fetch with the given session. */
export function as(s: TestServer, token: string) {
    return (target: string, init: RequestInit = {}) => {
        const headers = new Headers(init.headers);
        headers.set('cookie', `Authorization=${token}`);
        return s.anonFetch(target, { ...init, headers });
    };
}

export async function json<T = Record<string, unknown>>(res: Response | Promise<Response>): Promise<T> {
    return (await (await res).json()) as T;
}
