import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
/* eslint-disable @typescript-eslint/no-explicit-any -- the page's state is checked by value */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { createApp } from '../../server/app';
import type { Db } from '../../server/db/client';
import { users } from '../../server/db/schema';
import { createTestServer, type TestServer } from '../../server/testing';

const publicDir = mkdtempSync(path.join(os.tmpdir(), 'iot-dist-'));
mkdirSync(path.join(publicDir, 'assets'));
writeFileSync(path.join(publicDir, 'index.html'), '<!doctype html><div id="root">console</div>');
writeFileSync(path.join(publicDir, 'assets', 'index-abc123.js'), 'console.log(1)');
writeFileSync(path.join(publicDir, 'favicon.svg'), '<svg/>');

let s: TestServer;
beforeAll(async () => {
    s = await createTestServer({ seed: false, config: { publicDir } });
});
afterAll(() => s?.close());

describe('the built console on the same port', () => {
    it('serves files, with long caching for hashed assets only', async () => {
        const asset = await s.anonFetch('/assets/index-abc123.js');
        expect(asset.status).toBe(200);
        expect(asset.headers.get('content-type')).toMatch(/javascript/);
        expect(asset.headers.get('cache-control')).toContain('immutable');
        expect(await asset.text()).toBe('console.log(1)');
        const icon = await s.anonFetch('/favicon.svg');
        expect(icon.headers.get('cache-control')).toBe('no-cache');
    });

    it('answers index.html for deep links, without a session', async () => {
        for (const p of ['/', '/product', '/productDetail/view?productId=1', '/devices/pk/dev.01']) {
            const res = await s.anonFetch(p);
            expect(res.status, p).toBe(200);
            expect(await res.text(), p).toContain('<div id="root">console</div>');
        }
    });

    it('keeps API and sign-on paths out of the fallback, and 404s a missing asset', async () => {
        expect((await s.anonFetch('/api/nothing')).status).toBe(401);
        const unknown = await s.fetch('/api/nothing');
        expect(await unknown.json()).toEqual({ code: 404, msg: '接口不存在' });
        expect((await s.anonFetch('/assets/old-hash.js')).status).toBe(404);
        expect(await (await s.anonFetch('/sso/login')).text()).toContain('<form');
        expect((await s.anonFetch('/product', { method: 'POST' })).status).toBe(404);
    });

    it('asks for a build when there is no index.html', async () => {
        const app = createApp({ db: {} as Db, config: { ...s.config, publicDir: path.join(publicDir, 'none') } });
        const res = await app.request('/product');
        expect(res.status).toBe(200);
        expect(await res.text()).toContain('npm run build');
    });
});

/** The session state index.html carries (server/sso/shellState.ts), as the console reads it. */
function bootState(html: string): any {
    const m = /<script type="application\/json" id="boot-state">(.*?)<\/script>/s.exec(html);
    return m ? JSON.parse(m[1]) : undefined;
}

describe("the console's page carries the visitor's session state", () => {
    const withHead = mkdtempSync(path.join(os.tmpdir(), 'iot-dist-'));
    writeFileSync(
        path.join(withHead, 'index.html'),
        '<!doctype html><html><head><title>t</title></head><body><div id="root"></div></body></html>',
    );
    let h: TestServer;
    beforeAll(async () => {
        h = await createTestServer({ seed: false, config: { publicDir: withHead } });
        // A name that would end the script element if it were written as markup; set before the session is read.
        await h.db
            .update(users)
            .set({ displayName: '</script><script>alert(1)</script>' })
            .where(eq(users.username, 'admin'));
    });
    afterAll(() => h?.close());

    it('signed in: who, with the same data as getUserInfo, in the head, private to the visitor', async () => {
        for (const p of ['/', '/introduce', '/index.html', '/productDetail/view?productId=1']) {
            const res = await h.fetch(p);
            expect(res.status, p).toBe(200);
            expect(res.headers.get('cache-control'), p).toBe('private, no-cache');
            expect(res.headers.get('vary'), p).toContain('Cookie');
            const html = await res.text();
            expect(html.indexOf('id="boot-state"'), p).toBeLessThan(html.indexOf('</head>'));
            const info = (await (await h.fetch('/api/sso/getUserInfo')).json()) as { data: unknown };
            expect(bootState(html), p).toEqual({ signedIn: true, user: info.data });
        }
    });

    it('writes names as data, never markup', async () => {
        const html = await (await h.fetch('/')).text();
        expect(html).not.toContain('<script>alert(1)');
        expect(bootState(html).user.userInfo.userName).toBe('</script><script>alert(1)</script>');
    });

    it('signed out: where to sign in, coming back to the page asked', async () => {
        const html = await (await h.anonFetch('/product?page=2')).text();
        const state = bootState(html);
        expect(state.signedIn).toBe(false);
        expect(state.user).toBeUndefined();
        expect(new URL(state.loginUrl, 'http://x').searchParams.get('redirect')).toBe('/product?page=2');
    });
});

describe('unexpected errors', () => {
    const broken = new Proxy({} as Db, {
        get: () => {
            throw new Error('database is down');
        },
    });

    it.each([
        ['/api/menu', { code: 500, msg: '系统错误' }],
        ['/ms3/productLog/find', { code: '999999', msg: '系统错误' }],
    ])('%s answers 500 in its envelope and logs the error', async (p, body) => {
        const logged: unknown[] = [];
        const app = createApp({ db: broken, config: s.config, logError: (_m, err) => logged.push(err) });
        const res = await app.request(p, {
            method: p.startsWith('/ms3') ? 'POST' : 'GET',
            headers: { authorization: 'x' },
        });
        expect(res.status).toBe(500);
        expect(await res.json()).toEqual(body);
        expect(String(logged[0])).toContain('database is down');
    });
});
