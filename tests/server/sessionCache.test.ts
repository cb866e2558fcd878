import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestServer, TEST_ADMIN_PASSWORD, type TestServer } from '../../server/testing';
import { SESSION_SECONDS } from '../../server/sso/sessions';

let s: TestServer;
let clock = Date.now();
beforeAll(async () => {
    s = await createTestServer({ seed: false, now: () => new Date(clock) });
});
afterAll(() => s?.close());

async function signIn(): Promise<string> {
    const res = await s.anonFetch('/sso/login', {
        method: 'POST',
        body: new URLSearchParams({ username: 'admin', password: TEST_ADMIN_PASSWORD }),
    });
    expect(res.status).toBe(302);
    return res.headers.get('set-cookie')!.split(';')[0];
}

const menu = (cookie: string) => s.anonFetch('/api/menu', { headers: { cookie } });

describe('sessions read once and kept briefly', () => {
    it('ends a session at logout at once, although it was cached a moment before', async () => {
        const cookie = await signIn();
        expect((await menu(cookie)).status).toBe(200);
        expect((await menu(cookie)).status).toBe(200);
        const out = await s.anonFetch('/api/sso/logout', { headers: { cookie } });
        expect(out.status).toBe(200);
        expect((await menu(cookie)).status).toBe(401);
    });

    it('reads a session once for a burst of calls that all find it uncached', async () => {
        const cookie = await signIn();
        const select = vi.spyOn(s.db, 'select');
        try {
            const answers = await Promise.all(Array.from({ length: 20 }, () => menu(cookie)));
            expect(answers.map((r) => r.status)).toEqual(Array(20).fill(200));
            // The session with its user and role, then the user's projects: one read of each for all twenty calls.
            expect(select).toHaveBeenCalledTimes(2);
        } finally {
            select.mockRestore();
        }
    });

    it('ends a session at logout while a read of it is under way', async () => {
        const cookie = await signIn();
        const reading = menu(cookie);
        const out = await s.anonFetch('/api/sso/logout', { headers: { cookie } });
        expect(out.status).toBe(200);
        await reading;
        expect((await menu(cookie)).status).toBe(401);
    });

    it('refuses a forged token and does not keep it', async () => {
        for (let i = 0; i < 2; i++) expect((await menu('Authorization=forged-token')).status).toBe(401);
    });

    it('lets a cached session expire on time', async () => {
        const cookie = await signIn();
        expect((await menu(cookie)).status).toBe(200);
        clock += SESSION_SECONDS * 1000 + 1000;
        expect((await menu(cookie)).status).toBe(401);
    });
});

describe('GET /sso/session', () => {
    it('answers 200 either way: signed in, or not with the sign-on URL coming back to the page asked', async () => {
        const cookie = await signIn();
        const inside = await s.anonFetch('/sso/session', { headers: { cookie } });
        expect(inside.status).toBe(200);
        expect(inside.headers.get('cache-control')).toBe('no-store');
        expect(await inside.json()).toEqual({ code: 200, msg: 'success', data: { signedIn: true } });

        const outside = await s.anonFetch(`/sso/session?redirect=${encodeURIComponent('/product?page=2')}`);
        expect(outside.status).toBe(200);
        expect(await outside.json()).toEqual({
            code: 200,
            msg: 'success',
            data: { signedIn: false, loginUrl: `/sso/login?redirect=${encodeURIComponent('/product?page=2')}` },
        });
    });

    it('keeps the way back on this site', async () => {
        const res = await s.anonFetch(`/sso/session?redirect=${encodeURIComponent('//evil.example.com/x')}`);
        expect(((await res.json()) as { data: { loginUrl: string } }).data.loginUrl).toBe('/sso/login?redirect=%2F');
    });
});
